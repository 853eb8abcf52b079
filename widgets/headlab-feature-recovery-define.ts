// Registers <headlab-feature-recovery> (guarded: a page may load the bundle twice).
import { HeadlabFeatureRecovery } from './headlab-feature-recovery.js';

if (!customElements.get('headlab-feature-recovery')) customElements.define('headlab-feature-recovery', HeadlabFeatureRecovery);
