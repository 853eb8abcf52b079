// Registers <headlab-transformer-patching> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/transformer-patching`.
import { HeadlabTransformerPatching } from './headlab-transformer-patching.js';
import { defineElement } from './define.js';

export { HeadlabTransformerPatching };
defineElement('headlab-transformer-patching', HeadlabTransformerPatching);
