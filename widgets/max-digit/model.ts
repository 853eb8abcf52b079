// The model every max-digit widget on a page reads: one weights file fetched once, its
// analysis (analysis.json layout, computed by the core), and its replacement when the page
// retrains (<headlab-max-digit-model>). Sources are keyed by the id of their
// <headlab-max-digit-model> element; widgets without a `model` attribute share the implicit
// source '' holding the shipped seed-0 weights. A source is an EventTarget: `change` fires
// when its status or its model changes.
import type { MaxDigitCore, MaxDigitModel as HeldWeights, MaxDigitWeights } from '../../web/headlab-core.js';
import { WorkerJobs } from '../../web/worker-client.js';
import { BodyTooLarge, download, shortUrl } from '../base/download.js';
import { formatCount } from '../chart/format.js';

import type { MaxDigitAnalysisFile } from '../../formats/max-digit-analysis.js';

// The file formats' types are written once, beside their C++ writer in formats/.
export type {
  MaxDigitAccuracyRow,
  MaxDigitAnalysisFile,
  MaxDigitClaims,
  MaxDigitMechanism,
  MaxDigitSeedsFile,
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

/** How long a weights download may take before it is abandoned with a message (the `timeout` attribute's default, seconds). */
export const DEFAULT_WEIGHTS_TIMEOUT_S = 30;
/**
 * Largest weights file a page reads (docs/limits.md): the C++ reader's own limit
 * (formats/max_digit_weights.hpp kMaxDigitWeightsMaxBytes, 16 MiB; the shipped file is ~0.4 MB).
 * The body is read in chunks and abandoned past it, so a 500 MB file cannot exhaust the tab.
 */
export const MAX_WEIGHTS_BYTES = 16 * 1024 * 1024;

let versions = 0;

/** The worker's own message when it could not start, unless it is only the generic one (web/worker-client.js). */
function workerReason(failure: string): string {
  return /^the headlab worker failed to (start|load)$/.test(failure) ? '' : ` (${failure})`;
}

export class MaxDigitModelSource extends EventTarget {
  status: ModelStatus = 'idle';
  failure = '';
  /**
   * Whether the failure may pass by itself (the download or the worker failed: offline, a
   * blocked script), so retry() loads again; false when the file itself was refused.
   */
  retryable = false;
  private timeoutS = DEFAULT_WEIGHTS_TIMEOUT_S;
  model: MaxDigitModel | null = null;
  /** The model as first loaded (what "back to the shipped weights" restores). */
  loaded: MaxDigitModel | null = null;
  private url = '';
  private loading: Promise<void> | null = null;
  /** The weights each figure computes with, held in the page's max-digit module (held()), by the weights they hold. */
  private readonly heldWeights = new Map<MaxDigitWeights, HeldWeights>();

  /**
   * `model`'s weights in `core`'s heap, copied in once for every figure of the source: a figure's
   * analyses take this handle, so an update copies only its own inputs into WASM (digits, heads),
   * never the 18,176 weights. Made on first use; the handles of weights no longer shown nor kept to
   * restore are freed when the model is replaced.
   */
  held(core: MaxDigitCore, model: MaxDigitModel): HeldWeights {
    let h = this.heldWeights.get(model.weights);
    if (!h || h.disposed) {
      h = core.maxDigitModel(model.weights);
      this.heldWeights.set(model.weights, h);
    }
    return h;
  }

  /** Frees the held weights of every model but the one shown and the one to restore. */
  private releaseHeld(): void {
    for (const [weights, h] of this.heldWeights) {
      if (weights === this.model?.weights || weights === this.loaded?.weights) continue;
      h.dispose();
      this.heldWeights.delete(weights);
    }
  }

  /**
   * Fetches the weights at `url` (absolute); the worker checks and analyses them (task
   * "max-digit-load": the analysis evaluates 111,110 lists, far more than a frame, so it stays
   * off the page's main thread). A second call with the same URL does nothing, unless the first
   * failed in a way that may pass (retryable: the download or the worker), when it loads again. A
   * download that has not finished after `timeoutS` seconds is abandoned and the source fails
   * with a message saying so; a body beyond MAX_WEIGHTS_BYTES too (widgets/base/download.ts).
   */
  load(url: string, timeoutS = DEFAULT_WEIGHTS_TIMEOUT_S): Promise<void> {
    if (this.loading && this.url === url && !(this.status === 'failed' && this.retryable)) return this.loading;
    this.url = url;
    this.timeoutS = timeoutS;
    this.status = 'loading';
    this.failure = '';
    this.retryable = false;
    this.notify();
    // Set when the failure is one that may pass (the download, or the worker that reads the file).
    let transient = true;
    const attempt = (async () => {
      let text: string;
      try {
        text = new TextDecoder().decode(await download(url, { maxBytes: MAX_WEIGHTS_BYTES, timeoutS }));
      } catch (err) {
        // A missing file (HTTP 4xx) or one over the size limit stays so; a server error, a
        // timeout or no network may pass.
        transient = !(err instanceof BodyTooLarge) && !/^HTTP 4/.test((err as Error).message);
        const reason = !(err instanceof BodyTooLarge)
          ? (err as Error).message
          : err.declared !== null
            ? `it is ${formatCount(err.declared)} bytes; the limit is ${formatCount(MAX_WEIGHTS_BYTES)}`
            : `it is larger than ${formatCount(MAX_WEIGHTS_BYTES)} bytes, the limit`;
        throw new Error(
          `the weights file ${shortUrl(url)} could not be fetched (${reason})${transient ? '; it is tried again at your next click or key press' : ''}`,
          { cause: err },
        );
      }
      type Loaded = { weights: MaxDigitWeights; analysis: MaxDigitAnalysisFile; seed: number | null };
      const jobs = new WorkerJobs();
      try {
        return await new Promise<Loaded>((resolve, reject) => {
          jobs.start<Loaded>('max-digit-load', { text }, { done: ({ value }) => resolve(value), failed: reject });
        });
      } catch (err) {
        // The worker did not start (its script blocked or unreachable, a crash): nothing is wrong
        // with the file, so the next interaction tries again (retry()).
        const failure = (jobs.client as { failure: string | null } | null)?.failure ?? null;
        if (failure !== null) {
          throw new Error(
            `the background worker that reads the weights (headlab-worker.js) could not be started${workerReason(failure)}; it is tried again at your next click or key press`,
            { cause: err },
          );
        }
        transient = false;
        throw new Error(`the weights file ${shortUrl(url)} ${(err as Error).message}`, { cause: err });
      } finally {
        jobs.dispose();
      }
    })();
    this.loading = attempt.then(
      ({ weights, analysis, seed }) => {
        if (this.url !== url) return;
        // Not the file's name: a build tool hashes it (max-digit-seed0-3f9a1c.json) and a path means
        // nothing to a reader; the author's own file is named by its seed as well.
        this.replace(weights, analysis, seed === null ? "the page's weights" : `the shipped weights (seed ${seed})`, seed);
        this.loaded = this.model;
      },
      (err: Error) => {
        if (this.url !== url) return;
        this.status = 'failed';
        this.failure = err.message;
        this.retryable = transient;
        this.notify();
      },
    );
    return this.loading;
  }

  /**
   * Loads again after a failure that may have passed (retryable: the download or the worker
   * failed), e.g. at the reader's next interaction; nothing otherwise.
   */
  retry(): void {
    if (this.status === 'failed' && this.retryable) void this.load(this.url, this.timeoutS);
  }

  /** Replaces the model (a retrained one) and tells every widget. */
  replace(weights: MaxDigitWeights, analysis: MaxDigitAnalysisFile, label: string, seed: number | null): void {
    this.model = { weights, analysis, label, seed, version: ++versions };
    this.status = 'ready';
    this.failure = '';
    this.releaseHeld();
    this.notify();
  }

  /** Back to the model as first loaded. */
  restore(): void {
    if (!this.loaded) return;
    this.model = { ...this.loaded, version: ++versions };
    this.releaseHeld();
    this.notify();
  }

  private notify(): void {
    this.dispatchEvent(new Event('change'));
  }
}

const sources = new Map<string, MaxDigitModelSource>();

/**
 * Makes `source` load again (retry()) at the reader's next click or key press anywhere on the
 * page after a failure that may pass, through `listen` (an element's listeners, removed when it
 * leaves the page): the model element and every figure reading a source do this, as the training
 * widgets start a new worker at the next press of their button.
 */
export function retryOnInteraction(
  listen: (target: EventTarget, type: string, handler: () => void) => void,
  source: () => MaxDigitModelSource | null,
): void {
  for (const type of ['pointerdown', 'keydown']) listen(window, type, () => source()?.retry());
}

/** The page's source with this id ('' = the implicit shared one). */
export function modelSource(id: string): MaxDigitModelSource {
  let s = sources.get(id);
  if (!s) {
    s = new MaxDigitModelSource();
    sources.set(id, s);
  }
  return s;
}
