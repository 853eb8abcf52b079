// Registers <headlab-transformer-ablation> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/transformer-ablation`.
import { HeadlabTransformerAblation } from './headlab-transformer-ablation.js';
import { defineElement } from './define.js';

export { HeadlabTransformerAblation };
defineElement('headlab-transformer-ablation', HeadlabTransformerAblation);
