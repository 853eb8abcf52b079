// Registers <headlab-projection-ablation> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/projection-ablation`.
import { HeadlabProjectionAblation } from './headlab-projection-ablation.js';
import { defineElement } from './define.js';

export { HeadlabProjectionAblation };
defineElement('headlab-projection-ablation', HeadlabProjectionAblation);
