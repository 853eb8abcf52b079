// Registers <headlab-circuit-faithfulness> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/circuit-faithfulness`.
import { HeadlabCircuitFaithfulness } from './headlab-circuit-faithfulness.js';
import { defineElement } from './define.js';

export { HeadlabCircuitFaithfulness };
defineElement('headlab-circuit-faithfulness', HeadlabCircuitFaithfulness);
