// Public API of the `headlab` package (dist/headlab.js), written by hand.
// Importing the package registers every headlab-* custom element; these declarations
// describe the elements (attributes, properties, events, state shapes) and the few
// functions the bundle exports. Field names are the articles' terms; indices are
// 1-based where a reader sees them (query 1, column 2) and say so.
// Embedding guide: docs/embedding.md (shipped in the package).

// ---------- the core ----------

/** A dense row-major matrix: entry (i, j) is data[i * cols + j]. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float64Array;
}

/** Thrown for every error the core reports (its message names the argument). */
export class HeadlabError extends Error {
  name: 'HeadlabError';
}

/** The page's single WASM core (loaded once, .wasm found next to the bundle). See web/headlab-core.d.ts in the repository for every function. */
export function getCore(): Promise<HeadlabCoreApi>;

export interface HeadlabCoreApi {
  version(): string;
  attention(input: {
    x: Matrix; w_q: Matrix; w_k: Matrix; w_v: Matrix; causal?: boolean; weights_override?: Matrix | null;
  }): { q: Matrix; k: Matrix; v: Matrix; dot_products: Matrix; scores: Matrix; weights: Matrix; reading: Matrix };
  swapProjectionCoordinates(w: Matrix, a: number, b: number): Matrix;
  rotateQueryKey(q: Matrix, k: Matrix, rotation: Matrix): { q: Matrix; k: Matrix };
  planeRotation(d: number, a: number, b: number, angle: number): Matrix;
  /** Memory of the WASM module, for leak checks: heap bytes in use, linear memory size, live embind handles. */
  memoryDiagnostics(): { heap_bytes_in_use: number; memory_bytes: number; live_handles: number };
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
  run<T = unknown>(kind: string, params: unknown, onProgress?: (detail: Record<string, unknown>) => void): {
    promise: Promise<{ value: T; stopped: boolean }>;
    stop(): void;
  };
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
 * Events: `change` (bubbling, composed) with `detail` = the element's state.
 * A bad attribute, bad content or a failed core load shows a message inside the element (role="alert").
 */
export interface HeadlabElementBase<State> extends HTMLElement {
  /** The state, as carried by the `change` event. */
  readonly state: State;
  /** Completed renders (diagnostics). */
  readonly renderCount: number;
  /** The text alternative of what the element shows now (also in the shadow root for screen readers, and the <desc> of exported SVGs). */
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
  addEventListener<K extends keyof HTMLElementEventMap>(type: K, listener: (this: this, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: 'change', listener: (ev: CustomEvent<State>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

// ---------- <headlab-projection-ablation> ----------

export interface ProjectionAblationState {
  w_q: number[][]; w_k: number[][]; w_v: number[][];
  /** 1-based query row. */
  query: number;
  /** q_query · k_j, j = 1, 2. */
  dot_products: number[];
  weights: number[];
  values: number[][];
  reading: number[];
}
/** Attributes: w-q, w-k, w-v (2 × 2 JSON rows, default identity), query (1 or 2). Shared: all four. */
export interface HeadlabProjectionAblation extends HeadlabElementBase<ProjectionAblationState> {
  wQ: number[][]; wK: number[][]; wV: number[][]; query: number;
}

// ---------- <headlab-value-swap> ----------

export interface ValueSwapState {
  records: string[];
  weights: number[];
  values: number[][];
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
export interface HeadlabValueSwap extends HeadlabElementBase<ValueSwapState> {
  columnA: number; columnB: number;
  data(): { records: string[]; weights: number[]; values: number[][] };
}

// ---------- <headlab-basis-rotation> ----------

export interface BasisRotationState {
  angle_degrees: number;
  q: number[][]; k: number[][]; q_rotated: number[][]; k_rotated: number[][];
  scores: number[][]; scores_rotated: number[][];
  max_score_difference: number;
}
/** Attributes: angle (degrees in [−180, 180], default 30), x, w-q, w-k (JSON rows). Shared: angle. */
export interface HeadlabBasisRotation extends HeadlabElementBase<BasisRotationState> {
  angle: number;
}

// ---------- <headlab-choice-quiz> ----------

export interface ChoiceQuizState {
  selected: number | null;
  result: 'correct' | 'incorrect' | null;
  hint_shown: boolean;
  solution_shown: boolean;
}
/** Content: slot="question", ≥ 2 slot="choice" (one data-correct), optional slot="hint", "solution", "title". Shared: selected, checked, hint, solution. */
export type HeadlabChoiceQuiz = HeadlabElementBase<ChoiceQuizState>;

// ---------- <headlab-feature-recovery> ----------

export type TrainingStatus = 'idle' | 'training' | 'done' | 'stopped' | 'failed';
export interface FeatureRecoveryWidgetSettings {
  eval_size: number; seed: number; steps: number; batch: number; learning_rate: number; request_scale: number;
}
export interface FeatureRecoveryState {
  settings: FeatureRecoveryWidgetSettings;
  status: TrainingStatus;
  steps_done: number;
  loss: number | null;
  /** results.json of the last run (docs/feature-recovery-results.md), or null. */
  results: object | null;
}
/**
 * Attributes: seed, steps, batch, learning-rate, request-scale, eval-size, pace ("watch" | "fast";
 * default "watch", "fast" under prefers-reduced-motion), autostart. Shared: all but autostart.
 */
export interface HeadlabFeatureRecovery extends HeadlabElementBase<FeatureRecoveryState> {
  seed: number; steps: number; batch: number; learningRate: number; requestScale: number; evalSize: number;
  pace: 'watch' | 'fast'; autostart: boolean;
  readonly results: object | null;
  readonly trainingStatus: TrainingStatus;
  train(): void;
  stop(): void;
  resultsJson(): string;
}

// ---------- <headlab-interventions> ----------

export interface InterventionsState {
  intervention: 'erase-request' | 'erase-payload' | 'shift';
  feature: number;
  shift: number;
  seed: number | null;
  clean_mse: number | null;
  mse: number | null;
}
/** Attributes: source (id of a headlab-feature-recovery), intervention, feature (1–3), shift. Shared: intervention, feature, shift. */
export interface HeadlabInterventions extends HeadlabElementBase<InterventionsState> {
  intervention: InterventionsState['intervention']; feature: number; shift: number;
}

declare global {
  interface HTMLElementTagNameMap {
    'headlab-projection-ablation': HeadlabProjectionAblation;
    'headlab-value-swap': HeadlabValueSwap;
    'headlab-basis-rotation': HeadlabBasisRotation;
    'headlab-choice-quiz': HeadlabChoiceQuiz;
    'headlab-feature-recovery': HeadlabFeatureRecovery;
    'headlab-interventions': HeadlabInterventions;
  }
}
