// JS face of web/bindings/max_digit_bindings.cpp: the max-digit transformer.
// Weights in memory are plain objects { format_version, vocab, d_model, n_heads, d_head,
// unit_norm_unembedding, E, W_Q[4], W_K[4], W_V[4], W_O[4], W_U } with every matrix
// { rows, cols, data: Float64Array }. A model (MaxDigitModel) holds its weights in the WASM heap,
// copied in once: the analyses take it in place of the weights, and then copy in only their
// other inputs. The embind trainer and model handles never leave this file.
import { HeadlabError, unwrap } from './errors.js';
import { OwnedHandle, OwnedTrainer, live, started } from './owned-handle.js';
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

/**
 * Weights held in the WASM heap: copied in (and checked) once, at construction; every analysis
 * given it instead of the weights reads them there. dispose() frees them.
 */
export class MaxDigitModel extends OwnedHandle {
  constructor(module, weights) {
    const handle = new module.MaxDigitModelHandle();
    started(handle, (h) => unwrap(h.load(weights)));
    super(handle, 'this MaxDigitModel was disposed; create a new one with maxDigitModel(weights)');
  }
}

/**
 * The analysis `name` of the module on `model`: a MaxDigitModel calls its handle's method (no
 * weights cross the boundary); weights in memory, or a parsed file read first, go with the call.
 */
function analysis(module, name, read) {
  const method = name.replace(/^max_digit_/, '');
  return (model, ...args) => {
    if (model instanceof MaxDigitModel) return unwrap(live(model)[method](...args));
    const weights = model && isMatrix(model.E) ? model : read(model);
    return unwrap(module[name](weights, ...args));
  };
}

export function maxDigitApi(module) {
  const read = (source) => unwrap(module.max_digit_check_weights(weightsFileText(source)));
  const on = (name) => analysis(module, name, read);
  const logits = on('max_digit_logits');
  const ansAttention = on('max_digit_ans_attention');
  const scoreTable = on('max_digit_score_table');
  const attentionByMax = on('max_digit_attention_by_max');
  const patch = on('max_digit_patch');
  const ablation = on('max_digit_ablation');
  const residualFree = on('max_digit_residual_free');
  const principalDirections = on('max_digit_principal_directions');
  const subspaceAccuracy = on('max_digit_subspace_accuracy');
  const cosineTop3 = on('max_digit_cosine_top3');
  const contributions = on('max_digit_contributions');
  const angleVsDot = on('max_digit_angle_vs_dot');
  const analyze = on('max_digit_analyze');
  const headLogits = on('max_digit_head_logits');
  const runnerUp = on('max_digit_runner_up');
  return {
    maxDigitWeightsFromJson: read,
    maxDigitInitialWeights: (settings = {}) => unwrap(module.max_digit_initial_weights(settings ?? {})),
    maxDigitTrain: (settings = {}) => unwrap(module.max_digit_train(settings ?? {})),
    createMaxDigitTrainer: (settings = {}) => new MaxDigitTrainer(module, settings),
    /** The earlier name of createMaxDigitTrainer. */
    maxDigitTrainer: (settings = {}) => new MaxDigitTrainer(module, settings),
    maxDigitLiveTrainers: () => module.max_digit_live_trainers(),
    /** A model holding `weights` in the heap (weights in memory or a weights file), for the analyses below. */
    maxDigitModel: (weights) => new MaxDigitModel(module, weights && isMatrix(weights.E) ? weights : read(weights)),
    maxDigitLiveModels: () => module.max_digit_live_models(),
    maxDigitLogits: (model, digits) => logits(model, digits),
    maxDigitAnsAttention: (model, digits) => ansAttention(model, digits),
    maxDigitScoreTable: (model) => scoreTable(model),
    maxDigitAttentionByMax: (model) => attentionByMax(model),
    maxDigitPatch: (model, digits, patches) => patch(model, digits, patches),
    maxDigitAblation: (model, heads) => ablation(model, heads),
    maxDigitResidualFree: (model) => residualFree(model),
    maxDigitPrincipalDirections: (model, basis) => principalDirections(model, basis),
    maxDigitSubspaceAccuracy: (model, basis, k) => subspaceAccuracy(model, basis, k),
    maxDigitCosineTop3: (model) => cosineTop3(model),
    maxDigitContributions: (model, digits, basis = 'w_o', k = 3) => contributions(model, digits, basis, k),
    maxDigitAngleVsDot: (model, basis = 'w_o', k = 3) => angleVsDot(model, basis, k),
    // analysis.json as its one writer (formats/max_digit_analysis.hpp) wrote it, parsed.
    maxDigitAnalyze: (model) => JSON.parse(analyze(model)),
    maxDigitHeadLogits: (model, digits) => headLogits(model, digits),
    maxDigitRunnerUp: (model, maximum, runnerUp_) => runnerUp(model, maximum, runnerUp_),
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
