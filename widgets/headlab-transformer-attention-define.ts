// Registers <headlab-transformer-attention> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/transformer-attention`.
import { HeadlabTransformerAttention } from './headlab-transformer-attention.js';
import { defineElement } from './define.js';

export { HeadlabTransformerAttention };
defineElement('headlab-transformer-attention', HeadlabTransformerAttention);
