// Registers <headlab-query-key-canvas> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class. The package entry point `headlab/query-key-canvas` once package.json lists it.
import { HeadlabQueryKeyCanvas } from './headlab-query-key-canvas.js';
import { defineElement } from './define.js';

export { HeadlabQueryKeyCanvas };
defineElement('headlab-query-key-canvas', HeadlabQueryKeyCanvas);
