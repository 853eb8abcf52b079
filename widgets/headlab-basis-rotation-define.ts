// Registers <headlab-basis-rotation> (guarded: a page may load the bundle twice).
import { HeadlabBasisRotation } from './headlab-basis-rotation.js';

if (!customElements.get('headlab-basis-rotation')) customElements.define('headlab-basis-rotation', HeadlabBasisRotation);
