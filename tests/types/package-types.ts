// Type-level check of the package's declarations (types/headlab.d.ts, written from the code by
// site/package-types.mjs), run by `tsc` in ./dev test: every element class of the implementation
// must be assignable to the interface the package declares for it, and the tag and JSX maps must
// name every element, so a stale file fails the type check as well as the unit test.
import type * as Package from '../../types/headlab.js';
import type { HeadlabBasisRotation } from '../../widgets/headlab-basis-rotation.js';
import type { HeadlabChoiceQuiz } from '../../widgets/headlab-choice-quiz.js';
import type { HeadlabFeatureRecovery } from '../../widgets/headlab-feature-recovery.js';
import type { HeadlabInterventions } from '../../widgets/headlab-interventions.js';
import type { HeadlabProjectionAblation } from '../../widgets/headlab-projection-ablation.js';
import type { HeadlabValueSwap } from '../../widgets/headlab-value-swap.js';
import type { HeadlabMaxDigitModel } from '../../widgets/headlab-max-digit-model.js';
import type { HeadlabAttentionBars } from '../../widgets/headlab-attention-bars.js';
import type { HeadlabAttentionPatch } from '../../widgets/headlab-attention-patch.js';
import type { HeadlabHeadAblation } from '../../widgets/headlab-head-ablation.js';
import type { HeadlabSubspaceAccuracy } from '../../widgets/headlab-subspace-accuracy.js';
import type { HeadlabHeadContributions } from '../../widgets/headlab-head-contributions.js';
import type { HeadlabAngleDot } from '../../widgets/headlab-angle-dot.js';
import type { HeadlabValue } from '../../widgets/headlab-value.js';
import type { HeadlabMaxDigitMechanism } from '../../widgets/headlab-max-digit-mechanism.js';
import type { HeadlabScoreRamps } from '../../widgets/headlab-score-ramps.js';
import type { HeadlabSeedGrid } from '../../widgets/headlab-seed-grid.js';
import type { HeadlabTransformerTraining } from '../../widgets/headlab-transformer-training.js';
import type { HeadlabQueryKeyCanvas } from '../../widgets/headlab-query-key-canvas.js';
import type { HeadlabTrainingReplay } from '../../widgets/headlab-training-replay.js';
import type { HeadlabTransformerModel } from '../../widgets/headlab-transformer-model.js';
import type { HeadlabTransformerAttention } from '../../widgets/headlab-transformer-attention.js';
import type { HeadlabTransformerAttribution } from '../../widgets/headlab-transformer-attribution.js';
import type { HeadlabTransformerComposition } from '../../widgets/headlab-transformer-composition.js';
import type { HeadlabLogitLens } from '../../widgets/headlab-logit-lens.js';
import type { HeadlabHeadSvd } from '../../widgets/headlab-head-svd.js';
import type { HeadlabTransformerPatching } from '../../widgets/headlab-transformer-patching.js';
import type { HeadlabTransformerAblation } from '../../widgets/headlab-transformer-ablation.js';
import type { HeadlabTransformerCircuits } from '../../widgets/headlab-transformer-circuits.js';
import type { HeadlabQkAttribution } from '../../widgets/headlab-qk-attribution.js';
import type { HeadlabAttributionPatching } from '../../widgets/headlab-attribution-patching.js';
import type { HeadlabCircuitFaithfulness } from '../../widgets/headlab-circuit-faithfulness.js';
import type { HeadlabPathPatching } from '../../widgets/headlab-path-patching.js';
import type * as Elements from '../../widgets/elements.js';

type Assignable<Impl extends Declared, Declared> = [Impl, Declared];
type SameKeys<A extends B, B extends string> = [Exclude<B, A>] extends [never] ? [A, B] : never;
/** The tags the implementation registers: headlab-<kebab of the class name>, one per class in widgets/elements.ts. */
type Kebab<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Uppercase<H> ? (H extends Lowercase<H> ? H : `-${Lowercase<H>}`) : H}${Kebab<T>}`
  : S;
type ImplementedTags = {
  [K in keyof typeof Elements]: K extends `Headlab${infer Rest}` ? `headlab${Kebab<Rest>}` : never;
}[keyof typeof Elements];

export type Checks = [
  Assignable<HeadlabProjectionAblation, Package.HeadlabProjectionAblation>,
  Assignable<HeadlabValueSwap, Package.HeadlabValueSwap>,
  Assignable<HeadlabBasisRotation, Package.HeadlabBasisRotation>,
  Assignable<HeadlabChoiceQuiz, Package.HeadlabChoiceQuiz>,
  Assignable<HeadlabFeatureRecovery, Package.HeadlabFeatureRecovery>,
  Assignable<HeadlabInterventions, Package.HeadlabInterventions>,
  Assignable<HeadlabMaxDigitModel, Package.HeadlabMaxDigitModel>,
  Assignable<HeadlabAttentionBars, Package.HeadlabAttentionBars>,
  Assignable<HeadlabAttentionPatch, Package.HeadlabAttentionPatch>,
  Assignable<HeadlabHeadAblation, Package.HeadlabHeadAblation>,
  Assignable<HeadlabSubspaceAccuracy, Package.HeadlabSubspaceAccuracy>,
  Assignable<HeadlabHeadContributions, Package.HeadlabHeadContributions>,
  Assignable<HeadlabAngleDot, Package.HeadlabAngleDot>,
  Assignable<HeadlabValue, Package.HeadlabValue>,
  Assignable<HeadlabMaxDigitMechanism, Package.HeadlabMaxDigitMechanism>,
  Assignable<HeadlabScoreRamps, Package.HeadlabScoreRamps>,
  Assignable<HeadlabSeedGrid, Package.HeadlabSeedGrid>,
  Assignable<HeadlabTransformerTraining, Package.HeadlabTransformerTraining>,
  Assignable<HeadlabQueryKeyCanvas, Package.HeadlabQueryKeyCanvas>,
  Assignable<HeadlabTrainingReplay, Package.HeadlabTrainingReplay>,
  Assignable<HeadlabTransformerModel, Package.HeadlabTransformerModel>,
  Assignable<HeadlabTransformerAttention, Package.HeadlabTransformerAttention>,
  Assignable<HeadlabTransformerAttribution, Package.HeadlabTransformerAttribution>,
  Assignable<HeadlabTransformerComposition, Package.HeadlabTransformerComposition>,
  Assignable<HeadlabLogitLens, Package.HeadlabLogitLens>,
  Assignable<HeadlabHeadSvd, Package.HeadlabHeadSvd>,
  Assignable<HeadlabTransformerPatching, Package.HeadlabTransformerPatching>,
  Assignable<HeadlabTransformerAblation, Package.HeadlabTransformerAblation>,
  Assignable<HeadlabTransformerCircuits, Package.HeadlabTransformerCircuits>,
  Assignable<HeadlabQkAttribution, Package.HeadlabQkAttribution>,
  Assignable<HeadlabAttributionPatching, Package.HeadlabAttributionPatching>,
  Assignable<HeadlabCircuitFaithfulness, Package.HeadlabCircuitFaithfulness>,
  Assignable<HeadlabPathPatching, Package.HeadlabPathPatching>,
  Assignable<HeadlabTransformerModel['state'], Package.TransformerModelState | null>,
  Assignable<HeadlabTransformerAttention['state'], Package.TransformerAttentionState | null>,
  Assignable<HeadlabTransformerAttribution['state'], Package.TransformerAttributionState | null>,
  Assignable<HeadlabTransformerComposition['state'], Package.TransformerCompositionState | null>,
  Assignable<HeadlabLogitLens['state'], Package.LogitLensState | null>,
  Assignable<HeadlabHeadSvd['state'], Package.HeadSvdState | null>,
  Assignable<HeadlabTransformerPatching['state'], Package.TransformerPatchingState | null>,
  Assignable<HeadlabTransformerAblation['state'], Package.TransformerAblationState | null>,
  Assignable<HeadlabTransformerCircuits['state'], Package.TransformerCircuitsState | null>,
  Assignable<HeadlabQkAttribution['state'], Package.QkAttributionState | null>,
  Assignable<HeadlabAttributionPatching['state'], Package.AttributionPatchingState | null>,
  Assignable<HeadlabCircuitFaithfulness['state'], Package.CircuitFaithfulnessState | null>,
  Assignable<HeadlabPathPatching['state'], Package.PathPatchingState | null>,
  Assignable<HeadlabQueryKeyCanvas['state'], Package.QueryKeyCanvasState | null>,
  Assignable<HeadlabTrainingReplay['state'], Package.TrainingReplayState | null>,
  Assignable<HeadlabProjectionAblation['state'], Package.ProjectionAblationState | null>,
  Assignable<HeadlabMaxDigitModel['state'], Package.MaxDigitModelState | null>,
  Assignable<HeadlabHeadContributions['state'], Package.HeadContributionsState | null>,
  // Every class the implementation exports is declared, with the declared instance type.
  Assignable<InstanceType<typeof Elements.HeadlabValueSwap>, InstanceType<typeof Package.HeadlabValueSwap>>,
  Assignable<InstanceType<typeof Elements.HeadlabAngleDot>, InstanceType<typeof Package.HeadlabAngleDot>>,
  // Every tag of the implementation is in the declared tag map and the JSX attribute map, and no other.
  SameKeys<ImplementedTags, keyof Package.HeadlabElementTagNameMap>,
  SameKeys<ImplementedTags, keyof Package.HeadlabJSXElements>,
  Assignable<NonNullable<HeadlabFeatureRecovery['state']>['settings'], Package.FeatureRecoveryWidgetSettings>,
];

/** How an app uses the package: the element from the tag map, its state from the change event. */
export function usage(): void {
  const el = document.querySelector('headlab-value-swap');
  el?.addEventListener('change', (e: CustomEvent<Package.ValueSwapState>) => {
    void e.detail.swapped_reading[0];
  });
  if (el) el.columnB = 3;
}

/** JSX: an Astro, Preact or React author gets the attributes of each tag checked and completed. */
export const jsxAttributes: Package.HeadlabJSXElements['headlab-subspace-accuracy'] = {
  k: 3,
  basis: 'w_u',
  model: 'digits',
  'share-state': true,
};
export const intrinsic: JSX.IntrinsicElements['headlab-value-swap'] = { 'column-a': 1, 'column-b': '3', id: 'swap' };
// @ts-expect-error an attribute value outside the declared choices is a type error
export const badChoice: JSX.IntrinsicElements['headlab-angle-dot'] = { matrix: 'angle' };
