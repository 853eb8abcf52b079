// The cores for pages: one instance of each module per page, loaded on first use.
// Each .wasm is found by its Emscripten loader itself, as
// new URL("<name>.wasm", import.meta.url): the loaders' chunks sit beside headlab.js,
// so the .wasm is found next to the bundle wherever it is served from, and a bundler
// that follows that literal pattern (Vite, webpack 5, Parcel) copies and hashes it when
// an app bundles the package again. The max-digit loader is imported dynamically, so
// pages without max-digit widgets download neither its JS nor its .wasm.
import createHeadlabCore from 'headlab-wasm-module';
import { loadCore, loadMaxDigitCore } from './headlab-core.js';

let corePromise = null;
let maxDigitPromise = null;

/** Resolves to the wrapped headlab_core (see headlab-core.d.ts); rejects with HeadlabError if loading fails. */
export function getCore() {
  corePromise ??= loadCore(createHeadlabCore);
  return corePromise;
}

/** Resolves to the wrapped headlab_max_digit module; rejects with HeadlabError if loading fails. */
export function getMaxDigitCore() {
  maxDigitPromise ??= import('headlab-max-digit-module').then(
    ({ default: createHeadlabMaxDigit }) => loadMaxDigitCore(createHeadlabMaxDigit));
  return maxDigitPromise;
}
