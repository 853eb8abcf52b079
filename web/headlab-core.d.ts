// Types of the JS layer over the WASM core (web/headlab-core.js); the raw embind modules it wraps:
// web/embind.d.ts; the file formats' shapes: formats/*.d.ts, imported here.
// Shapes use the core's vocabulary: n tokens, d_model input width, d_k query/key
// width, d_v value width. All numbers are plain float64; all angles are radians.

/** A dense matrix, row-major: entry (i, j) is data[i * cols + j]. data.length === rows * cols. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float64Array;
}

/** Thrown for every error the core reports; message is the C++ message unchanged. */
export class HeadlabError extends Error {
  name: 'HeadlabError';
}

export interface AttentionInput {
  /** n × d_model, finite, n ≥ 1. */
  x: Matrix;
  /** d_model × d_k query projection W_Q. */
  w_q: Matrix;
  /** d_model × d_k key projection W_K (same d_k as w_q). */
  w_k: Matrix;
  /** d_model × d_v value projection W_V. */
  w_v: Matrix;
  /** Position i attends only to j ≤ i. Default false. */
  causal?: boolean;
  /** n × n non-negative weights used instead of the softmax (patching). Default: none. */
  weights_override?: Matrix | null;
}

export interface AttentionResult {
  /** n × d_k, X W_Q */
  q: Matrix;
  /** n × d_k, X W_K */
  k: Matrix;
  /** n × d_v, X W_V */
  v: Matrix;
  /** n × n, Q Kᵀ before scaling and masking: the raw match q_i·k_j. */
  dot_products: Matrix;
  /** n × n, Q Kᵀ / √d_k; masked entries are -Infinity. */
  scores: Matrix;
  /** n × n, row softmax of scores (rows sum to 1), or the override. */
  weights: Matrix;
  /** n × d_v, weights · V */
  reading: Matrix;
}

/** What every module has (web/module.js, web/bindings/module_bindings.cpp). */
export interface HeadlabModule {
  /** Semantic version of the core, e.g. "0.1.0". */
  version(): string;
  /** Memory of the WASM module now, for leak checks (tests assert these stay flat over many updates). */
  memoryDiagnostics(): MemoryDiagnostics;
}

export interface QueryKeyPicture {
  dot_products: Matrix;
  scores: Matrix;
  weights: Matrix;
  reading: Matrix;
  query_lengths: Matrix;
  key_lengths: Matrix;
  query_key_angles: Matrix;
  query_angles: Matrix;
}

/** headlab_core.wasm: attention and projection edits (getCore() in a page). */
export interface HeadlabCore extends HeadlabModule {
  /** One attention head. Throws HeadlabError naming the argument on a bad shape or a non-finite entry. */
  attention(input: AttentionInput): AttentionResult;
  /** w (d_model × d) with output columns a and b (0-based, in [0, d)) exchanged. */
  swapProjectionCoordinates(w: Matrix, a: number, b: number): Matrix;
  /** { q: Q R, k: K R } for orthogonal R (d_k × d_k); throws if max |RᵀR − I| > 1e-9. */
  rotateQueryKey(q: Matrix, k: Matrix, rotation: Matrix): { q: Matrix; k: Matrix };
  /** d × d identity with a rotation by `angle` radians in the plane of coordinates a ≠ b. */
  planeRotation(d: number, a: number, b: number, angle: number): Matrix;
  /**
   * Change of the query–key basis by an invertible A (d_k × d_k): Q′ = Q A, K′ = K A^{−T}, so
   * Q′K′ᵀ = QKᵀ. Throws HeadlabError when A is not d_k × d_k, has a non-finite entry, is
   * singular, or has condition number σ_max/σ_min above 1e8.
   */
  changeQueryKeyBasis(q: Matrix, k: Matrix, a: Matrix): { q: Matrix; k: Matrix; inverse_transpose: Matrix; condition_number: number };
  /**
   * The query–key picture at score scale s (finite, ≥ 0; the head's own is 1/√d_k): dot products
   * Q Kᵀ (n × m), scores s·Q Kᵀ, weights (softmax by row), reading = weights · V (n × d_v), lengths
   * ‖q_i‖ (1 × n), ‖k_j‖ (1 × m), angles in radians [0, π] between queries and keys (n × m) and
   * between queries (n × n; 0 for a zero vector). q: n × d_k, k: m × d_k, v: m × d_v.
   */
  queryKeyPicture(q: Matrix, k: Matrix, v: Matrix, scoreScale: number): QueryKeyPicture;
}

// ---- feature recovery (web/feature-recovery.js; docs/feature-recovery-results.md) ----

export interface FeatureRecoveryExample {
  request_features: Matrix;
  payloads: Matrix;
  query: Matrix;
  scores: Matrix;
  weights: Matrix;
  values: Matrix;
  prediction: Matrix;
  teacher_weights: Matrix;
  target: Matrix;
  keys: Matrix;
}

/** headlab_feature_recovery.wasm: the feature-recovery experiment (getFeatureRecoveryCore() in a page). */
export interface FeatureRecoveryCore extends HeadlabModule {
  /** A steppable trainer of W_q, W_v. Throws HeadlabError naming a bad setting. Call dispose() when done. */
  createFeatureRecoveryTrainer(settings?: FeatureRecoverySettingsInput): FeatureRecoveryTrainer;
  /** R (9 × 9) of a seed, the fixed keys (4 × 3) and the known solution W_q = Rᵀ[:, 0..2], W_v = Rᵀ[:, 3..5]. */
  featureRecoveryTask(input: { seed: number }): FeatureRecoveryTask;
  /**
   * Steps at which a training replay keeps a snapshot: 0, then log-spaced (dense early) up to
   * `steps` (0 … 10⁷), about `count` (2 … 10⁴) in all, strictly increasing, last = steps.
   */
  featureRecoveryReplaySteps(steps: number, count: number): number[];
  /**
   * Held-out example `index` (default 0; 0 … eval_size − 1) of the seed's evaluation set traced
   * through W_q, W_v (9 × 3 each) and through the teacher: request_features (1 × 3, latent),
   * payloads (4 × 3, latent), query (1 × 3), scores (1 × 4), weights (1 × 4), values (4 × 3),
   * prediction (1 × 3), teacher_weights (1 × 4), target (1 × 3), keys (4 × 3: the model's, default
   * the task's). fixed_keys: the task's keys the teacher routes by (4 × 3, entries in [−10, 10];
   * default the tetrahedron), as in FeatureRecoverySettingsInput.
   */
  featureRecoveryExample(input: {
    seed: number;
    w_q: Matrix;
    w_v: Matrix;
    keys?: Matrix;
    fixed_keys?: Matrix;
    index?: number;
    eval_size?: number;
    request_scale?: number;
  }): FeatureRecoveryExample;
  /**
   * The query directions keys cannot see (keys: m × 3, finite): softmax ignores a shift shared by
   * all scores, so q moving along u with (k_i − k̄)·u = 0 for every key changes no weight. Orthonormal
   * rows (0 × 3 for the tetrahedron, (0, 0, 1) for keys with equal third coordinates); the largest
   * entry of each is positive.
   */
  featureRecoveryLostDirections(keys: Matrix): Matrix;
  /** Held-out evaluation and interventions of any W_q, W_v (9 × 3) on the seed's evaluation set. */
  featureRecoveryEvaluate(input: FeatureRecoveryHeldOutInput): FeatureRecoveryEvaluation;
  /** One intervention on the seed's held-out set, re-mixed by R. */
  featureRecoveryIntervene(input: FeatureRecoveryInterventionInput): FeatureRecoveryInterventionResult;
  /** Trainer handles alive in the WASM heap (for leak checks). */
  featureRecoveryLiveTrainers(): number;
  /**
   * W_q, W_v held in the heap (copied in and checked once) with the seed's R, held-out set and
   * clean prediction, for many requests; answers bit for bit those of the functions above. Dispose it.
   */
  featureRecoveryModel(input: FeatureRecoveryHeldOutInput & { fixed_keys?: Matrix }): FeatureRecoveryModel;
  /** Model handles alive in the WASM heap (for leak checks). */
  featureRecoveryLiveModels(): number;
}

/** Settings of a run; every field optional (defaults: the draft's settings). */
export interface FeatureRecoverySettingsInput {
  /** Integer in [0, 2^53 − 1] (core/check.hpp kMaxSeed); fixes R, the initialisation, every batch and the evaluation set. Default 0. */
  seed?: number;
  /** Adam steps, integer in [0, 10^7]. Default 1200. */
  steps?: number;
  /** Fresh examples per step, integer in [1, 10^5]. Default 128. */
  batch_size?: number;
  /** The earlier name of batch_size, still read. */
  batch?: number;
  /** Adam learning rate, > 0. Default 0.03. */
  learning_rate?: number;
  /** Held-out examples, integer in [2, 10^6]. Default 4096. */
  eval_size?: number;
  /** Standard deviation of the request's request features, > 0. Default 1.8. */
  request_scale?: number;
  /** Added to every irrelevant latent coordinate in the shift intervention, |shift| ≤ 10^6. Default 5. */
  shift?: number;
  /** Learn the keys too, from N(0, 1) entries (the change of basis returns). Default false. */
  learned_keys?: boolean;
  /**
   * The task's keys K, 4 × 3, entries in [−10, 10], that the teacher and the model both route by;
   * default the tetrahedron [1,1,1], [1,−1,−1], [−1,1,−1], [−1,−1,1]. Keys whose differences span
   * fewer than three directions lose a query direction (featureRecoveryLostDirections). Not with learned_keys.
   */
  fixed_keys?: Matrix;
}

/**
 * Resolved settings, including Adam's fixed β1 = 0.9, β2 = 0.999, ε = 1e-8 and init N(0, init_scale²),
 * init_scale = 1/3: the settings results.json records, with the trainer's name batch_size for the
 * file's `batch` (fresh examples per step).
 */
export type FeatureRecoverySettings = Omit<FeatureRecoveryResultsSettings, 'batch'> & { batch_size: number };

/** The trainer protocol's progress (docs/model-pattern.md), the same for every model. */
export interface TrainingProgress {
  /** Optimiser steps taken so far. */
  steps_taken: number;
  /** settings.steps */
  steps_total: number;
  /** Training loss of the last step taken; NaN before the first step. */
  loss: number;
  /** No further step will run: all taken, stopped, or diverged. */
  done: boolean;
}

export interface FeatureRecoveryProgress extends TrainingProgress {
  /** 1-based step at which the loss or W_q, W_v stopped being finite (training then stops); 0 if none. */
  diverged_at: number;
}

export interface FeatureRecoverySnapshot {
  settings: FeatureRecoverySettings;
  steps_taken: number;
  /** 1-based step at which training diverged (non-finite loss or weights), 0 if it did not. */
  diverged_at: number;
  /** The model's keys, 4 × 3: the fixed tetrahedron unless settings.learned_keys. */
  keys: Matrix;
  /** R, 9 × 9 orthogonal: x = z·R. */
  mixing: Matrix;
  /** The task's keys, 4 × 3: settings.fixed_keys, default the tetrahedron vertices. */
  fixed_keys: Matrix;
  /** 9 × 3 */
  w_q: Matrix;
  /** 9 × 3 */
  w_v: Matrix;
  /** R·W_q, 9 × 3: query coordinate j per unit of latent feature k. */
  response_query: Matrix;
  /** R·W_v, 9 × 3 */
  response_value: Matrix;
  /** Loss of every step so far (length steps_taken). */
  loss_trace: Float64Array;
}

export interface FeatureRecoveryEvaluation {
  heldout_mse: number;
  /** MSE of the plain average of the four true payloads (no routing). */
  uniform_attention_mse: number;
  /** R² = 1 − Σ(q_j − z_j)²/Σ(z_j − mean)² of query coordinate j against request feature j (no fitted scale). */
  query_r2: [number, number, number];
  /** The same for value coordinate j against payload feature j, over every record. */
  value_r2: [number, number, number];
  interventions: FeatureRecoveryResults['interventions'];
  response_query: Matrix;
  response_value: Matrix;
}

/** The file formats' types, each written once beside its reader/writer in formats/. */
export type { MaxDigitAnalysisFile, MaxDigitClaims, MaxDigitSeedsFile } from '../formats/max-digit-analysis.js';
export type { MaxDigitWeightsFile } from '../formats/max-digit-weights.js';
import type { MaxDigitAnalysisFile } from '../formats/max-digit-analysis.js';
import type { MaxDigitWeightsFile } from '../formats/max-digit-weights.js';
/** results.json: its one type, beside its one writer (formats/feature_recovery_results.hpp). */
export type { FeatureRecoveryResults, FeatureRecoveryResultsSettings } from '../formats/feature-recovery-results.js';
import type { FeatureRecoveryResults, FeatureRecoveryResultsSettings } from '../formats/feature-recovery-results.js';

/** The results.json fields that are matrices (arrays of rows in the file). */
type FeatureRecoveryResultsMatrix = 'fixed_keys' | 'mixing' | 'w_q' | 'w_v' | 'response_query' | 'response_value';
/**
 * A run in memory (the 'feature-recovery-train' worker task's result, what widgets read):
 * results.json's fields with every matrix as a Matrix ({ rows, cols, data }).
 */
export type FeatureRecoveryRun = Omit<FeatureRecoveryResults, FeatureRecoveryResultsMatrix> & {
  [K in FeatureRecoveryResultsMatrix]: Matrix;
};
/** results.json object → run in memory (the same doubles, matrices flat). */
export declare function featureRecoveryRun(results: FeatureRecoveryResults): FeatureRecoveryRun;
/** Run in memory → results.json object (matrices as arrays of rows): for writing the file. */
export declare function featureRecoveryResultsFile(run: FeatureRecoveryRun): FeatureRecoveryResults;

/** The trainer protocol (docs/model-pattern.md) for the feature-recovery model. */
export declare class FeatureRecoveryTrainer {
  readonly settings: FeatureRecoverySettings;
  /** The last progress (after construction: 0 steps taken). */
  readonly progress: FeatureRecoveryProgress;
  readonly disposed: boolean;
  /** Advances up to n (integer ≥ 0, default 1) steps. Same bits however the steps are chunked. */
  step(n?: number): FeatureRecoveryProgress;
  /** Ends training early: done from now on; result() holds the steps taken so far. */
  stop(): FeatureRecoveryProgress;
  snapshot(): FeatureRecoverySnapshot;
  /** Held-out evaluation of the current W_q, W_v. Throws HeadlabError after a divergence. */
  evaluate(): FeatureRecoveryEvaluation;
  /** The run so far as results.json. Throws HeadlabError after a divergence. */
  result(): FeatureRecoveryResults;
  /** The earlier name of result(). */
  results(): FeatureRecoveryResults;
  /** The run so far as a held model, made in the heap from the trainer (no matrix crosses). Dispose it too. */
  model(): FeatureRecoveryModel;
  /** Frees the WASM trainer; idempotent. Any later call throws HeadlabError. */
  dispose(): void;
}

/**
 * A run's W_q, W_v held in the WASM heap with their R, held-out set (drawn once) and clean
 * prediction: what a feature-recovery source's worker keeps for its figures. No matrix is copied
 * in per request; the answers equal the free functions' bit for bit.
 */
export declare class FeatureRecoveryModel {
  readonly settings: FeatureRecoverySettings;
  readonly disposed: boolean;
  /** featureRecoveryIntervene on the held model (shift default: the model's). */
  intervene(
    input: Omit<FeatureRecoveryInterventionInput, keyof FeatureRecoveryHeldOutInput> & { shift?: number },
  ): FeatureRecoveryInterventionResult;
  /** featureRecoveryEvaluate on the held model. */
  evaluate(): FeatureRecoveryEvaluation;
  /** featureRecoveryExample on the held model (keys: the student's keys for the trace, default the model's). */
  example(input: { index?: number; keys?: Matrix }): FeatureRecoveryExample;
  /** Frees the WASM model; idempotent. Any later call throws HeadlabError. */
  dispose(): void;
}

export interface FeatureRecoveryTask {
  mixing: Matrix;
  fixed_keys: Matrix;
  known_w_q: Matrix;
  known_w_v: Matrix;
}

export interface FeatureRecoveryHeldOutInput {
  /** Selects R and the evaluation set. */
  seed: number;
  /** 9 × 3 */
  w_q: Matrix;
  /** 9 × 3 */
  w_v: Matrix;
  /** Default 4096. */
  eval_size?: number;
  /** Default 1.8. */
  request_scale?: number;
  /** Default 5. */
  shift?: number;
}

export interface FeatureRecoveryInterventionInput extends FeatureRecoveryHeldOutInput {
  intervention: 'erase_request' | 'erase_payload' | 'irrelevant_shift';
  /** 0, 1 or 2; required for the erasures. */
  feature?: number;
  /** Rows of before/after/target to return, in [0, eval_size]. Default 0. */
  examples?: number;
}

export interface FeatureRecoveryInterventionResult {
  /** As in FeatureRecoveryEvaluation.interventions for this intervention. */
  mse: number;
  /** Unintervened held-out MSE. */
  heldout_mse: number;
  /** First `examples` predictions before and after the intervention, and the targets (examples × 3). */
  before: Matrix;
  after: Matrix;
  target: Matrix;
}

/** The draft's published PyTorch figures, for display beside a run's own (not expectations). */
export declare const DRAFT_PUBLISHED: {
  source: string;
  seeds: ReadonlyArray<{ seed: number; heldout_mse: number; uniform_attention_mse: number; min_r2: string }>;
  erase_request_mse: readonly [number, number];
  erase_payload_mse: readonly [number, number];
  irrelevant_shift_mse: readonly [number, number];
};

/** Emscripten module options: { wasmBinary: Uint8Array } in Node, { locateFile(path): string } in a page. */
export interface ModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
}

export type CoreFactory = (options?: ModuleOptions) => Promise<unknown>;

/** Instantiates the module; rejects with HeadlabError if the .wasm cannot be fetched or compiled. */
export function loadCore(factory: CoreFactory, moduleOptions?: ModuleOptions): Promise<HeadlabCore>;
/** Wraps an already instantiated headlab_core module. */
export function wrapCore(module: unknown): HeadlabCore;
/** Instantiates headlab_feature_recovery (factory: the default export of headlab_feature_recovery.mjs). */
export function loadFeatureRecoveryCore(factory: CoreFactory, moduleOptions?: ModuleOptions): Promise<FeatureRecoveryCore>;
/** Wraps an already instantiated headlab_feature_recovery module. */
export function wrapFeatureRecoveryCore(module: unknown): FeatureRecoveryCore;
/** Instantiates headlab_max_digit (factory: the default export of headlab_max_digit.mjs). */
export function loadMaxDigitCore(factory: CoreFactory, moduleOptions?: ModuleOptions): Promise<MaxDigitCore>;
/** Wraps an already instantiated headlab_max_digit module. */
export function wrapMaxDigitCore(module: unknown): MaxDigitCore;

// ---- the max-digit transformer (web/max-digit.js; docs/max-digit-weights.md, docs/max-digit-analysis.md) ----

/** Weights of the max-digit transformer; every matrix row-major. Tokens: 0–9 digits, 10 PAD, 11 BOS, 12 SEP, 13 ANS. */
export interface MaxDigitWeights {
  /** Always 1. */
  format_version: number;
  /** ["0", …, "9", "PAD", "BOS", "SEP", "ANS"] */
  vocab?: string[];
  /** 64 */
  d_model?: number;
  /** 4 */
  n_heads?: number;
  /** 16 */
  d_head?: number;
  /** Trained with every column of W_U held at unit norm. */
  unit_norm_unembedding: boolean;
  /** 14 × 64 token embedding. */
  E: Matrix;
  /** 4 matrices 64 × 16. */
  W_Q: Matrix[];
  /** 4 matrices 64 × 16. */
  W_K: Matrix[];
  /** 4 matrices 64 × 16. */
  W_V: Matrix[];
  /** 4 matrices 16 × 64. */
  W_O: Matrix[];
  /** 64 × 14 unembedding. */
  W_U: Matrix;
}

/** Every setting is optional; defaults are the recipe of docs/max-digit-weights.md ("Training recipe"). */
export interface MaxDigitTrainingSettings {
  /** Integer in [0, 2^53 − 1] (core/check.hpp kMaxSeed). Default 0. */
  seed?: number;
  /** Optimiser steps, integer in [0, 10^7]. Default 4000. */
  steps?: number;
  /** Lists per batch, integer in [1, 10^6]. Default 256. */
  batch_size?: number;
  /** AdamW learning rate, > 0. Default 3e-3. */
  learning_rate?: number;
  /** Decoupled weight decay, ≥ 0 and < 1 / learning_rate. Default 0.1. */
  weight_decay?: number;
  /** E ~ N(0, s²), other matrices ~ N(0, (s/√fan_in)²), s in (0, 1e4] (so no initial entry reaches the 1e6 weight limit). Default 0.1. */
  init_scale?: number;
  /** Hold every column of W_U at unit norm. Default false. */
  unit_norm_unembedding?: boolean;
}

/** A trainer's progress with its divergence (max-digit, transformer): step() returns it. */
export type DivergenceProgress = TrainingProgress & {
  /** 1-based step whose update left an entry not finite or beyond ±1e6 (max-digit: or squared a gradient beyond the float range; transformer: or whose loss was not finite) — divergence: training ends there; 0 while healthy. Absent before the first step(). */
  diverged_at?: number;
  /** Present once diverged: "training diverged at step N: …". */
  divergence?: string;
};

/** The trainer protocol's progress; loss: mean cross-entropy (nats) of the last batch, NaN before the first step. */
export type MaxDigitProgress = DivergenceProgress;

/** A training run in chunks, in the trainer protocol (docs/model-pattern.md). Deterministic whatever the chunking. Call dispose() when done. */
export interface MaxDigitTrainer {
  progress: MaxDigitProgress;
  /** Runs up to n (integer ≥ 0) more steps. Throws HeadlabError after dispose(). */
  step(n: number): MaxDigitProgress;
  /** Ends training early: done from now on. */
  stop(): MaxDigitProgress;
  /** A copy of the current weights. Throws HeadlabError after dispose(). */
  weights(): MaxDigitWeights;
  /** The run so far. */
  result(): { steps_taken: number; final_batch_loss: number; weights: MaxDigitWeights };
  readonly disposed: boolean;
  /** Frees the WASM object; idempotent. */
  dispose(): void;
}

/** Accuracy over the evaluation set (all 11,110 lists of 1–4 digits + 100,000 lists of 5–6 digits). */
export interface MaxDigitAccuracy {
  /** Fraction in [0, 1]. */
  accuracy: number;
  correct: number;
  total: number;
  /** Accuracy over the lists whose maximum is m, m = 0…9. */
  accuracy_by_max: number[];
}

export interface MaxDigitPatchResult {
  logits: Float64Array;
  answer: number;
  original_logits: Float64Array;
  original_answer: number;
}

export interface MaxDigitContributions {
  /** 4 × k: each head's output in the top-k basis. */
  head_outputs: Matrix;
  /** 1 × k */
  head_sum: Matrix;
  /** 4 × k: each head's output when it attends to ANS only. */
  default_outputs: Matrix;
  default_sum: Matrix;
  /** 4 × k: head_outputs − default_outputs. */
  corrections: Matrix;
  /** 1 × k: x_ANS in the basis. */
  residual: Matrix;
  /** 14 × k: row t is token t's unembedding in the basis. */
  unembedding: Matrix;
  logits: Float64Array;
  answer: number;
}

export interface MaxDigitRunnerUp {
  maximum: number;
  runner_up: number;
  gap: number[];
  on_maximum: number[];
  on_runner_up: number[];
  two_token_share: number[];
}

export interface MaxDigitAngleVsDot {
  /** 10 × k: mean residual-free output for lists with maximum m. */
  mean_output: Matrix;
  /** 10 × 10: [m][d] cosine with digit d's unembedding. */
  cosine: Matrix;
  /** 10 × 10: [m][d] dot product. */
  dot: Matrix;
  best_by_cosine: number[];
  best_by_dot: number[];
}

export type MaxDigitBasis = 'w_o' | 'w_u';

/** Max-digit weights held in the WASM heap (MaxDigitCore.maxDigitModel). */
export interface MaxDigitModel {
  readonly disposed: boolean;
  /** Frees the weights in the heap; a later analysis of this model throws HeadlabError. Safe to call twice. */
  dispose(): void;
}

/** headlab_max_digit.wasm: the max-digit transformer (getMaxDigitCore() in a page). */
export interface MaxDigitCore extends HeadlabModule {
  /**
   * Reads a weights file with its one reader (formats/max_digit_weights.hpp, in WASM): throws
   * HeadlabError on text that is not JSON (or too large or too deep), a missing matrix, a wrong
   * shape or unknown format_version. An object is first written as JSON text.
   */
  maxDigitWeightsFromJson(source: string | MaxDigitWeightsFile | object): MaxDigitWeights;
  maxDigitInitialWeights(settings?: MaxDigitTrainingSettings): MaxDigitWeights;
  /**
   * The whole recipe in one call (blocks: use a Web Worker; about 0.35 s for the default recipe).
   * Trained in single precision; the weights are those floats as doubles, the same bits as the
   * native CLI's (docs/max-digit-weights.md, "Precision").
   */
  maxDigitTrain(settings?: MaxDigitTrainingSettings): MaxDigitWeights;
  createMaxDigitTrainer(settings?: MaxDigitTrainingSettings): MaxDigitTrainer;
  /** The earlier name of createMaxDigitTrainer. */
  maxDigitTrainer(settings?: MaxDigitTrainingSettings): MaxDigitTrainer;
  /** Number of trainer objects alive in the WASM heap (for leak tests). */
  maxDigitLiveTrainers(): number;
  /**
   * A model holding `weights` in the WASM heap, copied in and checked once (a weights file is read
   * first). Every analysis below takes it in place of weights and then copies in only its other
   * inputs; weights given instead are copied in at each call. dispose() frees it.
   */
  maxDigitModel(weights: MaxDigitWeights | MaxDigitWeightsFile | string): MaxDigitModel;
  /** Number of model objects alive in the WASM heap (for leak tests). */
  maxDigitLiveModels(): number;
  /** Logits (14) at ANS for a list of 1–6 digits 0–9. */
  maxDigitLogits(model: MaxDigitModel | MaxDigitWeights, digits: number[]): { logits: Float64Array; answer: number };
  /** 4 × 9: each head's ANS attention row over positions 0–8 (BOS, six slots, SEP, ANS). */
  maxDigitAnsAttention(model: MaxDigitModel | MaxDigitWeights, digits: number[]): Matrix;
  /** 4 × 14: s_h(t) = (E[ANS] W_Q^h)·(E[t] W_K^h)/4. */
  maxDigitScoreTable(model: MaxDigitModel | MaxDigitWeights): Matrix;
  /** 4 matrices 10 × 14: mean attention mass on each token, by the list's maximum. */
  maxDigitAttentionByMax(model: MaxDigitModel | MaxDigitWeights): Matrix[];
  /** Heads' ANS rows replaced by one-hot rows on the given positions (0–8), each head at most once. */
  maxDigitPatch(
    model: MaxDigitModel | MaxDigitWeights,
    digits: number[],
    patches: { head: number; position: number }[],
  ): MaxDigitPatchResult;
  /** Accuracy with the listed heads (0–3) zeroed. */
  maxDigitAblation(model: MaxDigitModel | MaxDigitWeights, heads: number[]): MaxDigitAccuracy;
  /** Accuracy of logits = (Σ_h head_h) W_U. */
  maxDigitResidualFree(model: MaxDigitModel | MaxDigitWeights): MaxDigitAccuracy;
  /** Centred PCA in residual space: directions 64 × 64 (columns), variance and variance_ratio (64, decreasing). */
  maxDigitPrincipalDirections(
    model: MaxDigitModel | MaxDigitWeights,
    basis: MaxDigitBasis,
  ): { directions: Matrix; variance: Float64Array; variance_ratio: Float64Array };
  /** Residual-free accuracy with every head's output projected on the top k (1–64) directions. */
  maxDigitSubspaceAccuracy(model: MaxDigitModel | MaxDigitWeights, basis: MaxDigitBasis, k: number): MaxDigitAccuracy;
  /** 3 × 3 |cos| between the top-3 W_O and W_U directions. */
  maxDigitCosineTop3(model: MaxDigitModel | MaxDigitWeights): Matrix;
  /** Contribution vectors in the top-k basis (default 'w_o', k = 3). */
  maxDigitContributions(model: MaxDigitModel | MaxDigitWeights, digits: number[], basis?: MaxDigitBasis, k?: number): MaxDigitContributions;
  /** The "angle mystery" table (default 'w_o', k = 3). */
  maxDigitAngleVsDot(model: MaxDigitModel | MaxDigitWeights, basis?: MaxDigitBasis, k?: number): MaxDigitAngleVsDot;
  /** analysis.json as its one writer (formats/max_digit_analysis.hpp) wrote it, parsed. */
  maxDigitAnalyze(model: MaxDigitModel | MaxDigitWeights): MaxDigitAnalysisFile;
  /**
   * The softmax splitting attention between `maximum` (1–9) and `runnerUp` (0 … maximum − 1)
   * for the list (runnerUp, maximum): per head (arrays of 4) the score gap s_h(m) − s_h(r),
   * the measured mass on each, and σ(gap), the share of the maximum if only the two digits
   * shared the softmax. Throws HeadlabError unless runnerUp < maximum, both digits.
   */
  maxDigitRunnerUp(model: MaxDigitModel | MaxDigitWeights, maximum: number, runnerUp: number): MaxDigitRunnerUp;
  /** What each head writes for `digits` (1–6 digits 0–9), read through W_U: 5 × 14, rows 0–3 = head_h W_U, row 4 = x_ANS W_U; column sums are the logits. */
  maxDigitHeadLogits(model: MaxDigitModel | MaxDigitWeights, digits: number[]): Matrix;
}

// ---- your own attention-only transformer (web/transformer.js; docs/own-model.md) ----

export type {
  TransformerAnalysisFile,
  TransformerComposition,
  TransformerHeadSvd,
  TransformerLogitLens,
  TransformerTokenReading,
  TransformerConfigFile,
  TransformerInspectionFile,
  TransformerLogitAttribution,
  TransformerRunFile,
} from '../formats/transformer.js';
import type {
  TransformerAnalysisFile,
  TransformerConfigFile,
  TransformerInspectionFile,
  TransformerRunFile,
} from '../formats/transformer.js';

/** One tensor of the TransformerLens layout of an attention-only transformer (core/transformer_layout.hpp). */
export interface TransformerLayoutRow {
  /** TransformerLens name; "blocks.{l}." names are one tensor per layer l (e.g. "blocks.{l}.attn.W_Q"). */
  name: string;
  /** Shape as config fields, e.g. ["n_heads", "d_model", "d_head"]; [] for a scalar. */
  shape: Array<'n_heads' | 'd_model' | 'd_head' | 'n_ctx' | 'd_vocab' | 'n_key_value_heads' | 'rotary_dim'>;
  /** The config setting that gives the model the tensor: positional_embedding (W_pos: "standard" or
   *  "shortformer"), normalization_weight (ln*.w: "LN" or "RMS"), layer_norm_bias (ln*.b: "LN"),
   *  ungrouped (W_K…: n_key_value_heads 0), grouped (_W_K…: n_key_value_heads > 0), rotary
   *  (the rotary_sin / rotary_cos buffers). */
  presence: 'always' | 'positional_embedding' | 'normalization_weight' | 'layer_norm_bias' | 'ungrouped' | 'grouped' | 'rotary';
  /** required in a file; optional (a bias, zero when absent); buffer (attn.mask / attn.IGNORE /
   *  attn.rotary_sin / attn.rotary_cos: checked, not stored). */
  role: 'required' | 'optional' | 'buffer';
}

/** Instantiates headlab_transformer (factory: the default export of headlab_transformer.mjs). */
export function loadTransformerCore(factory: CoreFactory, moduleOptions?: ModuleOptions): Promise<TransformerCore>;
/** Wraps an already instantiated headlab_transformer module. */
export function wrapTransformerCore(module: unknown): TransformerCore;

/**
 * A prompt: token ids (integers in [0, d_vocab)) as an array, or text of ids or token names
 * (when the config has token_names) separated by spaces or commas, as `--prompt` takes it.
 * Length 1 … n_ctx. A bad token is an error naming its position.
 */
export type TransformerPrompt = string | number[];

/** What analyze() computes; every field but prompt is optional (the CLI's flags of `headlab model analyze`). */
export interface TransformerAnalysisRequest {
  prompt: TransformerPrompt;
  /** Position for direct logit attribution, integer in [0, T). Default: the last (T − 1). */
  position?: number;
  /** Token whose logit is attributed, integer in [0, d_vocab) (or a token name). Default: the model's top prediction at `position`. */
  token?: number | string;
  /** Patching: a prompt of the same length T. Default: none (no `patching` in the result). */
  corrupted?: TransformerPrompt;
  /** Patching's logit difference logit[answer] − logit[wrong] at the last position; token id in [0, d_vocab) or name; required with corrupted. */
  answer?: number | string;
  wrong?: number | string;
  /** Head ablation: 'zero' writes 0, 'mean' the head's mean output over the batch at each position. Default 'mean'. */
  ablation?: 'zero' | 'mean';
  /**
   * Repeated random sequences for ablation and induction scores, integer in [0, 10000]; 0: none
   * (ablation and induction null: the prompt's own figures alone, for a model whose sequences of
   * n_ctx tokens are beyond the core's work limit). Default 32.
   */
  sequences?: number;
  /** Seed of those sequences, integer in [0, 2^53 − 1]. Default 0. */
  seed?: number;
  /** Also the QK and OV circuits of every head (d_vocab ≤ 512; L·H·2·V² numbers). Default false. */
  circuits?: boolean;
  /**
   * Also the QK attribution of this head's scores at query `position`: [layer, head], layer in
   * [0, n_layers), head in [0, n_heads). Default: none (no `qk_attribution` in the result).
   */
  qk_attribution?: [number, number];
  /** Also Q/K/V composition scores of every pair of heads and their random baseline (200 draws from `seed`). Default false. */
  composition?: boolean;
  /** Also the logit lens: every stage's top tokens and the answer's probability at every position. Default false. */
  logit_lens?: boolean;
  /** Also each head's OV/QK singular values, top directions in token space and OV copying score. Default false. */
  head_svd?: boolean;
  /** Tokens per logit-lens position and per head-SVD direction, integer in [1, min(20, d_vocab)]. Default 5. */
  top?: number;
  /** Head-SVD directions read in token space, integer in [1, d_head]. Default min(3, d_head). */
  directions?: number;
  /**
   * The run's logits are formed for rows [min(logits_from, position), T) only (the result's
   * logits_from says which): a figure that reads one position asks for its row, not T × d_vocab
   * numbers. Integer in [0, T). Default 0 (every row). analyze() refuses it (the document has every row).
   */
  logits_from?: number;
}

/** Heads to ablate in run() (`headlab model run --ablate "0.1 1.3" --ablation … --sequences … --seed …`). */
export interface TransformerRunOptions {
  /** [layer, head] pairs, layer in [0, n_layers), head in [0, n_heads), each at most once; [] or none runs the model unchanged. */
  ablate?: [number, number][];
  /** Only the logits of rows [logits_from, T) are formed (TransformerRun.logits_from), integer in [0, T). Default 0. */
  logits_from?: number;
  /** 'zero' writes 0 for the head's output; 'mean' its output at each position averaged over repeated random sequences. Default 'mean'. */
  mode?: 'zero' | 'mean';
  /** Repeated random sequences (length n_ctx) behind the mean, integer in [1, 10000]. Default 32 (as analyze()). */
  sequences?: number;
  /** Their seed, integer in [0, 2^53 − 1]. Default 0. */
  seed?: number;
  /**
   * Sequences the mean is taken over instead (an author's own prompts, any task; `--reference`): at most
   * 10000 prompts of 1..n_ctx tokens, the longest at least as long as the run's prompt; position p's mean
   * is over the sequences that reach p. sequences and seed are then unused.
   */
  reference?: TransformerPrompt[];
}

/** Mean-ablation settings of headLosses() (as run()'s, without the heads). */
export type TransformerHeadLossOptions = Omit<TransformerRunOptions, 'ablate'>;

/** `headlab model run --head-losses`'s "head_losses": the prompt's next-token loss (nats), clean and with each head ablated alone. */
export interface TransformerHeadLosses {
  mode: 'zero' | 'mean';
  /** Where mean ablation's means come from. */
  means: 'reference' | 'repeated random sequences';
  /** Reference sequences, or repeated random sequences, behind the means. */
  sequences: number;
  /** The repeated random sequences' seed (absent with reference sequences). */
  seed?: number;
  /** Mean over positions p < T − 1 of −log softmax(logits_p)[prompt_{p+1}], ≥ 0. */
  clean_loss: number;
  /** L × H: the same loss with head (l, h) ablated alone. */
  loss: number[][];
}

/** Previous-token and induction scores (attention mass in [0, 1]) and the in-context loss (nats), as in analysis.induction. */
export interface TransformerInductionScores {
  /** L × H */
  previous_token: number[][];
  /** L × H */
  induction: number[][];
  in_context_loss: number;
}

/**
 * `headlab model run` in memory: the document's members with the same doubles, its matrices as
 * Matrix values whose data views one buffer (web/transformer.js; transferOf gives the buffer to move).
 */
export interface TransformerRun extends Omit<TransformerRunFile, 'logits' | 'patterns'> {
  /** (T − logits_from) × V logits: row r is position logits_from + r's next-token logits. */
  logits: Matrix;
  /** The first position whose logits were formed, when the run was asked for fewer rows (TransformerRunOptions.logits_from); absent: 0. */
  logits_from?: number;
  /** [L][H] T × T attention weights (row: query, column: key). */
  patterns: Matrix[][];
}

/**
 * `headlab model analyze` in memory, as TransformerRun: logits, patterns, patching's normalised
 * logit differences, the circuits and the QK attribution as Matrix values (stacks as arrays of
 * Matrix); the small L × H tables (attribution, ablation, scores) as plain arrays of numbers, as in
 * the document.
 */
export interface TransformerAnalysis
  extends Omit<TransformerAnalysisFile, 'logits' | 'patterns' | 'patching' | 'circuits' | 'qk_attribution'>, TransformerRun {
  /** normalised: [L] of H × T (layer l, row h: head (l, h) patched at each position). */
  patching?: Omit<NonNullable<TransformerAnalysisFile['patching']>, 'normalised'> & { normalised: Matrix[] };
  /** [L][H] V × V: QK (row: query token, column: key token) and OV (row: read token, column: raised logit). */
  circuits?: { qk: Matrix[][]; ov: Matrix[][] };
  qk_attribution?: Omit<NonNullable<TransformerAnalysisFile['qk_attribution']>, 'parts' | 'scores'> & {
    /** [position + 1] S × S: key j's score split by query-side source (row) and key-side source (column). */
    parts: Matrix[];
    /** position + 1 scaled scores, one per key. */
    scores: Float64Array;
  };
}

/**
 * A batch of prompt pairs (docs/own-model.md, "Patching over a batch of prompt pairs"): a pairs
 * file's text, or a generator's task with its count (default 64) and seed; with the interval
 * settings (resamples and permutations in [100, 10000], default 1000; seed default 0).
 */
export interface TransformerPairsRequest {
  pairs?: string;
  task?: 'induction' | 'max-digit';
  count?: number;
  pairs_seed?: number;
  resamples?: number;
  permutations?: number;
  seed?: number;
}

/** One grid of batch patching: per cell the mean effect, its bootstrap 95 % interval, the sign-flip p-value and the N per-pair effects. */
export interface TransformerPatchingGrid<Cells> {
  mean: Cells;
  lower: Cells;
  upper: Cells;
  p_value: Cells;
  effects: Cells[];
}

/** What every batch document starts with: the batch, its prompts' length, the interval settings and each pair's logit differences. */
export interface TransformerBatchDocument {
  pairs: number;
  prompt_length: number;
  resamples: number;
  permutations: number;
  seed: number;
  confidence: number;
  clean_logit_difference: number[];
  corrupted_logit_difference: number[];
}

/** `headlab model analyze --pairs`'s document (formats/batch_patching_json.hpp). */
export interface TransformerBatchPatchingFile extends TransformerBatchDocument {
  components: string[];
  /** Cells [L][H][T]. */
  head_position: TransformerPatchingGrid<number[][][]>;
  /** Cells [L][T]. */
  resid_position: TransformerPatchingGrid<number[][]>;
  /** Cells [L][H][4]: q, k, v, z. */
  head_component: TransformerPatchingGrid<number[][][]>;
}

/** `headlab model analyze --path-patching`'s document (formats/path_patching_json.hpp); cells [E][3]: q, k, v. */
export interface TransformerPathPatchingFile extends TransformerPatchingGrid<number[][]>, TransformerBatchDocument {
  inputs: string[];
  /** [sender_layer, sender_head, receiver_layer, receiver_head], sender-major. */
  edges: [number, number, number, number][];
}

/** A cell where attribution patching's estimate and the real patch differ most (gap = |estimate − actual|). */
export interface TransformerAttributionGap {
  estimate: number;
  actual: number;
  gap: number;
}

/**
 * `headlab model analyze --attribution-patching`'s document (formats/attribution_patching_json.hpp):
 * first-order estimates (activation difference × gradient at the clean run) of the effect of
 * patching each head's output (nodes [L][H]) and each edge (cells [E][3]: q, k, v), beside the real
 * patches, and their agreement. A correlation that is undefined (a one-layer model's edges) is null.
 */
export interface TransformerAttributionPatchingFile extends Pick<
  TransformerBatchDocument,
  'pairs' | 'prompt_length' | 'clean_logit_difference' | 'corrupted_logit_difference'
> {
  inputs: string[];
  nodes: { estimate: number[][]; actual: number[][]; estimates: number[][][]; actuals: number[][][] };
  edges: {
    /** [sender_layer, sender_head, receiver_layer, receiver_head], sender-major. */
    edges: [number, number, number, number][];
    estimate: number[][];
    actual: number[][];
    estimates: number[][][];
    actuals: number[][][];
  };
  agreement: {
    nodes: { spearman: number | null; largest: (TransformerAttributionGap & { layer: number; head: number })[] };
    edges: {
      spearman: number | null;
      spearman_by_input: { q: number | null; k: number | null; v: number | null };
      largest: (TransformerAttributionGap & { sender: [number, number]; receiver: [number, number]; input: 'q' | 'k' | 'v' })[];
    };
  };
}

/** A faithfulness request: the pairs or task, the circuit's heads and what replaces every other head. */
export interface TransformerFaithfulnessRequest extends TransformerPairsRequest {
  circuit: [number, number][];
  ablation?: 'corrupted' | 'mean';
}

/** One row of the faithfulness document: the mean recovery, its bootstrap 95 % interval, the sign-flip p-value of "no recovery" and the N per-pair recoveries. */
export interface TransformerRecoveryRow {
  mean: number;
  lower: number;
  upper: number;
  p_value: number;
  pairs: number[];
}

/**
 * `headlab model analyze --faithfulness`'s document (formats/faithfulness_json.hpp): the share of the
 * clean-vs-corrupted logit difference the circuit recovers with every other head replaced, and the
 * same without each circuit head in turn (the circuit's layer-then-head order).
 */
export interface TransformerFaithfulnessFile extends TransformerBatchDocument {
  ablation: 'corrupted' | 'mean';
  circuit: [number, number][];
  recovery: TransformerRecoveryRow;
  leave_one_out: (TransformerRecoveryRow & { layer: number; head: number })[];
}

/** An edge of a circuit: [sender layer, sender head, receiver layer, receiver head, the receiver's input]. */
export type TransformerCircuitEdge = [number, number, number, number, 'q' | 'k' | 'v'];

/** A faithfulness request for a circuit of edges (core/circuit_faithfulness.hpp: its heads are the edges' ends). */
export interface TransformerEdgeFaithfulnessRequest extends TransformerPairsRequest {
  edges: TransformerCircuitEdge[];
  ablation?: 'corrupted' | 'mean';
}

/**
 * `headlab model analyze --faithfulness-edges`'s document: as TransformerFaithfulnessFile, with the
 * edges (sorted) and `circuit` their heads, and one leave-one-out row per edge (the edge cut).
 */
export interface TransformerEdgeFaithfulnessFile extends Omit<TransformerFaithfulnessFile, 'leave_one_out'> {
  edges: TransformerCircuitEdge[];
  leave_one_out: (TransformerRecoveryRow & { edge: TransformerCircuitEdge })[];
}

/** One head's QK attribution for every query of a prompt (TransformerModel.qkAttributionTable). */
export interface TransformerQkAttributionTable {
  layer: number;
  head: number;
  /** T, the prompt's length. */
  positions: number;
  /** S source names, as in qk_attribution.sources. */
  sources: string[];
  /** [T][T] S × S: parts[i][j] entry (a, b) is query i, key j, query-side source a, key-side source b; 0 for j > i. */
  parts: Matrix[][];
  /** T × T: the scaled scores s_ij for j ≤ i, 0 above the diagonal. */
  scores: Matrix;
}

/** The buffers behind a TransformerRun or TransformerAnalysis (its one) or a TransformerQkAttributionTable (two), for postMessage's transfer list; [] for anything else. */
export function transferOf(value: unknown): ArrayBuffer[];

/** A text encoded by a Tokenizer: each token's id, UTF-8 byte span [begin, end) and readable text. */
export interface TokenizedText {
  ids: number[];
  begins: number[];
  ends: number[];
  /** The token's bytes as text; a byte that is part of no whole character as \xNN. */
  texts: string[];
}

/**
 * A Hugging Face tokenizer.json read by the core (formats/tokenizer_json.hpp: byte-level BPE as
 * GPT-2 and GPT-NeoX, WordLevel). encode() throws HeadlabError for text it cannot encode.
 * Call dispose() when done.
 */
export interface Tokenizer {
  readonly model: 'BPE' | 'WordLevel';
  /** One past the largest id. */
  readonly vocabSize: number;
  encode(text: string): TokenizedText;
  /**
   * encode() of a prompt for a model of dVocab tokens, as `headlab model run --tokenizer … --prompt`
   * reads it: throws HeadlabError when the text gives no tokens or a token's id is dVocab or more.
   */
  encodePrompt(text: string, dVocab: number): TokenizedText;
  /** Every id's name for a model of dVocab tokens (the CLI documents' token_names): its text, or "<unused N>". */
  tokenNames(dVocab: number): string[];
  dispose(): void;
  readonly disposed: boolean;
}

/**
 * A loaded model (config + weights checked by the one reader, formats/transformer_model.hpp).
 * Every method returns a fresh object: inspect() is exactly the text the CLI writes, parsed; run()
 * and analyze() hold the numbers of the CLI's documents bit for bit, without the text.
 * Call dispose() when done (it frees the weights in the WASM heap); any later call throws HeadlabError.
 */
/** A weights file's bytes in the module's heap (TransformerCore.transformerWeightsBuffer). */
export interface WeightsBuffer {
  readonly size: number;
  /** Copies `chunk` to bytes [offset, offset + its length); throws HeadlabError when it does not fit. */
  write(chunk: Uint8Array | ArrayBuffer | ArrayBufferView, offset: number): void;
  /** Frees the handle; a model loaded from it keeps the bytes. */
  dispose(): void;
}

export interface TransformerModel {
  /** The config as read (defaults filled in): the object `transformer_config_to_json` writes. */
  readonly config: TransformerConfigFile;
  /** `headlab model inspect`. */
  inspect(): TransformerInspectionFile;
  /**
   * The loaded weights as headlab writes a model: the config text and a safetensors file of F64
   * tensors under TransformerLens names, its header a few KB, without the attn.mask / attn.IGNORE
   * buffers. Read again, it gives the same weights bit for bit.
   */
  canonical(): { config: string; safetensors: Uint8Array };
  /**
   * `headlab model run --prompt [--ablate …]`: logits and patterns; with options, of the forward pass with
   * the listed heads ablated at once (core ablated_forward).
   */
  run(prompt: TransformerPrompt, options?: TransformerRunOptions): TransformerRun;
  /**
   * `headlab model run --head-losses`: the prompt's (≥ 2 tokens) next-token loss with each head zero- or
   * mean-ablated alone (core prompt_ablation_loss), no task assumed; the means from `reference` when given.
   */
  headLosses(prompt: TransformerPrompt, options?: TransformerHeadLossOptions): TransformerHeadLosses;
  /** `headlab model analyze`: patterns, logits, DLA, ablation, induction scores, patching (with corrupted), circuits (when asked). */
  analyze(request: TransformerAnalysisRequest): TransformerAnalysis;
  /**
   * analyze() computes the prompt-independent part (induction scores, in-context loss, ablation
   * losses over the repeated random sequences) once per (sequences, seed, ablation) of this model
   * and reuses it for every later prompt (same results). This forgets it; returns how many were kept.
   */
  clearAnalysisCache(): number;
  /** QK attribution of head (layer, head) for every query of the prompt; throws HeadlabError naming a bad layer, head or token. */
  qkAttributionTable(prompt: TransformerPrompt, layer: number, head: number): TransformerQkAttributionTable;
  /** Prompt text → token ids (the reader of `--prompt`); throws HeadlabError naming the bad token's position. */
  tokenize(text: string): number[];
  /** Scores on `sequences` (integer in [1, 100000], default 32) repeated random sequences of length n_ctx (n_ctx ≥ 4), seed default 0. */
  inductionScores(sequences?: number, seed?: number): TransformerInductionScores;
  /** Activation patching over a batch of prompt pairs, with intervals; throws HeadlabError naming a bad pair, field or setting. */
  batchPatching(request: TransformerPairsRequest): TransformerBatchPatchingFile;
  /** Path patching over a batch (sender head → each later receiver's q, k, v), with intervals; refused for a one-layer model. */
  pathPatching(request: TransformerPairsRequest): TransformerPathPatchingFile;
  /**
   * Attribution patching over a batch (the pairs or task of the request; resamples, permutations and
   * seed are refused: no intervals are drawn), with the real node and path patches it is compared with.
   */
  attributionPatching(request: TransformerPairsRequest): TransformerAttributionPatchingFile;
  /** Circuit faithfulness over a batch, with its interval and the leave-one-out table. */
  faithfulness(request: TransformerFaithfulnessRequest): TransformerFaithfulnessFile;
  faithfulness(request: TransformerEdgeFaithfulnessRequest): TransformerEdgeFaithfulnessFile;
  /** batchPatching() in steps: checks the request, patches nothing yet. */
  batchPatchingStart(request: TransformerPairsRequest): { done: number; total: number };
  /** Patches the next `pairs` (integer in [1, 1024]) pairs of the started run. */
  batchPatchingStep(pairs: number): { done: number; total: number };
  /** The started run's document (the same bits as batchPatching()); throws HeadlabError while pairs are left. */
  batchPatchingResult(): TransformerBatchPatchingFile;
  readonly disposed: boolean;
  /** Idempotent. */
  dispose(): void;
}

/** Settings of the induction task's trainer (core/transformer_training.hpp); every field optional. */
export interface TransformerTrainingSettings {
  /** The model to train: config fields (token_names excepted), each defaulting to the induction default
   *  { n_layers: 2, n_heads: 4, d_model: 32, d_head: 8, n_ctx: 24, d_vocab: 32, normalization: 'LN',
   *  positional_embedding: 'shortformer', eps: 1e-5 }. n_ctx ≥ 4. */
  model?: Partial<TransformerConfigFile>;
  /** Integer in [0, 2^53 − 1]; fixes initialisation and batches (same bits as `headlab model train --seed`). Default 0. */
  seed?: number;
  /** Optimiser steps, integer in [0, 10^7]. Default 1800. */
  steps?: number;
  /** Sequences per step, integer in [1, 10^5]. Default 16. */
  batch_size?: number;
  /** AdamW peak learning rate, finite > 0. Default 3e-3. */
  learning_rate?: number;
  /** Decoupled weight decay, finite ≥ 0 with learning_rate · weight_decay < 1. Default 0.01. */
  weight_decay?: number;
  /** Steps of linear warm-up to learning_rate (over min(warmup_steps, steps)), integer in [0, 10^7]. Default 100. */
  warmup_steps?: number;
  /** After the warm-up a cosine takes the rate down to this fraction of learning_rate at the last step, in [0, 1]; 1: constant. Default 0.1. */
  final_learning_rate_fraction?: number;
  /** Weights ~ N(0, (init_scale/√d_model)²), finite > 0. Default 0.8. */
  init_scale?: number;
}

/** A trained (or training) model as its two files: what `headlab model train` writes. */
export interface TransformerTrainingResult {
  /** model.json text (TransformerConfigFile). */
  config: string;
  /** model.safetensors bytes (F64, TransformerLens names, attn.mask / attn.IGNORE buffers included). */
  safetensors: Uint8Array;
  /** Progress when the result was taken (steps_taken < steps_total after stop()). */
  progress: TrainingProgress;
}

/**
 * The induction task's trainer in the trainer protocol (docs/model-pattern.md): the same bits
 * however the steps are chunked, and the same bits as the native CLI for the same settings.
 * progress.loss: mean cross-entropy (nats) on the repeated half of the last batch; NaN before the first step.
 */
export interface TransformerTrainer {
  /** The settings with defaults filled in. */
  readonly settings: Required<Omit<TransformerTrainingSettings, 'model'>> & { model: TransformerConfigFile };
  readonly progress: TrainingProgress;
  /** Runs up to n (integer ≥ 0) more steps; a diverged run is done, with diverged_at and divergence set (its weights are the last finite update's). */
  step(n: number): DivergenceProgress;
  /** Ends training early: done from now on. */
  stop(): TrainingProgress;
  /** Scores of the current weights (what the article plots over steps): sequences default 16, seed default settings.seed. */
  scores(sequences?: number, seed?: number): TransformerInductionScores;
  /** The current weights as files. */
  result(): TransformerTrainingResult;
  /** The current weights as a loaded model (dispose it separately). */
  model(): TransformerModel;
  readonly disposed: boolean;
  /** Idempotent; later calls throw HeadlabError. */
  dispose(): void;
}

/** Worker task 'transformer-train' (web/worker-tasks.js): params. */
export interface TransformerTrainTaskParams {
  settings?: TransformerTrainingSettings;
  /** Steps per progress message, integer ≥ 1. Default 50 (the CLI's score interval; 50 messages over the default 2,500 steps). */
  chunk?: number;
  /** Repeated random sequences for the scores in each progress message, integer in [1, 1000]. Default 16. */
  score_sequences?: number;
}

/** Worker task 'transformer-train': a progress message after every chunk (and one at step 0, before training). */
export interface TransformerTrainTaskProgress extends TransformerInductionScores {
  steps_taken: number;
  steps_total: number;
  /** Loss of the last step (nats); NaN at step 0. */
  loss: number;
}

/** Worker task 'transformer-train': the result (also on a stop, with the steps taken so far). */
export type TransformerTrainTaskResult = TransformerTrainingResult;

/**
 * Worker task 'transformer-analyze' (analyze or run off the main thread): params. With `model`, the
 * worker keeps the model under that id (one per worker) with its analysis cache: send the files
 * once, then the id alone; 'transformer-release' ({ model }) lets it go. Without it the files are
 * read for this task only.
 */
export interface TransformerAnalyzeTaskParams {
  model?: string;
  /** model.json text (required without `model`, or to read the model kept as `model`). */
  config?: string;
  /** model.safetensors bytes (copied to the worker). */
  safetensors?: Uint8Array | ArrayBuffer;
  /** Default: none (result.analysis null). */
  request?: TransformerAnalysisRequest;
  /** Default: none (result.run null). */
  run?: { prompt: number[]; options?: TransformerRunOptions };
}

/** Worker task 'transformer-analyze': the result (its buffers moved, not copied). A model the reader rejects fails with the core's message. */
export interface TransformerAnalyzeTaskResult {
  inspection: TransformerInspectionFile;
  analysis: TransformerAnalysis | null;
  run: TransformerRun | null;
}

/** headlab_transformer.wasm: attention-only transformers read from safetensors (getTransformerCore() in a page). */
export interface TransformerCore extends HeadlabModule {
  /**
   * Reads a model: config text (model.json, or TransformerLens's own cfg.to_dict() as JSON) and the
   * weights file's bytes — safetensors or a torch.save checkpoint (.pt), told apart by their first
   * bytes — with the one reader (every name, shape, dtype, offset and value checked). Throws
   * HeadlabError with the core's message: "config: …" for the config, "safetensors: …",
   * "torch checkpoint: …" or the tensor's name for the weights.
   */
  /** With a WeightsBuffer the bytes already in the heap are read without a copy (and shared with the model). */
  loadTransformer(configText: string, safetensorsBytes: Uint8Array | ArrayBuffer | WeightsBuffer): TransformerModel;
  /**
   * Reserves `size` bytes in the module's heap for a weights file to be written chunk by chunk
   * (a large file then never lies whole in JS beside the heap); refused beyond the reader's file limit.
   */
  transformerWeightsBuffer(size: number): WeightsBuffer;
  createTransformerTrainer(settings?: TransformerTrainingSettings): TransformerTrainer;
  /** Reads a tokenizer.json (its text); throws HeadlabError "tokenizer: …" naming the field and bound. */
  loadTokenizer(tokenizerJsonText: string): Tokenizer;
  /** The induction task's default model config. */
  transformerInductionDefaultConfig(): TransformerConfigFile;
  /** Models and trainers alive in the WASM heap (for leak tests). */
  transformerLiveHandles(): number;
  /** The core's table of TransformerLens tensors, in state_dict order (core/transformer_layout.hpp). */
  transformerLayout(): TransformerLayoutRow[];
  /** The transfer list of a run() or analyze() value (the module-free transferOf, here for a worker that holds only the core). */
  transferOf(value: unknown): ArrayBuffer[];
}

// ---- diagnostics (web/module.js, web/bindings/module_bindings.cpp) ----
export interface MemoryDiagnostics {
  /** Bytes of C++ heap allocated and not freed (dlmalloc mallinfo().uordblks). */
  heap_bytes_in_use: number;
  /** Size of the WASM linear memory in bytes (only grows). */
  memory_bytes: number;
  /** Live embind emval handles (JS values held by C++); NaN if the module does not expose the count.
   *  Class handles (trainers, models) are counted by featureRecoveryLiveTrainers(), maxDigitLiveTrainers(), maxDigitLiveModels() and transformerLiveHandles(). */
  live_handles: number;
  /** Bytes copied from JS typed arrays (matrices, byte arrays) into the heap since the module started: what a call costs in copies. */
  bytes_copied_in: number;
}
