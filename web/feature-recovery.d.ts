// Types of web/feature-recovery.js, declared once in web/headlab-core.d.ts. Widgets import the
// feature-recovery functions from this file, not from headlab-core.js, so a page bundles no
// other module's JS face.
export {
  DRAFT_PUBLISHED,
  FeatureRecoveryModel,
  FeatureRecoveryTrainer,
  featureRecoveryResultsFile,
  featureRecoveryRun,
  loadFeatureRecoveryCore,
  wrapFeatureRecoveryCore,
} from './headlab-core.js';
