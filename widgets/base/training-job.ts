// A widget's training run in the worker (the worker task of docs/model-pattern.md): the status
// every training widget shows (idle → training → done | stopped | failed), the failure message
// and the job (web/worker-client.js), for the three training widgets: feature recovery, the
// max-digit model panel and the transformer trainer.
import { WorkerJobs, type WorkerJobHandlers } from '../../web/worker-client.js';

export type TrainingStatus = 'idle' | 'training' | 'done' | 'stopped' | 'failed';

export class TrainingJob {
  status: TrainingStatus = 'idle';
  /** The worker's message when status is 'failed'. */
  failure = '';
  private readonly jobs: WorkerJobs;

  /**
   * owner: the widget (no worker is started while it is off the page; see WorkerJobs);
   * announce: its live region; render: its requestRender.
   */
  constructor(
    owner: Element,
    private readonly announce: (text: string) => void,
    private readonly render: () => void,
  ) {
    this.jobs = new WorkerJobs(owner);
  }

  /**
   * Starts `kind` (stopping a running job). done() runs with status already 'done' or 'stopped'
   * (a widget may refine it); a failure sets 'failed', announces the message, renders, then
   * calls handlers.failed when given (a widget running several jobs ends the others).
   */
  start<T>(
    kind: string,
    params: unknown,
    handlers: Required<Pick<WorkerJobHandlers<T>, 'progress' | 'done'>> & Pick<WorkerJobHandlers<T>, 'failed'>,
  ): void {
    this.status = 'training';
    this.failure = '';
    this.jobs.start<T>(kind, params, {
      progress: handlers.progress,
      done: (end) => {
        this.status = end.stopped ? 'stopped' : 'done';
        handlers.done(end);
      },
      failed: (err) => {
        this.status = 'failed';
        this.failure = err.message;
        this.announce(`Training failed: ${err.message}`);
        this.render();
        handlers.failed?.(err);
      },
    });
  }

  /**
   * Runs `kind` in the training worker beside the running job (web/worker-client.js
   * WorkerJobs.request): a figure's request to the model the worker keeps. `params` may be a
   * function of the worker's generation, called as the job is posted.
   */
  request<T>(kind: string, params: unknown | ((generation: number) => unknown), handlers: WorkerJobHandlers<T>): void {
    this.jobs.request<T>(kind, typeof params === 'function' ? (jobs: WorkerJobs) => params(jobs.generation) : params, handlers);
  }

  /** The worker the next job or request goes to, by its generation (WorkerJobs.generation; 0 before the first). */
  get generation(): number {
    return this.jobs.generation;
  }

  /** Asks the running job to stop at its next chunk (its done() still arrives); false when none runs. */
  stop(): boolean {
    if (this.status !== 'training' || !this.jobs.running) return false;
    this.jobs.stop();
    return true;
  }

  /** Ends the worker (the element left the page); a run in progress counts as stopped. */
  dispose(): void {
    this.jobs.dispose();
    if (this.status === 'training') this.status = 'stopped';
  }
}
