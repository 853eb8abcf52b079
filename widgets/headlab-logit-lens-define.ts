// Registers <headlab-logit-lens> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/logit-lens`.
import { HeadlabLogitLens } from './headlab-logit-lens.js';
import { defineElement } from './define.js';

export { HeadlabLogitLens };
defineElement('headlab-logit-lens', HeadlabLogitLens);
