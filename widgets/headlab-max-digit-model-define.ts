// Registers <headlab-max-digit-model> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/max-digit-model`.
import { HeadlabMaxDigitModel } from './headlab-max-digit-model.js';
import { defineElement } from './define.js';

export { HeadlabMaxDigitModel };
defineElement('headlab-max-digit-model', HeadlabMaxDigitModel);
