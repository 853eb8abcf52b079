// <headlab-max-digit-model id="digits" src="../data/max-digit-seed0.json">: the model that the
// max-digit widgets with model="digits" read. It fetches the weights file once (src is resolved
// against the page; default: the shipped seed-0 file beside the bundle folder), has the core
// analyse it, and shows what is loaded. The reader can train a new model from another seed in a
// Web Worker (worker task "max-digit-train", with a progress bar); when the run ends every
// widget on the page switches to it. "Shipped weights" switches back.
//
// Attributes: id (required, what widgets name), src, seed (default 1: a seed other than the
// shipped one), steps (default 4000, the recipe's), unit-norm-unembedding (boolean: train with
// W_U's columns held at unit norm), loading ("eager": fetch on load even behind a prerendered
// snapshot; "lazy": also wait until the panel or a widget reading it nears the viewport; by
// default a prerendered page fetches on the reader's first interaction, see max-digit/loading.ts),
// timeout (seconds a weights download may take before it fails with a message, 1–600, default 30),
// no-training (boolean: no seed field, Train or way back, for a page whose prose compares this
// model with a fixed one, such as the generic widgets' copy of the shipped weights).
// Events: `change` with { status, seed, label, accuracy } when a run ends or the model switches.
import { getMaxDigitCore } from '../web/browser-core.js';
import type { MaxDigitTrainingSettings, MaxDigitWeights } from '../web/headlab-core.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  flag,
  HeadlabElement,
  integer,
  MAX_SEED,
  number,
  oneOf,
  text,
  WidgetInputError,
} from './base/headlab-element.js';
import { TrainingJob, type TrainingStatus } from './base/training-job.js';
import { formatCount, formatAccuracy, formatNumber, type BoundValue } from './chart/format.js';
import {
  DEFAULT_WEIGHTS_TIMEOUT_S,
  defaultWeightsUrl,
  modelSource,
  retryOnInteraction,
  type MaxDigitAnalysisFile,
  type MaxDigitModelSource,
} from './max-digit/model.js';
import { firstInteraction, loadMaxDigitNow, watchReach } from './max-digit/loading.js';
import { MAX_DIGIT_CSS } from './max-digit/widget.js';

export type ModelTrainingStatus = TrainingStatus;

export interface MaxDigitModelState {
  status: ModelTrainingStatus;
  seed: number | null;
  /** Where the model comes from, e.g. "the shipped weights (seed 0)". */
  label: string;
  /** Accuracy on the evaluation lists in [0, 1], or null before a model is loaded. */
  accuracy: number | null;
}

const CHUNK_STEPS = 100;

/** The parts build() makes (this.parts). */
interface MaxDigitModelParts {
  source: MaxDigitModelSource;
  seedField: { show: (text: string) => void };
  now: HTMLParagraphElement;
  seedInput: HTMLInputElement;
  inputProblem: HTMLParagraphElement;
  trainButton: HTMLButtonElement;
  stopButton: HTMLButtonElement;
  shippedButton: HTMLButtonElement;
  /** The seed field, Train and the way back (hidden under no-training). */
  trainRow: HTMLDivElement;
  bar: HTMLProgressElement;
  progressText: HTMLSpanElement;
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
export class HeadlabMaxDigitModel extends HeadlabElement<MaxDigitModelState, MaxDigitModelParts> {
  static attributes = defineAttributes({
    src: text({ doc: 'The weights JSON, resolved against the page (default the shipped seed-0 weights beside the package).' }),
    seed: integer({ fallback: 1, min: 0, max: MAX_SEED, shared: true, doc: 'Seed of an in-page retraining.' }),
    steps: integer({ fallback: 4000, min: 1, max: 100000, doc: 'Training steps of an in-page retraining.' }),
    'unit-norm-unembedding': flag({ doc: 'Retrain with unit-norm unembedding rows.' }),
    loading: oneOf(['lazy', 'eager'], {
      fallback: 'lazy',
      property: false,
      doc: '"eager": load the module and weights with the page, not at the reader’s first interaction.',
    }),
    timeout: number({ fallback: DEFAULT_WEIGHTS_TIMEOUT_S, min: 1, max: 600, doc: 'Seconds the weights may take to download.' }),
    'no-training': flag({
      doc: 'No seed field, Train or way back: the panel always shows the weights of src (for a page whose prose compares them with a fixed model).',
    }),
  });
  // Trains in its worker, on the page's compiled module: loaded here so the page downloads it once.
  protected static loadModule: () => Promise<unknown> = getMaxDigitCore;
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    .train label { display: inline-flex; gap: 0.4rem; align-items: center; }
    .train input[type="number"] { width: 6em; text-align: left; }
    progress { width: 10rem; height: 1rem; accent-color: var(--hl-focus); }
    .progress-text { font-variant-numeric: tabular-nums; font-size: 0.9em; }
    .now { margin: 0.2rem 0 0.4rem; }
  `;
  private lazyObserver: IntersectionObserver | null = null;
  private readonly training = new TrainingJob(
    this,
    (text) => this.announce(text),
    () => this.requestRender(),
  );
  private progressDone = 0;
  private progressTotal = 0;
  private lastLoss = NaN;

  get trainingStatus(): ModelTrainingStatus {
    return this.training.status;
  }
  /**
   * The model source the widgets share (null before the element starts).
   * @internal
   */
  get modelSource(): MaxDigitModelSource | null {
    return this.source;
  }

  /** The model source build() found for this element's id (null before the first build). */
  private get source(): MaxDigitModelSource | null {
    return this.hasParts ? this.parts.source : null;
  }

  protected readState(): MaxDigitModelState {
    const m = this.source?.model ?? null;
    return { status: this.training.status, seed: m?.seed ?? null, label: m?.label ?? '', accuracy: m ? m.analysis.accuracy : null };
  }

  /**
   * Figures of the model now shown, for <headlab-value source="…" name="…"> in the prose
   * (undefined while loading or for an unknown name). Names:
   *   accuracy, residual_free_accuracy, residual_only_accuracy (fractions of the evaluation lists), lists;
   *   slope.h0–h3, slope.min, slope.max (score per digit), marker_gap.min (lowest digit score − highest marker score);
   *   on_max.min (smallest mean attention mass on the maximum, over maxima and heads), recruited_cells (of 40);
   *   default_answer (every head on ANS), default_answer_residual_free, one_hot_exceptions (maxima);
   * and, as fractions of a count (format="count" words them "all 4", "all but 2 of 10", "3 of 4"), so
   * a sentence's wording follows the model: ramp_heads (heads whose digit scores rise from 0 to 9),
   * marker_heads (heads whose every marker scores below every digit), recruited_pairs ((head,
   * maximum) pairs with more than half the mean attention on the maximum, of 40), one_hot_right
   * (maxima answered right with one-hot attention on the maximum, of 10);
   *   single_head.h0–h3 / .min / .max (only that head kept), single_heads_perfect, one_ablated.min, two_ablated.min;
   *   directions.w_o, directions.w_u (smallest k with every list right), subspace.w_o.k1–k8, subspace.w_u.k1–k8,
   *   variance.w_o.top3, variance.w_u.top3, cosine.00;
   *   angle_dot_agree, dot_correct (maxima, of 10), single_flips, pair_flips (heads / pairs pointed at the 4 that change the answer), all_heads_answer;
   *   embedding_norm.digits.min/.max, embedding_norm.ANS, unembedding_norm.digits.min/.max.
   */
  boundValue(name: string): BoundValue | undefined {
    const m = this.source?.status === 'ready' ? this.source.model : null;
    if (!m) return undefined;
    const a = m.analysis;
    const lists = a.evaluation.lists;
    const fraction = (value: number, of = lists): BoundValue => ({ value, kind: 'fraction', of });
    const count = (value: number): BoundValue => ({ value, kind: 'count' });
    const number = (value: number): BoundValue => ({ value, kind: 'number' });
    const ablation = (size: number) => Math.min(...a.head_ablation.filter((r) => r.heads.length === size).map((r) => r.accuracy));
    const digits = (v: number[]) => v.slice(0, 10);
    const head = /^(slope|single_head)\.h([0-3])$/.exec(name);
    if (head) {
      const h = Number(head[2]);
      return head[1] === 'slope' ? number(a.mechanism.score_slope[h]) : fraction(a.claims.single_head_accuracy[h]);
    }
    const sub = /^subspace\.(w_o|w_u)\.k([1-8])$/.exec(name);
    if (sub) return fraction(a.subspace_accuracy[sub[1] as 'w_o' | 'w_u'][Number(sub[2]) - 1]);
    switch (name) {
      case 'accuracy':
        return fraction(a.accuracy);
      case 'residual_free_accuracy':
        return fraction(a.residual_free_accuracy);
      case 'residual_only_accuracy':
        return fraction(a.residual_only_accuracy);
      case 'lists':
        return count(lists);
      case 'slope.min':
        return number(Math.min(...a.mechanism.score_slope));
      case 'slope.max':
        return number(Math.max(...a.mechanism.score_slope));
      case 'marker_gap.min':
        return number(Math.min(...a.mechanism.marker_gap));
      case 'on_max.min': {
        let low = 1;
        for (let h = 0; h < 4; h++) for (let d = 0; d < 10; d++) low = Math.min(low, a.attention_by_max[h][d][d]);
        return { value: low, kind: 'fraction' };
      }
      case 'recruited_cells':
        return count(a.claims.recruited_cells);
      case 'recruited_pairs':
        return fraction(a.claims.recruited_cells / 40, 40);
      case 'ramp_heads':
        return fraction(a.mechanism.score_monotone.filter(Boolean).length / 4, 4);
      case 'marker_heads':
        return fraction(a.mechanism.marker_gap.filter((g) => g > 0).length / 4, 4);
      case 'one_hot_right':
        return fraction((10 - a.claims.one_hot_exceptions.length) / 10, 10);
      case 'default_answer':
        return count(a.mechanism.default_answer);
      case 'default_answer_residual_free':
        return count(a.mechanism.default_answer_residual_free);
      case 'one_hot_exceptions':
        return count(a.claims.one_hot_exceptions.length);
      case 'single_head.min':
        return fraction(a.claims.min_single_head_accuracy);
      case 'single_head.max':
        return fraction(Math.max(...a.claims.single_head_accuracy));
      case 'single_heads_perfect':
        return count(a.claims.single_heads_perfect);
      case 'one_ablated.min':
        return fraction(ablation(1));
      case 'two_ablated.min':
        return fraction(ablation(2));
      case 'directions.w_o':
        return count(a.claims.directions_w_o);
      case 'directions.w_u':
        return count(a.claims.directions_w_u);
      case 'variance.w_o.top3':
        return { value: a.variance_explained.w_o.slice(0, 3).reduce((x, y) => x + y, 0), kind: 'fraction' };
      case 'variance.w_u.top3':
        return { value: a.variance_explained.w_u.slice(0, 3).reduce((x, y) => x + y, 0), kind: 'fraction' };
      case 'cosine.00':
        return number(a.cosine_top3[0][0]);
      case 'angle_dot_agree':
        return count(a.claims.angle_dot_agree);
      case 'dot_correct':
        return count(a.claims.dot_correct);
      case 'single_flips':
        return count(a.claims.single_flips.length);
      case 'pair_flips':
        return count(a.claims.pair_flips.length);
      case 'all_heads_answer':
        return count(a.claims.all_heads_answer);
      case 'embedding_norm.digits.min':
        return number(Math.min(...digits(a.mechanism.embedding_norm)));
      case 'embedding_norm.digits.max':
        return number(Math.max(...digits(a.mechanism.embedding_norm)));
      case 'embedding_norm.ANS':
        return number(a.mechanism.embedding_norm[13]);
      case 'unembedding_norm.digits.min':
        return number(Math.min(...digits(a.mechanism.unembedding_norm)));
      case 'unembedding_norm.digits.max':
        return number(Math.max(...digits(a.mechanism.unembedding_norm)));
      default:
        return undefined;
    }
  }

  private weightsUrl(): string {
    const src = this.src.trim();
    return src === '' ? defaultWeightsUrl() : new URL(src, document.baseURI).href;
  }

  /**
   * Fetches the weights now: also before the reader's first interaction (behind a prerendered
   * snapshot the widgets wait for it, widgets/max-digit/loading.ts) and when loading="lazy" has
   * not seen the section yet.
   */
  load(): void {
    this.lazyObserver?.disconnect();
    this.lazyObserver = null;
    this.loadRequested = true;
    loadMaxDigitNow();
    if (this.source && this.source.status === 'idle') void this.source.load(this.weightsUrl(), this.timeout);
  }

  private loadRequested = false;
  private stopWatchingReach: (() => void) | null = null;

  /** Behind a prerendered snapshot, the module and the weights wait for the reader's first interaction unless loading="eager". */
  protected deferLoading(): Promise<void> | null {
    if (this.getAttribute('loading') === 'eager') return null;
    this.stopWatchingReach?.();
    this.stopWatchingReach = watchReach(this);
    return firstInteraction();
  }

  /** updateComplete waits for the model (a failed load shows an error, which completes it too). */
  protected get settled(): boolean {
    return this.source?.status === 'ready';
  }

  /** The snapshot (which shows the loaded model) stays until the model is ready or has failed. */
  protected snapshotReplaceable(): boolean {
    return !this.source || this.source.status === 'ready' || this.source.status === 'failed';
  }

  /** Trains a model from the `seed` attribute in the worker; every widget switches to it when the run ends. */
  train(): void {
    const settings: MaxDigitTrainingSettings = { seed: this.seed, steps: this.steps, unit_norm_unembedding: this.unitNormUnembedding };
    this.progressDone = 0;
    this.progressTotal = settings.steps!;
    this.announce(`Training a model from seed ${settings.seed} (${settings.steps} steps)…`);
    type Trained = { progress: { steps_taken: number }; weights: MaxDigitWeights | null; analysis: MaxDigitAnalysisFile | null };
    this.training.start<Trained>(
      'max-digit-train',
      { settings, chunk: CHUNK_STEPS },
      {
        progress: (detail) => {
          this.progressDone = detail.steps_taken as number;
          this.lastLoss = detail.loss as number;
          this.requestRender();
        },
        done: ({ value }) => {
          if (!value.weights || !value.analysis) {
            this.training.status = 'stopped'; // a stop before the last step keeps the previous model
            this.announce(`Stopped after ${value.progress.steps_taken} steps; the figures keep the previous model.`);
          } else {
            this.training.status = 'done';
            const label = `seed ${settings.seed}, ${settings.steps} steps${settings.unit_norm_unembedding ? ', unit-norm W_U' : ''}, trained in this page`;
            this.parts.source.replace(value.weights, value.analysis, label, settings.seed!);
            this.announce(
              `Trained from seed ${settings.seed}: accuracy ${formatAccuracy(value.analysis.accuracy, value.analysis.evaluation.lists)}. Every figure tied to this model now shows it.`,
            );
          }
          this.requestRender();
          this.emitChange();
        },
      },
    );
    this.requestRender();
  }

  stop(): void {
    this.training.stop();
  }

  /** Back to the weights the page loaded. */
  useShipped(): void {
    this.source?.restore();
    this.announce('Back to the loaded weights.');
    this.emitChange();
  }

  protected summarize(): string {
    const m = this.source?.status === 'ready' ? this.source.model : null;
    if (!m) return 'The max-digit model is loading.';
    return `The figures tied to this panel show ${m.label}: accuracy ${formatAccuracy(m.analysis.accuracy, m.analysis.evaluation.lists)} on ${formatCount(m.analysis.evaluation.lists)} evaluation lists; training status ${this.training.status}.`;
  }

  disconnectedCallback(): void {
    this.stopWatchingReach?.();
    this.stopWatchingReach = null;
    this.lazyObserver?.disconnect();
    this.lazyObserver = null;
    this.training.dispose();
    super.disconnectedCallback();
  }

  protected build(): MaxDigitModelParts {
    if (!this.id) throw new WidgetInputError('a <headlab-max-digit-model> needs an id, which the widgets name in their model attribute');
    const source = modelSource(this.id);
    this.listen(source, 'change', () => this.requestRender());
    retryOnInteraction(
      (target, type, handler) => this.listen(target, type, handler),
      () => source,
    );
    // loading="lazy": fetch the weights only when the panel, or a widget reading it, nears the
    // viewport (and, behind a snapshot, after the reader's first interaction: build() runs then).
    if (this.getAttribute('loading') === 'lazy' && !this.loadRequested && typeof IntersectionObserver === 'function') {
      const readers = [this, ...document.querySelectorAll(`[model="${CSS.escape(this.id)}"]`)];
      const observer = new IntersectionObserver(
        (entries) => {
          if (!entries.some((e) => e.isIntersecting)) return;
          observer.disconnect();
          void source.load(this.weightsUrl(), this.timeout);
        },
        { rootMargin: '600px 0px' },
      );
      readers.forEach((r) => observer.observe(r));
      this.lazyObserver = observer;
    } else {
      void source.load(this.weightsUrl(), this.timeout);
    }

    const now = el('p', { class: 'now', role: 'status' });
    const row = el('div', { class: 'row train' });
    const label = el('label', {}, 'Seed');
    const seedInput = el('input', { type: 'number', min: '0', max: String(MAX_SEED), step: '1', name: 'seed', inputmode: 'numeric' });
    label.append(seedInput);
    const inputProblem = el('p', { class: 'input-problem', role: 'status' });
    const seedField = this.bindField(seedInput, {
      label: 'the seed',
      message: inputProblem,
      parse: (text) => {
        const v = Number(text);
        if (!/^[0-9]+$/.test(text) || !Number.isInteger(v) || v > MAX_SEED)
          throw new WidgetInputError(`the seed must be an integer from 0 to ${MAX_SEED}, got "${text}"`);
        return v;
      },
      commit: (v) => {
        this.seed = v;
      },
      current: () => String(this.seed),
    });
    const trainButton = el('button', { type: 'button' }, 'Train a new model');
    const stopButton = el('button', { type: 'button' }, 'Stop');
    const shippedButton = el('button', { type: 'button' }, 'Back to the loaded weights');
    this.listen(trainButton, 'click', () => this.train());
    this.listen(stopButton, 'click', () => this.stop());
    this.listen(shippedButton, 'click', () => this.useShipped());
    const bar = el('progress', { max: '1', value: '0', 'aria-label': 'Training progress' });
    const progressText = el('span', { class: 'progress-text' });
    row.append(label, trainButton, stopButton, bar, progressText, shippedButton);
    const statusLine = this.statusRegion();
    this.body.append(
      el('p', { class: 'title' }, 'The model behind the figures'),
      now,
      row,
      inputProblem,
      statusLine,
      this.exportControls({ jsonLabel: 'State (JSON)' }),
    );
    return { source, seedField, trainRow: row, now, seedInput, inputProblem, trainButton, stopButton, shippedButton, bar, progressText };
  }

  protected render(): void {
    const { source } = this.parts;
    if (source.status === 'failed') throw new WidgetInputError(`The model could not be loaded: ${source.failure}`);
    const m = source.status === 'ready' ? source.model : null;
    this.parts.now.textContent = m
      ? `Now showing ${m.label}: accuracy ${formatAccuracy(m.analysis.accuracy, m.analysis.evaluation.lists)} on ${formatCount(m.analysis.evaluation.lists)} lists.`
      : source.status === 'idle'
        ? 'The weights load when this section comes into view.'
        : 'Loading the model…';
    if (m) this.parts.now.dataset.accuracy = String(m.analysis.accuracy);
    this.parts.trainRow.hidden = this.noTraining;
    this.parts.seedField.show(String(this.seed));
    const training = this.training.status === 'training';
    this.parts.trainButton.disabled = m === null;
    this.parts.stopButton.disabled = !training;
    this.parts.shippedButton.disabled = training || !source.loaded || m?.weights === source.loaded.weights;
    this.parts.bar.max = Math.max(1, this.progressTotal);
    this.parts.bar.value = this.progressDone;
    this.parts.progressText.textContent =
      this.training.status === 'idle'
        ? `${this.steps} steps in a background worker`
        : `step ${this.progressDone} of ${this.progressTotal}${Number.isFinite(this.lastLoss) ? ` · batch loss ${formatNumber(this.lastLoss, 4)}` : ''}${this.training.status === 'failed' ? ` · failed: ${this.training.failure}` : ''}`;
  }
}

export interface HeadlabMaxDigitModel extends AttributeProperties<typeof HeadlabMaxDigitModel.attributes> {}
