// Registers <headlab-score-ramps> (guarded: a page may load the bundle twice).
import { HeadlabScoreRamps } from './headlab-score-ramps.js';

if (!customElements.get('headlab-score-ramps')) customElements.define('headlab-score-ramps', HeadlabScoreRamps);
