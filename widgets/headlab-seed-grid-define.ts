// Registers <headlab-seed-grid> (guarded: a page may load the bundle twice).
import { HeadlabSeedGrid } from './headlab-seed-grid.js';

if (!customElements.get('headlab-seed-grid')) customElements.define('headlab-seed-grid', HeadlabSeedGrid);
