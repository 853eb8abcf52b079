// The widgets for Node: imported by site/ssr/render.js only after site/ssr/environment.js has installed
// the window's globals (the element classes extend HTMLElement when their module loads, and the
// define entries register them in customElements). runTask is web/worker.js's job handler for
// the in-process Worker: the same tasks on the same modules, without a thread.
import '../../widgets/headlab.js';
export { HeadlabElement } from '../../widgets/base/headlab-element.js';
import { getCore, getFeatureRecoveryCore, getMaxDigitCore, getTransformerCore } from '../../web/browser-core.js';
import { workerTasks } from '../../web/worker-tasks.js';

const loaders = {
  core: getCore,
  'feature-recovery': getFeatureRecoveryCore,
  'max-digit': getMaxDigitCore,
  transformer: getTransformerCore,
};

/** Runs the worker job `message` ({ kind, params }), answering on `port` as web/worker.js does. */
export async function runTask(message, port) {
  // Copies both ways, as postMessage's structured clone does: a result may view the WASM
  // module's memory (a typed array over it), which the next call can move or overwrite.
  const { kind, params } = structuredClone(message ?? {});
  let stopped = false;
  port.onmessage = (msg) => {
    if (msg.data?.type === 'stop') stopped = true;
  };
  try {
    const entry = workerTasks[kind];
    if (!entry) throw new Error(`unknown worker task "${kind}"`);
    const { module = 'core', run } = typeof entry === 'function' ? { run: entry } : entry;
    if (!loaders[module]) throw new Error(`worker task "${kind}" names an unknown module "${module}"`);
    const core = await loaders[module]();
    const value = await run(core, params, {
      progress: (detail) => port.postMessage({ type: 'progress', ...structuredClone(detail) }),
      shouldStop: () => stopped,
      yieldToEvents: () => new Promise((resolve) => setTimeout(resolve, 0)),
      transfer: () => {},
    });
    port.postMessage({ type: 'result', value: structuredClone(value), stopped, updatesAfterStop: 0 });
  } catch (err) {
    port.postMessage({ type: 'error', message: err?.message ?? String(err) });
  } finally {
    port.close();
  }
}
