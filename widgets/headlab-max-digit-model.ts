// <headlab-max-digit-model id="digits" src="../data/max-digit-seed0.json">: the model that the
// max-digit widgets with model="digits" read. It fetches the weights file once (src is resolved
// against the page; default: the shipped seed-0 file beside the bundle folder), has the core
// analyse it, and shows what is loaded. The reader can train a new model from another seed in a
// Web Worker (worker task "max-digit-train", with a progress bar); when the run ends every
// widget on the page switches to it. "Shipped weights" switches back.
//
// Attributes: id (required, what widgets name), src, seed (default 1: a seed other than the
// shipped one), steps (default 4000, the recipe's), unit-norm-unembedding (boolean: train with
// W_U's columns held at unit norm).
// Events: `change` with { status, seed, label, accuracy } when a run ends or the model switches.
import type { MaxDigitTrainingSettings, MaxDigitWeights } from '../web/headlab-core.js';
import { WorkerJobs } from '../web/worker-client.js';
import { HeadlabElement, WidgetInputError, el, integerAttribute, setNumberAttribute } from './base/headlab-element.js';
import { formatNumber } from './chart/format.js';
import { defaultWeightsUrl, modelSource, type MaxDigitAnalysisFile, type MaxDigitModelSource } from './max-digit/model.js';
import { MAX_DIGIT_CSS, percent } from './max-digit/widget.js';

export type ModelTrainingStatus = 'idle' | 'training' | 'done' | 'stopped' | 'failed';

export interface MaxDigitModelState {
  status: ModelTrainingStatus;
  seed: number | null;
  label: string;
  accuracy: number | null;
}

const CHUNK_STEPS = 100;

export class HeadlabMaxDigitModel extends HeadlabElement<MaxDigitModelState> {
  static observedAttributes = ['src', 'seed', 'steps', 'unit-norm-unembedding'];
  protected static sharedAttributes = ['seed'];
  protected static coreModule = 'max-digit' as const;
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    .train label { display: inline-flex; gap: 0.4rem; align-items: center; }
    .train input[type="number"] { width: 6em; text-align: left; }
    progress { width: 10rem; height: 1rem; accent-color: var(--hl-focus); }
    .progress-text { font-variant-numeric: tabular-nums; font-size: 0.9em; }
    .now { margin: 0.2rem 0 0.4rem; }
  `;

  private source: MaxDigitModelSource | null = null;
  private readonly jobs = new WorkerJobs();
  private status: ModelTrainingStatus = 'idle';
  private progressDone = 0;
  private progressTotal = 0;
  private lastLoss = NaN;
  private failure = '';

  private now: HTMLParagraphElement | null = null;
  private seedInput: HTMLInputElement | null = null;
  private inputProblem: HTMLParagraphElement | null = null;
  private trainButton: HTMLButtonElement | null = null;
  private stopButton: HTMLButtonElement | null = null;
  private shippedButton: HTMLButtonElement | null = null;
  private bar: HTMLProgressElement | null = null;
  private progressText: HTMLSpanElement | null = null;
  private statusLine: HTMLParagraphElement | null = null;

  get seed(): number { return integerAttribute(this, 'seed', 1, 0, 2 ** 31 - 1); }
  set seed(v: number) { setNumberAttribute(this, 'seed', v); }
  get steps(): number { return integerAttribute(this, 'steps', 4000, 1, 100000); }
  set steps(v: number) { setNumberAttribute(this, 'steps', v); }
  get unitNormUnembedding(): boolean { return this.hasAttribute('unit-norm-unembedding'); }
  set unitNormUnembedding(v: boolean) { this.toggleAttribute('unit-norm-unembedding', v); }
  get src(): string { return this.getAttribute('src') ?? ''; }
  set src(v: string) { this.setAttribute('src', v); }
  get trainingStatus(): ModelTrainingStatus { return this.status; }
  /** The model source the widgets share (null before the element starts). */
  get modelSource(): MaxDigitModelSource | null { return this.source; }

  get state(): MaxDigitModelState {
    const m = this.source?.model ?? null;
    return { status: this.status, seed: m?.seed ?? null, label: m?.label ?? '', accuracy: m ? m.analysis.accuracy : null };
  }

  private weightsUrl(): string {
    const src = this.src.trim();
    return src === '' ? defaultWeightsUrl() : new URL(src, document.baseURI).href;
  }

  /** Trains a model from the `seed` attribute in the worker; every widget switches to it when the run ends. */
  train(): void {
    const settings: MaxDigitTrainingSettings = { seed: this.seed, steps: this.steps, unit_norm_unembedding: this.unitNormUnembedding };
    this.status = 'training';
    this.failure = '';
    this.progressDone = 0;
    this.progressTotal = settings.steps!;
    this.announce(`Training a model from seed ${settings.seed} (${settings.steps} steps)…`);
    type Trained = { progress: { steps_taken: number }; weights: MaxDigitWeights | null; analysis: MaxDigitAnalysisFile | null };
    this.jobs.start<Trained>('max-digit-train', { settings, chunk: CHUNK_STEPS }, {
      progress: (detail) => {
        this.progressDone = detail.steps_taken as number;
        this.lastLoss = detail.loss as number;
        this.requestRender();
      },
      done: ({ value }) => {
        if (!value.weights || !value.analysis) {
          this.status = 'stopped';
          this.announce(`Stopped after ${value.progress.steps_taken} steps; the figures keep the previous model.`);
        } else {
          this.status = 'done';
          const label = `seed ${settings.seed}, ${settings.steps} steps${settings.unit_norm_unembedding ? ', unit-norm W_U' : ''}, trained in this page`;
          this.source!.replace(value.weights, value.analysis, label, settings.seed!);
          this.announce(`Trained from seed ${settings.seed}: accuracy ${percent(value.analysis.accuracy, 2)}. Every figure tied to this model now shows it.`);
        }
        this.requestRender();
        this.emitChange();
      },
      failed: (err) => {
        this.status = 'failed';
        this.failure = err.message;
        this.announce(`Training failed: ${err.message}`);
        this.requestRender();
      },
    });
    this.requestRender();
  }

  stop(): void {
    if (this.status === 'training') this.jobs.stop();
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
    return `The figures tied to this panel show ${m.label}: accuracy ${percent(m.analysis.accuracy, 2)} on ${m.analysis.evaluation.lists.toLocaleString('en')} evaluation lists; training status ${this.status}.`;
  }

  private announce(text: string): void {
    if (this.statusLine) this.statusLine.textContent = text;
  }

  disconnectedCallback(): void {
    this.jobs.dispose();
    if (this.status === 'training') this.status = 'stopped';
    super.disconnectedCallback();
  }

  protected build(): void {
    if (!this.id) throw new WidgetInputError('a <headlab-max-digit-model> needs an id, which the widgets name in their model attribute');
    this.source = modelSource(this.id);
    void this.source.load(this.weightsUrl(), this.maxDigit!);
    this.listen(this.source, 'change', () => this.requestRender());

    this.now = el('p', { class: 'now', role: 'status' });
    const row = el('div', { class: 'row train' });
    const label = el('label', {}, 'Seed');
    this.seedInput = el('input', { type: 'number', min: '0', max: String(2 ** 31 - 1), step: '1', name: 'seed', inputmode: 'numeric' });
    label.append(this.seedInput);
    this.listen(this.seedInput, 'change', () => {
      const v = Number(this.seedInput!.value);
      const ok = this.seedInput!.value.trim() !== '' && Number.isInteger(v) && v >= 0 && v <= 2 ** 31 - 1;
      this.seedInput!.setAttribute('aria-invalid', String(!ok));
      this.inputProblem!.textContent = ok ? '' : `The seed must be an integer from 0 to ${2 ** 31 - 1}; the last valid seed (${this.seed}) is kept.`;
      if (ok) this.seed = v;
    });
    this.trainButton = el('button', { type: 'button' }, 'Train a new model');
    this.stopButton = el('button', { type: 'button' }, 'Stop');
    this.shippedButton = el('button', { type: 'button' }, 'Back to the loaded weights');
    this.listen(this.trainButton, 'click', () => this.train());
    this.listen(this.stopButton, 'click', () => this.stop());
    this.listen(this.shippedButton, 'click', () => this.useShipped());
    this.bar = el('progress', { max: '1', value: '0', 'aria-label': 'Training progress' });
    this.progressText = el('span', { class: 'progress-text' });
    row.append(label, this.trainButton, this.stopButton, this.bar, this.progressText, this.shippedButton);
    this.inputProblem = el('p', { class: 'input-problem', role: 'status' });
    this.statusLine = el('p', { class: 'note', role: 'status', 'aria-live': 'polite' });
    this.body.append(el('p', { class: 'title' }, 'The model behind the figures'), this.now, row, this.inputProblem, this.statusLine, this.exportControls({ jsonLabel: 'State (JSON)' }));
  }

  protected render(): void {
    const source = this.source!;
    if (source.status === 'failed') throw new WidgetInputError(`The model could not be loaded: ${source.failure}`);
    const m = source.status === 'ready' ? source.model : null;
    this.now!.textContent = m
      ? `Now showing ${m.label}: accuracy ${percent(m.analysis.accuracy, 2)} on ${m.analysis.evaluation.lists.toLocaleString('en')} lists.`
      : 'Loading the model…';
    if (m) this.now!.dataset.accuracy = String(m.analysis.accuracy);
    if (this.root.activeElement !== this.seedInput && this.seedInput!.getAttribute('aria-invalid') !== 'true') this.seedInput!.value = String(this.seed);
    const training = this.status === 'training';
    this.trainButton!.disabled = m === null;
    this.stopButton!.disabled = !training;
    this.shippedButton!.disabled = training || !source.loaded || m?.weights === source.loaded.weights;
    this.bar!.max = Math.max(1, this.progressTotal);
    this.bar!.value = this.progressDone;
    this.progressText!.textContent = this.status === 'idle'
      ? `${this.steps} steps in a background worker`
      : `step ${this.progressDone} of ${this.progressTotal}${Number.isFinite(this.lastLoss) ? ` · batch loss ${formatNumber(this.lastLoss, 4)}` : ''}${this.status === 'failed' ? ` · failed: ${this.failure}` : ''}`;
  }
}
