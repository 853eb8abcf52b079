// Registers <headlab-path-patching> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/path-patching`.
import { HeadlabPathPatching } from './headlab-path-patching.js';
import { defineElement } from './define.js';

export { HeadlabPathPatching };
defineElement('headlab-path-patching', HeadlabPathPatching);
