// Registers <headlab-basis-rotation> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/basis-rotation`.
import { HeadlabBasisRotation } from './headlab-basis-rotation.js';
import { defineElement } from './define.js';

export { HeadlabBasisRotation };
defineElement('headlab-basis-rotation', HeadlabBasisRotation);
