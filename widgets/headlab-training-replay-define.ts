// Registers <headlab-training-replay> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class. The package entry point `headlab/training-replay` once package.json lists it.
import { HeadlabTrainingReplay } from './headlab-training-replay.js';
import { defineElement } from './define.js';

export { HeadlabTrainingReplay };
defineElement('headlab-training-replay', HeadlabTrainingReplay);
