// <headlab-feature-recovery>: trains the draft's model — W_q and W_v (9 × 3 each) behind
// fixed keys, on inputs whose nine latent features are mixed by an orthogonal R — in a
// Web Worker on the WASM core (worker task "feature-recovery-train"), and shows:
//   - a progress bar and the training loss on a log-scale axis (1 down to 1e-32 and below),
//   - the response maps R·W_q and R·W_v as heatmaps, updated while training runs,
//   - the run's held-out MSE, uniform-attention MSE and smallest R² next to the draft's,
//   - downloads: results.json (docs/feature-recovery-results.schema.json) and each figure as SVG and PNG.
// The page's main thread only draws: at most one render per animation frame, whatever the
// rate of progress messages.
//
// Attributes (mirrored by properties), defaults = the draft's settings:
//   seed (0), steps (1200), batch (128), learning-rate (0.03), request-scale (1.8),
//   pace ("watch": about 80 ms per 20 steps, ≈ 5 s for the draft's 1,200, so the maps can be seen forming; "fast": no pause),
//   autostart (boolean: train once more, at that pace, when the figure first scrolls into view).
// The figure opens on the finished run of its settings (the opening run: trained at full speed as
// the element starts, about 0.15 s of the worker's time, announced to no one), so it is never an
// empty chart before the reader acts; the still the page is prerendered with shows that run, and
// stays until the live run has ended.
// Events: `change` (bubbling) with FeatureRecoveryState when a setting changes or a run ends.
import type { FeatureRecoveryResults } from '../formats/feature-recovery-results.js';
import { getFeatureRecoveryCore } from '../web/browser-core.js';
import type { FeatureRecoveryCore, FeatureRecoveryRun } from '../web/headlab-core.js';
import { DRAFT_PUBLISHED, featureRecoveryResultsFile } from '../web/feature-recovery.js';
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
  setNumberAttribute,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { TrainingJob, type TrainingStatus } from './base/training-job.js';
import { formatMagnitude, formatNearOne, formatNumber, subscripted } from './chart/format.js';
import { finishedRunDecades, lossCurveScene } from './chart/loss-curve.js';
import { RESPONSE_HEATMAP_CSS, ResponseHeatmap } from './chart/response-heatmap.js';
import { drawSceneInto, type Scene } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import { setAttributeIfChanged, setText } from './chart/text.js';

export type { TrainingStatus };

export interface FeatureRecoveryWidgetSettings {
  /** Held-out examples (attribute eval-size, default the draft's 4096). */
  eval_size: number;
  seed: number;
  steps: number;
  batch: number;
  learning_rate: number;
  request_scale: number;
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

export type FigureName = 'loss' | 'response-query' | 'response-value';

/** A figure's request to the run its source's worker keeps (HeadlabFeatureRecovery.request). */
export interface FeatureRecoveryRequestHandlers<T> {
  done(value: T): void;
  failed(error: Error): void;
}

interface PendingRequest {
  run: FeatureRecoveryRun;
  task: string;
  params: Record<string, unknown>;
  handlers: FeatureRecoveryRequestHandlers<unknown>;
  /** Whether the run's matrices go with it whatever the worker is thought to hold (after "not kept"). */
  sendRun: boolean;
}

/** An error that says the worker went away (its element left the page), not that the request was wrong. */
const WORKER_GONE = /the headlab worker was ended|is not on the page/;
let runIds = 0;

interface Control {
  attr: string;
  label: string;
  min: number;
  max: number;
  integer: boolean;
  fallback: number;
  step: string;
}

/** The controls, with the draft's values as defaults; ranges are what the page trains in a few seconds. */
const CONTROLS: Control[] = [
  { attr: 'seed', label: 'Seed', min: 0, max: MAX_SEED, integer: true, fallback: 0, step: '1' },
  { attr: 'learning-rate', label: 'Learning rate', min: 1e-6, max: 10, integer: false, fallback: 0.03, step: 'any' },
  { attr: 'steps', label: 'Steps', min: 1, max: 20000, integer: true, fallback: 1200, step: '1' },
  { attr: 'batch', label: 'Batch size', min: 1, max: 4096, integer: true, fallback: 128, step: '1' },
  { attr: 'request-scale', label: 'Request scale', min: 0.01, max: 100, integer: false, fallback: 1.8, step: 'any' },
];

/** Steps per progress message, and the least time per message in "watch" pace (≈ 4.8 s for 1,200 steps: at 1.2 s the run was over before the blocks could be watched). */
/** The attribute of the control `attr`: its bounds and default are the control's. */
function setting(attr: string, doc: string) {
  const c = CONTROLS.find((x) => x.attr === attr)!;
  return (c.integer ? integer : number)({ fallback: c.fallback, min: c.min, max: c.max, shared: true, doc });
}

const CHUNK_STEPS = 20;
const WATCH_PACE_MS = 80;

const LOSS_HEIGHT = 250;
/** The draft's held-out set size, and the largest the page allows (one evaluation of 10⁵ examples takes tens of ms). */
const EVAL_SIZE_DEFAULT = 4096;
const EVAL_SIZE_MAX = 100000;

/** The parts build() makes (this.parts). */
interface FeatureRecoveryParts {
  heatQuery: ResponseHeatmap;
  heatValue: ResponseHeatmap;
  paceBox: HTMLInputElement;
  inputProblem: HTMLParagraphElement;
  trainButton: HTMLButtonElement;
  stopButton: HTMLButtonElement;
  progressBar: HTMLProgressElement;
  progressText: HTMLSpanElement;
  lossSvg: SVGSVGElement;
  resultsCaption: HTMLTableCaptionElement;
  jsonButton: HTMLButtonElement;
}

/** The loss chart's width for a box `w` px wide (its drawing at its own size, 280 … 760 px). */
const lossChartWidth = (w: number): number => Math.max(280, Math.min(760, Math.round(w)));

/**
 * Attributes: seed, steps, batch, learning-rate, request-scale, eval-size, pace ("watch" | "fast";
 * default "watch", "fast" under prefers-reduced-motion), autostart. Shared: all but autostart.
 */
export class HeadlabFeatureRecovery extends HeadlabElement<FeatureRecoveryState, FeatureRecoveryParts> {
  static attributes = defineAttributes({
    seed: setting('seed', 'Seed of the run’s initialisation and examples.'),
    steps: setting('steps', 'Training steps.'),
    batch: setting('batch', 'Fresh examples per step (the trainer setting batch_size).'),
    'learning-rate': setting('learning-rate', 'Adam’s learning rate.'),
    'request-scale': setting('request-scale', 'Scale of the request features in the task.'),
    'eval-size': integer({
      fallback: EVAL_SIZE_DEFAULT,
      min: 2,
      max: EVAL_SIZE_MAX,
      shared: true,
      doc: 'Held-out examples of the evaluation (default the draft’s 4096; fewer make the interventions cheaper).',
    }),
    pace: oneOf(['watch', 'fast'], {
      fallback: () => (matchMedia('(prefers-reduced-motion: reduce)').matches ? 'fast' : 'watch'),
      shared: true,
      doc: '"watch": the run paced to be watched; "fast": as fast as it trains (default under prefers-reduced-motion).',
    }),
    autostart: flag({
      doc: 'Train once more, at the pace set, when the figure first scrolls into view (it opens on its settings’ finished run).',
    }),
  });
  // Trains in the worker; the page compiles headlab_feature_recovery.wasm and hands it over (one download).
  // Trains in its worker, on the page's compiled module: loaded here so the page downloads it once.
  protected static loadModule: () => Promise<unknown> = getFeatureRecoveryCore;
  /** The page's headlab_feature_recovery module (null before it has loaded; its worker computes with its own instance). */
  protected featureRecovery: FeatureRecoveryCore | null = null;

  protected moduleLoaded(module: unknown): void {
    this.featureRecovery = module as FeatureRecoveryCore;
  }

  protected static css = /* css */ `
    ${RESPONSE_HEATMAP_CSS}
    fieldset { border: 1px solid var(--hl-rule); border-radius: 4px; margin: 0 0 0.5rem; padding: 0.3rem 0.6rem 0.5rem; }
    legend { font-weight: 600; padding: 0 0.25rem; }
    .settings { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; }
    .settings label { display: flex; flex-direction: column; font-size: 0.9em; }
    .settings input[type="number"] { width: 7em; text-align: left; }
    .settings label.pace { flex-direction: row; align-items: center; gap: 0.3rem; align-self: flex-end; min-height: 2rem; }
    input[aria-invalid="true"] { border-color: var(--hl-bad); border-width: 2px; }
    .input-problem { color: var(--hl-bad); font-size: 0.9em; margin: 0.2rem 0 0; }
    .progress { display: flex; align-items: center; gap: 0.6rem; flex-wrap: wrap; }
    progress { width: 12rem; height: 1rem; accent-color: var(--hl-focus); }
    .progress-text { font-variant-numeric: tabular-nums; font-size: 0.9em; }
    .figure { margin: 0.75rem 0 0; }
    .figure svg { display: block; max-width: 100%; height: auto; }
    .maps { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; }
    .maps .map { flex: 1 1 14rem; min-width: 0; }
    .results td { text-align: right; }
    .results td.draft { font-variant-numeric: tabular-nums; }
    .results th[scope="row"] { text-align: left; }
    .results th[scope="row"] { font-weight: 400; }
    .primary { font-weight: 600; }
  `;

  private readonly training = new TrainingJob(
    this,
    (text) => this.announce(text),
    () => this.requestRender(),
  );
  private losses: number[] = [];
  /** What the loss curve was last drawn from (render skips the redraw when none of it changed). */
  private lossDrawn: readonly unknown[] | null = null;
  private runSteps = 1200;
  private responseQuery: ArrayLike<number> = new Float64Array(27);
  private responseValue: ArrayLike<number> = new Float64Array(27);
  /** The last finished or stopped run, matrices flat (the worker's encoding). */
  private lastRun: FeatureRecoveryRun | null = null;
  /** Its results.json object, nested only when asked for (a file, the `results` property). */
  private lastFile: FeatureRecoveryResults | null = null;
  private progressUpdates = 0;
  /**
   * The one model host of this source (docs/model-pattern.md, "One host per model"): the training
   * worker keeps each run it trained (keep_model) as a core FeatureRecoveryModel, with its held-out
   * set drawn once, and answers every figure's request from it (request()). `held`: the id of the
   * run the worker of `generation` keeps; `runIdOf`: each run's id; `pending`: requests asked and not
   * answered, sent again when the worker went away with the element (and it is back).
   */
  private held = { generation: -1, id: '' };
  private readonly runIdOf = new WeakMap<FeatureRecoveryRun, string>();
  private readonly pending = new Set<PendingRequest>();
  /**
   * The loss chart's width in CSS px: its box's (280 … 760; 640 when not laid out), read once at
   * the first render (chartMeasured) so the first drawing is at the shown width, then kept by a
   * ResizeObserver, so no later redraw forces a layout.
   */
  private chartWidth = 640;
  private chartMeasured = false;
  private resizeObserver: ResizeObserver | null = null;
  private autostarted = false;
  private visibility: IntersectionObserver | null = null;
  /** Whether the run under way (or the last one) is the opening run: the settings' run, trained silently at full speed. */
  private opening = false;
  /** The attributes' settings were invalid when the element started (no opening run: the render shows the message). */
  private settingsInvalid = false;

  private inputs = new Map<string, HTMLInputElement>();
  private resultCells: HTMLTableCellElement[] = [];
  private draftCells: HTMLTableCellElement[] = [];

  /** The last finished or stopped run as results.json (matrices as arrays of rows), or null. */
  get results(): FeatureRecoveryResults | null {
    if (this.lastRun && !this.lastFile) this.lastFile = featureRecoveryResultsFile(this.lastRun);
    return this.lastFile;
  }
  /**
   * The last finished or stopped run in memory (matrices as { rows, cols, data }), or null: what figures reading this element use.
   * @internal
   */
  get run(): FeatureRecoveryRun | null {
    return this.lastRun;
  }
  /**
   * Progress messages received in the current or last run (diagnostics and tests).
   * @internal
   */
  get progressCount(): number {
    return this.progressUpdates;
  }
  /**
   * Progress messages the worker posted after it read Stop, in the last stopped run (diagnostics and tests).
   * @internal
   */
  get updatesAfterStop(): number {
    return this.lastUpdatesAfterStop;
  }
  private lastUpdatesAfterStop = 0;
  get trainingStatus(): TrainingStatus {
    return this.training.status;
  }

  /**
   * The settings the attributes give (the state's settings).
   * @internal
   */
  get settings(): FeatureRecoveryWidgetSettings {
    return {
      seed: this.seed,
      steps: this.steps,
      batch: this.batch,
      learning_rate: this.learningRate,
      request_scale: this.requestScale,
      eval_size: this.evalSize,
    };
  }

  protected readState(): FeatureRecoveryState {
    return {
      settings: this.settings,
      status: this.training.status,
      steps_done: this.losses.length,
      loss: this.losses.length ? this.losses[this.losses.length - 1] : null,
      results: this.results,
    };
  }

  /** The value of the setting `attr` (its table entry parses it). */
  private settingOf(attr: string): number {
    return (HeadlabFeatureRecovery.attributeTable[attr].read as (host: Element, name: string) => number)(this, attr);
  }

  /** Starts a run with the current settings (stopping one in progress). */
  train(): void {
    this.startTraining(false);
  }

  /**
   * Starts a run with the current settings (stopping one in progress). The opening run (`opening`)
   * is the figure's default state: no pause between chunks and nothing announced, the figure
   * drawing it once it has ended.
   */
  private startTraining(opening: boolean): void {
    const settings = this.settings; // throws WidgetInputError on a bad attribute
    this.opening = opening;
    this.losses = [];
    this.runSteps = settings.steps;
    this.progressUpdates = 0;
    if (!opening) this.announce(`Training started: ${settings.steps} steps, seed ${settings.seed}.`);
    // The attribute `batch` is the trainer setting batch_size (docs/model-pattern.md).
    const { batch, ...rest } = settings;
    // The worker keeps the run it trains under `id`, for the figures' requests (request()).
    const id = `run-${++runIds}`;
    const params = {
      settings: { ...rest, batch_size: batch },
      chunk: CHUNK_STEPS,
      pace_ms: this.pace === 'watch' && !opening ? WATCH_PACE_MS : 0,
      keep_model: id,
    };
    let generation = -1;
    this.training.start<FeatureRecoveryRun>('feature-recovery-train', params, {
      progress: (detail) => {
        this.progressUpdates++;
        for (const x of detail.losses as Float64Array) this.losses.push(x);
        this.responseQuery = detail.response_query as Float64Array;
        this.responseValue = detail.response_value as Float64Array;
        this.requestRender();
      },
      done: ({ value, stopped, updatesAfterStop }) => {
        this.lastUpdatesAfterStop = updatesAfterStop;
        this.runIdOf.set(value, id);
        if (generation === this.training.generation) this.held = { generation, id };
        this.lastRun = value;
        this.lastFile = null;
        this.losses = Array.from(value.loss_trace);
        this.responseQuery = value.response_query.data;
        this.responseValue = value.response_value.data;
        if (!opening)
          this.announce(
            stopped
              ? `Stopped at step ${value.steps_done} of ${value.settings.steps}. Held-out MSE ${formatMagnitude(value.heldout_mse)}.`
              : `Training finished: held-out MSE ${formatMagnitude(value.heldout_mse)} after ${value.steps_done} steps.`,
          );
        this.requestRender();
        this.emitChange();
      },
    });
    generation = this.training.generation;
    this.requestRender();
  }

  /**
   * Runs worker task `task` (web/worker-tasks.js 'feature-recovery-intervene') on `run` in this
   * element's worker, beside a training run in it: every figure reading this source asks the one
   * model the worker keeps, so no matrix crosses to a worker per figure or per update. The run's
   * matrices (432 B) go with the job only when the worker does not hold it (a worker made since, as
   * after the element left the page and came back). A request the worker could not finish because
   * it was ended with the element is sent again once the element is back on the page.
   * @internal
   */
  request<T>(run: FeatureRecoveryRun, task: string, params: Record<string, unknown>, handlers: FeatureRecoveryRequestHandlers<T>): void {
    const r: PendingRequest = { run, task, params, handlers: handlers as FeatureRecoveryRequestHandlers<unknown>, sendRun: false };
    this.pending.add(r);
    this.send(r);
  }

  private send(r: PendingRequest): void {
    if (!this.isConnected) return; // sent when the element is back (connectedCallback)
    let id = this.runIdOf.get(r.run);
    if (id === undefined) {
      id = `run-${++runIds}`;
      this.runIdOf.set(r.run, id);
    }
    const model = id;
    this.training.request<unknown>(
      r.task,
      (generation: number) => {
        const kept = !r.sendRun && this.held.generation === generation && this.held.id === model;
        this.held = { generation, id: model };
        const { settings, w_q, w_v } = r.run;
        return { model, ...(kept ? {} : { run: { settings, w_q, w_v } }), ...r.params };
      },
      {
        done: ({ value }) => {
          this.pending.delete(r);
          r.handlers.done(value);
        },
        failed: (err) => {
          if (WORKER_GONE.test(err.message)) {
            // Ended with the element: asked again now if it is back already, else when it returns.
            this.held = { generation: -1, id: '' };
            this.send(r);
            return;
          }
          if (/is not kept in this worker/.test(err.message) && !r.sendRun) {
            // Another run replaced it there meanwhile (a training run ended): sent again with its matrices.
            r.sendRun = true;
            this.send(r);
            return;
          }
          this.pending.delete(r);
          r.handlers.failed(err);
        },
      },
    );
  }

  connectedCallback(): void {
    super.connectedCallback();
    for (const r of [...this.pending]) this.send(r);
  }

  /** Asks the running training to stop; it ends within one progress update. */
  stop(): void {
    if (this.training.stop()) this.announce('Stopping…');
  }

  /** results.json of the last run, as text. */
  resultsJson(): string {
    return this.exportJson();
  }

  /** JSON export: results.json of the last finished or stopped run. */
  exportData(): FeatureRecoveryResults {
    const file = this.results;
    if (!file) throw new WidgetInputError('no finished run to export yet: train first');
    return file;
  }

  figures(): WidgetFigure[] {
    return (
      [
        ['loss', 'Loss curve'],
        ['response-query', 'R·W_q'],
        ['response-value', 'R·W_v'],
      ] as const
    ).map(([name, label]) => ({ name, label, scene: () => this.figure(name) }));
  }

  protected summarize(): string {
    const done = this.losses.length;
    if (!done)
      return this.training.status === 'failed'
        ? `Training failed: ${this.training.failure}`
        : 'Not trained yet: the loss curve and the response maps are empty.';
    const loss = `Training loss ${formatMagnitude(this.losses[0])} at step 1 and ${formatMagnitude(this.losses[done - 1])} at step ${done} of ${this.runSteps}`;
    const r = this.lastRun;
    if (!r || this.training.status === 'training') return `${loss}; training is running.`;
    return `${loss}. Held-out MSE ${formatMagnitude(r.heldout_mse)}; smallest R² of the query map ${r2Cell(Math.min(...r.query_r2))}, of the value map ${r2Cell(Math.min(...r.value_r2))}: the response maps ${Math.min(...r.query_r2, ...r.value_r2) > 0.99 ? 'recover' : 'do not yet recover'} the identity blocks.`;
  }

  /**
   * A figure as drawn now, as a Scene (the source of its SVG and PNG downloads).
   * @internal
   */
  figure(name: FigureName): Scene {
    const colours = this.themeColours();
    const steps = this.losses.length;
    const seed = this.lastRun?.settings.seed ?? this.seed;
    switch (name) {
      case 'loss':
        return lossCurveScene({
          losses: this.losses,
          steps: this.runSteps,
          width: this.chartWidth,
          height: LOSS_HEIGHT,
          colours,
          title: `Training loss, seed ${seed}`,
          // While training the axis reaches 10⁻³² (it stays put as the loss falls); a finished run
          // that did not learn is drawn on its own decades (finishedRunDecades).
          ...(this.training.status === 'training' || !this.losses.length ? {} : { decades: finishedRunDecades(this.losses) }),
        });
      case 'response-query':
        return this.parts.heatQuery.scene(colours, `R·W_q after ${steps} steps (seed ${seed})`);
      case 'response-value':
        return this.parts.heatValue.scene(colours, `R·W_v after ${steps} steps (seed ${seed})`);
    }
  }

  protected fileStem(): string {
    return `feature-recovery-seed${this.lastRun?.settings.seed ?? this.seed}`;
  }

  protected jsonFileName(): string {
    return `${this.fileStem()}-results.json`;
  }

  disconnectedCallback(): void {
    this.training.dispose();
    this.resizeObserver?.disconnect();
    this.resizeObserver = null;
    this.visibility?.disconnect();
    this.visibility = null;
    super.disconnectedCallback();
  }

  protected build(): FeatureRecoveryParts {
    this.inputs = new Map();
    const title = el('p', { class: 'title' });
    title.append(subscripted('Train W_q and W_v in your browser'));
    const intro = el(
      'p',
      { class: 'caption' },
      'The defaults are the draft’s settings. Training runs in a background worker on the same C++ core as the command-line tool.',
    );

    const fieldset = el('fieldset', { class: 'settings-box' });
    fieldset.append(el('legend', {}, 'Settings'));
    const settings = el('div', { class: 'settings' });
    for (const c of CONTROLS) {
      const input = el('input', {
        type: 'number',
        min: String(c.min),
        max: String(c.max),
        step: c.step,
        name: c.attr,
        inputmode: c.integer ? 'numeric' : 'decimal',
      });
      const label = el('label', {}, c.label);
      label.append(input);
      settings.append(label);
      this.inputs.set(c.attr, input);
      this.listen(input, 'change', () => this.onInput(c, input));
    }
    const paceBox = el('input', { type: 'checkbox' });
    const paceLabel = el('label', { class: 'pace' });
    paceLabel.append(paceBox, 'Slow down to watch');
    this.listen(paceBox, 'change', () => {
      this.pace = paceBox.checked ? 'watch' : 'fast';
      this.emitChange();
    });
    settings.append(paceLabel);
    const inputProblem = el('p', { class: 'input-problem', role: 'status' });
    fieldset.append(settings, inputProblem);

    const trainButton = el('button', { type: 'button', class: 'primary' }, 'Train');
    const stopButton = el('button', { type: 'button' }, 'Stop');
    this.listen(trainButton, 'click', () => this.train());
    this.listen(stopButton, 'click', () => this.stop());
    const progressBar = el('progress', { max: '1200', value: '0', 'aria-label': 'Training progress' });
    const progressText = el('span', { class: 'progress-text' });
    const progress = el('div', { class: 'progress row' });
    progress.append(trainButton, stopButton, progressBar, progressText);
    const statusLine = this.statusRegion('note status');

    const lossFigure = el('div', { class: 'figure loss' });
    this.lossDrawn = null;
    const lossSvg = svgEl('svg', { role: 'img', 'aria-label': 'Training loss on a log scale' });
    lossFigure.append(lossSvg);

    const heatQuery = new ResponseHeatmap('R·W_q', 'q', 'R·W_q: query response to each latent feature');
    const heatValue = new ResponseHeatmap('R·W_v', 'v', 'R·W_v: value response to each latent feature');
    heatQuery.attach((t, type, h) => this.listen(t, type, h));
    heatValue.attach((t, type, h) => this.listen(t, type, h));
    const maps = el('div', { class: 'maps' });
    for (const heat of [heatQuery, heatValue]) {
      const box = el('div', { class: 'figure map' });
      box.append(heat.element);
      maps.append(box);
    }
    const mapsNote = el('p', { class: 'caption' });
    mapsNote.append(
      subscripted(
        'Cells below zero take the negative colour and cells above zero the positive colour, at full strength from ±1. Ideal maps: an identity block on the request rows for R·W_q and on the payload rows for R·W_v, zeros everywhere else.',
      ),
    );

    const table = el('table', { class: 'results' });
    const resultsCaption = table.createCaption();
    const head = table.createTHead().insertRow();
    head.append(el('td'), el('th', { scope: 'col' }, 'this run'), el('th', { scope: 'col' }, 'draft (PyTorch)'));
    const body = table.createTBody();
    this.resultCells = [];
    this.draftCells = [];
    for (const label of ['Held-out prediction MSE', 'Uniform attention with true values: MSE', 'Smallest query R²', 'Smallest value R²']) {
      const tr = body.insertRow();
      tr.append(el('th', { scope: 'row' }, label));
      this.resultCells.push(tr.insertCell());
      this.draftCells.push(tr.insertCell());
    }
    for (const cell of this.resultCells) cell.className = 'num';
    for (const cell of this.draftCells) cell.className = 'draft';
    const jsonButton = el('button', { type: 'button' }, 'Download results.json');
    this.listen(jsonButton, 'click', () => {
      void this.download('json');
    });
    const resultsBox = el('div', { class: 'scroll' });
    resultsBox.append(table);
    const jsonRow = this.exportControls({ json: false });
    jsonRow.prepend(jsonButton);

    this.body.append(title, intro, fieldset, progress, statusLine, lossFigure, maps, mapsNote, resultsBox, jsonRow);

    this.resizeObserver?.disconnect();
    this.chartMeasured = false;
    this.resizeObserver = new ResizeObserver((entries) => {
      const w = entries[0].contentRect.width;
      if (w > 0 && lossChartWidth(w) !== this.chartWidth) {
        this.chartWidth = lossChartWidth(w);
        this.requestRender();
      }
    });
    this.resizeObserver.observe(lossFigure);

    // autostart: train once, when the figure first comes into view (the reader sees the maps form).
    this.visibility?.disconnect();
    this.visibility = null;
    if (this.autostart && !this.autostarted) {
      this.visibility = new IntersectionObserver((entries) => {
        if (!entries.some((e) => e.isIntersecting) || this.autostarted) return;
        this.autostarted = true;
        this.visibility?.disconnect();
        this.visibility = null;
        // Guarded: a setting made invalid meanwhile (by a script or a shared link) is shown in the widget, not thrown.
        // It replaces the opening run (under way or ended): the reader watches the maps form.
        if (this.isConnected && (this.training.status === 'idle' || this.opening)) this.guard(() => this.train());
      });
      this.visibility.observe(this);
    }
    return {
      heatQuery,
      heatValue,
      paceBox,
      inputProblem,
      trainButton,
      stopButton,
      progressBar,
      progressText,
      lossSvg,
      resultsCaption,
      jsonButton,
    };
  }

  /**
   * The opening run starts with the element, not at its first render: behind a still the figure
   * renders only once that run has ended. Settings the attributes make invalid start nothing: the
   * render says what is wrong (and the still gives way to it).
   */
  protected afterBuild(): void {
    this.settingsInvalid = false;
    if (!this.opensNow()) return;
    try {
      this.startTraining(true);
    } catch (err) {
      if (!(err instanceof WidgetInputError)) throw err;
      this.settingsInvalid = true;
    }
  }

  /**
   * Whether the opening run is due: no run has ended yet and none is under way (the element is new,
   * or it left the page during its opening run, which ended that run's worker).
   */
  private opensNow(): boolean {
    const s = this.training.status;
    return !this.lastRun && (s === 'idle' || (s === 'stopped' && this.opening));
  }

  /** A run is under way (its chart and maps are drawn as it goes, its results when it ends). */
  get busy(): boolean {
    return this.training.status === 'training';
  }

  /** The still (the opening run's result) stays until the opening run has ended; a run the reader started replaces it at once. */
  protected snapshotReplaceable(): boolean {
    const s = this.training.status;
    return s === 'idle' ? this.settingsInvalid : !(s === 'training' && this.opening);
  }

  /** A settings input changed: valid values become the attribute; invalid ones are flagged beside the inputs. */
  private onInput(c: Control, input: HTMLInputElement): void {
    const raw = input.value.trim();
    const value = Number(raw);
    const ok = raw !== '' && Number.isFinite(value) && value >= c.min && value <= c.max && (!c.integer || Number.isInteger(value));
    setAttributeIfChanged(input, 'aria-invalid', String(!ok));
    if (!ok) {
      this.parts.inputProblem.textContent = `${c.label} must be ${c.integer ? 'an integer' : 'a number'} from ${c.min} to ${c.max}; the last valid value (${this.settingOf(c.attr)}) is kept.`;
      return;
    }
    setText(this.parts.inputProblem, '');
    setNumberAttribute(this, c.attr, value);
    this.emitChange();
  }

  protected render(): void {
    const settings = this.settings;
    const pace = this.pace;
    // The opening run (once the settings are valid: a fixed attribute starts it too).
    if (this.opensNow()) this.startTraining(true);
    for (const c of CONTROLS) {
      const input = this.inputs.get(c.attr)!;
      if (input.getAttribute('aria-invalid') !== 'true' && this.root.activeElement !== input) {
        const value = String(this.settingOf(c.attr));
        if (input.value !== value) input.value = value;
      }
    }
    // Every input renders (a typed setting changes none of what follows): each text and attribute is
    // written only when it changes, since a text set again lays out its line (widgets/chart/text.ts).
    if (this.parts.paceBox.checked !== (pace === 'watch')) this.parts.paceBox.checked = pace === 'watch';
    const training = this.training.status === 'training';
    setText(this.parts.trainButton, this.training.status === 'idle' ? 'Train' : 'Restart');
    if (this.parts.stopButton.disabled !== !training) this.parts.stopButton.disabled = !training;

    const done = this.losses.length;
    if (this.parts.progressBar.max !== this.runSteps) this.parts.progressBar.max = this.runSteps;
    if (this.parts.progressBar.value !== done) this.parts.progressBar.value = done;
    const last = done ? this.losses[done - 1] : NaN;
    setText(
      this.parts.progressText,
      this.training.status === 'idle'
        ? `Press Train to run ${settings.steps} steps.`
        : `step ${done} of ${this.runSteps}${done ? ` · loss ${formatMagnitude(last)}` : ''}${this.training.status === 'failed' ? ` · failed: ${this.training.failure}` : ''}`,
    );

    if (!this.chartMeasured) {
      this.chartMeasured = true;
      const [w] = this.measureOnce([this.parts.lossSvg.parentElement!]);
      if (w > 0) this.chartWidth = lossChartWidth(w);
    }
    const colours = this.themeColours();
    // The curve changes only with a new loss, a new run, the chart's width or the theme: an input
    // that changes none (a typed setting) does not rebuild its 1,200-point scene.
    const lossKey = [this.losses, done, this.runSteps, this.chartWidth, colours, this.lastRun?.settings.seed ?? this.seed] as const;
    if (!this.lossDrawn || lossKey.some((v, i) => !Object.is(v, this.lossDrawn![i]))) {
      drawSceneInto(this.parts.lossSvg, this.figure('loss'), { reuse: true });
      this.lossDrawn = lossKey;
    }
    setAttributeIfChanged(
      this.parts.lossSvg,
      'aria-label',
      done
        ? `Training loss on a log scale: ${formatMagnitude(this.losses[0])} at step 1, ${formatMagnitude(last)} at step ${done}.`
        : 'Training loss on a log scale: no steps yet.',
    );
    this.parts.heatQuery.update(this.responseQuery, colours);
    this.parts.heatValue.update(this.responseValue, colours);
    this.renderResults();
  }

  private renderResults(): void {
    const r = this.lastRun;
    const seed = r?.settings.seed ?? this.seed;
    setText(
      this.parts.resultsCaption,
      r
        ? `Held-out evaluation on ${r.settings.eval_size} examples after ${r.steps_done} steps (seed ${seed})${r.partial ? ` — a partial run: stopped at step ${r.steps_done} of ${r.settings.steps}; the exported results.json says "partial": true` : ''}`
        : 'Held-out evaluation (train to fill in this run)',
    );
    const mine = r
      ? [
          magnitudeCell(r.heldout_mse),
          plainCell(r.uniform_attention_mse, 3),
          r2Cell(Math.min(...r.query_r2)),
          r2Cell(Math.min(...r.value_r2)),
        ]
      : [null, null, null, null];
    const exact = r ? [r.heldout_mse, r.uniform_attention_mse, Math.min(...r.query_r2), Math.min(...r.value_r2)] : [];
    mine.forEach((text, i) => {
      const cell = this.resultCells[i];
      setText(cell, text ?? '—');
      if (r) {
        setAttributeIfChanged(cell, 'data-value', String(exact[i]));
        setAttributeIfChanged(cell, 'title', String(exact[i]));
      } else {
        delete cell.dataset.value;
        cell.removeAttribute('title');
      }
    });
    const draft = DRAFT_PUBLISHED.seeds.find((s) => s.seed === seed);
    const draftTexts = draft
      ? [magnitudeCell(draft.heldout_mse), plainCell(draft.uniform_attention_mse, 3), draft.min_r2, draft.min_r2]
      : ['no published run for this seed', '', '', ''];
    draftTexts.forEach((text, i) => setText(this.draftCells[i], text));
    if (this.parts.jsonButton.disabled !== (r === null)) this.parts.jsonButton.disabled = r === null;
  }
}

function magnitudeCell(x: number): string {
  return formatMagnitude(x);
}

function plainCell(x: number, digits: number): string {
  return formatNumber(x, digits);
}

/** R² in words a reader expects: "1" only when exact, "above 1 − 10⁻¹⁵" when within rounding of it. */
function r2Cell(x: number): string {
  return formatNearOne(x, 6);
}

export interface HeadlabFeatureRecovery extends AttributeProperties<typeof HeadlabFeatureRecovery.attributes> {}
