// Registers <headlab-feature-recovery> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/feature-recovery`.
import { HeadlabFeatureRecovery } from './headlab-feature-recovery.js';
import { defineElement } from './define.js';

export { HeadlabFeatureRecovery };
defineElement('headlab-feature-recovery', HeadlabFeatureRecovery);
