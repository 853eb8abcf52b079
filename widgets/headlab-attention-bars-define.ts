// Registers <headlab-attention-bars> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/attention-bars`.
import { HeadlabAttentionBars } from './headlab-attention-bars.js';
import { defineElement } from './define.js';

export { HeadlabAttentionBars };
defineElement('headlab-attention-bars', HeadlabAttentionBars);
