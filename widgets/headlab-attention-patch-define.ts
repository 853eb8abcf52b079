// Registers <headlab-attention-patch> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/attention-patch`.
import { HeadlabAttentionPatch } from './headlab-attention-patch.js';
import { defineElement } from './define.js';

export { HeadlabAttentionPatch };
defineElement('headlab-attention-patch', HeadlabAttentionPatch);
