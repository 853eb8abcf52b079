// Registers <headlab-subspace-accuracy> (guarded: a page may load the bundle twice).
import { HeadlabSubspaceAccuracy } from './headlab-subspace-accuracy.js';

if (!customElements.get('headlab-subspace-accuracy')) customElements.define('headlab-subspace-accuracy', HeadlabSubspaceAccuracy);
