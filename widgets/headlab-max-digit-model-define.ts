// Registers <headlab-max-digit-model> (guarded: a page may load the bundle twice).
import { HeadlabMaxDigitModel } from './headlab-max-digit-model.js';

if (!customElements.get('headlab-max-digit-model')) customElements.define('headlab-max-digit-model', HeadlabMaxDigitModel);
