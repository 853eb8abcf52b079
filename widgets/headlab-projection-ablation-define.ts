// Registers <headlab-projection-ablation> (guarded: a page may load the bundle twice).
import { HeadlabProjectionAblation } from './headlab-projection-ablation.js';

if (!customElements.get('headlab-projection-ablation')) customElements.define('headlab-projection-ablation', HeadlabProjectionAblation);
