// JS face of web/bindings/max_digit_bindings.cpp: the max-digit transformer.
// Weights are plain objects { format_version, vocab, d_model, n_heads, d_head,
// unit_norm_unembedding, E, W_Q[4], W_K[4], W_V[4], W_O[4], W_U } with every matrix
// { rows, cols, data: Float64Array }. The embind trainer handle never leaves this file.
import { HeadlabError, unwrap } from './errors.js';

const MATRIX_FIELDS = ['E', 'W_U'];
const HEAD_FIELDS = ['W_Q', 'W_K', 'W_V', 'W_O'];

function isMatrix(v) {
  return v && typeof v === 'object' && v.data instanceof Float64Array;
}

// Nested rows → { rows, cols, data }; entries that are not numbers become NaN so the core
// reports them as non-finite; ragged rows throw here with the CLI's wording.
function matrixFromRows(value, name) {
  if (isMatrix(value)) return value;
  if (!Array.isArray(value)) throw new HeadlabError(`${name} must be an array of rows`);
  if (value.length === 0) throw new HeadlabError(`${name} is empty (0 rows); it needs at least one row and one column`);
  if (!Array.isArray(value[0])) throw new HeadlabError(`${name}[0] must be an array of numbers`);
  const cols = value[0].length;
  const data = new Float64Array(value.length * cols);
  value.forEach((row, i) => {
    if (!Array.isArray(row) || row.length !== cols) {
      throw new HeadlabError(`${name} row ${i} must have ${cols} numbers like row 0 (rows must be equal in length)`);
    }
    row.forEach((x, j) => {
      if (typeof x !== 'number') throw new HeadlabError(`${name}[${i}][${j}] is not a number`);
      data[i * cols + j] = x;
    });
  });
  return { rows: value.length, cols, data };
}

/** Parsed weights file (text or object) → weights checked by the core. */
function weightsInput(source) {
  let file = source;
  if (typeof source === 'string') {
    try {
      file = JSON.parse(source);
    } catch (err) {
      throw new HeadlabError(`the weights file is not valid JSON: ${err.message}`);
    }
  }
  if (!file || typeof file !== 'object' || Array.isArray(file)) throw new HeadlabError('the weights file must be a JSON object');
  const out = { ...file };
  for (const name of MATRIX_FIELDS) {
    if (file[name] !== undefined && file[name] !== null) out[name] = matrixFromRows(file[name], name);
  }
  for (const name of HEAD_FIELDS) {
    const v = file[name];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) throw new HeadlabError(`${name} must be an array of 4 matrices`);
    out[name] = v.map((m, h) => matrixFromRows(m, `${name}[${h}]`));
  }
  return out;
}

/** A training run that advances in chunks (for a Web Worker with a progress bar). */
export class MaxDigitTrainer {
  #handle;

  constructor(module, settings = {}) {
    this.#handle = new module.MaxDigitTrainerHandle();
    try {
      this.progress = unwrap(this.#handle.start(settings ?? {}));
    } catch (err) {
      this.#handle.delete();
      this.#handle = null;
      throw err;
    }
  }

  #live() {
    if (!this.#handle) throw new HeadlabError('this MaxDigitTrainer was disposed; create a new one');
    return this.#handle;
  }

  /** Runs up to n more steps; returns { steps_taken, total_steps, done, loss }. */
  step(n) {
    this.progress = unwrap(this.#live().step(n));
    return this.progress;
  }

  /** The current weights (a fresh copy). */
  weights() {
    return unwrap(this.#live().weights());
  }

  get disposed() {
    return this.#handle === null;
  }

  /** Frees the WASM trainer; further calls throw HeadlabError. Safe to call twice. */
  dispose() {
    if (this.#handle) {
      this.#handle.delete();
      this.#handle = null;
    }
  }
}

export function maxDigitApi(module) {
  const w = (weights) => weightsInput(weights);
  return {
    maxDigitWeightsFromJson: (source) => unwrap(module.max_digit_check_weights(weightsInput(source))),
    maxDigitInitialWeights: (settings = {}) => unwrap(module.max_digit_initial_weights(settings ?? {})),
    maxDigitTrain: (settings = {}) => unwrap(module.max_digit_train(settings ?? {})),
    createMaxDigitTrainer: (settings = {}) => new MaxDigitTrainer(module, settings),
    maxDigitTrainer: (settings = {}) => new MaxDigitTrainer(module, settings),
    maxDigitLiveTrainers: () => module.max_digit_live_trainers(),
    maxDigitLogits: (weights, digits) => unwrap(module.max_digit_logits(w(weights), digits)),
    maxDigitAnsAttention: (weights, digits) => unwrap(module.max_digit_ans_attention(w(weights), digits)),
    maxDigitScoreTable: (weights) => unwrap(module.max_digit_score_table(w(weights))),
    maxDigitAttentionByMax: (weights) => unwrap(module.max_digit_attention_by_max(w(weights))),
    maxDigitPatch: (weights, digits, patches) => unwrap(module.max_digit_patch(w(weights), digits, patches)),
    maxDigitAblation: (weights, heads) => unwrap(module.max_digit_ablation(w(weights), heads)),
    maxDigitResidualFree: (weights) => unwrap(module.max_digit_residual_free(w(weights))),
    maxDigitPrincipalDirections: (weights, basis) =>
      unwrap(module.max_digit_principal_directions(w(weights), basis)),
    maxDigitSubspaceAccuracy: (weights, basis, k) =>
      unwrap(module.max_digit_subspace_accuracy(w(weights), basis, k)),
    maxDigitCosineTop3: (weights) => unwrap(module.max_digit_cosine_top3(w(weights))),
    maxDigitContributions: (weights, digits, basis = 'w_o', k = 3) =>
      unwrap(module.max_digit_contributions(w(weights), digits, basis, k)),
    maxDigitAngleVsDot: (weights, basis = 'w_o', k = 3) => unwrap(module.max_digit_angle_vs_dot(w(weights), basis, k)),
    maxDigitAnalyze: (weights) => unwrap(module.max_digit_analyze(w(weights))),
    maxDigitHeadLogits: (weights, digits) => unwrap(module.max_digit_head_logits(w(weights), digits)),
    maxDigitRunnerUp: (weights, maximum, runnerUp) => unwrap(module.max_digit_runner_up(w(weights), maximum, runnerUp)),
  };
}
