// The Web Worker entry: long computations (training) run here on the WASM core,
// never on the page's main thread. Bundled as headlab/headlab-worker.js.
//
// Protocol: the page posts { kind, params } together with a MessagePort; every
// reply for that job — { type: 'progress', ... }, then exactly one
// { type: 'result', value } or { type: 'error', message } — travels on that port,
// so progress can never arrive after the result. The page stops a job by posting
// { type: 'stop' } on the port; handlers check between chunks of work.
import { getCore } from './browser-core.js';
import { workerTasks } from './worker-tasks.js';

self.addEventListener('message', async (event) => {
  const { kind, params } = event.data ?? {};
  const port = event.ports[0];
  if (!port) return;
  let stopped = false;
  port.onmessage = (msg) => { if (msg.data?.type === 'stop') stopped = true; };
  try {
    const task = workerTasks[kind];
    if (!task) throw new Error(`unknown worker task "${kind}"`);
    const core = await getCore();
    const value = await task(core, params, {
      progress: (detail) => port.postMessage({ type: 'progress', ...detail }),
      shouldStop: () => stopped,
      // Lets queued port messages (a stop request) in between chunks of work.
      yieldToEvents: () => new Promise((resolve) => setTimeout(resolve, 0)),
    });
    port.postMessage({ type: 'result', value, stopped });
  } catch (err) {
    port.postMessage({ type: 'error', message: err?.message ?? String(err) });
  } finally {
    port.close();
  }
});
