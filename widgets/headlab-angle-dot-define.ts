// Registers <headlab-angle-dot> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/angle-dot`.
import { HeadlabAngleDot } from './headlab-angle-dot.js';
import { defineElement } from './define.js';

export { HeadlabAngleDot };
defineElement('headlab-angle-dot', HeadlabAngleDot);
