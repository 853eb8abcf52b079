// JS face of web/bindings/feature_recovery_bindings.cpp: the feature-recovery
// experiment. The embind trainer handle stays inside FeatureRecoveryTrainer;
// callers get plain data copied out of the WASM heap and must call dispose().
import { HeadlabError, unwrap } from './errors.js';
import { toRows } from './matrix.js';

/**
 * The draft's published PyTorch figures (float64, one thread, Adam lr 0.03, 1,200 steps),
 * to show next to a run's own numbers. Our generator differs from PyTorch's, so our runs
 * give different numbers of the same kind; tests use the bounds, not these.
 */
export const DRAFT_PUBLISHED = Object.freeze({
  source: 'draft "Recovering known features with two attention projections" (PyTorch 2.7.1+cpu)',
  seeds: Object.freeze([
    Object.freeze({ seed: 0, heldout_mse: 1.30e-31, uniform_attention_mse: 0.332, min_r2: 'above 0.999999' }),
    Object.freeze({ seed: 1, heldout_mse: 4.70e-31, uniform_attention_mse: 0.332, min_r2: 'above 0.999999' }),
    Object.freeze({ seed: 2, heldout_mse: 1.53e-31, uniform_attention_mse: 0.334, min_r2: 'above 0.999999' }),
  ]),
  // Ranges across the three seeds and the three feature choices.
  erase_request_mse: Object.freeze([0.139, 0.153]),
  erase_payload_mse: Object.freeze([0.188, 0.207]),
  irrelevant_shift_mse: Object.freeze([1e-30, 7e-30]),
});

export const FEATURE_RECOVERY_FORMAT = 'headlab.feature-recovery.results/1';

const rowsOf = (m) => toRows(m);

/** Steppable training of W_q, W_v (see headlab-core.d.ts). Call dispose() when done. */
export class FeatureRecoveryTrainer {
  #module;
  #handle;
  #settings;
  #trainSeconds = 0;

  constructor(module, settings = {}) {
    const handle = new module.FeatureRecoveryTrainerHandle();
    let init;
    try {
      init = handle.init(settings ?? {});
    } catch (err) {
      handle.delete();
      throw err;
    }
    if (init && typeof init.error === 'string') {
      handle.delete();
      throw new HeadlabError(init.error);
    }
    this.#module = module;
    this.#handle = handle;
    this.#settings = init.settings;
  }

  #live() {
    if (this.#handle === null) throw new HeadlabError('this FeatureRecoveryTrainer was disposed; create a new one');
    return this.#handle;
  }

  /** The resolved settings (defaults filled in). */
  get settings() {
    return { ...this.#settings };
  }

  get disposed() {
    return this.#handle === null;
  }

  /** Advances up to n steps; returns { taken, steps_done, steps, loss }. */
  step(n = 1) {
    const handle = this.#live();
    const start = performance.now();
    const r = unwrap(handle.step(n));
    this.#trainSeconds += (performance.now() - start) / 1000;
    return r;
  }

  /** Plain copies of the current state: settings, steps_done, mixing, fixed_keys, w_q, w_v, response maps, loss_trace. */
  snapshot() {
    return { ...unwrap(this.#live().snapshot()), train_seconds: this.#trainSeconds };
  }

  /** Held-out evaluation and interventions of the current W_q, W_v. */
  evaluate() {
    return unwrap(this.#live().evaluate());
  }

  /** The run as a results.json object (docs/feature-recovery-results.md): matrices as arrays of rows. */
  results() {
    const s = this.snapshot();
    const e = this.evaluate();
    return {
      format: FEATURE_RECOVERY_FORMAT,
      headlab_version: this.#module.version(),
      settings: s.settings,
      steps_done: s.steps_done,
      fixed_keys: rowsOf(s.fixed_keys),
      mixing: rowsOf(s.mixing),
      w_q: rowsOf(s.w_q),
      w_v: rowsOf(s.w_v),
      response_query: rowsOf(e.response_query),
      response_value: rowsOf(e.response_value),
      loss_trace: Array.from(s.loss_trace),
      heldout_mse: e.heldout_mse,
      uniform_attention_mse: e.uniform_attention_mse,
      query_r2: e.query_r2,
      value_r2: e.value_r2,
      interventions: e.interventions,
      train_seconds: s.train_seconds,
    };
  }

  /** Frees the WASM-side trainer. Safe to call twice; any later use throws HeadlabError. */
  dispose() {
    if (this.#handle !== null) {
      this.#handle.delete();
      this.#handle = null;
    }
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
    featureRecoveryLostDirections: (keys) => unwrap(module.feature_recovery_lost_directions(keys)),
    featureRecoveryLiveTrainers: () => module.feature_recovery_live_trainers(),
  };
}
