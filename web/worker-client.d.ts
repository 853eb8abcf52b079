export interface WorkerRun<T> {
  /** Resolves when the task ends: value is the task's result; stopped is true if stop() cut it short. Rejects with HeadlabError. */
  /** updatesAfterStop: progress messages the worker posted after it read the stop (0 when not stopped). */
  promise: Promise<{ value: T; stopped: boolean; updatesAfterStop: number }>;
  /** Asks the task to stop at its next chunk boundary (one progress update at most). */
  stop(): void;
}
/** One dedicated module worker (headlab-worker.js beside the bundle). Terminate it when the owner is removed. */
export class WorkerClient {
  constructor();
  run<T = unknown>(kind: string, params: unknown, onProgress?: (detail: Record<string, unknown>) => void): WorkerRun<T>;
  /** Why the worker is unusable (it failed to load or crashed), or null while it works. */
  readonly failure: string | null;
  /** Ends the worker; a run still in it rejects (its port closed, its listeners removed), and so does any later run. */
  terminate(): void;
}

export interface WorkerJobHandlers<T> {
  progress?(detail: Record<string, unknown>): void;
  done?(result: { value: T; stopped: boolean; updatesAfterStop: number }): void;
  failed?(error: Error): void;
}
/**
 * One worker and at most one current job; a superseded or disposed job's callbacks are dropped.
 * With an `owner` element, start() while the owner is off the page makes no worker (the job fails).
 */
export class WorkerJobs {
  constructor(owner?: Element | null);
  /** The worker of the jobs (null before the first start() and after dispose()); start() replaces a failed one. */
  readonly client: WorkerClient | null;
  /** Stops the current job (if any) and starts `kind` with `params`. */
  start<T = unknown>(kind: string, params: unknown, handlers?: WorkerJobHandlers<T>): void;
  /** True from start() until the job's done() or failed(). */
  readonly running: boolean;
  /** Asks the running job to stop at its next chunk boundary; done() still arrives with stopped = true. */
  stop(): void;
  /** Workers made so far: what a job gave worker g is held there only while generation is g. */
  readonly generation: number;
  /**
   * Runs `kind` beside the current job in the same worker, neither stopping nor superseding it (a
   * request to what the worker holds); `params` may be a function called as the job is posted.
   */
  request<T = unknown>(kind: string, params: unknown | ((jobs: WorkerJobs) => unknown), handlers?: WorkerJobHandlers<T>): void;
  /** Drops the current job's callbacks and terminates the worker (a request still running fails); start() afterwards makes a new one. */
  dispose(): void;
}

/**
 * One worker shared by many callers: jobs run one at a time in the order asked. The worker is
 * made at the first job and ended by dispose(); `generation` counts the workers made (what was
 * given to one is held only while it is current). `params` may be a function called at the job's start.
 */
export class WorkerHost {
  constructor(owner?: Element | null);
  readonly client: WorkerClient | null;
  readonly generation: number;
  start<T = unknown>(kind: string, params: unknown | ((host: WorkerHost) => unknown), handlers?: WorkerJobHandlers<T>): void;
  /** Whether a job is running or waiting. */
  readonly running: boolean;
  /** Ends the worker; the running job and the waiting ones fail. */
  dispose(): void;
}
