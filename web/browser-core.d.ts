import type { HeadlabCore, MaxDigitCore } from './headlab-core.js';
/** The page's headlab_core instance (attention, projection edits, feature recovery); its .wasm is fetched from the bundle's own folder. */
export function getCore(): Promise<HeadlabCore>;
/** The page's headlab_max_digit instance, loaded (JS and .wasm) only when first asked for. */
export function getMaxDigitCore(): Promise<MaxDigitCore>;
