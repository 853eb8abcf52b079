// Registers <headlab-angle-dot> (guarded: a page may load the bundle twice).
import { HeadlabAngleDot } from './headlab-angle-dot.js';

if (!customElements.get('headlab-angle-dot')) customElements.define('headlab-angle-dot', HeadlabAngleDot);
