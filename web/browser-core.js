// The core for pages: one instance per page, its .wasm located next to the
// bundle that imports this file (wherever the bundle is served from).
import createHeadlabCore from 'headlab-wasm-module';
import { loadCore } from './headlab-core.js';

let corePromise = null;

/** Resolves to the wrapped core (see headlab-core.d.ts); rejects with HeadlabError if loading fails. */
export function getCore() {
  corePromise ??= loadCore(createHeadlabCore, {
    locateFile: (file) => new URL(file, import.meta.url).href,
  });
  return corePromise;
}
