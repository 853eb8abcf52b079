// Registers <headlab-head-contributions> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/head-contributions`.
import { HeadlabHeadContributions } from './headlab-head-contributions.js';
import { defineElement } from './define.js';

export { HeadlabHeadContributions };
defineElement('headlab-head-contributions', HeadlabHeadContributions);
