// Registers <headlab-head-ablation> (guarded: a page may load the bundle twice).
import { HeadlabHeadAblation } from './headlab-head-ablation.js';

if (!customElements.get('headlab-head-ablation')) customElements.define('headlab-head-ablation', HeadlabHeadAblation);
