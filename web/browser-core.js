// The core for pages: one instance per page. Its .wasm is found by the Emscripten
// loader itself, as new URL("headlab_core.wasm", import.meta.url): the loader's
// chunk sits beside headlab.js, so the .wasm is found next to the bundle wherever it
// is served from, and a bundler that follows that literal pattern (Vite, webpack 5,
// Parcel) copies and hashes the .wasm when an app bundles the package again.
import createHeadlabCore from 'headlab-wasm-module';
import { loadCore } from './headlab-core.js';

let corePromise = null;

/** Resolves to the wrapped core (see headlab-core.d.ts); rejects with HeadlabError if loading fails. */
export function getCore() {
  corePromise ??= loadCore(createHeadlabCore);
  return corePromise;
}
