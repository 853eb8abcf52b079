// Registers <headlab-transformer-circuits> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/transformer-circuits`.
import { HeadlabTransformerCircuits } from './headlab-transformer-circuits.js';
import { defineElement } from './define.js';

export { HeadlabTransformerCircuits };
defineElement('headlab-transformer-circuits', HeadlabTransformerCircuits);
