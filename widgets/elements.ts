// Every element class, registering nothing: for authors who define their own tag names
// (customElements.define('my-swap', class extends HeadlabValueSwap {}); one constructor can
// be registered only once) and for code that only needs the classes, e.g. during server
// rendering. The package entry point `headlab/elements`.
export { HeadlabAngleDot } from './headlab-angle-dot.js';
export { HeadlabAttentionBars } from './headlab-attention-bars.js';
export { HeadlabAttentionPatch } from './headlab-attention-patch.js';
export { HeadlabBasisRotation } from './headlab-basis-rotation.js';
export { HeadlabChoiceQuiz } from './headlab-choice-quiz.js';
export { HeadlabFeatureRecovery } from './headlab-feature-recovery.js';
export { HeadlabHeadAblation } from './headlab-head-ablation.js';
export { HeadlabHeadContributions } from './headlab-head-contributions.js';
export { HeadlabInterventions } from './headlab-interventions.js';
export { HeadlabMaxDigitMechanism } from './headlab-max-digit-mechanism.js';
export { HeadlabMaxDigitModel } from './headlab-max-digit-model.js';
export { HeadlabProjectionAblation } from './headlab-projection-ablation.js';
export { HeadlabQueryKeyCanvas } from './headlab-query-key-canvas.js';
export { HeadlabAttributionPatching } from './headlab-attribution-patching.js';
export { HeadlabCircuitFaithfulness } from './headlab-circuit-faithfulness.js';
export { HeadlabPathPatching } from './headlab-path-patching.js';
export { HeadlabQkAttribution } from './headlab-qk-attribution.js';
export { HeadlabScoreRamps } from './headlab-score-ramps.js';
export { HeadlabSeedGrid } from './headlab-seed-grid.js';
export { HeadlabSubspaceAccuracy } from './headlab-subspace-accuracy.js';
export { HeadlabTrainingReplay } from './headlab-training-replay.js';
export { HeadlabTransformerAblation } from './headlab-transformer-ablation.js';
export { HeadlabTransformerAttention } from './headlab-transformer-attention.js';
export { HeadlabTransformerAttribution } from './headlab-transformer-attribution.js';
export { HeadlabTransformerComposition } from './headlab-transformer-composition.js';
export { HeadlabLogitLens } from './headlab-logit-lens.js';
export { HeadlabHeadSvd } from './headlab-head-svd.js';
export { HeadlabTransformerCircuits } from './headlab-transformer-circuits.js';
export { HeadlabTransformerModel } from './headlab-transformer-model.js';
export { HeadlabTransformerPatching } from './headlab-transformer-patching.js';
export { HeadlabTransformerTraining } from './headlab-transformer-training.js';
export { HeadlabValue } from './headlab-value.js';
export { HeadlabValueSwap } from './headlab-value-swap.js';
// The package's earlier names of two shapes, which no element's API refers to by these names.
export type { TransformerCompositionEdge } from './headlab-transformer-composition.js';
export type { TransformerTrainingTracePoint } from './transformer/training-history.js';
