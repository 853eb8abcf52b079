// Registers <headlab-head-contributions> (guarded: a page may load the bundle twice).
import { HeadlabHeadContributions } from './headlab-head-contributions.js';

if (!customElements.get('headlab-head-contributions')) customElements.define('headlab-head-contributions', HeadlabHeadContributions);
