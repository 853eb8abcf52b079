// The page side of web/worker.js. One client owns one dedicated worker; a widget
// creates a client when it needs one and terminates it in disconnectedCallback.
import { HeadlabError } from './errors.js';

export class WorkerClient {
  constructor() {
    this.worker = new Worker(new URL('./headlab-worker.js', import.meta.url), { type: 'module' });
    this.worker.addEventListener('error', (e) => { this.failure = e.message || 'the headlab worker failed to start'; });
  }

  /**
   * Runs `kind` with `params`. onProgress(detail) receives progress messages.
   * Returns { promise, stop }: promise resolves to { value, stopped } or rejects with HeadlabError.
   */
  run(kind, params, onProgress = () => {}) {
    const channel = new MessageChannel();
    const promise = new Promise((resolve, reject) => {
      channel.port1.onmessage = (event) => {
        const msg = event.data;
        if (msg.type === 'progress') onProgress(msg);
        else if (msg.type === 'result') { channel.port1.close(); resolve({ value: msg.value, stopped: msg.stopped }); }
        else if (msg.type === 'error') { channel.port1.close(); reject(new HeadlabError(msg.message)); }
      };
      this.worker.addEventListener('error', (e) => {
        reject(new HeadlabError(e.message || 'the headlab worker failed to load'));
      }, { once: true });
    });
    this.worker.postMessage({ kind, params }, [channel.port2]);
    return { promise, stop: () => channel.port1.postMessage({ type: 'stop' }) };
  }

  terminate() {
    this.worker.terminate();
  }
}
