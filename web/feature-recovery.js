// JS face of web/bindings/feature_recovery_bindings.cpp: the feature-recovery
// experiment. The embind handles stay inside FeatureRecoveryTrainer and FeatureRecoveryModel;
// callers get plain data copied out of the WASM heap and must call dispose().
import { unwrap } from './errors.js';
import { OwnedHandle, OwnedTrainer, live, started } from './owned-handle.js';
import { matrix, toRows } from './matrix.js';
import { loadModule, moduleApi } from './module.js';

/**
 * The draft's published PyTorch figures (float64, one thread, Adam lr 0.03, 1,200 steps),
 * to show next to a run's own numbers. Our generator differs from PyTorch's, so our runs
 * give different numbers of the same kind; tests use the acceptance bounds of docs/feature-recovery-results.md, not these.
 */
export const DRAFT_PUBLISHED = Object.freeze({
  source: 'draft "Recovering known features with two attention projections" (PyTorch 2.7.1+cpu)',
  seeds: Object.freeze([
    Object.freeze({ seed: 0, heldout_mse: 1.3e-31, uniform_attention_mse: 0.332, min_r2: 'above 0.999999' }),
    Object.freeze({ seed: 1, heldout_mse: 4.7e-31, uniform_attention_mse: 0.332, min_r2: 'above 0.999999' }),
    Object.freeze({ seed: 2, heldout_mse: 1.53e-31, uniform_attention_mse: 0.334, min_r2: 'above 0.999999' }),
  ]),
  // Ranges across the three seeds and the three feature choices.
  erase_request_mse: Object.freeze([0.139, 0.153]),
  erase_payload_mse: Object.freeze([0.188, 0.207]),
  irrelevant_shift_mse: Object.freeze([1e-30, 7e-30]),
});

export const FEATURE_RECOVERY_FORMAT = 'headlab.feature-recovery.results/1';

/** The results.json fields that are matrices: arrays of rows in the file, { rows, cols, data } in memory. */
const RESULTS_MATRICES = Object.freeze(['fixed_keys', 'mixing', 'w_q', 'w_v', 'response_query', 'response_value']);

/**
 * A run in memory (the worker's result, what widgets read): results.json's fields with every
 * matrix in the one encoding of web/ ({ rows, cols, data: Float64Array }, row-major), so typed
 * arrays travel from the worker and into core calls without a copy through rows.
 * `results` is the object the writer's text parses to; the same doubles, moved.
 */
export function featureRecoveryRun(results) {
  const run = { ...results };
  for (const key of RESULTS_MATRICES) run[key] = matrix(results[key], key);
  return run;
}

/** results.json from a run in memory: matrices back to arrays of rows, the only place they nest (for a file). */
export function featureRecoveryResultsFile(run) {
  const file = { ...run };
  for (const key of RESULTS_MATRICES) file[key] = toRows(run[key]);
  return file;
}

/**
 * Settings in the one vocabulary (docs/model-pattern.md). `batch`, the name before it, is still
 * read as `batch_size` so older callers keep working.
 */
function settingsInput(settings) {
  const s = { ...(settings ?? {}) };
  if (s.batch !== undefined && s.batch_size === undefined) s.batch_size = s.batch;
  delete s.batch;
  return s;
}

/**
 * Steppable training of W_q, W_v, in the trainer protocol of docs/model-pattern.md
 * (see headlab-core.d.ts). Call dispose() when done.
 */
export class FeatureRecoveryTrainer extends OwnedTrainer {
  #settings;
  #module;

  constructor(module, settings = {}) {
    const handle = new module.FeatureRecoveryTrainerHandle();
    const start = started(handle, (h) => unwrap(h.start(settingsInput(settings))));
    super(handle, 'this FeatureRecoveryTrainer was disposed; create a new one', start.progress);
    this.#settings = start.settings;
    this.#module = module;
  }

  /** The resolved settings (defaults filled in). */
  get settings() {
    return { ...this.#settings };
  }

  /** Plain copies of the current state: settings, steps_taken, mixing, fixed_keys, keys, w_q, w_v, response maps, loss_trace, diverged_at. */
  snapshot() {
    return unwrap(live(this).snapshot());
  }

  /** Held-out evaluation and interventions of the current W_q, W_v. */
  evaluate() {
    return unwrap(live(this).evaluate());
  }

  /**
   * The run so far as a results.json object (docs/feature-recovery-results.md): the text the one
   * writer (formats/feature_recovery_results.hpp) produced, parsed.
   */
  result() {
    return JSON.parse(unwrap(live(this).result()));
  }

  /** The earlier name of result(). */
  results() {
    return this.result();
  }

  /** The run so far as a FeatureRecoveryModel, made inside the module from the trainer (no matrix crosses to JS). Dispose it too. */
  model() {
    const trainer = live(this);
    return new FeatureRecoveryModel(this.#module, (h) => unwrap(h.load_trainer(trainer)));
  }
}

/**
 * A run's W_q, W_v held in the WASM heap with their R, held-out set and clean prediction (core
 * FeatureRecoveryModel): made once, from a trainer (trainer.model()) or from { seed, w_q, w_v,
 * eval_size?, request_scale?, shift?, fixed_keys? } (core.featureRecoveryModel: copied in once);
 * every request then reads it, so no matrix is copied in per call and the held-out set is drawn
 * once. Its answers equal the free functions' (featureRecoveryIntervene, featureRecoveryEvaluate,
 * featureRecoveryExample) bit for bit. dispose() frees it.
 */
export class FeatureRecoveryModel extends OwnedHandle {
  /** `load(handle)` fills the fresh handle (its load or load_trainer); a failure frees it and throws. */
  constructor(module, load) {
    const handle = new module.FeatureRecoveryModelHandle();
    started(handle, load);
    super(handle, 'this FeatureRecoveryModel was disposed; create a new one');
  }

  /** { seed, eval_size, request_scale, shift, … }: the settings the model was made with. */
  get settings() {
    return unwrap(live(this).settings());
  }

  /** { intervention, feature?, shift?, examples? } → { mse, heldout_mse, before, after, target } (featureRecoveryIntervene's). */
  intervene(input) {
    return unwrap(live(this).intervene(input ?? {}));
  }

  /** The held-out evaluation (featureRecoveryEvaluate's), with the model's shift. */
  evaluate() {
    return unwrap(live(this).evaluate());
  }

  /** { index, keys? } → one held-out example traced (featureRecoveryExample's). */
  example(input) {
    return unwrap(live(this).example(input ?? {}));
  }
}

export function featureRecoveryApi(module) {
  return {
    createFeatureRecoveryTrainer: (settings) => new FeatureRecoveryTrainer(module, settings),
    featureRecoveryExample: (input) => unwrap(module.feature_recovery_example(input ?? {})),
    featureRecoveryReplaySteps: (steps, count) => unwrap(module.feature_recovery_replay_steps(steps, count)),
    featureRecoveryTask: (input) => unwrap(module.feature_recovery_task(input ?? {})),
    featureRecoveryEvaluate: (input) => unwrap(module.feature_recovery_evaluate(input ?? {})),
    featureRecoveryIntervene: (input) => unwrap(module.feature_recovery_intervene(input ?? {})),
    /** A model holding { seed, w_q, w_v, eval_size?, request_scale?, shift?, fixed_keys? } in the heap, for many requests. */
    featureRecoveryModel: (input) => new FeatureRecoveryModel(module, (h) => unwrap(h.load(input ?? {}))),
    featureRecoveryLiveModels: () => module.feature_recovery_live_models(),
    featureRecoveryLostDirections: (keys) => unwrap(module.feature_recovery_lost_directions(keys)),
    featureRecoveryLiveTrainers: () => module.feature_recovery_live_trainers(),
  };
}

/** Wraps an instantiated headlab_feature_recovery module (the value its factory resolves to). */
export function wrapFeatureRecoveryCore(module) {
  return { ...moduleApi(module), ...featureRecoveryApi(module) };
}

/** Instantiates headlab_feature_recovery (the feature-recovery experiment) with `factory`, the default export of headlab_feature_recovery.mjs, and wraps it. */
export function loadFeatureRecoveryCore(factory, moduleOptions = {}) {
  return loadModule(factory, moduleOptions, 'feature-recovery module', featureRecoveryApi);
}
