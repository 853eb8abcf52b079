// The Emscripten-generated loader build/wasm/web/headlab_transformer.mjs, aliased as
// 'headlab-transformer-module' by the bundler; only web/headlab-core.js wraps what it returns.
import type { CoreFactory } from './headlab-core.js';
declare const createHeadlabTransformer: CoreFactory;
export default createHeadlabTransformer;
