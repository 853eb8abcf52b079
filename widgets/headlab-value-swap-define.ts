// Registers <headlab-value-swap> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/value-swap`.
import { HeadlabValueSwap } from './headlab-value-swap.js';
import { defineElement } from './define.js';

export { HeadlabValueSwap };
defineElement('headlab-value-swap', HeadlabValueSwap);
