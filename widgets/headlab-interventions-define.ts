// Registers <headlab-interventions> (guarded: a page may load the bundle twice).
import { HeadlabInterventions } from './headlab-interventions.js';

if (!customElements.get('headlab-interventions')) customElements.define('headlab-interventions', HeadlabInterventions);
