// Registers <headlab-value> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class. The package entry point `headlab/value`.
import { HeadlabValue } from './headlab-value.js';
import { defineElement } from './define.js';

export { HeadlabValue };
defineElement('headlab-value', HeadlabValue);
