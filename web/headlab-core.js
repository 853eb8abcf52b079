// The thin JS layer over the embind module: plain functions on plain data.
// Every binding returns fresh JS arrays (copied out of the WASM heap), and C++
// errors arrive as { error } and leave as HeadlabError with the C++ message.
// No embind class handle is ever returned to callers.
// One web/<concept>.js per bindings file contributes its functions here.
import { HeadlabError } from './errors.js';
import { attentionApi } from './attention.js';
import { featureRecoveryApi } from './feature-recovery.js';
import { maxDigitApi } from './max-digit.js';
import { diagnosticsApi } from './diagnostics.js';

export { HeadlabError };
export { DRAFT_PUBLISHED, FeatureRecoveryTrainer } from './feature-recovery.js';

/** Wraps an instantiated module (the value createHeadlabCore resolves to). */
export function wrapCore(module) {
  return {
    version: () => module.version(),
    ...attentionApi(module),
    ...featureRecoveryApi(module),
    ...maxDigitApi(module),
    ...diagnosticsApi(module),
  };
}

/**
 * Instantiates the module with `factory` (the default export of headlab_core.mjs)
 * and returns the wrapped core. `moduleOptions` go to Emscripten, e.g.
 * { wasmBinary } in Node or { locateFile } in a page.
 */
export async function loadCore(factory, moduleOptions = {}) {
  let module;
  try {
    module = await factory(moduleOptions);
  } catch (err) {
    throw new HeadlabError(`the headlab WebAssembly core failed to load: ${err?.message ?? err}`);
  }
  return wrapCore(module);
}
