// The page side of web/worker.js. One client owns one dedicated worker; a widget
// creates a client when it needs one and terminates it in disconnectedCallback.
import { compiledModules } from './browser-core.js';
import { HeadlabError } from './errors.js';

export class WorkerClient {
  constructor() {
    this.worker = new Worker(new URL('./headlab-worker.js', import.meta.url), { type: 'module' });
    /** Why the worker is unusable (it failed to load or crashed), or null while it works. */
    this.failure = null;
    /** The client's own listener on the worker, for as long as the worker lives (terminate removes it). */
    this.onError = (e) => {
      this.failure ??= e.message || 'the headlab worker failed to start';
    };
    this.worker.addEventListener('error', this.onError);
    /** The end() of each run not yet settled: terminate() settles them. */
    this.unsettled = new Set();
  }

  /**
   * Runs `kind` with `params`. onProgress(detail) receives progress messages.
   * Returns { promise, stop }: promise resolves to { value, stopped, updatesAfterStop } (progress
   * messages the worker posted after it read the stop) or rejects with HeadlabError.
   * A worker that has failed rejects at once (a widget then replaces it: WorkerJobs), and a
   * failure during the run rejects it, and so does terminate(); the run's port is closed and its
   * listeners are removed when it settles.
   */
  run(kind, params, onProgress = () => {}) {
    const channel = new MessageChannel();
    const listeners = new AbortController();
    let settled = false;
    const promise = new Promise((resolve, reject) => {
      const finish = (fn, arg) => {
        if (settled) return;
        settled = true;
        this.unsettled.delete(end);
        listeners.abort();
        channel.port1.onmessage = null;
        channel.port1.close();
        fn(arg);
      };
      const end = () => finish(reject, new HeadlabError(`the headlab worker was ended before "${kind}" finished`));
      if (this.failure) {
        finish(reject, new HeadlabError(this.failure));
        return;
      }
      this.unsettled.add(end);
      channel.port1.onmessage = (event) => {
        const msg = event.data;
        if (msg.type === 'progress') onProgress(msg);
        else if (msg.type === 'result')
          finish(resolve, { value: msg.value, stopped: msg.stopped, updatesAfterStop: msg.updatesAfterStop ?? 0 });
        else if (msg.type === 'error') finish(reject, new HeadlabError(msg.message));
      };
      this.worker.addEventListener(
        'error',
        (e) => {
          finish(reject, new HeadlabError(e.message || 'the headlab worker failed to load'));
        },
        { signal: listeners.signal },
      );
      // The page's compiled .wasm modules travel with the job, so the worker never downloads
      // them again (web/browser-core.js); a stop() before the post is queued on the port.
      compiledModules().then(
        (wasm) => {
          if (!settled) this.worker.postMessage({ kind, params, wasm }, [channel.port2]);
        },
        (err) => finish(reject, err instanceof HeadlabError ? err : new HeadlabError(err?.message ?? String(err))),
      );
    });
    return {
      promise,
      stop: () => {
        if (!settled) channel.port1.postMessage({ type: 'stop' });
      },
    };
  }

  /**
   * Ends the worker and settles every run still in it (rejected: a WorkerJobs owner has dropped its
   * callbacks already). A run left pending kept its port open with a message handler, which
   * the browser keeps alive with everything it reaches — the handler, this client, the ended worker
   * and its two error listeners: three listeners and a worker per figure removed while its analysis ran.
   */
  terminate() {
    this.worker.terminate();
    // A run asked of an ended client rejects at once, as one of a failed client does.
    this.failure ??= 'the headlab worker was ended';
    this.worker.removeEventListener('error', this.onError);
    for (const end of [...this.unsettled]) end();
  }
}

/**
 * `holder.client` (a WorkerJobs or WorkerHost), or a new WorkerClient, counted in
 * `holder.generation`, when it has none or its worker failed (offline, a transient 404, a crash):
 * a failed worker is replaced, not reused.
 */
function liveClient(holder) {
  if (holder.client?.failure) {
    holder.client.terminate();
    holder.client = null;
  }
  if (!holder.client) {
    holder.client = new WorkerClient();
    holder.generation++;
  }
  return holder.client;
}

/**
 * A widget's training runs: one dedicated worker (created on first use) and at most one
 * current job. Starting a job stops the one before it, and the callbacks of a superseded
 * or disposed job are dropped, so a late message never overwrites newer state.
 *
 * `owner` is the element the worker belongs to (null: the caller ends it itself). The owner
 * ends the worker in its disconnectedCallback (dispose), and while the owner is off the page
 * start() makes no worker: the job fails (asynchronously, as any failed job) instead. So a job
 * asked for after the element was removed — by a callback of an await that resolved after the
 * removal, a getter or a method a script calls on the removed element — leaves no worker that
 * nothing would ever end.
 */
export class WorkerJobs {
  constructor(owner = null) {
    this.owner = owner;
    this.client = null;
    this.current = 0; // id of the job whose callbacks are live
    this.stopCurrent = null;
    /** Workers made so far: what a job gave worker g is held there only while generation is g. */
    this.generation = 0;
    /** The side jobs (request()) not yet settled: dispose() fails them. */
    this.requests = new Set();
  }

  /** The live worker client (made, with a new generation, when there is none or it failed). */
  worker() {
    return liveClient(this);
  }

  /**
   * Runs `kind` beside the current job, in the same worker, without stopping or superseding it: a
   * request to what the worker holds (a model an earlier job kept). The worker interleaves it with
   * the current job between that job's chunks. `params` may be a function, called as the job is
   * posted with this WorkerJobs (its `generation` says which worker gets the job). handlers:
   * { done({ value }), failed(error) }; dispose() fails a request still running.
   */
  request(kind, params, { done = () => {}, failed = () => {} } = {}) {
    if (this.owner && !this.owner.isConnected) {
      const refused = new HeadlabError(`<${this.owner.localName}> is not on the page, so no worker was started for "${kind}"`);
      Promise.resolve().then(() => failed(refused));
      return;
    }
    const client = this.worker();
    let p;
    try {
      p = typeof params === 'function' ? params(this) : params;
    } catch (err) {
      Promise.resolve().then(() => failed(err));
      return;
    }
    const entry = { failed };
    this.requests.add(entry);
    const settle = (handler) => (arg) => {
      if (!this.requests.delete(entry)) return;
      handler(arg);
    };
    client.run(kind, p).promise.then(settle(done), settle(failed));
  }

  /** Starts `kind`; handlers: { progress(detail), done({ value, stopped }), failed(error) }. */
  start(kind, params, { progress = () => {}, done = () => {}, failed = () => {} } = {}) {
    this.stop();
    const id = ++this.current;
    if (this.owner && !this.owner.isConnected) {
      // No worker for an element off the page (its disconnectedCallback, which ends them, has run).
      this.stopCurrent = null;
      const refused = new HeadlabError(`<${this.owner.localName}> is not on the page, so no worker was started for "${kind}"`);
      Promise.resolve().then(() => {
        if (id === this.current) failed(refused);
      });
      return;
    }
    const run = this.worker().run(kind, params, (detail) => {
      if (id === this.current) progress(detail);
    });
    this.stopCurrent = run.stop;
    const settle = (handler) => (arg) => {
      if (id !== this.current) return;
      this.stopCurrent = null;
      handler(arg);
    };
    run.promise.then(settle(done), settle(failed));
  }

  /** Whether a job is running (started and not yet settled). */
  get running() {
    return this.stopCurrent !== null;
  }

  /** Asks the running job to stop at its next chunk boundary; its done() still arrives. */
  stop() {
    this.stopCurrent?.();
  }

  /** Drops the current job's callbacks and ends the worker (a request still running fails); a later start() makes a new one. */
  dispose() {
    this.current++;
    this.stopCurrent = null;
    this.client?.terminate();
    this.client = null;
    const ended = new HeadlabError('the headlab worker was ended');
    const requests = [...this.requests];
    this.requests.clear();
    for (const r of requests) r.failed(ended);
  }
}

/**
 * One worker shared by many callers (a model source and every figure reading it): the jobs run one
 * at a time, in the order they were asked, so a job that names what the worker holds (a model read
 * by an earlier job) finds it there. The worker is made at the first job and ended by dispose()
 * (the owner left the page); a worker that failed is replaced at the next job. `generation`
 * counts the workers made: what was given to generation g is held only while generation is g.
 * `params` may be a function, called when the job starts (with this host), so a caller sends a
 * model's files only to a worker that does not hold them yet. A job started with { background:
 * true } (a batch over many prompt pairs: seconds to minutes on a large model) waits behind every
 * job asked without it, and starts only when no other job has been asked for BACKGROUND_QUIET_MS
 * (after a model switch every figure asks for its first run in a task of its own, within a few
 * ms: those all go first; the end of a job asked without it counts as an ask, since the model's
 * load, asked seconds before, is what they follow), so a figure's run or analysis never queues
 * behind a batch that has not started; each kind keeps its own order. A started background job asked with { yields: true } (a task that
 * stops between steps and then answers null: 'transformer-batch-patching') gives way to a job asked
 * without `background`: it is stopped at its next step and queued again, to start over; any other
 * batch once started runs to its end.
 */
/** Milliseconds without another job asked for before a background job starts (WorkerHost). */
const BACKGROUND_QUIET_MS = 250;

export class WorkerHost {
  constructor(owner = null) {
    this.owner = owner;
    this.client = null;
    this.generation = 0;
    this.queue = [];
    this.current = null;
    /** When a job other than a background one was last asked for (performance.now()), and whether a later look is due. */
    this.lastAsked = -Infinity;
    this.lookDue = false;
  }

  /** Queues `kind`; handlers: { progress(detail), done({ value, stopped }), failed(error) }; options: { background }. */
  start(kind, params, handlers = {}, { background = false, yields = false } = {}) {
    const job = { kind, params, handlers, background, yields };
    if (!background) {
      this.lastAsked = performance.now();
      // A running background job that stops between its steps (yields) gives way: asked to stop,
      // it ends at its next step and is queued again behind this one (started over).
      const running = this.current;
      if (running?.job.background && running.job.yields && !running.yielding) {
        running.yielding = true;
        running.run.stop();
      }
    }
    const firstBackground = background ? -1 : this.queue.findIndex((j) => j.background);
    if (firstBackground < 0) this.queue.push(job);
    else this.queue.splice(firstBackground, 0, job);
    this.next();
  }

  /** Whether a job is running or waiting. */
  get running() {
    return this.current !== null || this.queue.length > 0;
  }

  next() {
    if (this.current || !this.queue.length) return;
    const quiet = performance.now() - this.lastAsked;
    if (this.queue[0].background && quiet < BACKGROUND_QUIET_MS) {
      if (!this.lookDue) {
        this.lookDue = true;
        setTimeout(() => {
          this.lookDue = false;
          this.next();
        }, BACKGROUND_QUIET_MS - quiet);
      }
      return;
    }
    const job = this.queue.shift();
    const { progress = () => {}, done = () => {}, failed = () => {} } = job.handlers;
    if (this.owner && !this.owner.isConnected) {
      // No worker for an element off the page (its disconnectedCallback, which ends it, has run).
      const refused = new HeadlabError(`<${this.owner.localName}> is not on the page, so no worker was started for "${job.kind}"`);
      Promise.resolve().then(() => {
        failed(refused);
        this.next();
      });
      return;
    }
    const client = liveClient(this);
    let params;
    try {
      params = typeof job.params === 'function' ? job.params(this) : job.params;
    } catch (err) {
      Promise.resolve().then(() => {
        failed(err);
        this.next();
      });
      return;
    }
    const run = client.run(job.kind, params, progress);
    const current = { run, failed, job, yielding: false };
    this.current = current;
    const settle = (handler) => (arg) => {
      if (this.current !== current) return;
      this.current = null;
      // A job's end counts as an ask: the figures' first requests follow a model's load (a job
      // asked seconds before), each in a task of its own, and no batch may slip in between them.
      if (!job.background) this.lastAsked = performance.now();
      try {
        handler(arg);
      } finally {
        this.next();
      }
    };
    // A job that gave way (stopped for a job asked after it) goes back to the queue, its handlers
    // kept: done() comes from the run that completes.
    const finished = (result) => {
      if (current.yielding && result?.stopped && result.value === null) {
        if (this.current !== current) return;
        this.current = null;
        this.queue.push(job);
        this.next();
        return;
      }
      settle(done)(result);
    };
    run.promise.then(finished, settle(failed));
  }

  /** Ends the worker; the running job and every waiting one fail. A later start() makes a new worker. */
  dispose() {
    const waiting = this.queue;
    this.queue = [];
    const running = this.current;
    this.current = null;
    this.client?.terminate();
    this.client = null;
    const ended = new HeadlabError('the headlab worker was ended');
    // The running job's own promise rejects too (terminate), but its settle no longer matches.
    running?.failed(ended);
    for (const job of waiting) job.handlers.failed?.(ended);
  }
}
