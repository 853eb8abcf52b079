// The Web Worker entry: long computations (training) run here on the WASM core,
// never on the page's main thread. Bundled as headlab/headlab-worker.js.
//
// Protocol: the page posts { kind, params } together with a MessagePort; every
// reply for that job — { type: 'progress', ... }, then exactly one
// { type: 'result', value, stopped, updatesAfterStop } or { type: 'error', message } — travels on that port,
// so progress can never arrive after the result. The page stops a job by posting
// { type: 'stop' } on the port; handlers check between chunks of work.
import { getCore, getFeatureRecoveryCore, getMaxDigitCore, getTransformerCore, useCompiledModules } from './browser-core.js';
import { workerTasks } from './worker-tasks.js';

self.addEventListener('message', async (event) => {
  const { kind, params, wasm } = event.data ?? {};
  const port = event.ports[0];
  if (!port) return;
  // The page's compiled modules ({ core?, 'feature-recovery'?, 'max-digit'?, transformer? }): instantiated here, not downloaded again.
  useCompiledModules(wasm);
  let stopped = false;
  // Progress messages posted, and how many of them after the stop arrived here: a task ends
  // within the chunk under way when it reads the stop, whatever backlog the page has yet to read.
  let posted = 0;
  let postedAtStop = 0;
  port.onmessage = (msg) => {
    if (msg.data?.type !== 'stop' || stopped) return;
    stopped = true;
    postedAtStop = posted;
  };
  try {
    const entry = workerTasks[kind];
    if (!entry) throw new Error(`unknown worker task "${kind}"`);
    // A task is a function on headlab_core, or { module: 'feature-recovery' | 'max-digit' | 'transformer', run } on that module.
    const { module = 'core', run } = typeof entry === 'function' ? { run: entry } : entry;
    const loaders = {
      core: getCore,
      'feature-recovery': getFeatureRecoveryCore,
      'max-digit': getMaxDigitCore,
      transformer: getTransformerCore,
    };
    if (!loaders[module]) throw new Error(`worker task "${kind}" names an unknown module "${module}"`);
    const core = await loaders[module]();
    let moved = [];
    const value = await run(core, params, {
      progress: (detail) => {
        posted++;
        port.postMessage({ type: 'progress', ...detail });
      },
      shouldStop: () => stopped,
      // Lets queued port messages (a stop request) in between chunks of work.
      yieldToEvents: () => new Promise((resolve) => setTimeout(resolve, 0)),
      transfer: (buffers) => {
        moved = buffers;
      },
    });
    port.postMessage({ type: 'result', value, stopped, updatesAfterStop: stopped ? posted - postedAtStop : 0 }, moved);
  } catch (err) {
    port.postMessage({ type: 'error', message: err?.message ?? String(err) });
  } finally {
    port.close();
  }
});
