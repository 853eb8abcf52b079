// Registers <headlab-head-svd> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/head-svd`.
import { HeadlabHeadSvd } from './headlab-head-svd.js';
import { defineElement } from './define.js';

export { HeadlabHeadSvd };
defineElement('headlab-head-svd', HeadlabHeadSvd);
