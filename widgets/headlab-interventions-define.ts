// Registers <headlab-interventions> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/interventions`.
import { HeadlabInterventions } from './headlab-interventions.js';
import { defineElement } from './define.js';

export { HeadlabInterventions };
defineElement('headlab-interventions', HeadlabInterventions);
