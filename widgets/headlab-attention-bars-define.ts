// Registers <headlab-attention-bars> (guarded: a page may load the bundle twice).
import { HeadlabAttentionBars } from './headlab-attention-bars.js';

if (!customElements.get('headlab-attention-bars')) customElements.define('headlab-attention-bars', HeadlabAttentionBars);
