// Public API of the `headlab` package (dist/headlab.js), written whole from the code by
// `node site/package-types.mjs`: edit the code, then run it (tests/unit/package-types.test.mjs fails
// until the file is current). Importing the package registers every headlab-* custom element; these
// declarations describe the elements (attributes, properties, events, state shapes) and the few
// functions the bundle exports. Field names are the articles' terms; indices are 1-based where a
// reader sees them (query 1, column 2) and say so.
// Embedding guide: docs/embedding.md (dist/docs/embedding.md in the package).

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

/** What every module has (web/module.js, web/bindings/module_bindings.cpp). */
export interface HeadlabModule {
  /** Semantic version of the core, e.g. "0.1.0". */
  version(): string;
  /** Memory of the WASM module now, for leak checks (tests assert these stay flat over many updates). */
  memoryDiagnostics(): MemoryDiagnostics;
}

/** A dense matrix, row-major: entry (i, j) is data[i * cols + j]. data.length === rows * cols. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float64Array;
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

/** What getCore() resolves to: the core's functions (HeadlabCore); a name it lacks reads as unknown. */
export type HeadlabCoreApi = HeadlabCore & { [name: string]: unknown };

/** The page's headlab_core instance (attention, projection edits); its .wasm is fetched from the bundle's own folder. */
export function getCore(): Promise<HeadlabCoreApi>;

/** Defines `tag` as `element` when running in a browser and the tag is still free. */
export function defineElement(tag: string, element: CustomElementConstructor): void;

/** Thrown for every error the core reports; message is the C++ message unchanged. */
export class HeadlabError extends Error {
  name: 'HeadlabError';
}

/** Builds a matrix from equal-length rows; throws TypeError naming `name` (default "matrix") otherwise. */
export function matrix(rows: number[][], name?: string): Matrix;

/** Rows as plain arrays. */
export function toRows(m: Matrix): number[][];

/** Entry (i, j), 0-based. */
export function at(m: Matrix, i: number, j: number): number;

/** Row i as a plain array. */
export function row(m: Matrix, i: number): number[];

/** The n × n identity. */
export function identity(n: number): Matrix;

export interface WorkerRun<T> {
  /** Resolves when the task ends: value is the task's result; stopped is true if stop() cut it short. Rejects with HeadlabError. */
  /** updatesAfterStop: progress messages the worker posted after it read the stop (0 when not stopped). */
  promise: Promise<{ value: T; stopped: boolean; updatesAfterStop: number }>;
  /** Asks the task to stop at its next chunk boundary (one progress update at most). */
  stop(): void;
}

/** One dedicated module worker (headlab-worker.js beside the bundle). Terminate it when the owner is removed. */
export class WorkerClient {
  constructor();
  run<T = unknown>(kind: string, params: unknown, onProgress?: (detail: Record<string, unknown>) => void): WorkerRun<T>;
  /** Why the worker is unusable (it failed to load or crashed), or null while it works. */
  readonly failure: string | null;
  /** Ends the worker; a run still in it rejects (its port closed, its listeners removed), and so does any later run. */
  terminate(): void;
}

/** What a figure needs of a loaded model. */
export interface FigureModel {
  /** Increases with every replacement (caches are keyed on it). */
  readonly version: number;
  /** Where the model comes from, for the note under the figure. */
  readonly label: string;
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
 * What a source's boundValue answers while it computes a new value after having had one (another
 * head, cell or prompt): <headlab-value> then shows "computing…" rather than the value before or
 * the author's text, which describe other inputs.
 */
export interface BoundComputing {
  computing: true;
}

/** A figure a widget exports as SVG and PNG (and draws from the same Scene on the page). */
export interface WidgetFigure {
  /** File-name part and `data-export` key, e.g. "loss" → "<stem>-loss.svg". */
  name: string;
  /** What the figure is, for button labels, e.g. "Loss curve". */
  label: string;
  /** The figure as shown now. */
  scene(): unknown;
}

export type ExportFormat = 'svg' | 'png' | 'json';

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
  /** Number of completed render() calls (diagnostics and tests). */
  readonly renderCount: number;
  /**
   * The widget's state, as carried by its `change` event; null while it cannot be computed (an
   * attribute, set by the page or by the URL hash, is invalid: `error` says why) or, for an element
   * whose state the WASM core computes, before the core has loaded (`error` null then: await
   * `updateComplete`). Never throws and logs nothing, before or after the first render: a page
   * reading it while the reader edits a link or the author an attribute gets null, not an exception
   * (docs/embedding.md, "Reading an element").
   */
  readonly state: State | null;
  /**
   * Why the widget shows no figure or no state now: the message its alert box shows (a bad
   * attribute, a model that could not be loaded) or, between an attribute change and the render
   * that will show it, why `state` is null; null when there is nothing wrong. Never throws.
   */
  readonly error: string | null;
  /**
   * Whether a computation the widget will draw is under way (an analysis in its worker, a new model
   * waiting for its render): tests, benchmarks and the snapshot pass wait for false. None by
   * default; an override never throws (an invalid attribute computes nothing: false).
   */
  readonly busy: boolean;
  /**
   * Resolves once the widget shows what its attributes and data ask for: it has rendered, no
   * render, snapshot swap or field check is scheduled (updatePending), no work is under way in its
   * worker (busy) and its data have arrived (settled: a figure's model has loaded) — or once it
   * shows an error instead. The value is true for a figure, false for an error (`error` says
   * why). Never rejects. Read again after a change (an attribute set, a model replaced) for a
   * promise of that change's render, as Lit's `updateComplete`. Before the element is connected
   * it waits for the connection; behind a prerendered snapshot, for the widget to go live.
   */
  readonly updateComplete: Promise<boolean>;
  /** The text alternative of what the widget shows now, as last rendered (empty before the first render). */
  readonly summary: string;
  /**
   * A number computed from the model on the page, for <headlab-value source="<id>" name="…">
   * in the prose: undefined while not ready or for an unknown name; { computing: true } while a
   * new value is computed after one was shown (the value then says "computing…"). Widgets that
   * own a model override this and emit `change` whenever the values may have changed.
   */
  boundValue(name: string): BoundValue | BoundComputing | undefined;
  /** The figures this widget exports as SVG and PNG (none by default). */
  figures(): WidgetFigure[];
  /** What "JSON" exports: the state by default (an invalid attribute makes the download fail with its message). */
  exportData(): unknown;
  /** The exported JSON text. */
  exportJson(): string;
  /** The figure `name` (default: the first) as a standalone SVG document, the summary as its <desc>. */
  exportSvg(name?: string): string;
  /** The figure `name` (default: the first) as a PNG (2 device pixels per unit). */
  exportPng(name?: string): Promise<Blob>;
  /** Offers a figure (svg/png) or the data (json) as a download; a failure is reported beside the buttons. */
  download(format: ExportFormat, name?: string): Promise<void>;
  /** The shareable state: the present attributes among `sharedAttributes`. Override for state kept outside attributes. */
  sharedState: Record<string, string>;
  /** Key of this element's entries in the URL hash: its id, else "<tag>-<n>" (n-th of its tag in the document). */
  readonly shareKey: string;
  /** Runs a scheduled render now rather than at the next frame (tests and benchmarks drive many updates this way). */
  renderNow(): void;
  addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: this, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: 'change', listener: (ev: CustomEvent<State>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/**
 * Common to the figures that read a model loaded once per page (the max-digit and transformer
 * figures): attribute `model` names the element that holds it.
 */
export interface ModelFigureBase<State> extends HeadlabElementBase<State> {
  /** The model now shown, or null while it loads. */
  readonly currentModel: FigureModel | null;
}

/**
 * Common to the max-digit figures. Each reads a max-digit model: the one of the
 * <headlab-max-digit-model> whose id its `model` attribute names, or (no `model`) the shipped
 * seed-0 weights from data/max-digit-seed0.json beside the package's modules. Heads are 0–3; digit
 * lists are 6 digits 0–9. Behind a prerendered snapshot a figure loads its module and weights on
 * the reader's first interaction (docs/embedding.md); its model element's loading="eager" loads
 * them with the page.
 */
export interface MaxDigitElementBase<State> extends ModelFigureBase<State> {}

export interface AngleDotState {
  matrix: 'cosine' | 'dot';
  /** Maxima whose closest digit by angle differs from the digit with the largest dot product. */
  disagreements: number[];
}

/** Angle against dot product between head outputs and unembeddings. Attributes: matrix ("cosine" | "dot"), model. Shared: matrix. */
export interface HeadlabAngleDot extends MaxDigitElementBase<AngleDotState>, HeadlabAngleDotProperties {}

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
  /** Every head back to its own attention. */
  reset(): void;
}

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

export interface ChoiceQuizState {
  /** 1-based selected choice, or null. */
  selected: number | null;
  /** Verdict of the last Check for the selection at that time, or null. */
  result: 'correct' | 'incorrect' | null;
  hint_shown: boolean;
  solution_shown: boolean;
}

/** Content: slot="question", ≥ 2 slot="choice" (one data-correct), optional slot="hint", "solution", "title". Shared: selected, checked, hint, solution. */
export interface HeadlabChoiceQuiz extends HeadlabElementBase<ChoiceQuizState> {}

export interface FeatureRecoveryWidgetSettings {
  /** Held-out examples (attribute eval-size, default the draft's 4096). */
  eval_size: number;
  seed: number;
  steps: number;
  batch: number;
  learning_rate: number;
  request_scale: number;
}

export type TrainingStatus = 'idle' | 'training' | 'done' | 'stopped' | 'failed';

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
  /** The last finished or stopped run as results.json (matrices as arrays of rows), or null. */
  readonly results: FeatureRecoveryResults | null;
  readonly trainingStatus: TrainingStatus;
  /** Starts a run with the current settings (stopping one in progress). */
  train(): void;
  /** Asks the running training to stop; it ends within one progress update. */
  stop(): void;
  /** results.json of the last run, as text. */
  resultsJson(): string;
}

export interface HeadAblationState {
  ablated: number[];
  accuracy: number;
}

/** Accuracy with heads ablated. Attributes: ablated (heads, e.g. "0 2"), model. Shared: ablated. */
export interface HeadlabHeadAblation extends MaxDigitElementBase<HeadAblationState>, HeadlabHeadAblationProperties {}

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

export interface MaxDigitMechanismState {
  digits: number[];
  answer: number;
}

/** The mechanism at a glance for one list: scores, softmax, what each head writes, the logits. Attributes: digits, model. Shared: digits. */
export interface HeadlabMaxDigitMechanism extends MaxDigitElementBase<MaxDigitMechanismState>, HeadlabMaxDigitMechanismProperties {}

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
  /**
   * Fetches the weights now: also before the reader's first interaction (behind a prerendered
   * snapshot the widgets wait for it, widgets/max-digit/loading.ts) and when loading="lazy" has
   * not seen the section yet.
   */
  load(): void;
  /** Trains a model from the `seed` attribute in the worker; every widget switches to it when the run ends. */
  train(): void;
  stop(): void;
  /** Back to the weights the page loaded. */
  useShipped(): void;
}

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

/**
 * Common to the transformer figures (docs/own-model.md, docs/own-model-widgets.md). Each reads the
 * model of a <headlab-transformer-model>: the one its `model` attribute names, or the one it is
 * nested in. Layers and heads are numbered from 0 (TransformerLens's numbering); prompts are token
 * names (when the config has token_names) or ids, separated by spaces or commas, at most n_ctx of
 * them; text when the model element has a tokenizer (encoded by it, the tokens shown under the
 * field). A bad file shows the core's message in the model element and in every figure reading it.
 */
export interface TransformerElementBase<State> extends ModelFigureBase<State> {
  /**
   * The state with the core's numbers behind the figure (patterns, attribution, patching, logits,
   * circuit); null while loading. Never throws.
   */
  readonly figureData: Record<string, unknown> | null;
}

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
  edges(): TransformerCircuitEdge[] | null;
}

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
  /** Trains the seeds from..to in the workers, `workers` at a time, in seed order. */
  train(): void;
  /** Asks every running seed to stop at its next chunk; the columns finished so far stay. */
  stop(): void;
}

export type MaxDigitBasis = 'w_o' | 'w_u';

export interface SubspaceAccuracyState {
  k: number;
  basis: MaxDigitBasis;
  accuracy: number;
}

/** Accuracy with each head's output projected on its top-k principal subspace. Attributes: k (1–8, default 3), basis ("w_o" | "w_u"), model. Shared: k, basis. */
export interface HeadlabSubspaceAccuracy extends MaxDigitElementBase<SubspaceAccuracyState>, HeadlabSubspaceAccuracyProperties {}

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
  /** The heads of the `heads` attribute as [layer, head] pairs (checked against the model's shape). */
  heads(): [number, number][];
  /** The `reference` attribute's sequences as token ids ([] when absent; see referenceOf). */
  reference(): number[][];
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

/** model.json: the config beside a model.safetensors file (docs/own-model.md, "Export from TransformerLens"). */
export interface TransformerConfigFile {
  /** Attention layers, integer in [1, 4]. */
  n_layers: number;
  /** Heads per layer, integer in [1, 64]. */
  n_heads: number;
  /** Residual stream width, integer in [1, 4096]. */
  d_model: number;
  /** Query/key/value width per head, integer in [1, 1024]. */
  d_head: number;
  /** Longest prompt (positions), integer in [1, 4096]. */
  n_ctx: number;
  /** Vocabulary size, integer in [1, 65536]. */
  d_vocab: number;
  /** TransformerLens normalization_type: "LN" (with weights), "LNPre" (weightless, after fold_ln),
   *  "RMS" (RMSNorm with a scale w), "RMSPre" (weightless RMSNorm) or "none". Default "none" when read; always written. */
  normalization: 'LN' | 'LNPre' | 'RMS' | 'RMSPre' | 'none';
  /** TransformerLens positional_embedding_type: "standard" (learned W_pos added to the residual stream),
   *  "shortformer" (W_pos added to the query and key inputs only), "rotary" (RoPE on q and k) or
   *  "none". Default "standard" when read; always written. */
  positional_embedding: 'standard' | 'shortformer' | 'rotary' | 'none';
  /** LayerNorm / RMSNorm ε (added to the variance or mean square), finite and > 0. Default 1e-5 when read; always written. */
  eps: number;
  /** Rotary only (required there, written there): rotated components of q and k, even, in [2, d_head]. */
  rotary_dim?: number;
  /** Rotary only: frequencies rotary_base^(−2k/rotary_dim), in [1, 1e12]. Default 10000. */
  rotary_base?: number;
  /** Rotary only: true pairs components (2k, 2k+1) (GPT-J), false pairs (k, k + rotary_dim/2) (GPT-NeoX). Default false. */
  rotary_adjacent_pairs?: boolean;
  /** Grouped key-value heads: a divisor of n_heads (the file then holds attn._W_K, _W_V, _b_K, _b_V); absent or 0: none. */
  n_key_value_heads?: number;
  /** Divisor of the attention scores, in [0.001, 1e6]; absent or 0: √d_head. */
  attn_scale?: number;
  /** Optional display names, exactly d_vocab strings of ≤ 64 bytes; prompts may then use them. */
  token_names?: string[];
}

/** A model as two files, as the training widget and `headlab model train` produce it. */
export interface TransformerModelFiles {
  /** model.json text. */
  config: string;
  /** model.safetensors bytes. */
  safetensors: Uint8Array;
}

/** `headlab model run`: one forward pass over a prompt. */
export interface TransformerRunFile {
  /** The prompt as token ids, T of them. */
  tokens: number[];
  /** The prompt's token names (only when the config has token_names). */
  token_names?: string[];
  /** T × V logits (nats); row p predicts the token after position p. */
  logits: number[][];
  /** [L][H] T × T attention patterns: row i = query position i, entries sum to 1, zero above the diagonal (causal). */
  patterns: number[][][][];
}

/** Direct logit attribution to the logit of `token` at `position`, final LayerNorm scale frozen (TransformerLens apply_ln_to_stack). */
export interface TransformerLogitAttribution {
  /** Contribution of W_E[token at position] (nats). */
  embed: number;
  /** Contribution of W_pos[position]; 0 without positional embedding. */
  pos_embed: number;
  /** L × H: each head's output at `position`. */
  heads: number[][];
  /** L values: each layer's b_O. */
  attention_bias: number[];
  /** ln_final.b · W_U[:, token] + b_U[token]. */
  constant: number;
  /** The model's logit; equals the sum of every term above up to rounding. */
  logit: number;
}

/** Q-, K- and V-composition, ‖W_OV^e M^ℓ‖_F / (‖W_OV^e‖_F ‖M^ℓ‖_F), normalisation weights folded in. */
export interface TransformerComposition {
  /** L·H names "l.h", in row order. */
  heads: string[];
  /** (L·H) × (L·H), [later][earlier], in [0, 1]; 0 unless earlier's layer < later's. */
  q: number[][];
  k: number[][];
  v: number[][];
  /** The same score of random Gaussian matrices of the heads' shapes: mean and sample standard deviation over `samples` draws. */
  baseline: { mean: number; std: number; samples: number; seed: number };
}

/** The stream after the embedding (stage 0) and after each layer (stage l + 1) read through the final normalisation (σ recomputed) and W_U. */
export interface TransformerLogitLens {
  /** k tokens per position. */
  top: number;
  /** T: the token tracked at each position (the next prompt token; at the last, the model's top prediction). */
  answers: number[];
  /** (L + 1) × T probabilities of the answer. */
  answer_probability: number[][];
  /** (L + 1) × T: 0 = the answer is the stage's top token. */
  answer_rank: number[][];
  /** [L + 1] T × k token ids, most probable first. */
  top_tokens: number[][][];
  /** [L + 1] T × k their probabilities. */
  top_probability: number[][][];
}

/** One token-space reading of the top singular directions: `top` tokens per direction, largest value first. */
export interface TransformerTokenReading {
  /** directions × top token ids. */
  tokens: number[][];
  /** directions × top values. */
  values: number[][];
}

/** Singular values of each head's OV and QK matrices, their top directions in token space, and the OV copying score. */
export interface TransformerHeadSvd {
  directions: number;
  top: number;
  /** [L][H] */
  heads: {
    /** d_head values, descending. */
    ov_singular_values: number[];
    qk_singular_values: number[];
    /** Σ max(Re λ, 0) / Σ |λ| over the eigenvalues of W_E W_OV W_U, in [0, 1]. */
    copying: number;
    /** d_head [re, im], largest |λ| first. */
    ov_eigenvalues: [number, number][];
    /** W_E u: tokens the head reads along each OV input direction. */
    ov_input: TransformerTokenReading;
    /** v W_U: logits each OV output direction raises. */
    ov_output: TransformerTokenReading;
    /** W_E u and W_E v of the QK directions. */
    qk_query: TransformerTokenReading;
    qk_key: TransformerTokenReading;
  }[][];
}

/** `headlab model analyze`: every analysis of one prompt (fields in words: docs/own-model.md, "The command line"). */
export interface TransformerAnalysisFile extends TransformerRunFile {
  /** DLA position, in [0, T). */
  position: number;
  /** DLA token, in [0, V). */
  token: number;
  direct_logit_attribution: TransformerLogitAttribution;
  /**
   * Each head ablated in turn on `sequences` repeated random sequences (seed `seed`); null when the
   * request asked for sequences 0 (no repeated sequences: a model too large for them).
   */
  ablation: {
    mode: 'zero' | 'mean';
    sequences: number;
    seed: number;
    /** Mean next-token loss (nats) on the repeated half without ablation. */
    clean_loss: number;
    /** L × H: the same loss with that head ablated. */
    loss: number[][];
  } | null;
  /** On the same kind of sequences: attention-mass scores in [0, 1] and the in-context loss (nats); null with sequences 0. */
  induction: {
    /** L × H mean attention from position p to p − 1 over the repeated half. */
    previous_token: number[][];
    /** L × H mean attention to the token after the previous occurrence of the current token. */
    induction: number[][];
    in_context_loss: number;
  } | null;
  /** Only when a corrupted prompt was given. */
  patching?: {
    answer: number;
    wrong: number;
    /** The corrupted prompt as token ids (same length T as the clean one). */
    corrupted: number[];
    /** logit[answer] − logit[wrong] at the last position (nats), clean and corrupted runs. */
    clean_logit_difference: number;
    corrupted_logit_difference: number;
    /** [L][H] T values: (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted) when head (l, h)'s output at position p
     *  is replaced by its corrupted value: 1 = the patch changed nothing, 0 = moved all the way to the corrupted run. */
    normalised: number[][][];
  };
  /** Only when asked for (d_vocab ≤ 512): direct-path token-space circuits of every head. */
  circuits?: {
    /** [L][H] V × V: query token × key token, W_E W_Q^h (W_E W_K^h)ᵀ, unscaled. */
    qk: number[][][][];
    /** [L][H] V × V: attended token × output logit, W_E W_V^h W_O^h W_U. */
    ov: number[][][][];
  };
  /** Only when asked for (`composition`): scores of every pair of heads in different layers (docs/own-model.md). */
  composition?: TransformerComposition;
  /** Only when asked for (`logit_lens`). */
  logit_lens?: TransformerLogitLens;
  /** Only when asked for (`head_svd`). */
  head_svd?: TransformerHeadSvd;
  /**
   * Only when asked for (`--qk-attribution L.H`): head (layer, head)'s scaled scores s_ij at query
   * i = `position`, split exactly over pairs (query-side source, key-side source) with the
   * normalisation's scale frozen at the forward pass's value (core/qk_attribution.hpp, docs/own-model.md).
   */
  qk_attribution?: {
    layer: number;
    head: number;
    /** The query position i (the analysis's position). */
    position: number;
    /** S names: "embed", "pos" (learned or shortformer positions), "L{l}H{h}" for every earlier head, "bias". */
    sources: string[];
    /** [i + 1][S][S]: parts[j][a][b] = query-side source a against key-side source b, for key j ≤ i. */
    parts: number[][][];
    /** [i + 1]: s_ij = q_i·k_j/attn_scale as the forward pass computes it; Σ_{a,b} parts[j][a][b] = scores[j] to rounding. */
    scores: number[];
  };
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
  readonly modelConfig: TransformerConfigFile | null;
  /**
   * Uses a model given as its two files (a model trained in the page); every widget reading this
   * element switches to it. Resolves once the core has read it (a bad model: status 'failed').
   */
  useModel(files: TransformerModelFiles & { label?: string }, label?: string): Promise<void>;
  /**
   * Opens a model from files the reader dropped or picked (File objects): one weights file
   * (.safetensors, .pt, .pth), one config and optionally one tokenizer.json (told apart from the
   * config by its content: a Hugging Face tokenizer has a "model" object). Resolves once read or
   * refused; a refusal (which files are missing or extra, a size, the reader's message) is shown in
   * the element, naming the files, and the model shown stays.
   */
  openFiles(files: File[]): Promise<void>;
  /** Back to the model read from `src` and `config`. */
  useLoaded(): Promise<void>;
  /**
   * `headlab model analyze` of the model shown, on the figures' default prompt (a repeated block of
   * tokens, or of words with a tokenizer: modelDefaultPrompt in widgets/transformer/widget.ts) with the CLI's defaults (mean ablation and the scores on 32
   * repeated random sequences, seed 0); computed once per model in the worker (task
   * 'transformer-analyze': about 130 ms for the shipped induction model, too long for the main
   * thread). Null while loading or computing; the element renders (and so every
   * <headlab-value> bound to it re-reads) when it arrives.
   */
  readonly analysis: TransformerAnalysis | null;
  /**
   * The warning the panel shows for config token_names a reader cannot type unambiguously in a prompt
   * (a name given to several tokens, a name with a space or comma, an empty one, digits other than its
   * own id); '' when there is none or the model has a tokenizer.
   */
  readonly tokenNamesWarning: string;
}

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

/** A recorded run, as read from a history file. */
export interface RecordedRun {
  seed: number;
  steps: number;
  trace: TrainingTracePoint[];
}

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

/** A trained (or training) model as its two files: what `headlab model train` writes. */
export interface TransformerTrainingResult {
  /** model.json text (TransformerConfigFile). */
  config: string;
  /** model.safetensors bytes (F64, TransformerLens names, attn.mask / attn.IGNORE buffers included). */
  safetensors: Uint8Array;
  /** Progress when the result was taken (steps_taken < steps_total after stop()). */
  progress: TrainingProgress;
}

/** Worker task 'transformer-train': the result (also on a stop, with the steps taken so far). */
export type TransformerTrainTaskResult = TransformerTrainingResult;

/**
 * Trains the induction task's default transformer in the worker (task transformer-train), plotting the loss, the
 * in-context loss and every head's previous-token and induction scores every 50 steps, the phase change marked;
 * hands the result to the <headlab-transformer-model> named by `model` (its useModel()).
 * Attributes: model (element id), seed (integer in [0, 2^53 − 1], default 0), steps (integer in [50, 20000], default 1800, the core's default run), history (the URL of the JSON `headlab model train --history-out` wrote: the charts show that recorded run before any run of the reader's). Shared: seed, steps.
 */
export interface HeadlabTransformerTraining extends HeadlabElementBase<TransformerTrainingState>, HeadlabTransformerTrainingProperties {
  /** The recorded run read from `history` (null before it has arrived, without the attribute, or on a bad file). */
  readonly recordedRun: RecordedRun | null;
  readonly trainingStatus: TransformerTrainingStatus;
  /** The progress messages of the current or last run (step 0 first). */
  readonly trainingTrace: readonly TrainingTracePoint[];
  /** The files of the last finished or stopped run (model.json text, safetensors bytes), or null. */
  readonly result: TransformerTrainTaskResult | null;
  /** Starts a run with the current seed and steps (stopping one in progress). */
  train(): void;
  /** Asks the run to stop at the next chunk (≤ 50 steps); the weights so far still go to the model. */
  stop(): void;
}

/**
 * A number in the prose computed by the model on the page: reads `boundValue(name)` of the element with id
 * `source`, again on its `change` event and after each of its renders, and prints it in words (an accuracy is
 * 100% only when every item is right). Shows its own text until the source answers. Attributes: source, name,
 * format ("percent" | "count" | "number" | "sci"; default from the value's kind), digits (decimals of a number or
 * percentage, 0–6, so the value keeps the precision of the fallback text). Inline, no shadow root.
 */
export interface HeadlabValue extends HTMLElement, HeadlabValueProperties {
  /** The value as last shown, or undefined while the source has none. */
  readonly value: BoundValue | undefined;
  /**
   * Resolves once the number is shown (true) or the source is missing (false: the fallback text
   * stays); while the source has no value yet (data-state="pending" or "computing"), it waits. Never rejects.
   */
  readonly updateComplete: Promise<boolean>;
  /** Reads the value from the source again and shows it. */
  update(): void;
}

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
  /** The records, weights and values in use, validated (throws WidgetInputError naming the problem); parsed once per change of the data. */
  data(): ValueSwapData;
}

/** The package's earlier name of CompositionEdge. */
export type TransformerCompositionEdge = CompositionEdge;

/** The package's earlier name of TrainingTracePoint. */
export type TransformerTrainingTracePoint = TrainingTracePoint;

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
  /**
   * Train once more, at the pace set, when the figure first scrolls into view (it opens on its settings’
   * finished run). Attribute `autostart`.
   */
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
