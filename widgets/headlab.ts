// The widget bundle's entry: importing it (one script tag) registers every
// headlab-* element in a browser (nothing in Node or server rendering), exports their
// classes and exposes the shared core for pages that compute directly. One element
// alone: `headlab/<name>` (widgets/headlab-<name>-define.ts); classes without
// registering: `headlab/elements`.
export { getCore } from '../web/browser-core.js';
export type { HeadlabCoreApi } from '../web/browser-core.js';
export { defineElement } from './define.js';
export { HeadlabError } from '../web/errors.js';
export { matrix, toRows, at, row, identity } from '../web/matrix.js';
export { WorkerClient } from '../web/worker-client.js';
export * from './elements.js';
import './headlab-projection-ablation-define.js';
import './headlab-value-swap-define.js';
import './headlab-basis-rotation-define.js';
import './headlab-query-key-canvas-define.js';
import './headlab-choice-quiz-define.js';
import './headlab-feature-recovery-define.js';
import './headlab-interventions-define.js';
import './headlab-training-replay-define.js';
import './headlab-attention-bars-define.js';
import './headlab-attention-patch-define.js';
import './headlab-head-ablation-define.js';
import './headlab-subspace-accuracy-define.js';
import './headlab-head-contributions-define.js';
import './headlab-angle-dot-define.js';
import './headlab-max-digit-mechanism-define.js';
import './headlab-score-ramps-define.js';
import './headlab-seed-grid-define.js';
import './headlab-max-digit-model-define.js';
import './headlab-transformer-model-define.js';
import './headlab-transformer-attention-define.js';
import './headlab-transformer-attribution-define.js';
import './headlab-transformer-composition-define.js';
import './headlab-logit-lens-define.js';
import './headlab-head-svd-define.js';
import './headlab-transformer-patching-define.js';
import './headlab-transformer-ablation-define.js';
import './headlab-transformer-circuits-define.js';
import './headlab-qk-attribution-define.js';
import './headlab-attribution-patching-define.js';
import './headlab-circuit-faithfulness-define.js';
import './headlab-path-patching-define.js';
import './headlab-value-define.js';
import './headlab-transformer-training-define.js';
