// The Emscripten-generated loader (build/wasm/web/headlab_core.mjs), aliased as
// 'headlab-wasm-module' by the bundler. It resolves to the raw embind module;
// only web/headlab-core.js touches it.
import type { HeadlabCoreModule, ModuleFactory } from './embind.js';
declare const createHeadlabCore: ModuleFactory<HeadlabCoreModule>;
export default createHeadlabCore;
