// The Emscripten-generated loader build/wasm/web/headlab_feature_recovery.mjs, aliased as
// 'headlab-feature-recovery-module' by the bundler; only web/headlab-core.js wraps the module it resolves to (web/embind.d.ts).
import type { FeatureRecoveryModule, ModuleFactory } from './embind.js';
declare const createHeadlabFeatureRecovery: ModuleFactory<FeatureRecoveryModule>;
export default createHeadlabFeatureRecovery;
