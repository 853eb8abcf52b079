// Public API of the `headlab` package (dist/headlab.js). Every interface and type alias the code
// also exports (the elements' states, their parts, the core's result shapes) is copied from the
// code by `node site/package-types.mjs` — edit it there; the rest is written here.
// Importing the package registers every headlab-* custom element; these declarations
// describe the elements (attributes, properties, events, state shapes) and the few
// functions the bundle exports. Field names are the articles' terms; indices are
// 1-based where a reader sees them (query 1, column 2) and say so.
// Embedding guide: docs/embedding.md (dist/docs/embedding.md in the package).

// ---------- the core ----------

/** A dense matrix, row-major: entry (i, j) is data[i * cols + j]. data.length === rows * cols. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float64Array;
}

/** Thrown for every error the core reports (its message names the argument). */
export class HeadlabError extends Error {
  name: 'HeadlabError';
}

/** The page's headlab_core instance: attention and projection edits (loaded once, .wasm found next to the bundle; feature recovery, the max-digit transformer and your own transformer are modules of their own, loaded by their elements). See web/headlab-core.d.ts in the repository for every function. */
export function getCore(): Promise<HeadlabCoreApi>;

export interface HeadlabCoreApi {
  version(): string;
  attention(input: { x: Matrix; w_q: Matrix; w_k: Matrix; w_v: Matrix; causal?: boolean; weights_override?: Matrix | null }): {
    q: Matrix;
    k: Matrix;
    v: Matrix;
    dot_products: Matrix;
    scores: Matrix;
    weights: Matrix;
    reading: Matrix;
  };
  swapProjectionCoordinates(w: Matrix, a: number, b: number): Matrix;
  rotateQueryKey(q: Matrix, k: Matrix, rotation: Matrix): { q: Matrix; k: Matrix };
  planeRotation(d: number, a: number, b: number, angle: number): Matrix;
  /** Memory of the WASM module, for leak checks: heap bytes in use, linear memory size, live embind handles, bytes copied in so far. */
  memoryDiagnostics(): { heap_bytes_in_use: number; memory_bytes: number; live_handles: number; bytes_copied_in: number };
  [name: string]: unknown;
}

export function matrix(rows: number[][], name?: string): Matrix;
export function toRows(m: Matrix): number[][];
export function at(m: Matrix, i: number, j: number): number;
export function row(m: Matrix, i: number): number[];
export function identity(n: number): Matrix;

/** A dedicated worker running long core computations (dist/headlab-worker.js). */
export class WorkerClient {
  constructor();
  run<T = unknown>(
    kind: string,
    params: unknown,
    onProgress?: (detail: Record<string, unknown>) => void,
  ): {
    promise: Promise<{ value: T; stopped: boolean }>;
    stop(): void;
  };
  /** Ends the worker; a run still in it rejects (its port closed, its listeners removed), and so does any later run. */
  terminate(): void;
}

// ---------- what every element has ----------

/** A figure an element exports as SVG and PNG. */
export interface WidgetFigure {
  name: string;
  label: string;
  scene(): unknown;
}

/**
 * Common to every headlab-* element.
 * Attributes on every element: `share-state` (boolean) — write the reader's state to the
 * URL hash as `<id>.<attribute>=<value>` entries (id, else `<tag>-<n>`) and restore it
 * from there on load and on hashchange.
 * Events: `change` (bubbling, composed) with `detail` = the element's state (not sent while `state` is null).
 * A bad attribute, bad content or a failed core load shows a message inside the element (role="alert").
 * Reading an element never throws: `state`, `error`, `summary`, `busy` (and `figureData`) answer
 * whatever the attributes or the URL hash hold. Attribute-mirroring properties (`el.angle`…) parse
 * their attribute and throw a WidgetInputError naming it when it is malformed.
 */
export interface HeadlabElementBase<State> extends HTMLElement {
  /**
   * The state, as carried by the `change` event; null while it cannot be computed (an attribute,
   * set by the page or by the URL hash, is invalid: `error` says why) or, for an element whose
   * state the WASM core computes, before the core has loaded (`error` null then: await
   * `updateComplete`). Never throws, logs nothing, before or after the first render.
   */
  readonly state: State | null;
  /**
   * Why the element shows no figure or no state: the message in its alert box (a bad attribute,
   * a model that could not be loaded), or why `state` is null before the render that shows it;
   * null when nothing is wrong. Quoted input is cut to 40 characters. Never throws.
   */
  readonly error: string | null;
  /** Whether a computation the element will draw is under way (a worker analysis, a new model to draw); false for most elements. Never throws. */
  readonly busy: boolean;
  /**
   * Resolves once the element shows what its attributes and data ask for (rendered, nothing
   * scheduled, no work in its worker, its model loaded) — true — or shows an error instead —
   * false (`error` says why). Never rejects. Read it again after a change for that change's
   * render (as Lit's `updateComplete`). Await `customElements.whenDefined(tag)` first on a page
   * where the element may not be upgraded yet.
   */
  readonly updateComplete: Promise<boolean>;
  /** Completed renders (diagnostics). */
  readonly renderCount: number;
  /** The text alternative of what the element shows now (also in the shadow root for screen readers, and the <desc> of exported SVGs). Never throws. */
  readonly summary: string;
  /** The shareable state: attribute name → text (what share-state writes to the URL hash). */
  sharedState: Record<string, string>;
  /** This element's key in the URL hash. */
  readonly shareKey: string;
  /** Figures exportable as SVG and PNG (may be empty, e.g. the quiz). */
  figures(): WidgetFigure[];
  /** What the JSON export contains (the state, or results.json for the trainer). */
  exportData(): unknown;
  exportJson(): string;
  /** The figure `name` (default the first) as an SVG document. */
  exportSvg(name?: string): string;
  exportPng(name?: string): Promise<Blob>;
  /** Offers a download (figure as svg/png, data as json). */
  download(format: 'svg' | 'png' | 'json', name?: string): Promise<void>;
  /** Runs a scheduled render now instead of at the next animation frame. */
  renderNow(): void;
  /**
   * A number computed from the model on the page, for <headlab-value> (undefined while not ready or
   * for an unknown name; { computing: true } while a new value is computed after one was shown).
   */
  boundValue(name: string): BoundValue | BoundComputing | undefined;
  addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: this, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: 'change', listener: (ev: CustomEvent<State>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

// ---------- <headlab-projection-ablation> ----------

export interface ProjectionAblationState {
  w_q: number[][];
  w_k: number[][];
  w_v: number[][];
  /** 1-based query row. */
  query: number;
  /** Dot products q_query · k_j (score × √d_k), j = 1, 2. */
  dot_products: number[];
  weights: number[];
  values: number[][];
  reading: number[];
}
/** Attributes: w-q, w-k, w-v (2 × 2 JSON rows, default identity), query (1 or 2). Shared: all four. */
export interface HeadlabProjectionAblation extends HeadlabElementBase<ProjectionAblationState>, HeadlabProjectionAblationProperties {}

// ---------- <headlab-value-swap> ----------

export interface ValueSwapData {
  records: string[];
  weights: number[];
  values: number[][];
}
export interface ValueSwapState extends ValueSwapData {
  /** 1-based swapped columns. */
  column_a: number;
  column_b: number;
  reading: number[];
  swapped_reading: number[];
}
/**
 * Attributes: weights (n numbers ≥ 0 summing to 1), values (n × d JSON rows, d ≥ 2), records (JSON labels),
 * column-a, column-b (1-based). Or a child <script type="application/json">{records, weights, values}</script>.
 * Shared: column-a, column-b.
 */
export interface HeadlabValueSwap extends HeadlabElementBase<ValueSwapState>, HeadlabValueSwapProperties {
  data(): { records: string[]; weights: number[]; values: number[][] };
}

// ---------- <headlab-basis-rotation> ----------

export interface BasisRotationState {
  angle_degrees: number;
  q: number[][];
  k: number[][];
  q_rotated: number[][];
  k_rotated: number[][];
  scores: number[][];
  scores_rotated: number[][];
  max_score_difference: number;
}
/** Attributes: angle (degrees in [−180, 180], default 30), x, w-q, w-k (JSON rows). Shared: angle. */
export interface HeadlabBasisRotation extends HeadlabElementBase<BasisRotationState>, HeadlabBasisRotationProperties {}

// ---------- <headlab-choice-quiz> ----------

export interface ChoiceQuizState {
  /** 1-based selected choice, or null. */
  selected: number | null;
  /** Verdict of the last Check for the selection at that time, or null. */
  result: 'correct' | 'incorrect' | null;
  hint_shown: boolean;
  solution_shown: boolean;
}
/** Content: slot="question", ≥ 2 slot="choice" (one data-correct), optional slot="hint", "solution", "title". Shared: selected, checked, hint, solution. */
export type HeadlabChoiceQuiz = HeadlabElementBase<ChoiceQuizState>;

// ---------- <headlab-feature-recovery> ----------

export type TrainingStatus = 'idle' | 'training' | 'done' | 'stopped' | 'failed';
export interface FeatureRecoveryWidgetSettings {
  /** Held-out examples (attribute eval-size, default the draft's 4096). */
  eval_size: number;
  seed: number;
  steps: number;
  batch: number;
  learning_rate: number;
  request_scale: number;
}
/** The run's settings as the file names them (version 1 keeps `batch` for the trainer's batch_size). */
export interface FeatureRecoveryResultsSettings {
  seed: number;
  steps: number;
  /** Fresh examples per step (the trainer setting batch_size). */
  batch: number;
  learning_rate: number;
  optimizer: 'adam';
  beta1: number;
  beta2: number;
  epsilon: number;
  init_scale: number;
  eval_size: number;
  request_scale: number;
  shift: number;
  learned_keys: boolean;
}
export interface FeatureRecoveryResults {
  format: 'headlab.feature-recovery.results/1';
  headlab_version: string;
  settings: FeatureRecoveryResultsSettings;
  /** Steps taken (the trainer's steps_taken): settings.steps, or fewer for a stopped run. */
  steps_done: number;
  /** True when the run was stopped before settings.steps (steps_done < settings.steps): a partial run, labelled so on the page and by the interventions widget. */
  partial: boolean;
  /** 4 × 3, the model's keys (the fixed tetrahedron unless settings.learned_keys). */
  fixed_keys: number[][];
  /** R, 9 × 9 orthogonal: x = z·R. */
  mixing: number[][];
  /** 9 × 3 each. */
  w_q: number[][];
  w_v: number[][];
  /** R·W_q and R·W_v, 9 × 3 each. */
  response_query: number[][];
  response_value: number[][];
  /** Training loss of every step taken. */
  loss_trace: number[];
  heldout_mse: number;
  uniform_attention_mse: number;
  query_r2: [number, number, number];
  value_r2: [number, number, number];
  interventions: {
    /** MSE against the kept target after erasing request feature j. */
    erase_request: [number, number, number];
    /** MSE against the kept target after erasing payload feature j from every record. */
    erase_payload: [number, number, number];
    /** MSE between the predictions before and after shifting every irrelevant coordinate. */
    irrelevant_shift_mse: number;
  };
  /** Wall time of the training steps, seconds (the one field that differs between identical runs). */
  train_seconds: number;
}
export interface FeatureRecoveryState {
  settings: FeatureRecoveryWidgetSettings;
  status: TrainingStatus;
  steps_done: number;
  /** Loss of the last step taken, or null before any. */
  loss: number | null;
  /** The last finished (or stopped) run as results.json, or null. */
  results: FeatureRecoveryResults | null;
}
/**
 * Attributes: seed, steps, batch, learning-rate, request-scale, eval-size, pace ("watch" | "fast";
 * default "watch", "fast" under prefers-reduced-motion), autostart. Shared: all but autostart.
 */
export interface HeadlabFeatureRecovery extends HeadlabElementBase<FeatureRecoveryState>, HeadlabFeatureRecoveryProperties {
  readonly results: object | null;
  readonly trainingStatus: TrainingStatus;
  train(): void;
  stop(): void;
  resultsJson(): string;
}

// ---------- <headlab-interventions> ----------

export type InterventionKind = 'erase-request' | 'erase-payload' | 'shift';
export interface InterventionsState {
  intervention: InterventionKind;
  /** 1-based feature erased (ignored for "shift"). */
  feature: number;
  shift: number;
  /** Seed of the trained run used, or null before one exists. */
  seed: number | null;
  /** The run used was stopped before its steps (results.json "partial"); null before one exists. */
  partial: boolean | null;
  /** Held-out MSE without intervention, and the intervention's MSE (see the widget's text for what each compares). */
  clean_mse: number | null;
  mse: number | null;
}
/** Attributes: source (id of a headlab-feature-recovery; naming the element itself or anything else is refused with a message), intervention, feature (1–3), shift. Shared: intervention, feature, shift. */
export interface HeadlabInterventions extends HeadlabElementBase<InterventionsState>, HeadlabInterventionsProperties {}

// ---------- the max-digit elements ----------
// Each reads a max-digit model: the one of the <headlab-max-digit-model> whose id its `model`
// attribute names, or (no `model`) the shipped seed-0 weights from data/max-digit-seed0.json
// beside the package's modules. Heads are 0–3; digit lists are 6 digits 0–9.

/**
 * Common to the six max-digit figures. Attribute: model (id of a headlab-max-digit-model; optional).
 * Behind a prerendered snapshot a figure loads its module and weights on the reader's first
 * interaction (docs/embedding.md); its model element's loading="eager" loads them with the page.
 */
export interface MaxDigitElementBase<State> extends HeadlabElementBase<State> {
  /** The model shown now (null while loading or after a failure). */
  readonly currentModel: object | null;
}

export type ModelTrainingStatus = TrainingStatus;
export interface MaxDigitModelState {
  status: ModelTrainingStatus;
  seed: number | null;
  /** Where the model comes from, e.g. "the shipped weights (seed 0)". */
  label: string;
  /** Accuracy on the evaluation lists in [0, 1], or null before a model is loaded. */
  accuracy: number | null;
}
/**
 * <headlab-max-digit-model id="…">: the model the max-digit widgets with model="<id>" read, with
 * in-page retraining in a Web Worker. Attributes: src (weights JSON, resolved against the page;
 * default the shipped seed-0 file), seed (integer ≥ 0, default 1), steps (1–100000, default 4000),
 * unit-norm-unembedding (boolean), loading ("eager": fetch on page load even behind a prerendered snapshot;
 * "lazy": fetch only when the panel or a widget reading it nears the viewport; default: on load, or,
 * behind a prerendered snapshot, on the reader's first interaction), timeout (seconds, 1–600, default 30:
 * a weights download not finished by then is abandoned and the widgets show a message; the file may
 * hold at most 16 MiB), no-training (boolean: no seed field, Train or way back, for a page whose prose
 * compares this model with a fixed one). Shared: seed.
 */
export interface HeadlabMaxDigitModel extends HeadlabElementBase<MaxDigitModelState>, HeadlabMaxDigitModelProperties {
  readonly trainingStatus: ModelTrainingStatus;
  /** Trains a model from `seed` in the worker; every widget tied to this element switches to it when done. */
  train(): void;
  stop(): void;
  /** Switches back to the loaded weights. */
  useShipped(): void;
  /** Fetches the weights now, also before the reader's first interaction or when loading="lazy" has not seen the section yet. */
  load(): void;
}

export interface AttentionBarsState {
  digits: number[];
  max_digit: number;
}
/** Each head's attention from ANS over the prompt. Attributes: digits ("2 3 4 5 6 1"), model. Shared: digits. */
export interface HeadlabAttentionBars extends MaxDigitElementBase<AttentionBarsState>, HeadlabAttentionBarsProperties {}

export interface AttentionPatch {
  head: number;
  position: number;
}
export interface AttentionPatchState {
  digits: number[];
  patches: AttentionPatch[];
  answer: number;
  clean_answer: number;
}
/**
 * Activation patching at the ANS row. Attributes: digits, patches ("head:position …", e.g. "3:3 1:3";
 * each head at most once, positions 0–8), model. Shared: digits, patches.
 */
export interface HeadlabAttentionPatch extends MaxDigitElementBase<AttentionPatchState>, HeadlabAttentionPatchProperties {
  /** Returns every head to its own attention. */
  reset(): void;
}

export interface HeadAblationState {
  ablated: number[];
  accuracy: number;
}
/** Accuracy with heads ablated. Attributes: ablated (heads, e.g. "0 2"), model. Shared: ablated. */
export interface HeadlabHeadAblation extends MaxDigitElementBase<HeadAblationState>, HeadlabHeadAblationProperties {}

export type MaxDigitBasis = 'w_o' | 'w_u';
export interface SubspaceAccuracyState {
  k: number;
  basis: MaxDigitBasis;
  accuracy: number;
}
/** Accuracy with each head's output projected on its top-k principal subspace. Attributes: k (1–8, default 3), basis ("w_o" | "w_u"), model. Shared: k, basis. */
export interface HeadlabSubspaceAccuracy extends MaxDigitElementBase<SubspaceAccuracyState>, HeadlabSubspaceAccuracyProperties {}

export interface HeadContributionsState {
  digits: number[];
  mode: 'outputs' | 'corrections';
  layout: 'origin' | 'chained';
  /** Digit with the largest dot product with the sum in the 3-D space. */
  pick: number;
  /** The full model's answer. */
  answer: number;
}
/** The heads' contributions in a 3-D view (its own lazily loaded chunk). Attributes: digits, mode, layout, model. Shared: digits, mode, layout. */
export interface HeadlabHeadContributions extends MaxDigitElementBase<HeadContributionsState>, HeadlabHeadContributionsProperties {}

export interface AngleDotState {
  matrix: 'cosine' | 'dot';
  /** Maxima whose closest digit by angle differs from the digit with the largest dot product. */
  disagreements: number[];
}
/** Angle against dot product between head outputs and unembeddings. Attributes: matrix ("cosine" | "dot"), model. Shared: matrix. */
export interface HeadlabAngleDot extends MaxDigitElementBase<AngleDotState>, HeadlabAngleDotProperties {}

export interface MaxDigitMechanismState {
  digits: number[];
  answer: number;
}
/** The mechanism at a glance for one list: scores, softmax, what each head writes, the logits. Attributes: digits, model. Shared: digits. */
export interface HeadlabMaxDigitMechanism extends MaxDigitElementBase<MaxDigitMechanismState>, HeadlabMaxDigitMechanismProperties {}

export interface ScoreRampsState {
  maximum: number;
  runner_up: number;
  on_maximum: number[];
  two_token_share: number[];
}
/** Every head's score over the 14 tokens, and the runner-up split against σ(gap). Attributes: maximum (1–9), runner-up (below it), model. Shared: maximum, runner-up. */
export interface HeadlabScoreRamps extends MaxDigitElementBase<ScoreRampsState>, HeadlabScoreRampsProperties {}

/** trained and agree: seeds in ascending order. */
export interface SeedGridState {
  /** The sweep's status: 'training' from the first seed's start to the last seed's end. */
  status: TrainingStatus;
  trained: number[];
  agree: number[];
}
/** Claims × seeds from the file `headlab max-digit seeds` wrote; trains the seeds in Web Workers on request and compares. Attributes: src, from, to, steps, workers. Shared: from, to. */
export interface HeadlabSeedGrid extends HeadlabElementBase<SeedGridState>, HeadlabSeedGridProperties {
  /** Trains seeds from…to, `workers` at a time, in seed order. */
  train(): void;
  stop(): void;
}

export type TransformerTrainingStatus = TrainingStatus;
/** One point of the trace: what a progress message of the worker carries. */
export interface TrainingTracePoint {
  step: number;
  /** Loss of the last step taken (nats); NaN at step 0. */
  loss: number;
  in_context_loss: number;
  /** L × H attention masses. */
  previous_token: number[][];
  induction: number[][];
}
export interface TransformerTrainingState {
  status: TransformerTrainingStatus;
  seed: number;
  steps: number;
  steps_taken: number;
  /** First step with the best induction score above 0.4, or null (not yet / never). */
  phase_change_step: number | null;
  /** The progress messages of the current or last run, step 0 first (also the JSON download). */
  trace: TrainingTracePoint[];
}
/** One progress message of the run: the step, the last step's loss and the in-context loss (nats), L × H previous-token and induction scores (attention mass in [0, 1]). */
export interface TransformerTrainingTracePoint {
  step: number;
  loss: number;
  in_context_loss: number;
  previous_token: number[][];
  induction: number[][];
}
/**
 * Trains the induction task's default transformer in the worker (task transformer-train), plotting the loss, the
 * in-context loss and every head's previous-token and induction scores every 50 steps, the phase change marked;
 * hands the result to the <headlab-transformer-model> named by `model` (its useModel()).
 * Attributes: model (element id), seed (integer in [0, 2^53 − 1], default 0), steps (integer in [50, 20000], default 1800, the core's default run), history (the URL of the JSON `headlab model train --history-out` wrote: the charts show that recorded run before any run of the reader's). Shared: seed, steps.
 */
export interface HeadlabTransformerTraining extends HeadlabElementBase<TransformerTrainingState>, HeadlabTransformerTrainingProperties {
  /** The recorded run read from `history` (null before it has arrived, without the attribute, or on a bad file). */
  readonly recordedRun: { seed: number; steps: number; trace: TransformerTrainingTracePoint[] } | null;
  readonly trainingStatus: TransformerTrainingState['status'];
  readonly trainingTrace: readonly TransformerTrainingTracePoint[];
  /** The last finished or stopped run as files (model.json text, safetensors bytes), or null. */
  readonly result: {
    config: string;
    safetensors: Uint8Array;
    progress: { steps_taken: number; steps_total: number; loss: number; done: boolean };
  } | null;
  train(): void;
  stop(): void;
}

/** The basis edit the canvas applies to W_Q and W_K. */
export type QueryKeyBasis = 'none' | 'rotation' | 'invertible';
export interface QueryKeyCanvasState {
  w_q: number[][];
  w_k: number[][];
  w_v: number[][];
  score_scale: number;
  basis: QueryKeyBasis;
  angle_degrees: number;
  a: number[][];
  /** Queries and keys as drawn (after the change of basis when one is on). */
  q: number[][];
  k: number[][];
  v: number[][];
  q_before: number[][];
  k_before: number[][];
  scores: number[][];
  weights: number[][];
  reading: number[][];
  query_lengths: number[];
  query_lengths_before: number[];
  /** Angle between q₁ and q₂ in degrees, after and before the change of basis. */
  query_angle_degrees: number;
  query_angle_degrees_before: number;
  condition_number: number | null;
  max_score_difference: number;
}
/**
 * Two tokens' queries and keys in the plane, draggable; attention drawn as edges as wide as the weight.
 * Attributes: w-q, w-k, w-v (2 × 2 JSON), scale (score scale, 0–50), basis (change of basis shown),
 * angle (rotation in degrees, −180–180), a (invertible 2 × 2 JSON for K′ = KA^{−T}). Shared: all of them.
 */
export interface HeadlabQueryKeyCanvas extends HeadlabElementBase<QueryKeyCanvasState>, HeadlabQueryKeyCanvasProperties {}

export interface ReplayEvaluation {
  heldout_mse: number;
  uniform_attention_mse: number;
  query_r2: number[];
  value_r2: number[];
}
export interface TrainingReplayState {
  status: 'idle' | 'training' | 'done' | 'failed';
  /** keys: the task's keys (4 rows of 3) when not the tetrahedron, else null. */
  settings: { seed: number; steps: number; learning_rate: number; request_scale: number; learned_keys: boolean; keys: number[][] | null };
  snapshot: number | null;
  step: number | null;
  loss: number | null;
  diverged_at: number;
  evaluation: ReplayEvaluation | null;
  lesson: string;
}
/**
 * Feature-recovery training replayed from log-spaced snapshots (R·W_q, R·W_v, raw W_q, W_v, loss), with a
 * scrubber and the "break it" runs. Attributes: seed (0–2³¹−1, default 0), steps (1–20000, default 1200),
 * learning-rate (default 0.03), request-scale (0.01–100, default 1.8), learned-keys ("true"), keys (the task's
 * four keys as JSON rows, 4 × 3, entries in [−10, 10]; absent = the tetrahedron; not with learned-keys), snapshot
 * (index; absent = the last). Shared: seed, learning-rate, request-scale, learned-keys, keys, snapshot.
 */
export interface HeadlabTrainingReplay extends HeadlabElementBase<TrainingReplayState>, HeadlabTrainingReplayProperties {}

// ---------- your own transformer (docs/own-model.md, docs/own-model-widgets.md) ----------
// Each figure reads the model of a <headlab-transformer-model>: the one its `model` attribute
// names, or the one it is nested in. Layers and heads are numbered from 0 (TransformerLens's
// numbering); prompts are token names (when the config has token_names) or ids, separated by
// spaces or commas, at most n_ctx of them; text when the model element has a tokenizer (encoded by
// it, the tokens shown under the field). A bad file shows the core's message in the model
// element and in every figure reading it.

export type TransformerSourceStatus = 'idle' | 'loading' | 'ready' | 'failed';
/** Where a model shown comes from (LoadedTransformer.origin). */
export type ModelOrigin = 'files' | 'page' | 'reader';
export interface TransformerModelState {
  status: TransformerSourceStatus;
  /** Where the model comes from, e.g. "induction-seed0.safetensors". */
  label: string;
  /** The tokenizer's file name when the model shown has one (its prompts are text), else null. */
  tokenizer: string | null;
  n_layers: number | null;
  n_heads: number | null;
  d_model: number | null;
  d_vocab: number | null;
  n_ctx: number | null;
  /** Scalar parameters, biases and LayerNorm weights included. */
  parameters: number | null;
  /**
   * Where the model shown comes from: 'files' (the author's src and config), 'page' (handed over by
   * useModel or the training widget: trained in this page) or 'reader' (files the reader opened);
   * null while nothing is shown.
   */
  origin: ModelOrigin | null;
  /**
   * Whether the model shown was trained in this page (origin 'page'). A model the reader opened is
   * not known to be trained or not: false here, with origin 'reader'.
   */
  trained: boolean;
}
/** A model as two files, as the training widget and `headlab model train` produce it. */
export interface TransformerModelFiles {
  /** model.json text. */
  config: string;
  /** model.safetensors bytes. */
  safetensors: Uint8Array;
}
/**
 * <headlab-transformer-model id="…" src="model.safetensors" config="model.json">: an attention-only
 * transformer read by the core (progress while downloading; the core's message for a bad file).
 * Attributes: src (the .safetensors file, resolved against the page; required), config (its JSON;
 * default: src with .safetensors replaced by .json), tokenizer (optional: the model's Hugging Face tokenizer.json;
 * every figure's prompt is then text, encoded by the core, its tokens shown under the field; a file
 * the reader refuses is reported in the element, naming it, and a model already shown stays),
 * timeout (seconds the downloads may take, 1–600, default 60;
 * then a message and a Try again button), label (how the panel and its figures name the model to
 * readers; default no name: never the file's URL, which a build tool may hash). File locations are never shared through the URL hash.
 * Event `change` when a model is loaded, replaced or fails.
 */
export interface HeadlabTransformerModel extends HeadlabElementBase<TransformerModelState>, HeadlabTransformerModelProperties {
  /** The config of the model shown (null while loading or after a failure). */
  readonly modelConfig: object | null;
  /**
   * The warning the panel shows for config token_names a reader cannot type unambiguously in a prompt
   * (a name given to several tokens, a name with a space or comma, an empty one, digits other than its
   * own id); '' when there is none or the model has a tokenizer.
   */
  readonly tokenNamesWarning: string;
  /** `headlab model analyze` of the model shown on its default prompt (what the bound values read); null while loading. */
  readonly analysis: object | null;
  /** Uses a model given as its two files (e.g. trained in the page); every figure reading this element switches to it. */
  useModel(files: TransformerModelFiles, label?: string): Promise<void>;
  /** Back to the model read from src and config. */
  useLoaded(): Promise<void>;
  /**
   * Opens a model from a reader's files (as dropping them on the element or picking them with its
   * "Open a model…" button does): one weights file (.safetensors, .pt, .pth), its config .json and
   * optionally tokenizer.json. Every figure switches once they are read; files that cannot be used
   * get the reason in the element, naming them, and the model shown stays.
   */
  openFiles(files: File[]): Promise<void>;
}

/** Common to the transformer figures. Attribute: model (id of a headlab-transformer-model; default the enclosing one). */
export interface TransformerElementBase<State> extends HeadlabElementBase<State> {
  /** The model shown now (null while loading or after a failure). */
  readonly currentModel: object | null;
  /** The state with the core's numbers behind the figure (patterns, attribution, patching, logits, circuit); null while loading. */
  readonly figureData: Record<string, unknown> | null;
}

export interface TransformerAttentionState {
  prompt: number[];
  position: number;
  /** The clicked cell: head (layer, head), query `position`, key `key`; null when none is selected. */
  cell: { layer: number; head: number; key: number } | null;
}
/** Every head's attention pattern on the reader's prompt; a token's row and column outlined; a clicked cell selected. Attributes: prompt, position (pinned token, default the last), cell ("layer.head.key", the selected cell), model. Shared: prompt, position, cell. */
export interface HeadlabTransformerAttention
  extends TransformerElementBase<TransformerAttentionState>, HeadlabTransformerAttentionProperties {}

export interface TransformerAttributionState {
  prompt: number[];
  position: number;
  token: number;
  /** The model's logit for `token` at `position` (nats). */
  logit: number | null;
}
/** Direct logit attribution of the embeddings, every head and the biases to one logit. Attributes: prompt, position (default the last), token (default the top prediction), model. Shared: prompt, position, token. */
export interface HeadlabTransformerAttribution
  extends TransformerElementBase<TransformerAttributionState>, HeadlabTransformerAttributionProperties {}

export interface TransformerCompositionEdge {
  kind: 'q' | 'k' | 'v';
  /** Heads as "l.h". */
  later: string;
  earlier: string;
  /** ‖W_OV^earlier M^later‖_F / (‖W_OV^earlier‖_F ‖M^later‖_F), normalisation weights folded in. */
  score: number;
  /** (score − baseline mean) / baseline standard deviation (random matrices of the same shapes). */
  sigmas: number;
}
export type CompositionKind = 'q' | 'k' | 'v';
/** One edge: later head ℓ reads earlier head e (flat indices l·H + h), with its score and its distance from the baseline in standard deviations. */
export interface CompositionEdge {
  kind: CompositionKind;
  later: string;
  earlier: string;
  score: number;
  /** (score − baseline mean) / baseline standard deviation. */
  sigmas: number;
}
export interface TransformerCompositionState {
  kind: 'all' | CompositionKind;
  /** The later head whose incoming compositions the readout lists, "l.h" (empty for a one-layer model). */
  head: string;
  /** The strongest composition of the kinds shown (null before loading, or with one layer). */
  strongest: CompositionEdge | null;
}
/** Q-, K- and V-composition of every pair of heads in different layers, against a random baseline. Attributes: kind (all|q|k|v), head (a later head "l.h"), seed (the baseline's draws), model. Shared: kind, head. */
export interface HeadlabTransformerComposition
  extends TransformerElementBase<TransformerCompositionState>, HeadlabTransformerCompositionProperties {}

export interface LogitLensState {
  prompt: number[];
  /** The chosen position i. */
  position: number;
  /** The token tracked at i: the next prompt token, at the last position the model's top prediction (−1 before computing). */
  answer: number;
  /** L + 1 probabilities of the answer at i, stage 0 (the embedding) to L (the output); [] before computing. */
  probability: number[];
  /** The first stage at which the answer is the top token at i (null if none, or before computing). */
  firstTop: number | null;
}
/** The logit lens: the residual stream after the embedding and after each layer read through the final normalisation and W_U, the answer's probability per stage and position, each cell's top token. Attributes: prompt, position, model. Shared: prompt, position. Bound values: answer.probability.<s>, answer.rank.<s>, answer.first_top, top.probability.<s>. */
export interface HeadlabLogitLens extends TransformerElementBase<LogitLensState>, HeadlabLogitLensProperties {}

export interface HeadSvdState {
  layer: number;
  head: number;
  /** The chosen head's OV copying score in [0, 1] (null before computing). */
  copying: number | null;
  /** Its d_head OV and QK singular values, descending ([] before computing). */
  ov: number[];
  qk: number[];
}
/** Singular values of every head's OV and QK matrices, the chosen head's top directions read in tokens, and every head's OV copying score. Attributes: layer, head (default the head that copies most), model. Shared: layer, head. Bound values: copying, ov.share.<k>, qk.share.<k>, ov.value.<k>, qk.value.<k>, copying.max.{layer,head,score}. */
export interface HeadlabHeadSvd extends TransformerElementBase<HeadSvdState>, HeadlabHeadSvdProperties {}

export interface TransformerPatchingState {
  prompt: number[];
  corrupted: number[];
  answer: number | null;
  wrong: number | null;
  /** logit[answer] − logit[wrong] at the last position (nats). */
  clean_logit_difference: number | null;
  corrupted_logit_difference: number | null;
}
/** Activation patching of every head at every position (normalised logit difference). Attributes: prompt (clean), corrupted (same length), answer, wrong, model; over a batch instead of one pair: pairs-task ("induction" | "max-digit"), count (pairs, default 64), pairs-seed (default 0), or pairs (a prompt-pairs file's location, never taken from the URL hash), each cell then the mean effect with its bootstrap 95% interval. Shared: prompt, corrupted, answer, wrong. */
export interface HeadlabTransformerPatching extends TransformerElementBase<TransformerPatchingState> {}

export interface TransformerAblationState {
  prompt: number[];
  mode: 'zero' | 'mean';
  /** Heads ablated, as [layer, head] pairs. */
  heads: [number, number][];
  /** The prompt's next-token loss (nats, ≥ 0) with no head ablated; null before it is computed or for a one-token prompt. */
  clean_loss: number | null;
}
/** Logits on the reader's prompt before and after ablating chosen heads, and the prompt's next-token loss with each head ablated alone. Attributes: prompt, mode ("zero" | "mean", default "mean"), heads ("1.2 0.3": layer.head pairs), reference (the author's: a JSON list of prompts that mean ablation averages each head's output over; default 32 repeated random sequences), model. Shared: prompt, mode, heads. */
export interface HeadlabTransformerAblation extends TransformerElementBase<TransformerAblationState>, HeadlabTransformerAblationProperties {
  /** The heads of the `heads` attribute as [layer, head] pairs. */
  heads(): [number, number][];
  /** The `reference` attribute's sequences as token ids ([] when absent). */
  reference(): number[][];
}

export type CircuitKind = 'qk' | 'ov';
export interface TransformerCircuitsState {
  layer: number;
  head: number;
  circuit: CircuitKind;
  /**
   * Fraction of rows whose largest entry is on the diagonal (OV: the attended token's own logit
   * rises most, i.e. the head copies; QK: a token attends most to itself). Null before loading.
   */
  diagonal_share: number | null;
}
/** A head's QK and OV circuits in token space as a heatmap (vocabularies up to 64 tokens; larger ones: the numbers as JSON). Attributes: layer (default the last), head (default 0), circuit ("qk" | "ov", default "ov"), model. Shared: layer, head, circuit. */
export interface HeadlabTransformerCircuits
  extends TransformerElementBase<TransformerCircuitsState>, HeadlabTransformerCircuitsProperties {}

export interface QkAttributionState {
  prompt: number[];
  layer: number;
  head: number;
  /** The query position i. */
  position: number;
  /** The key position j ≤ i. */
  key: number;
  /** s_ij, the scaled score the parts sum to (null until computed). */
  score: number | null;
  /** The largest part by size: its sources (query side, key side), value and share of the score (part / s_ij). */
  dominant: { query: string; key: string; part: number; share: number } | null;
}
/**
 * Why a head attends where it does: the score from a query to a key split exactly into parts, one per
 * pair (query-side source, key-side source) of the residual stream (token, position, each earlier head,
 * biases; LayerNorm scale frozen), as a grid with the largest part named in words. Attributes: prompt,
 * layer (default the last), head (default 0), position (the query, default the last), key (default the
 * key with the largest score), attention (id of a headlab-transformer-attention whose clicked cell it
 * follows), model. Shared: prompt, layer, head, position, key. Bound values: score, share,
 * share.<query source>.<key source>, part.<query source>.<key source>.
 */
export interface HeadlabQkAttribution extends TransformerElementBase<QkAttributionState>, HeadlabQkAttributionProperties {}

export interface AttributionPatchingState {
  /** The generated batch's task, pairs and seed (null with a pairs file). */
  pairs_task: 'induction' | 'max-digit' | null;
  count: number | null;
  pairs_seed: number | null;
  /** The pairs file as the attribute names it (null for generated pairs). */
  pairs: string | null;
  /** The point read out (heads first, then edges e·3 + κ); −1 before the document arrives. */
  point: number;
  /** Spearman ρ of estimate against real patch over the heads, the edges, and the edges into q, k, v (null: undefined). */
  spearman: { nodes: number | null; edges: number | null; q: number | null; k: number | null; v: number | null } | null;
}
/**
 * Attribution patching against real patching over a batch of prompt pairs: every head's and
 * every edge's (sender → receiver's q, k, v) mean first-order estimate against the mean real patch, the
 * diagonal drawn, Spearman ρ per group and the largest disagreements named. Attributes: pairs-task
 * ("induction" | "max-digit", default induction), count (1 to 1024, default 64), pairs-seed (default 0),
 * or pairs (a prompt-pairs file's location instead of the three), point (the point read out; default the largest disagreement), model. Shared: pairs-task, count,
 * pairs-seed, point. figureData.attribution_patching is `headlab model analyze --attribution-patching`'s document.
 */
export interface HeadlabAttributionPatching extends TransformerElementBase<AttributionPatchingState> {}

/** The receiver's input an edge reaches: its queries, keys or values. */
export type PathPatchingInput = 'q' | 'k' | 'v';
export interface PathPatchingState {
  /** The generated batch's task, pairs and seed (null with a pairs file). */
  pairs_task: 'induction' | 'max-digit' | null;
  count: number | null;
  pairs_seed: number | null;
  /** The pairs file as the attribute names it (null for generated pairs). */
  pairs: string | null;
  /** The receiver's input the grid shows. */
  input: PathPatchingInput;
  /** The cell read out: sender and receiver [layer, head] (null before the document arrives). */
  sender: [number, number] | null;
  receiver: [number, number] | null;
  /** That edge's mean effect with its bootstrap 95 % interval and p-value (null before the document arrives). */
  effect: { mean: number; lower: number; upper: number; p_value: number } | null;
}
/**
 * Path patching over a batch of prompt pairs: one grid per receiver input (q, k or v, chosen
 * by the reader), a row per sender head and a column per later receiver head, each cell the mean effect
 * of changing the sender's output only on that path; a diagonal stroke where the bootstrap 95 %
 * interval crosses 0. Attributes: input ("q" | "k" | "v"; default the input of the largest effect),
 * sender, receiver (the cell read out, layer.head; default the input's largest effect), pairs-task,
 * count, pairs-seed (or pairs: a prompt-pairs file's location), model. Shared: input, sender, receiver, pairs-task, count, pairs-seed.
 * figureData.path_patching is `headlab model analyze --path-patching`'s document. Bound values (of the
 * path with the largest mean effect over every input): largest.mean, largest.lower, largest.upper,
 * largest.p_value, largest.sender.layer, largest.sender.head, largest.receiver.layer, largest.receiver.head.
 */
export interface HeadlabPathPatching extends TransformerElementBase<PathPatchingState> {}

/** An edge of a circuit: [sender layer, sender head, receiver layer, receiver head, the receiver's input]. */
export type TransformerCircuitEdge = [number, number, number, number, 'q' | 'k' | 'v'];
export interface CircuitFaithfulnessState {
  /** The generated batch's task, pairs and seed (null with a pairs file). */
  pairs_task: 'induction' | 'max-digit' | null;
  count: number | null;
  pairs_seed: number | null;
  /** The pairs file as the attribute names it (null for generated pairs). */
  pairs: string | null;
  ablation: 'corrupted' | 'mean';
  /** The circuit's heads [layer, head], layer then head order (for a circuit of edges, their ends). */
  circuit: [number, number][];
  /** A circuit of edges, in the core's order (null for a circuit of heads). */
  edges: TransformerCircuitEdge[] | null;
  /** The circuit's recovery: mean and bootstrap 95 % interval (null before the worker's answer). */
  recovery: { mean: number; lower: number; upper: number; p_value: number } | null;
  /** The recovery without each circuit head (or each edge cut), in the circuit's order (empty before the answer). */
  leave_one_out: (({ layer: number; head: number } | { edge: TransformerCircuitEdge }) & { mean: number; lower: number; upper: number })[];
}
/**
 * Circuit faithfulness over a batch of prompt pairs: the share of the clean-vs-corrupted
 * logit difference a set of heads recovers with every other head replaced (by its corrupted-run
 * output, or its mean), with its bootstrap 95 % interval, and the same without each of its heads.
 * The reader toggles heads in and out. Or a circuit of edges (edges="0.0>1.1:k 0.0>1.1:q", instead of
 * circuit): its heads are the edges' ends, each input read through the listed edges only, the reader
 * ticks edges and the rows cut one edge each. Attributes: circuit (layer.head pairs; default every head), edges,
 * ablation ("corrupted" | "mean", default corrupted), pairs-task ("induction" | "max-digit", default
 * induction), count (1 to 1024, default 64), pairs-seed (default 0), or pairs (a prompt-pairs file's
 * location instead of the three), model. Shared: circuit, ablation,
 * edges, pairs-task, count, pairs-seed. figureData.faithfulness is `headlab model analyze --faithfulness`'s
 * (or --faithfulness-edges') document. Bound values: recovery, recovery.lower, recovery.upper,
 * recovery.p_value, without.L<l>H<h> (the recovery without that circuit head), without.<l.h>l.h:κ>
 * (with that edge cut).
 */
export interface HeadlabCircuitFaithfulness extends TransformerElementBase<CircuitFaithfulnessState> {
  /** The circuit the figure computes: the attribute's heads checked against the model, or every head (for edges, their ends). */
  circuit(): [number, number][];
  /** The circuit of edges of the `edges` attribute, checked against the model; null without it. */
  edges(): [number, number, number, number, 'q' | 'k' | 'v'][] | null;
}

// ---------- <headlab-value> ----------

/**
 * What a source's boundValue answers while it computes a new value after having had one (another
 * head, cell or prompt): <headlab-value> then shows "computing…" rather than the value before or
 * the author's text, which describe other inputs.
 */
export interface BoundComputing {
  computing: true;
}
/** What a widget reports for a number bound into prose (`boundValue(name)`, `<headlab-value>`). */
export interface BoundValue {
  value: number;
  /** fraction: in [0, 1], share of `of` items (an accuracy); count: a whole number of things; loss: an error ≥ 0. */
  kind: 'fraction' | 'count' | 'number' | 'loss';
  /** For a fraction: how many items it is a fraction of (lets the formatter say "all but 5 of 111,110"). */
  of?: number;
}
/**
 * A number in the prose computed by the model on the page: reads `boundValue(name)` of the element with id
 * `source`, again on its `change` event and after each of its renders, and prints it in words (an accuracy is
 * 100% only when every item is right). Shows its own text until the source answers. Attributes: source, name,
 * format ("percent" | "count" | "number" | "sci"; default from the value's kind), digits (decimals of a number or
 * percentage, 0–6, so the value keeps the precision of the fallback text). Inline, no shadow root.
 */
export interface HeadlabValue extends HTMLElement, HeadlabValueProperties {
  /** The value as last shown; undefined while the source has none. */
  readonly value: BoundValue | undefined;
  /** Resolves once the number is shown (true) or the source is missing (false, the fallback text stays). Never rejects. */
  readonly updateComplete: Promise<boolean>;
  /** Reads the value from the source again and shows it. */
  update(): void;
}

// ---------- registration and classes ----------

/** Defines `tag` as `element` in a browser when the tag is free; does nothing in Node or server rendering. */
export function defineElement(tag: string, element: CustomElementConstructor): void;

// ---------- JSX (React, Preact, Astro, Solid): attributes as written in markup ----------

/** Attributes every element takes in markup, beside the usual HTML ones. */
export interface HeadlabBaseAttributes {
  id?: string;
  class?: string;
  className?: string;
  slot?: string;
  hidden?: boolean;
  'share-state'?: boolean | '';
  children?: unknown;
  [data: `data-${string}`]: string | number | boolean | undefined;
  [aria: `aria-${string}`]: string | number | boolean | undefined;
}

// ---------- generated from the elements' attribute tables by node site/package-types.mjs: edit the tables ----------
/** The properties the attributes of <headlab-angle-dot> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabAngleDotProperties {
  /** The full matrix shown: cosines or dot products. Attribute `matrix`; default "cosine"; shared (share-state). */
  matrix: 'cosine' | 'dot';
}

/** The properties the attributes of <headlab-attention-bars> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabAttentionBarsProperties {
  /** The list of 1 to 6 digits 0–9, separated by spaces (default "2 3 4 5 6"). Attribute `digits`; shared (share-state). */
  digits: number[];
}

/** The properties the attributes of <headlab-attention-patch> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabAttentionPatchProperties {
  /** The list of 1 to 6 digits 0–9, separated by spaces (default "2 3 4 5 6"). Attribute `digits`; shared (share-state). */
  digits: number[];
  /**
   * The patched heads, "head:position …" (e.g. "3:3 1:3"): each head (0–3, once) attends only to that
   * position (0–8). Attribute `patches`; shared (share-state).
   */
  patches: AttentionPatch[];
}

/** The properties the attributes of <headlab-basis-rotation> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabBasisRotationProperties {
  /** The rotation, in degrees. Attribute `angle`; default 30; shared (share-state). */
  angle: number;
}

/** The properties the attributes of <headlab-feature-recovery> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabFeatureRecoveryProperties {
  /** Seed of the run’s initialisation and examples. Attribute `seed`; default 0; shared (share-state). */
  seed: number;
  /** Training steps. Attribute `steps`; default 1200; shared (share-state). */
  steps: number;
  /** Fresh examples per step (the trainer setting batch_size). Attribute `batch`; default 128; shared (share-state). */
  batch: number;
  /** Adam’s learning rate. Attribute `learning-rate`; default 0.03; shared (share-state). */
  learningRate: number;
  /** Scale of the request features in the task. Attribute `request-scale`; default 1.8; shared (share-state). */
  requestScale: number;
  /**
   * Held-out examples of the evaluation (default the draft’s 4096; fewer make the interventions cheaper).
   * Attribute `eval-size`; default 4096; shared (share-state).
   */
  evalSize: number;
  /**
   * "watch": the run paced to be watched; "fast": as fast as it trains (default under
   * prefers-reduced-motion). Attribute `pace`; shared (share-state).
   */
  pace: 'watch' | 'fast';
  /** Start a run once the element is ready. Attribute `autostart`. */
  autostart: boolean;
}

/** The properties the attributes of <headlab-head-ablation> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabHeadAblationProperties {
  /** The heads removed, e.g. "0 2" (each 0–3; sorted, each once). Attribute `ablated`; shared (share-state). */
  ablated: number[];
}

/** The properties the attributes of <headlab-head-contributions> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabHeadContributionsProperties {
  /** The list of 1 to 6 digits 0–9, separated by spaces (default "2 3 4 5 6"). Attribute `digits`; shared (share-state). */
  digits: number[];
  /**
   * What the arrows show: each head’s output, or its correction to the residual. Attribute `mode`; default
   * "outputs"; shared (share-state).
   */
  mode: 'outputs' | 'corrections';
  /** Arrows from the origin, or chained head after head. Attribute `layout`; default "origin"; shared (share-state). */
  layout: 'origin' | 'chained';
}

/** The properties the attributes of <headlab-head-svd> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabHeadSvdProperties {
  /** The layer (default the head that copies most). Attribute `layer`; default 0; shared (share-state). */
  layer: number;
  /** The head (default the head that copies most). Attribute `head`; default 0; shared (share-state). */
  head: number;
}

/** The properties the attributes of <headlab-interventions> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabInterventionsProperties {
  /** What is done to the trained model’s inputs. Attribute `intervention`; default "erase-request"; shared (share-state). */
  intervention: 'erase-request' | 'erase-payload' | 'shift';
  /** The feature erased, 1–3 (not for "shift"). Attribute `feature`; default 1; shared (share-state). */
  feature: number;
  /** How far every irrelevant coordinate is shifted. Attribute `shift`; default 5; shared (share-state). */
  shift: number;
}

/** The properties the attributes of <headlab-logit-lens> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabLogitLensProperties {
  /** The prompt, as text the model’s tokenizer reads (default the model’s example). Attribute `prompt`; shared (share-state). */
  prompt: string;
  /** The chosen position (default the last). Attribute `position`; shared (share-state). */
  position: number;
}

/** The properties the attributes of <headlab-max-digit-mechanism> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabMaxDigitMechanismProperties {
  /** The list of 1 to 6 digits 0–9, separated by spaces (default "2 3 4 5 6"). Attribute `digits`; shared (share-state). */
  digits: number[];
}

/** The properties the attributes of <headlab-max-digit-model> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabMaxDigitModelProperties {
  /** The weights JSON, resolved against the page (default the shipped seed-0 weights beside the package). Attribute `src`. */
  src: string;
  /** Seed of an in-page retraining. Attribute `seed`; default 1; shared (share-state). */
  seed: number;
  /** Training steps of an in-page retraining. Attribute `steps`; default 4000. */
  steps: number;
  /** Retrain with unit-norm unembedding rows. Attribute `unit-norm-unembedding`. */
  unitNormUnembedding: boolean;
  /** Seconds the weights may take to download. Attribute `timeout`; default 30. */
  timeout: number;
  /**
   * No seed field, Train or way back: the panel always shows the weights of src (for a page whose prose
   * compares them with a fixed model). Attribute `no-training`.
   */
  noTraining: boolean;
}

/** The properties the attributes of <headlab-projection-ablation> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabProjectionAblationProperties {
  /** W_Q (2 × 2 JSON rows; default the identity). Attribute `w-q`; shared (share-state). */
  wQ: number[][];
  /** W_K (2 × 2 JSON rows; default the identity). Attribute `w-k`; shared (share-state). */
  wK: number[][];
  /** W_V (2 × 2 JSON rows; default the identity). Attribute `w-v`; shared (share-state). */
  wV: number[][];
  /** The query row, 1 or 2. Attribute `query`; default 1; shared (share-state). */
  query: number;
}

/** The properties the attributes of <headlab-qk-attribution> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabQkAttributionProperties {
  /** The prompt, as text the model’s tokenizer reads (default the model’s example). Attribute `prompt`; shared (share-state). */
  prompt: string;
  /** The layer, 0 to L − 1 (default the last). Attribute `layer`; shared (share-state). */
  layer: number;
  /** The head, 0 to H − 1 (default 0). Attribute `head`; default 0; shared (share-state). */
  head: number;
}

/** The properties the attributes of <headlab-query-key-canvas> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabQueryKeyCanvasProperties {
  /** The score scale, 0–50 (default 1/√2). Attribute `scale`; default 0.7071067811865476; shared (share-state). */
  scale: number;
  /** The change of basis shown. Attribute `basis`; default "none"; shared (share-state). */
  basis: 'none' | 'rotation' | 'invertible';
  /** The rotation’s angle, in degrees (basis "rotation"). Attribute `angle`; default 40; shared (share-state). */
  angle: number;
}

/** The properties the attributes of <headlab-score-ramps> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabScoreRampsProperties {
  /** The maximum digit of the list, 1–9 (default 9). Attribute `maximum`; shared (share-state). */
  maximum: number;
  /** The runner-up digit, below the maximum (default the maximum − 1). Attribute `runner-up`; shared (share-state). */
  runnerUp: number;
}

/** The properties the attributes of <headlab-seed-grid> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabSeedGridProperties {
  /** First seed shown (default the file’s first). Attribute `from`; shared (share-state). */
  from: number;
  /** Last seed shown (default the file’s last). Attribute `to`; shared (share-state). */
  to: number;
  /** Training steps of each seed trained here. Attribute `steps`; default 4000. */
  steps: number;
  /** Web Workers training at once, 1–8 (default from the cores available). Attribute `workers`. */
  workers: number;
}

/** The properties the attributes of <headlab-subspace-accuracy> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabSubspaceAccuracyProperties {
  /** Dimensions of each head’s principal subspace kept. Attribute `k`; default 3; shared (share-state). */
  k: number;
  /**
   * The basis the subspace is taken in: the heads’ W_O or the unembedding W_U. Attribute `basis`; default
   * "w_o"; shared (share-state).
   */
  basis: 'w_o' | 'w_u';
}

/** The properties the attributes of <headlab-training-replay> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabTrainingReplayProperties {
  /** Seed of the replayed run. Attribute `seed`; default 0; shared (share-state). */
  seed: number;
  /** Training steps of the replayed run. Attribute `steps`; default 1200. */
  steps: number;
  /** Adam’s learning rate. Attribute `learning-rate`; default 0.03; shared (share-state). */
  learningRate: number;
  /** Scale of the request features. Attribute `request-scale`; default 1.8; shared (share-state). */
  requestScale: number;
  /** Whether the keys are learned ("true") or fixed ("false", the default). Attribute `learned-keys`; shared (share-state). */
  learnedKeys: boolean;
  /**
   * The task’s keys (JSON rows, 4 × 3, entries in [−10, 10]); absent: the tetrahedron. Attribute `keys`;
   * shared (share-state).
   */
  keys: number[][] | null;
  /** Snapshot index shown (clamped to the replay); absent: the last. Attribute `snapshot`; shared (share-state). */
  snapshot: number | null;
}

/** The properties the attributes of <headlab-transformer-ablation> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabTransformerAblationProperties {
  /** How a head is ablated: its output set to zero or to its mean. Attribute `mode`; default "mean"; shared (share-state). */
  mode: 'zero' | 'mean';
}

/** The properties the attributes of <headlab-transformer-attention> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabTransformerAttentionProperties {
  /** The prompt, as text the model’s tokenizer reads (default the model’s example). Attribute `prompt`; shared (share-state). */
  prompt: string;
  /** The pinned token’s position (default the last). Attribute `position`; shared (share-state). */
  position: number;
  /** The selected cell, "layer.head.key" (held to the model and the pinned query). Attribute `cell`; shared (share-state). */
  readonly cell: { layer: number; head: number; key: number } | null;
}

/** The properties the attributes of <headlab-transformer-attribution> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabTransformerAttributionProperties {
  /** The prompt, as text the model’s tokenizer reads (default the model’s example). Attribute `prompt`; shared (share-state). */
  prompt: string;
}

/** The properties the attributes of <headlab-transformer-circuits> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabTransformerCircuitsProperties {
  /** The layer, 0 to L − 1 (default the last). Attribute `layer`; shared (share-state). */
  layer: number;
  /** The head, 0 to H − 1 (default 0). Attribute `head`; default 0; shared (share-state). */
  head: number;
  /** The circuit shown: QK or OV. Attribute `circuit`; default "ov"; shared (share-state). */
  circuit: 'qk' | 'ov';
}

/** The properties the attributes of <headlab-transformer-composition> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabTransformerCompositionProperties {
  /** The composition shown: Q, K, V or all three. Attribute `kind`; default "all"; shared (share-state). */
  kind: 'all' | 'q' | 'k' | 'v';
  /** A later head, "l.h", whose edges are listed. Attribute `head`; shared (share-state). */
  head: string;
  /** Seed of the random baseline’s draws. Attribute `seed`; default 0. */
  seed: number;
}

/** The properties the attributes of <headlab-transformer-model> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabTransformerModelProperties {
  /** The weights (.safetensors or torch.save .pt), resolved against the page; required. Attribute `src`. */
  src: string;
  /** The model’s JSON config. Attribute `config`. */
  config: string;
  /** A tokenizer file for the vocabulary’s names (optional). Attribute `tokenizer`. */
  tokenizer: string;
  /** Seconds each file may take to download. Attribute `timeout`; default 60. */
  timeout: number;
}

/** The properties the attributes of <headlab-transformer-training> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabTransformerTrainingProperties {
  /** Id of the <headlab-transformer-model> the trained model is shown in. Attribute `model`. */
  model: string;
  /** Seed of the run. Attribute `seed`; default 0; shared (share-state). */
  seed: number;
  /** Training steps (default the core’s run). Attribute `steps`; default 1800; shared (share-state). */
  steps: number;
  /**
   * A recorded run (the JSON `headlab model train --history-out` wrote): the charts show it before any run of
   * the reader’s. Attribute `history`.
   */
  history: string;
}

/** The properties the attributes of <headlab-value> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabValueProperties {
  /** Id of the element that computes the value. Attribute `source`. */
  source: string;
  /** Name of the value, as the source’s boundValue() knows it. Attribute `name`. */
  name: string;
  /** How the value is printed; absent or unknown: the default for its kind. Attribute `format`. */
  format: 'percent' | 'count' | 'number' | 'sci' | undefined;
  /** Decimals of a number or percentage, 0–6; absent or invalid: the format’s default. Attribute `digits`. */
  digits: number | undefined;
}

/** The properties the attributes of <headlab-value-swap> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */
export interface HeadlabValueSwapProperties {
  /** The first swapped column, 1-based. Attribute `column-a`; default 1; shared (share-state). */
  columnA: number;
  /** The second swapped column, 1-based. Attribute `column-b`; default 2; shared (share-state). */
  columnB: number;
}

/** Every element's tag and its interface. */
export interface HeadlabElementTagNameMap {
  'headlab-angle-dot': HeadlabAngleDot;
  'headlab-attention-bars': HeadlabAttentionBars;
  'headlab-attention-patch': HeadlabAttentionPatch;
  'headlab-attribution-patching': HeadlabAttributionPatching;
  'headlab-basis-rotation': HeadlabBasisRotation;
  'headlab-choice-quiz': HeadlabChoiceQuiz;
  'headlab-circuit-faithfulness': HeadlabCircuitFaithfulness;
  'headlab-feature-recovery': HeadlabFeatureRecovery;
  'headlab-head-ablation': HeadlabHeadAblation;
  'headlab-head-contributions': HeadlabHeadContributions;
  'headlab-head-svd': HeadlabHeadSvd;
  'headlab-interventions': HeadlabInterventions;
  'headlab-logit-lens': HeadlabLogitLens;
  'headlab-max-digit-mechanism': HeadlabMaxDigitMechanism;
  'headlab-max-digit-model': HeadlabMaxDigitModel;
  'headlab-path-patching': HeadlabPathPatching;
  'headlab-projection-ablation': HeadlabProjectionAblation;
  'headlab-qk-attribution': HeadlabQkAttribution;
  'headlab-query-key-canvas': HeadlabQueryKeyCanvas;
  'headlab-score-ramps': HeadlabScoreRamps;
  'headlab-seed-grid': HeadlabSeedGrid;
  'headlab-subspace-accuracy': HeadlabSubspaceAccuracy;
  'headlab-training-replay': HeadlabTrainingReplay;
  'headlab-transformer-ablation': HeadlabTransformerAblation;
  'headlab-transformer-attention': HeadlabTransformerAttention;
  'headlab-transformer-attribution': HeadlabTransformerAttribution;
  'headlab-transformer-circuits': HeadlabTransformerCircuits;
  'headlab-transformer-composition': HeadlabTransformerComposition;
  'headlab-transformer-model': HeadlabTransformerModel;
  'headlab-transformer-patching': HeadlabTransformerPatching;
  'headlab-transformer-training': HeadlabTransformerTraining;
  'headlab-value': HeadlabValue;
  'headlab-value-swap': HeadlabValueSwap;
}

/** An element class as exported (headlab, headlab/elements, headlab/<name>): subclass it to register another tag. */
type ElementClass<T> = { new (): T; prototype: T; readonly observedAttributes: string[] };
export const HeadlabAngleDot: ElementClass<HeadlabAngleDot>;
export const HeadlabAttentionBars: ElementClass<HeadlabAttentionBars>;
export const HeadlabAttentionPatch: ElementClass<HeadlabAttentionPatch>;
export const HeadlabAttributionPatching: ElementClass<HeadlabAttributionPatching>;
export const HeadlabBasisRotation: ElementClass<HeadlabBasisRotation>;
export const HeadlabChoiceQuiz: ElementClass<HeadlabChoiceQuiz>;
export const HeadlabCircuitFaithfulness: ElementClass<HeadlabCircuitFaithfulness>;
export const HeadlabFeatureRecovery: ElementClass<HeadlabFeatureRecovery>;
export const HeadlabHeadAblation: ElementClass<HeadlabHeadAblation>;
export const HeadlabHeadContributions: ElementClass<HeadlabHeadContributions>;
export const HeadlabHeadSvd: ElementClass<HeadlabHeadSvd>;
export const HeadlabInterventions: ElementClass<HeadlabInterventions>;
export const HeadlabLogitLens: ElementClass<HeadlabLogitLens>;
export const HeadlabMaxDigitMechanism: ElementClass<HeadlabMaxDigitMechanism>;
export const HeadlabMaxDigitModel: ElementClass<HeadlabMaxDigitModel>;
export const HeadlabPathPatching: ElementClass<HeadlabPathPatching>;
export const HeadlabProjectionAblation: ElementClass<HeadlabProjectionAblation>;
export const HeadlabQkAttribution: ElementClass<HeadlabQkAttribution>;
export const HeadlabQueryKeyCanvas: ElementClass<HeadlabQueryKeyCanvas>;
export const HeadlabScoreRamps: ElementClass<HeadlabScoreRamps>;
export const HeadlabSeedGrid: ElementClass<HeadlabSeedGrid>;
export const HeadlabSubspaceAccuracy: ElementClass<HeadlabSubspaceAccuracy>;
export const HeadlabTrainingReplay: ElementClass<HeadlabTrainingReplay>;
export const HeadlabTransformerAblation: ElementClass<HeadlabTransformerAblation>;
export const HeadlabTransformerAttention: ElementClass<HeadlabTransformerAttention>;
export const HeadlabTransformerAttribution: ElementClass<HeadlabTransformerAttribution>;
export const HeadlabTransformerCircuits: ElementClass<HeadlabTransformerCircuits>;
export const HeadlabTransformerComposition: ElementClass<HeadlabTransformerComposition>;
export const HeadlabTransformerModel: ElementClass<HeadlabTransformerModel>;
export const HeadlabTransformerPatching: ElementClass<HeadlabTransformerPatching>;
export const HeadlabTransformerTraining: ElementClass<HeadlabTransformerTraining>;
export const HeadlabValue: ElementClass<HeadlabValue>;
export const HeadlabValueSwap: ElementClass<HeadlabValueSwap>;

/** A number in markup: written as a number or as its text. */
type Num = number | string;
/** Per tag, the attributes it reads (values are strings in markup; numbers are accepted and stringified). */
export interface HeadlabJSXElements {
  'headlab-angle-dot': HeadlabBaseAttributes & {
    model?: string;
    matrix?: 'cosine' | 'dot';
  };
  'headlab-attention-bars': HeadlabBaseAttributes & {
    model?: string;
    digits?: string;
  };
  'headlab-attention-patch': HeadlabBaseAttributes & {
    model?: string;
    digits?: string;
    patches?: string;
  };
  'headlab-attribution-patching': HeadlabBaseAttributes & {
    model?: string;
    pairs?: string;
    'pairs-task'?: 'induction' | 'max-digit';
    count?: Num;
    'pairs-seed'?: Num;
    point?: Num;
  };
  'headlab-basis-rotation': HeadlabBaseAttributes & {
    angle?: Num;
    x?: string;
    'w-q'?: string;
    'w-k'?: string;
  };
  'headlab-choice-quiz': HeadlabBaseAttributes;
  'headlab-circuit-faithfulness': HeadlabBaseAttributes & {
    model?: string;
    circuit?: string;
    edges?: string;
    ablation?: 'corrupted' | 'mean';
    pairs?: string;
    'pairs-task'?: 'induction' | 'max-digit';
    count?: Num;
    'pairs-seed'?: Num;
  };
  'headlab-feature-recovery': HeadlabBaseAttributes & {
    seed?: Num;
    steps?: Num;
    batch?: Num;
    'learning-rate'?: Num;
    'request-scale'?: Num;
    'eval-size'?: Num;
    pace?: 'watch' | 'fast';
    autostart?: boolean | '';
  };
  'headlab-head-ablation': HeadlabBaseAttributes & {
    model?: string;
    ablated?: string;
  };
  'headlab-head-contributions': HeadlabBaseAttributes & {
    model?: string;
    digits?: string;
    mode?: 'outputs' | 'corrections';
    layout?: 'origin' | 'chained';
  };
  'headlab-head-svd': HeadlabBaseAttributes & {
    model?: string;
    layer?: Num;
    head?: Num;
  };
  'headlab-interventions': HeadlabBaseAttributes & {
    source?: string;
    intervention?: 'erase-request' | 'erase-payload' | 'shift';
    feature?: Num;
    shift?: Num;
  };
  'headlab-logit-lens': HeadlabBaseAttributes & {
    model?: string;
    prompt?: string;
    position?: Num;
  };
  'headlab-max-digit-mechanism': HeadlabBaseAttributes & {
    model?: string;
    digits?: string;
  };
  'headlab-max-digit-model': HeadlabBaseAttributes & {
    src?: string;
    seed?: Num;
    steps?: Num;
    'unit-norm-unembedding'?: boolean | '';
    loading?: 'lazy' | 'eager';
    timeout?: Num;
    'no-training'?: boolean | '';
  };
  'headlab-path-patching': HeadlabBaseAttributes & {
    model?: string;
    input?: 'q' | 'k' | 'v';
    sender?: string;
    receiver?: string;
    pairs?: string;
    'pairs-task'?: 'induction' | 'max-digit';
    count?: Num;
    'pairs-seed'?: Num;
  };
  'headlab-projection-ablation': HeadlabBaseAttributes & {
    'w-q'?: string;
    'w-k'?: string;
    'w-v'?: string;
    query?: Num;
  };
  'headlab-qk-attribution': HeadlabBaseAttributes & {
    model?: string;
    prompt?: string;
    layer?: Num;
    head?: Num;
    position?: Num;
    key?: Num;
    attention?: string;
  };
  'headlab-query-key-canvas': HeadlabBaseAttributes & {
    'w-q'?: string;
    'w-k'?: string;
    'w-v'?: string;
    scale?: Num;
    basis?: 'none' | 'rotation' | 'invertible';
    angle?: Num;
    a?: string;
  };
  'headlab-score-ramps': HeadlabBaseAttributes & {
    model?: string;
    maximum?: Num;
    'runner-up'?: Num;
  };
  'headlab-seed-grid': HeadlabBaseAttributes & {
    src?: string;
    from?: Num;
    to?: Num;
    steps?: Num;
    workers?: Num;
  };
  'headlab-subspace-accuracy': HeadlabBaseAttributes & {
    model?: string;
    k?: Num;
    basis?: 'w_o' | 'w_u';
  };
  'headlab-training-replay': HeadlabBaseAttributes & {
    seed?: Num;
    steps?: Num;
    'learning-rate'?: Num;
    'request-scale'?: Num;
    'learned-keys'?: 'true' | 'false';
    keys?: string;
    snapshot?: Num;
  };
  'headlab-transformer-ablation': HeadlabBaseAttributes & {
    model?: string;
    prompt?: string;
    mode?: 'zero' | 'mean';
    heads?: string;
    reference?: string;
  };
  'headlab-transformer-attention': HeadlabBaseAttributes & {
    model?: string;
    prompt?: string;
    position?: Num;
    cell?: string;
  };
  'headlab-transformer-attribution': HeadlabBaseAttributes & {
    model?: string;
    prompt?: string;
    position?: Num;
    token?: Num;
  };
  'headlab-transformer-circuits': HeadlabBaseAttributes & {
    model?: string;
    layer?: Num;
    head?: Num;
    circuit?: 'qk' | 'ov';
  };
  'headlab-transformer-composition': HeadlabBaseAttributes & {
    model?: string;
    kind?: 'all' | 'q' | 'k' | 'v';
    head?: string;
    seed?: Num;
  };
  'headlab-transformer-model': HeadlabBaseAttributes & {
    src?: string;
    config?: string;
    tokenizer?: string;
    timeout?: Num;
    label?: string;
  };
  'headlab-transformer-patching': HeadlabBaseAttributes & {
    model?: string;
    prompt?: string;
    corrupted?: string;
    answer?: Num;
    wrong?: Num;
    pairs?: string;
    'pairs-task'?: 'induction' | 'max-digit';
    count?: Num;
    'pairs-seed'?: Num;
  };
  'headlab-transformer-training': HeadlabBaseAttributes & {
    model?: string;
    seed?: Num;
    steps?: Num;
    history?: string;
  };
  'headlab-value': HeadlabBaseAttributes & {
    source?: string;
    name?: string;
    format?: 'percent' | 'count' | 'number' | 'sci';
    digits?: Num;
  };
  'headlab-value-swap': HeadlabBaseAttributes & {
    weights?: string;
    values?: string;
    records?: string;
    'column-a'?: Num;
    'column-b'?: Num;
  };
}
// ---------- end of the generated declarations ----------

declare global {
  interface HTMLElementTagNameMap extends HeadlabElementTagNameMap {}
  // React 17+ / Preact (classic and automatic runtimes) and Astro's JSX read JSX.IntrinsicElements.
  namespace JSX {
    interface IntrinsicElements extends HeadlabJSXElements {}
  }
  // Astro components type their markup through astroHTML.JSX.
  namespace astroHTML.JSX {
    interface IntrinsicElements extends HeadlabJSXElements {}
  }
}
