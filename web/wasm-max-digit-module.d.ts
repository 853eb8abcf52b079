// The Emscripten-generated loader build/wasm/web/headlab_max_digit.mjs, aliased as
// 'headlab-max-digit-module' by the bundler; only web/headlab-core.js wraps what it returns.
import type { CoreFactory } from './headlab-core.js';
declare const createHeadlabMaxDigit: CoreFactory;
export default createHeadlabMaxDigit;
