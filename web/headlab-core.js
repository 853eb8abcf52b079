// The thin JS layer over the embind module: plain functions on plain data.
// Every binding returns fresh JS arrays (copied out of the WASM heap), and C++
// errors arrive as { error } and leave as HeadlabError with the C++ message.
// No embind class handle is ever returned to callers.
//
// Four modules (web/CMakeLists.txt): headlab_core (attention, projection edits),
// headlab_feature_recovery (the feature-recovery experiment), headlab_max_digit (the max-digit
// transformer) and headlab_transformer (your own attention-only transformer), so a page
// downloads only what its widgets use. One web/<concept>.js per bindings file holds its
// functions, its wrapper and its loader (wrapX / loadX, through web/module.js's loadModule);
// this file gathers them for Node and for types. A page imports each loader only when it needs
// the module (web/browser-core.js).
export { HeadlabError } from './errors.js';
export { loadCore, wrapCore } from './attention.js';
export {
  DRAFT_PUBLISHED,
  FeatureRecoveryModel,
  FeatureRecoveryTrainer,
  featureRecoveryResultsFile,
  featureRecoveryRun,
  loadFeatureRecoveryCore,
  wrapFeatureRecoveryCore,
} from './feature-recovery.js';
export { loadMaxDigitCore, wrapMaxDigitCore } from './max-digit.js';
export { loadTransformerCore, transferOf, wrapTransformerCore } from './transformer.js';
