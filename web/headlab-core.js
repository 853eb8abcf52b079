// The thin JS layer over the embind module: plain functions on plain data.
// Every binding returns fresh JS arrays (copied out of the WASM heap), and C++
// errors arrive as { error } and leave as HeadlabError with the C++ message.
// No embind class handle is ever returned to callers.
// One web/<concept>.js per bindings file contributes its functions here.
import { HeadlabError } from './errors.js';
import { attentionApi } from './attention.js';
import { featureRecoveryApi } from './feature-recovery.js';
import { maxDigitApi } from './max-digit.js';
import { moduleApi } from './module.js';
import { transformerApi } from './transformer.js';
export { transferOf } from './transformer.js';

export { HeadlabError };
export { DRAFT_PUBLISHED, FeatureRecoveryTrainer, featureRecoveryResultsFile, featureRecoveryRun } from './feature-recovery.js';

// Four modules (web/CMakeLists.txt): headlab_core (attention, projection edits),
// headlab_feature_recovery (the feature-recovery experiment), headlab_max_digit (the max-digit
// transformer) and headlab_transformer (your own attention-only transformer), so a page
// downloads only what its widgets use. Each has its own wrapper.

/** Wraps an instantiated headlab_core module (the value createHeadlabCore resolves to). */
export function wrapCore(module) {
  return {
    ...moduleApi(module),
    ...attentionApi(module),
  };
}

/** Wraps an instantiated headlab_feature_recovery module (the value createHeadlabFeatureRecovery resolves to). */
export function wrapFeatureRecoveryCore(module) {
  return {
    ...moduleApi(module),
    ...featureRecoveryApi(module),
  };
}

/** Wraps an instantiated headlab_max_digit module (the value createHeadlabMaxDigit resolves to). */
export function wrapMaxDigitCore(module) {
  return {
    ...moduleApi(module),
    ...maxDigitApi(module),
  };
}

/** Wraps an instantiated headlab_transformer module (the value createHeadlabTransformer resolves to). */
export function wrapTransformerCore(module) {
  return {
    ...moduleApi(module),
    ...transformerApi(module),
  };
}

async function instantiate(factory, moduleOptions, name) {
  try {
    return await factory(moduleOptions);
  } catch (err) {
    throw new HeadlabError(`the headlab WebAssembly ${name} failed to load: ${err?.message ?? err}`);
  }
}

/**
 * Instantiates headlab_core with `factory` (the default export of headlab_core.mjs)
 * and returns the wrapped core. `moduleOptions` go to Emscripten, e.g.
 * { wasmBinary } in Node or { locateFile } in a page.
 */
export async function loadCore(factory, moduleOptions = {}) {
  return wrapCore(await instantiate(factory, moduleOptions, 'core'));
}

/** Like loadCore, for headlab_feature_recovery (the default export of headlab_feature_recovery.mjs). */
export async function loadFeatureRecoveryCore(factory, moduleOptions = {}) {
  return wrapFeatureRecoveryCore(await instantiate(factory, moduleOptions, 'feature-recovery module'));
}

/** Like loadCore, for headlab_max_digit (the default export of headlab_max_digit.mjs). */
export async function loadMaxDigitCore(factory, moduleOptions = {}) {
  return wrapMaxDigitCore(await instantiate(factory, moduleOptions, 'max-digit module'));
}

/** Like loadCore, for headlab_transformer (the default export of headlab_transformer.mjs). */
export async function loadTransformerCore(factory, moduleOptions = {}) {
  return wrapTransformerCore(await instantiate(factory, moduleOptions, 'transformer module'));
}
