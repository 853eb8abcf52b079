// The Emscripten-generated loader build/wasm/web/headlab_feature_recovery.mjs, aliased as
// 'headlab-feature-recovery-module' by the bundler; only web/headlab-core.js wraps what it returns.
import type { CoreFactory } from './headlab-core.js';
declare const createHeadlabFeatureRecovery: CoreFactory;
export default createHeadlabFeatureRecovery;
