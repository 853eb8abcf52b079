import type { HeadlabCore } from './headlab-core.js';
/** The page's single core instance; the .wasm is fetched from the bundle's own folder. */
export function getCore(): Promise<HeadlabCore>;
