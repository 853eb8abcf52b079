export interface WorkerRun<T> {
  /** Resolves when the task ends: value is the task's result; stopped is true if stop() cut it short. Rejects with HeadlabError. */
  promise: Promise<{ value: T; stopped: boolean }>;
  /** Asks the task to stop at its next chunk boundary (one progress update at most). */
  stop(): void;
}
/** One dedicated module worker (headlab-worker.js beside the bundle). Terminate it when the owner is removed. */
export class WorkerClient {
  constructor();
  run<T = unknown>(kind: string, params: unknown, onProgress?: (detail: Record<string, unknown>) => void): WorkerRun<T>;
  terminate(): void;
}
