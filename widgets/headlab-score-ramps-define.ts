// Registers <headlab-score-ramps> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/score-ramps`.
import { HeadlabScoreRamps } from './headlab-score-ramps.js';
import { defineElement } from './define.js';

export { HeadlabScoreRamps };
defineElement('headlab-score-ramps', HeadlabScoreRamps);
