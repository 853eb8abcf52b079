// Registers <headlab-attention-patch> (guarded: a page may load the bundle twice).
import { HeadlabAttentionPatch } from './headlab-attention-patch.js';

if (!customElements.get('headlab-attention-patch')) customElements.define('headlab-attention-patch', HeadlabAttentionPatch);
