// The model every max-digit widget on a page reads: one weights file fetched once, its
// analysis (analysis.json layout, computed by the core), and its replacement when the page
// retrains (<headlab-max-digit-model>). Sources are keyed by the id of their
// <headlab-max-digit-model> element; widgets without a `model` attribute share the implicit
// source '' holding the shipped seed-0 weights. A source is an EventTarget: `change` fires
// when its status or its model changes.
import type { MaxDigitCore, MaxDigitWeights } from '../../web/headlab-core.js';

import type { MaxDigitAnalysisFile } from '../../formats/max-digit-analysis.js';

// The file formats' types are written once, beside their C++ writer in formats/.
export type {
  MaxDigitAccuracyRow, MaxDigitAnalysisFile, MaxDigitClaims, MaxDigitMechanism, MaxDigitSeedsFile,
} from '../../formats/max-digit-analysis.js';

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

  /** Fetches and checks the weights at `url` (absolute) and analyses them; a second call with the same URL does nothing. */
  load(url: string, core: MaxDigitCore): Promise<void> {
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
      let weights: MaxDigitWeights;
      try {
        weights = core.maxDigitWeightsFromJson(text);
      } catch (err) {
        throw new Error(`the weights file ${shortUrl(url)} is not a max-digit weights file: ${(err as Error).message}`);
      }
      const analysis = core.maxDigitAnalyze(weights);
      const seed = trainingSeed(text);
      return { weights, analysis, seed };
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

/** training.seed of a weights file's text, or null (the field is informative and optional). */
function trainingSeed(text: string): number | null {
  try {
    const seed = (JSON.parse(text) as { training?: { seed?: unknown } }).training?.seed;
    return typeof seed === 'number' ? seed : null;
  } catch {
    return null;
  }
}
