// Type-level check of the package's hand-written declarations (types/headlab.d.ts),
// run by `tsc` in ./dev test: every element class of the implementation must be
// assignable to the interface the package declares for it, so the .d.ts cannot drift
// from the widgets without the type check failing.
import type * as Package from '../../types/headlab.js';
import type { HeadlabBasisRotation } from '../../widgets/headlab-basis-rotation.js';
import type { HeadlabChoiceQuiz } from '../../widgets/headlab-choice-quiz.js';
import type { HeadlabFeatureRecovery } from '../../widgets/headlab-feature-recovery.js';
import type { HeadlabInterventions } from '../../widgets/headlab-interventions.js';
import type { HeadlabProjectionAblation } from '../../widgets/headlab-projection-ablation.js';
import type { HeadlabValueSwap } from '../../widgets/headlab-value-swap.js';

type Assignable<Impl extends Declared, Declared> = [Impl, Declared];

export type Checks = [
  Assignable<HeadlabProjectionAblation, Package.HeadlabProjectionAblation>,
  Assignable<HeadlabValueSwap, Package.HeadlabValueSwap>,
  Assignable<HeadlabBasisRotation, Package.HeadlabBasisRotation>,
  Assignable<HeadlabChoiceQuiz, Package.HeadlabChoiceQuiz>,
  Assignable<HeadlabFeatureRecovery, Package.HeadlabFeatureRecovery>,
  Assignable<HeadlabInterventions, Package.HeadlabInterventions>,
  Assignable<HeadlabProjectionAblation['state'], Package.ProjectionAblationState>,
  Assignable<HeadlabFeatureRecovery['state']['settings'], Package.FeatureRecoveryWidgetSettings>,
];

/** How an app uses the package: the element from the tag map, its state from the change event. */
export function usage(): void {
  const el = document.querySelector('headlab-value-swap');
  el?.addEventListener('change', (e: CustomEvent<Package.ValueSwapState>) => { void e.detail.swapped_reading[0]; });
  if (el) el.columnB = 3;
}
