// Registers <headlab-subspace-accuracy> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/subspace-accuracy`.
import { HeadlabSubspaceAccuracy } from './headlab-subspace-accuracy.js';
import { defineElement } from './define.js';

export { HeadlabSubspaceAccuracy };
defineElement('headlab-subspace-accuracy', HeadlabSubspaceAccuracy);
