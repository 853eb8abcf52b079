// The model every max-digit widget on a page reads: one weights file fetched once, its
// analysis (analysis.json layout, computed by the core), and its replacement when the page
// retrains (<headlab-max-digit-model>). Sources are keyed by the id of their
// <headlab-max-digit-model> element; widgets without a `model` attribute share the implicit
// source '' holding the shipped seed-0 weights. A source is an EventTarget: `change` fires
// when its status or its model changes.
import type { MaxDigitWeights } from '../../web/headlab-core.js';
import { WorkerJobs } from '../../web/worker-client.js';

/** The fields of analysis.json the widgets read (docs/max-digit-analysis.md). */
export interface MaxDigitAccuracyRow {
  accuracy: number;
  correct: number;
  total: number;
  accuracy_by_max: number[];
}

export interface MaxDigitAnalysisFile {
  format_version: number;
  unit_norm_unembedding: boolean;
  evaluation: { lists: number; lists_by_max: number[] };
  accuracy: number;
  accuracy_by_max: number[];
  residual_free_accuracy: number;
  residual_free_accuracy_by_max: number[];
  residual_only_accuracy: number;
  head_ablation: (MaxDigitAccuracyRow & { heads: number[] })[];
  subspace_accuracy: { k: number[]; w_o: number[]; w_u: number[] };
  variance_explained: { w_o: number[]; w_u: number[] };
  cosine_top3: number[][];
  /** 4 × 14 */
  scores: number[][];
  /** 4 × (10 × 14) */
  attention_by_max: number[][][];
  recruited_heads: number[][];
  patching: {
    digits: number[];
    position: number;
    original_answer: number;
    original_logits: number[];
    single_head: { head: number; answer: number; logits: number[] }[];
    all_heads: { answer: number; logits: number[] };
  };
  angle_vs_dot: {
    mean_output: number[][];
    cosine: number[][];
    dot: number[][];
    best_by_cosine: number[];
    best_by_dot: number[];
  };
  mechanism: MaxDigitMechanism;
  claims: MaxDigitClaims;
}

/** analysis.json "mechanism" (core/max_digit_analysis.hpp, struct Mechanism). */
export interface MaxDigitMechanism {
  score_slope: number[];
  score_monotone: boolean[];
  marker_gap: number[];
  embedding_norm: number[];
  unembedding_norm: number[];
  default_logits: number[];
  default_answer: number;
  default_answer_residual_free: number;
  one_hot_answer: number[];
  recruited_one_hot_answer: number[];
}

/** analysis.json "claims" and each row of `headlab max-digit seeds` (struct SeedClaims). */
export interface MaxDigitClaims {
  accuracy: number;
  single_head_accuracy: number[];
  min_single_head_accuracy: number;
  single_heads_perfect: number;
  min_one_ablated_accuracy: number;
  directions_w_o: number;
  directions_w_u: number;
  angle_dot_agree: number;
  dot_correct: number;
  single_flips: number[];
  pair_flips: number[][];
  all_heads_answer: number;
  one_hot_exceptions: number[];
  default_answer: number;
  recruited_cells: number;
  scores_monotone: boolean;
  markers_below_digits: boolean;
}

export interface MaxDigitModel {
  weights: MaxDigitWeights;
  analysis: MaxDigitAnalysisFile;
  /** Where the weights come from, for captions ("the shipped weights (seed 0)", "seed 3, trained in this page"). */
  label: string;
  /** Training seed when known. */
  seed: number | null;
  /** Increases with every replacement (widgets key their caches on it). */
  version: number;
}

export type ModelStatus = 'idle' | 'loading' | 'ready' | 'failed';

/**
 * The shipped seed-0 weights, in the data/ folder beside the bundle's chunks (dist/data/ in
 * the npm package, headlab/data/ in the site). Written literally so that Vite and Astro
 * copy the file when they bundle the package again.
 */
export function defaultWeightsUrl(): string {
  return new URL('./data/max-digit-seed0.json', import.meta.url).href;
}

let versions = 0;

export class MaxDigitModelSource extends EventTarget {
  status: ModelStatus = 'idle';
  failure = '';
  model: MaxDigitModel | null = null;
  /** The model as first loaded (what "back to the shipped weights" restores). */
  loaded: MaxDigitModel | null = null;
  private url = '';
  private loading: Promise<void> | null = null;

  /**
   * Fetches the weights at `url` (absolute); the worker checks and analyses them (task
   * "max-digit-load": the analysis evaluates 111,110 lists, far more than a frame, so it stays
   * off the page's main thread). A second call with the same URL does nothing.
   */
  load(url: string): Promise<void> {
    if (this.loading && this.url === url) return this.loading;
    this.url = url;
    this.status = 'loading';
    this.failure = '';
    this.notify();
    const attempt = (async () => {
      let text: string;
      try {
        const response = await fetch(url);
        if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
        text = await response.text();
      } catch (err) {
        throw new Error(`the weights file ${shortUrl(url)} could not be fetched (${(err as Error).message})`);
      }
      type Loaded = { weights: MaxDigitWeights; analysis: MaxDigitAnalysisFile; seed: number | null };
      const jobs = new WorkerJobs();
      try {
        return await new Promise<Loaded>((resolve, reject) => {
          jobs.start<Loaded>('max-digit-load', { text }, { done: ({ value }) => resolve(value), failed: reject });
        });
      } catch (err) {
        throw new Error(`the weights file ${shortUrl(url)} ${(err as Error).message}`);
      } finally {
        jobs.dispose();
      }
    })();
    this.loading = attempt.then(({ weights, analysis, seed }) => {
      if (this.url !== url) return;
      const name = url.split('/').pop() ?? url;
      this.replace(weights, analysis, `the shipped weights ${name}${seed === null ? '' : ` (seed ${seed})`}`, seed);
      this.loaded = this.model;
    }, (err: Error) => {
      if (this.url !== url) return;
      this.status = 'failed';
      this.failure = err.message;
      this.notify();
    });
    return this.loading;
  }

  /** Replaces the model (a retrained one) and tells every widget. */
  replace(weights: MaxDigitWeights, analysis: MaxDigitAnalysisFile, label: string, seed: number | null): void {
    this.model = { weights, analysis, label, seed, version: ++versions };
    this.status = 'ready';
    this.failure = '';
    this.notify();
  }

  /** Back to the model as first loaded. */
  restore(): void {
    if (!this.loaded) return;
    this.model = { ...this.loaded, version: ++versions };
    this.notify();
  }

  private notify(): void {
    this.dispatchEvent(new Event('change'));
  }
}

const sources = new Map<string, MaxDigitModelSource>();

/** The page's source with this id ('' = the implicit shared one). */
export function modelSource(id: string): MaxDigitModelSource {
  let s = sources.get(id);
  if (!s) {
    s = new MaxDigitModelSource();
    sources.set(id, s);
  }
  return s;
}

function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.origin === location.origin ? u.pathname : url;
  } catch {
    return url;
  }
}
