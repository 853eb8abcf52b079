// The Emscripten-generated loader build/wasm/web/headlab_max_digit.mjs, aliased as
// 'headlab-max-digit-module' by the bundler; only web/headlab-core.js wraps the module it resolves to (web/embind.d.ts).
import type { MaxDigitModule, ModuleFactory } from './embind.js';
declare const createHeadlabMaxDigit: ModuleFactory<MaxDigitModule>;
export default createHeadlabMaxDigit;
