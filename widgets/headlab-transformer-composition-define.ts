// Registers <headlab-transformer-composition> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/transformer-composition`.
import { HeadlabTransformerComposition } from './headlab-transformer-composition.js';
import { defineElement } from './define.js';

export { HeadlabTransformerComposition };
defineElement('headlab-transformer-composition', HeadlabTransformerComposition);
