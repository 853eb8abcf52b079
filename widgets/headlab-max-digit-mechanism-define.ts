// Registers <headlab-max-digit-mechanism> (guarded: a page may load the bundle twice).
import { HeadlabMaxDigitMechanism } from './headlab-max-digit-mechanism.js';

if (!customElements.get('headlab-max-digit-mechanism')) customElements.define('headlab-max-digit-mechanism', HeadlabMaxDigitMechanism);
