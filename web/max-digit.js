// JS face of web/bindings/max_digit_bindings.cpp: the max-digit transformer.
// Weights in memory are plain objects { format_version, vocab, d_model, n_heads, d_head,
// unit_norm_unembedding, E, W_Q[4], W_K[4], W_V[4], W_O[4], W_U } with every matrix
// { rows, cols, data: Float64Array }. The embind trainer handle never leaves this file.
import { HeadlabError, unwrap } from './errors.js';
import { OwnedTrainer, live, started } from './owned-handle.js';
import { loadModule, moduleApi } from './module.js';

function isMatrix(v) {
  return v && typeof v === 'object' && v.data instanceof Float64Array;
}

/**
 * A weights file as text for its one reader (formats/max_digit_weights.hpp): text as it is; an
 * object as JSON, in-memory matrices { rows, cols, data } written as the file's arrays of rows.
 */
function weightsFileText(source) {
  if (typeof source === 'string') return source;
  if (!source || typeof source !== 'object' || Array.isArray(source)) throw new HeadlabError('the weights file must be a JSON object');
  return JSON.stringify(source, (key, v) =>
    isMatrix(v) ? Array.from({ length: v.rows }, (_, i) => Array.from(v.data.subarray(i * v.cols, (i + 1) * v.cols))) : v,
  );
}

/** A training run in the trainer protocol of docs/model-pattern.md (for a Web Worker with a progress bar). */
export class MaxDigitTrainer extends OwnedTrainer {
  constructor(module, settings = {}) {
    const handle = new module.MaxDigitTrainerHandle();
    const progress = started(handle, (h) => unwrap(h.start(settings ?? {})));
    super(handle, 'this MaxDigitTrainer was disposed; create a new one', progress);
  }

  /** The current weights (a fresh copy). */
  weights() {
    return unwrap(live(this).weights());
  }

  /** The run so far: { steps_taken, final_batch_loss, weights }. */
  result() {
    return unwrap(live(this).result());
  }
}

export function maxDigitApi(module) {
  const read = (source) => unwrap(module.max_digit_check_weights(weightsFileText(source)));
  // Weights in memory pass as they are; a parsed file (arrays of rows) goes through the reader first.
  const w = (weights) => (weights && isMatrix(weights.E) ? weights : read(weights));
  return {
    maxDigitWeightsFromJson: read,
    maxDigitInitialWeights: (settings = {}) => unwrap(module.max_digit_initial_weights(settings ?? {})),
    maxDigitTrain: (settings = {}) => unwrap(module.max_digit_train(settings ?? {})),
    createMaxDigitTrainer: (settings = {}) => new MaxDigitTrainer(module, settings),
    /** The earlier name of createMaxDigitTrainer. */
    maxDigitTrainer: (settings = {}) => new MaxDigitTrainer(module, settings),
    maxDigitLiveTrainers: () => module.max_digit_live_trainers(),
    maxDigitLogits: (weights, digits) => unwrap(module.max_digit_logits(w(weights), digits)),
    maxDigitAnsAttention: (weights, digits) => unwrap(module.max_digit_ans_attention(w(weights), digits)),
    maxDigitScoreTable: (weights) => unwrap(module.max_digit_score_table(w(weights))),
    maxDigitAttentionByMax: (weights) => unwrap(module.max_digit_attention_by_max(w(weights))),
    maxDigitPatch: (weights, digits, patches) => unwrap(module.max_digit_patch(w(weights), digits, patches)),
    maxDigitAblation: (weights, heads) => unwrap(module.max_digit_ablation(w(weights), heads)),
    maxDigitResidualFree: (weights) => unwrap(module.max_digit_residual_free(w(weights))),
    maxDigitPrincipalDirections: (weights, basis) => unwrap(module.max_digit_principal_directions(w(weights), basis)),
    maxDigitSubspaceAccuracy: (weights, basis, k) => unwrap(module.max_digit_subspace_accuracy(w(weights), basis, k)),
    maxDigitCosineTop3: (weights) => unwrap(module.max_digit_cosine_top3(w(weights))),
    maxDigitContributions: (weights, digits, basis = 'w_o', k = 3) => unwrap(module.max_digit_contributions(w(weights), digits, basis, k)),
    maxDigitAngleVsDot: (weights, basis = 'w_o', k = 3) => unwrap(module.max_digit_angle_vs_dot(w(weights), basis, k)),
    // analysis.json as its one writer (formats/max_digit_analysis.hpp) wrote it, parsed.
    maxDigitAnalyze: (weights) => JSON.parse(unwrap(module.max_digit_analyze(w(weights)))),
    maxDigitHeadLogits: (weights, digits) => unwrap(module.max_digit_head_logits(w(weights), digits)),
    maxDigitRunnerUp: (weights, maximum, runnerUp) => unwrap(module.max_digit_runner_up(w(weights), maximum, runnerUp)),
  };
}

/** Wraps an instantiated headlab_max_digit module (the value its factory resolves to). */
export function wrapMaxDigitCore(module) {
  return { ...moduleApi(module), ...maxDigitApi(module) };
}

/** Instantiates headlab_max_digit (the max-digit transformer) with `factory`, the default export of headlab_max_digit.mjs, and wraps it. */
export function loadMaxDigitCore(factory, moduleOptions = {}) {
  return loadModule(factory, moduleOptions, 'max-digit module', maxDigitApi);
}
