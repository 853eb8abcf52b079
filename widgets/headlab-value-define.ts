// Registers <headlab-value> (guarded: a page may load the bundle twice).
import { HeadlabValue } from './headlab-value.js';

if (!customElements.get('headlab-value')) customElements.define('headlab-value', HeadlabValue);
