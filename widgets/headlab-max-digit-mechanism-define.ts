// Registers <headlab-max-digit-mechanism> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/max-digit-mechanism`.
import { HeadlabMaxDigitMechanism } from './headlab-max-digit-mechanism.js';
import { defineElement } from './define.js';

export { HeadlabMaxDigitMechanism };
defineElement('headlab-max-digit-mechanism', HeadlabMaxDigitMechanism);
