// Registers <headlab-attribution-patching> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/attribution-patching`.
import { HeadlabAttributionPatching } from './headlab-attribution-patching.js';
import { defineElement } from './define.js';

export { HeadlabAttributionPatching };
defineElement('headlab-attribution-patching', HeadlabAttributionPatching);
