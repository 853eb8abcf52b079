// Registers <headlab-head-ablation> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/head-ablation`.
import { HeadlabHeadAblation } from './headlab-head-ablation.js';
import { defineElement } from './define.js';

export { HeadlabHeadAblation };
defineElement('headlab-head-ablation', HeadlabHeadAblation);
