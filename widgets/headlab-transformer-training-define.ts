// Registers <headlab-transformer-training> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/transformer-training`.
import { HeadlabTransformerTraining } from './headlab-transformer-training.js';
import { defineElement } from './define.js';

export { HeadlabTransformerTraining };
defineElement('headlab-transformer-training', HeadlabTransformerTraining);
