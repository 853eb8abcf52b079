// Registers <headlab-seed-grid> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/seed-grid`.
import { HeadlabSeedGrid } from './headlab-seed-grid.js';
import { defineElement } from './define.js';

export { HeadlabSeedGrid };
defineElement('headlab-seed-grid', HeadlabSeedGrid);
