// The Emscripten-generated loader build/wasm/web/headlab_transformer.mjs, aliased as
// 'headlab-transformer-module' by the bundler; only web/headlab-core.js wraps the module it resolves to (web/embind.d.ts).
import type { TransformerModule, ModuleFactory } from './embind.js';
declare const createHeadlabTransformer: ModuleFactory<TransformerModule>;
export default createHeadlabTransformer;
