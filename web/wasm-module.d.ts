// The Emscripten-generated loader (build/wasm/web/headlab_core.mjs), aliased as
// 'headlab-wasm-module' by the bundler. It resolves to the raw embind module;
// only web/headlab-core.js touches it.
import type { CoreFactory } from './headlab-core.js';
declare const createHeadlabCore: CoreFactory;
export default createHeadlabCore;
