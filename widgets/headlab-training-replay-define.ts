// Registers <headlab-training-replay> (guarded: a page may load the bundle twice).
import { HeadlabTrainingReplay } from './headlab-training-replay.js';

if (!customElements.get('headlab-training-replay')) customElements.define('headlab-training-replay', HeadlabTrainingReplay);
