// Registers <headlab-qk-attribution> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/qk-attribution`.
import { HeadlabQkAttribution } from './headlab-qk-attribution.js';
import { defineElement } from './define.js';

export { HeadlabQkAttribution };
defineElement('headlab-qk-attribution', HeadlabQkAttribution);
