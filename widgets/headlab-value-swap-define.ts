// Registers <headlab-value-swap> (guarded: a page may load the bundle twice).
import { HeadlabValueSwap } from './headlab-value-swap.js';

if (!customElements.get('headlab-value-swap')) customElements.define('headlab-value-swap', HeadlabValueSwap);
