// Registers <headlab-transformer-attribution> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/transformer-attribution`.
import { HeadlabTransformerAttribution } from './headlab-transformer-attribution.js';
import { defineElement } from './define.js';

export { HeadlabTransformerAttribution };
defineElement('headlab-transformer-attribution', HeadlabTransformerAttribution);
