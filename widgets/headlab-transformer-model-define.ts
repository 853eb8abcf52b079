// Registers <headlab-transformer-model> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/transformer-model`.
import { HeadlabTransformerModel } from './headlab-transformer-model.js';
import { defineElement } from './define.js';

export { HeadlabTransformerModel };
defineElement('headlab-transformer-model', HeadlabTransformerModel);
