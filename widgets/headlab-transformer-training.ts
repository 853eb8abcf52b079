// <headlab-transformer-training model="induction" seed="0" steps="1800">: trains the induction task's
// default attention-only transformer (core/induction_task.hpp: 2 layers × 4 heads, d_model 32,
// n_ctx 24, d_vocab 32) in a Web Worker (worker task "transformer-train") while the reader watches:
//   - "Loss": the training loss of the last step of each chunk and the in-context loss (mean next-token
//     loss on the repeated half of 16 repeated random sequences), in nats, against the step, with
//     ln d_vocab (a uniform guess) as a dashed line;
//   - "Head scores": each head's previous-token score (attention from p to p − 1) and induction score
//     (attention to the token after the previous occurrence of the current token), both attention
//     masses in [0, 1], one line per head (colour = head, dashes = layer), with 0.4 marked;
//   - the phase change: the first step at which the best head's induction score passes 0.4, as a
//     vertical line on both charts and in the text. The scores come every 50 steps on 16 sequences from
//     the run's seed — exactly what `headlab model train` checks, so the step is the CLI's.
// When the run ends (or is stopped) the trained weights (model.json text + safetensors bytes) are handed
// to the page's <headlab-transformer-model id="…"> named by `model`, through its useModel(), so every
// figure reading that element shows the model just trained.
//
// Before any run the charts show a recorded run: `history` names the JSON file `headlab model train
// --history-out` wrote beside the shipped model (TrainingHistory in formats/transformer.d.ts), the same
// points the worker reports. A run of the reader's is drawn over it; the recorded run stays behind it,
// faint (in-context loss and best induction/previous-token score), so the two can be compared.
//
// Attributes (mirrored by properties): model (id of the source element; none: the run is only plotted),
// seed (default 0, integer in [0, 2⁵³ − 1]), steps (default 1800, the core's kInductionDefaultSteps; integer in [50, 20000]), history (a
// recorded run's JSON file, at most MAX_HISTORY_BYTES; none: the charts are empty until a run).
// Events: `change` (bubbling) with TransformerTrainingState when a setting changes or a run ends.
// Bound values (<headlab-value source="<this id>">): phase_change_step, steps_taken, loss_start/end
// (in-context loss, nats), induction.best (attention mass) of the run on screen (the reader's, else the
// recorded one); undefined while neither has produced them.
import type { TransformerTrainTaskProgress, TransformerTrainTaskResult } from '../web/headlab-core.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  HeadlabElement,
  integer,
  MAX_SEED,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { INDUCTION_DEFAULT_STEPS } from './base/core-limits.js';
import { TrainingJob, type TrainingStatus } from './base/training-job.js';
import { BodyTooLarge, download, fileUrl } from './base/download.js';
import { MAX_HISTORY_BYTES, parseTrainingHistory, type RecordedRun, type TrainingTracePoint } from './transformer/training-history.js';
export { MAX_HISTORY_BYTES, parseTrainingHistory, type RecordedRun, type TrainingTracePoint };
import { formatCount, formatNumber, formatPercent, type BoundValue } from './chart/format.js';
import { niceTicks, stepAxisShapes } from './chart/loss-curve.js';
import { rgbText, type ResolvedColours } from './chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';

export type TransformerTrainingStatus = TrainingStatus;

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

/** What the source element offers the training widget (widgets/headlab-transformer-model.ts). */
export interface TrainedModelSink extends Element {
  useModel(model: { config: string; safetensors: Uint8Array; label: string }): unknown;
}

/** The largest entry of an L × H score matrix. */
function best(m: number[][]): number {
  return Math.max(...m.flat());
}

/** The induction score the phase change is said to pass (the CLI's threshold). */
export const PHASE_CHANGE_SCORE = 0.4;
/** Steps per progress message: the CLI's score interval, so the phase-change step is the CLI's. */
export const CHUNK_STEPS = 50;
/** Head colours (Okabe–Ito); layers are told apart by dashes. */
const HEAD_COLOURS = ['#e69f00', '#56b4e9', '#009e73', '#cc79a7', '#d55e00', '#0072b2', '#f0e442', '#999999'];
const LAYER_DASHES: (number[] | undefined)[] = [[5, 3], undefined, [1.5, 2.5], [8, 3, 2, 3]];

const MARGIN = { left: 56, right: 12, top: 26, bottom: 36 };

/** The first trace step at which the largest induction score exceeds PHASE_CHANGE_SCORE, or null. */
export function phaseChangeStep(trace: readonly TrainingTracePoint[]): number | null {
  for (const p of trace) if (Math.max(...p.induction.flat()) > PHASE_CHANGE_SCORE) return p.step;
  return null;
}

interface Series {
  label: string;
  colour: string;
  dash?: number[];
  values: number[];
}

/** A line chart over steps [0, steps] as a Scene: y from 0 to yMax, optional dashed reference lines and the phase-change marker. */
export function stepChartScene(o: {
  title: string;
  yLabel: string;
  steps: number;
  xs: number[];
  series: Series[];
  yMax: number;
  width: number;
  height: number;
  colours: ResolvedColours;
  references?: { y: number; label: string }[];
  marker?: number | null;
}): Scene {
  const c = o.colours;
  const fg = rgbText(c.fg),
    muted = rgbText(c.muted),
    rule = rgbText(c.rule);
  const plotW = o.width - MARGIN.left - MARGIN.right,
    plotH = o.height - MARGIN.top - MARGIN.bottom;
  const x = (s: number) => MARGIN.left + (s / Math.max(1, o.steps)) * plotW;
  const y = (v: number) => MARGIN.top + (1 - Math.max(0, Math.min(o.yMax, v)) / o.yMax) * plotH;
  const shapes: Shape[] = [{ kind: 'text', x: MARGIN.left, y: 11, text: o.title, fill: fg, size: 13, weight: 'bold' }];
  for (const t of niceTicks(o.yMax, 4)) {
    shapes.push({ kind: 'line', x1: MARGIN.left, y1: y(t), x2: MARGIN.left + plotW, y2: y(t), stroke: rule, width: 1 });
    shapes.push({ kind: 'text', x: MARGIN.left - 5, y: y(t), text: formatNumber(t, 2), fill: muted, size: 11, anchor: 'end' });
  }
  shapes.push(...stepAxisShapes({ ...MARGIN, plotW, plotH, width: o.width, steps: o.steps, x, label: formatCount, muted }));
  shapes.push({
    kind: 'text',
    x: MARGIN.left + plotW / 2,
    y: o.height - 7,
    text: 'training step',
    fill: muted,
    size: 11,
    anchor: 'middle',
  });
  shapes.push({ kind: 'text', x: 10, y: MARGIN.top + plotH / 2, text: o.yLabel, fill: muted, size: 11, anchor: 'middle', rotate: -90 });
  for (const r of o.references ?? []) {
    shapes.push({ kind: 'line', x1: MARGIN.left, y1: y(r.y), x2: MARGIN.left + plotW, y2: y(r.y), stroke: muted, width: 1, dash: [4, 4] });
    // Below its line: above it, at the top of the loss chart, it would meet the phase-change label.
    shapes.push({ kind: 'text', x: MARGIN.left + plotW - 2, y: y(r.y) + 9, text: r.label, fill: muted, size: 11, anchor: 'end' });
  }
  if (o.marker !== null && o.marker !== undefined) {
    const mx = x(o.marker);
    shapes.push({
      kind: 'line',
      x1: mx,
      y1: MARGIN.top,
      x2: mx,
      y2: MARGIN.top + plotH,
      stroke: rgbText(c.focus),
      width: 1.5,
      dash: [2, 3],
    });
    const right = mx > MARGIN.left + plotW * 0.6;
    shapes.push({
      kind: 'text',
      x: right ? mx - 4 : mx + 4,
      y: MARGIN.top + 8,
      text: `phase change: step ${formatCount(o.marker)}`,
      fill: rgbText(c.focus),
      size: 11,
      anchor: right ? 'end' : 'start',
    });
  }
  for (const s of o.series) {
    const points: [number, number][] = [];
    s.values.forEach((v, i) => {
      if (Number.isFinite(v)) points.push([x(o.xs[i]), y(v)]);
    });
    if (points.length) shapes.push({ kind: 'polyline', points, stroke: s.colour, width: 1.6, ...(s.dash ? { dash: s.dash } : {}) });
  }
  return { width: o.width, height: o.height, background: rgbText(c.panel), title: o.title, shapes };
}

/** The parts build() makes (this.parts). */
/** The charts' width for a box `w` px wide (drawn at their own size, 260 … 560 px). */
const chartWidthFor = (w: number): number => Math.max(260, Math.min(560, Math.round(w)));

interface TransformerTrainingParts {
  seedField: { show: (text: string) => void };
  stepsField: { show: (text: string) => void };
  trainButton: HTMLButtonElement;
  stopButton: HTMLButtonElement;
  bar: HTMLProgressElement;
  progressText: HTMLSpanElement;
  lossSvg: SVGSVGElement;
  prevSvg: SVGSVGElement;
  indSvg: SVGSVGElement;
  legend: HTMLUListElement;
  historyLine: HTMLParagraphElement;
}

/**
 * Trains the induction task's default transformer in the worker (task transformer-train), plotting the loss, the
 * in-context loss and every head's previous-token and induction scores every 50 steps, the phase change marked;
 * hands the result to the <headlab-transformer-model> named by `model` (its useModel()).
 * Attributes: model (element id), seed (integer in [0, 2^53 − 1], default 0), steps (integer in [50, 20000], default 1800, the core's default run), history (the URL of the JSON `headlab model train --history-out` wrote: the charts show that recorded run before any run of the reader's). Shared: seed, steps.
 */
export class HeadlabTransformerTraining extends HeadlabElement<TransformerTrainingState, TransformerTrainingParts> {
  static attributes = defineAttributes({
    model: text({ doc: 'Id of the <headlab-transformer-model> the trained model is shown in.' }),
    seed: integer({ fallback: 0, min: 0, max: MAX_SEED, shared: true, doc: 'Seed of the run.' }),
    steps: integer({
      fallback: INDUCTION_DEFAULT_STEPS,
      min: 50,
      max: 20000,
      shared: true,
      doc: 'Training steps (default the core’s run).',
    }),
    history: text({
      doc: 'A recorded run (the JSON `headlab model train --history-out` wrote): the charts show it before any run of the reader’s.',
    }),
  });
  protected static needsCore = false;
  protected static css = /* css */ `
    .row label { display: inline-flex; gap: 0.4rem; align-items: center; }
    .row input[type="number"] { width: 6.5em; text-align: left; }
    progress { width: 10rem; height: 1rem; accent-color: var(--hl-focus); }
    .progress-text { font-variant-numeric: tabular-nums; font-size: 0.9em; }
    /* A grid, not a wrapping flex row: a chart alone on the last row keeps its column's width
       instead of stretching (with the text in it) to the whole figure. */
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 16rem), 1fr)); gap: 0.5rem 1rem; margin-top: 0.5rem; }
    .chart { min-width: 0; }
    .chart svg { display: block; width: 100%; height: auto; }
    .legend { display: flex; flex-wrap: wrap; gap: 0.2rem 0.9rem; font-size: 0.9em; margin: 0.3rem 0 0; padding: 0; list-style: none; }
    .legend svg { vertical-align: middle; margin-right: 0.3rem; }
    .input-problem { color: var(--hl-bad); font-size: 0.9em; margin: 0.2rem 0 0; }
  `;

  private readonly training = new TrainingJob(
    this,
    (text) => this.announce(text),
    () => this.requestRender(),
  );
  private trace: TrainingTracePoint[] = [];
  private runSteps = INDUCTION_DEFAULT_STEPS;
  private runSeed = 0;
  /**
   * The charts' width in CSS px: the loss chart's box's (260 … 560; 360 when not laid out), read
   * once at the first render (chartMeasured) so the first drawing is at the shown width, then
   * kept by a ResizeObserver, so no later redraw forces a layout.
   */
  private chartWidth = 360;
  private chartMeasured = false;
  private resizeObserver: ResizeObserver | null = null;
  private lastResult: TransformerTrainTaskResult | null = null;
  private recorded: RecordedRun | null = null;
  private recordedFrom = '';
  private historyProblem = '';

  /** The recorded run read from `history` (null before it has arrived, without the attribute, or on a bad file). */
  get recordedRun(): RecordedRun | null {
    return this.recorded;
  }
  get trainingStatus(): TransformerTrainingStatus {
    return this.training.status;
  }
  /** The progress messages of the current or last run (step 0 first). */
  get trainingTrace(): readonly TrainingTracePoint[] {
    return this.trace;
  }
  /** The files of the last finished or stopped run (model.json text, safetensors bytes), or null. */
  get result(): TransformerTrainTaskResult | null {
    return this.lastResult;
  }

  protected readState(): TransformerTrainingState {
    const last = this.trace[this.trace.length - 1];
    return {
      status: this.training.status,
      seed: this.seed,
      steps: this.steps,
      steps_taken: last?.step ?? 0,
      phase_change_step: phaseChangeStep(this.trace),
      trace: this.trace,
    };
  }

  /** Figures of the current or last run: phase_change_step (count), steps_taken, loss_start, loss_end (nats), induction.best. */
  boundValue(name: string): BoundValue | undefined {
    const trace = this.shown().trace;
    const first = trace[0],
      last = trace[trace.length - 1];
    if (!last) return undefined;
    switch (name) {
      case 'phase_change_step': {
        const s = phaseChangeStep(trace);
        return s === null ? undefined : { value: s, kind: 'count' };
      }
      case 'steps_taken':
        return { value: last.step, kind: 'count' };
      case 'loss_start':
        return { value: first.in_context_loss, kind: 'loss' };
      case 'loss_end':
        return { value: last.in_context_loss, kind: 'loss' };
      case 'induction.best':
        return { value: Math.max(...last.induction.flat()), kind: 'fraction' };
      default:
        return undefined;
    }
  }

  /** The run on screen: the reader's once it has a point, else the recorded one (else nothing). */
  private shown(): { trace: TrainingTracePoint[]; steps: number; seed: number; recorded: boolean } {
    if (this.trace.length > 0 || !this.recorded) return { trace: this.trace, steps: this.runSteps, seed: this.runSeed, recorded: false };
    return { trace: this.recorded.trace, steps: this.recorded.steps, seed: this.recorded.seed, recorded: true };
  }

  /** Reads the file named by `history` (again when the attribute changes). */
  private loadHistory(): void {
    const name = this.history.trim();
    if (name === this.recordedFrom) return;
    this.recordedFrom = name;
    this.recorded = null;
    this.historyProblem = '';
    if (name === '') return;
    if (!/\.json$/i.test(name.replace(/[?#].*$/, '')) || name.length > 2048) {
      this.historyProblem = `attribute history="${name}" must name a .json file (e.g. history="model-training.json")`;
      return;
    }
    download(fileUrl(name), { maxBytes: MAX_HISTORY_BYTES, timeoutS: 30 }).then(
      (bytes) => {
        if (this.recordedFrom !== name) return;
        try {
          this.recorded = parseTrainingHistory(new TextDecoder().decode(bytes), name);
        } catch (err) {
          this.historyProblem = (err as Error).message;
        }
        this.requestRender();
        this.emitChange();
      },
      (err: unknown) => {
        if (this.recordedFrom !== name) return;
        const why =
          err instanceof BodyTooLarge
            ? `it is larger than ${formatCount(MAX_HISTORY_BYTES)} bytes, the limit`
            : err instanceof Error
              ? err.message
              : String(err);
        this.historyProblem = `history file ${name} could not be read (${why}); the charts stay empty until a run`;
        this.requestRender();
      },
    );
  }

  /** Starts a run with the current seed and steps (stopping one in progress). */
  train(): void {
    const settings = { seed: this.seed, steps: this.steps };
    this.trace = [];
    this.lastResult = null;
    this.runSteps = settings.steps;
    this.runSeed = settings.seed;
    this.announce(`Training from seed ${settings.seed}: ${formatCount(settings.steps)} steps in a background worker…`);
    this.training.start<TransformerTrainTaskResult>(
      'transformer-train',
      { settings, chunk: CHUNK_STEPS },
      {
        progress: (d) => {
          const p = d as unknown as TransformerTrainTaskProgress;
          const before = phaseChangeStep(this.trace);
          this.trace.push({
            step: p.steps_taken,
            loss: p.loss,
            in_context_loss: p.in_context_loss,
            previous_token: p.previous_token,
            induction: p.induction,
          });
          const now = phaseChangeStep(this.trace);
          if (before === null && now !== null)
            this.announce(`Phase change at step ${formatCount(now)}: an induction score passed ${PHASE_CHANGE_SCORE}.`);
          this.requestRender();
          this.emitChange();
        },
        done: ({ value, stopped }) => {
          this.lastResult = value;
          const taken = value.progress.steps_taken;
          const label = `seed ${settings.seed}, ${stopped ? `stopped at step ${formatCount(taken)} of ${formatCount(settings.steps)}` : `${formatCount(taken)} steps`}, trained in this page`;
          const change = phaseChangeStep(this.trace);
          const summary = `${stopped ? 'Stopped' : 'Finished'} after ${formatCount(taken)} steps; ${change === null ? `no induction score passed ${PHASE_CHANGE_SCORE}` : `phase change at step ${formatCount(change)}`}.`;
          this.announce(summary);
          this.handOver(value, label).then(
            (handed) => {
              if (handed) this.announce(`${summary} Every figure tied to the model now shows this one.`);
            },
            (err: unknown) =>
              this.announce(`${summary} The trained model could not be shown: ${err instanceof Error ? err.message : String(err)}`),
          );
          this.requestRender();
          this.emitChange();
        },
      },
    );
    this.requestRender();
  }

  /** Asks the run to stop at the next chunk (≤ 50 steps); the weights so far still go to the model. */
  stop(): void {
    if (this.training.stop()) this.announce('Stopping…');
  }

  /**
   * The source element named by `model`: null without the attribute, or while its tag is not yet
   * defined (the page's scripts may register it after this one); a clear error for a missing id or an
   * element that cannot take a model.
   */
  private sink(): TrainedModelSink | null {
    if (!this.model) return null;
    const found = document.getElementById(this.model);
    if (!found) throw new WidgetInputError(`model="${this.model}" names no element on this page`);
    if (typeof (found as unknown as Partial<TrainedModelSink>).useModel === 'function') return found as unknown as TrainedModelSink;
    if (found.localName.includes('-') && !customElements.get(found.localName)) return null;
    throw new WidgetInputError(`model="${this.model}" is a <${found.localName}>, not a <headlab-transformer-model>`);
  }

  /** Hands the run's files to the source element (once its tag is defined). */
  private async handOver(files: TransformerTrainTaskResult, label: string): Promise<boolean> {
    if (!this.model) return false;
    const found = document.getElementById(this.model);
    if (found && found.localName.includes('-')) await customElements.whenDefined(found.localName);
    const sink = this.sink();
    if (!sink) return false;
    await sink.useModel({ config: files.config, safetensors: files.safetensors, label });
    return true;
  }

  figures(): WidgetFigure[] {
    return (
      [
        ['loss', 'Loss'],
        ['previous-token', 'Previous-token scores'],
        ['induction', 'Induction scores'],
      ] as const
    ).map(([name, label]) => ({ name, label, scene: () => this.figure(name) }));
  }

  protected fileStem(): string {
    return `induction-training-seed${this.runSeed}`;
  }

  /**
   * A figure as drawn now.
   * @internal
   */
  figure(name: 'loss' | 'previous-token' | 'induction'): Scene {
    const colours = this.themeColours();
    const shown = this.shown();
    const trace = shown.trace;
    // Behind the reader's run, the recorded one, faint: its in-context loss, or its best head's score.
    const behind = !shown.recorded && this.recorded ? this.recorded : null;
    const steps = Math.max(shown.steps, behind?.steps ?? 0);
    const faint = (values: number[]): Series[] => (behind ? [{ label: 'recorded run', colour: rgbText(colours.rule), values }] : []);
    const xs = [...(behind ? behind.trace.map((p) => p.step) : []), ...trace.map((p) => p.step)];
    // Each series is padded to the joint xs: the faint one takes the first part, the run's the rest.
    const pad = (values: number[], own: 'behind' | 'run') =>
      own === 'behind' ? [...values, ...trace.map(() => NaN)] : [...(behind ? behind.trace.map(() => NaN) : []), ...values];
    const marker = phaseChangeStep(trace);
    const common = { steps, xs, width: this.chartWidth, height: 230, colours, marker };
    if (name === 'loss') {
      const vocab = Math.log(32);
      const yMax = Math.max(4, ...trace.map((p) => p.loss).filter(Number.isFinite), ...trace.map((p) => p.in_context_loss));
      return stepChartScene({
        ...common,
        title: `Loss, seed ${shown.seed}${shown.recorded ? ', recorded' : ''}`,
        yLabel: 'loss (nats)',
        yMax: Math.ceil(yMax),
        references: [{ y: vocab, label: 'ln 32: a uniform guess' }],
        series: [
          ...faint(pad(behind?.trace.map((p) => p.in_context_loss) ?? [], 'behind')),
          {
            label: 'training loss (last step of each 50)',
            colour: rgbText(colours.muted),
            values: pad(
              trace.map((p) => p.loss),
              'run',
            ),
          },
          {
            label: 'in-context loss',
            colour: rgbText(colours.focus),
            values: pad(
              trace.map((p) => p.in_context_loss),
              'run',
            ),
          },
        ],
      });
    }
    const key = name === 'induction' ? 'induction' : 'previous_token';
    const series: Series[] = [...faint(pad(behind?.trace.map((p) => best(p[key])) ?? [], 'behind'))];
    const shape = trace[0]?.[key] ?? [];
    shape.forEach((row, l) =>
      row.forEach((_, h) =>
        series.push({
          label: `head ${l}.${h}`,
          colour: HEAD_COLOURS[h % HEAD_COLOURS.length],
          dash: LAYER_DASHES[l % LAYER_DASHES.length],
          values: pad(
            trace.map((p) => p[key][l][h]),
            'run',
          ),
        }),
      ),
    );
    return stepChartScene({
      ...common,
      series,
      yMax: 1,
      yLabel: 'attention mass',
      title: name === 'induction' ? 'Induction score of each head' : 'Previous-token score of each head',
      references: name === 'induction' ? [{ y: PHASE_CHANGE_SCORE, label: String(PHASE_CHANGE_SCORE) }] : [],
    });
  }

  protected summarize(): string {
    const shown = this.shown();
    const last = shown.trace[shown.trace.length - 1];
    if (!last)
      return this.training.status === 'failed'
        ? `Training failed: ${this.training.failure}`
        : `Not trained yet: press Train to run ${formatCount(this.steps)} steps from seed ${this.seed}.`;
    const first = shown.trace[0];
    const top = (m: number[][]) => {
      let b = { l: 0, h: 0, v: -Infinity };
      m.forEach((r, l) =>
        r.forEach((v, h) => {
          if (v > b.v) b = { l, h, v };
        }),
      );
      return b;
    };
    const ind = top(last.induction),
      prev = top(last.previous_token);
    const change = phaseChangeStep(shown.trace);
    return (
      (shown.recorded ? `The run that made the shipped model (press Train to run one live): ` : '') +
      `Step ${formatCount(last.step)} of ${formatCount(shown.steps)} (seed ${shown.seed}): in-context loss ${formatNumber(first.in_context_loss, 2)} nats at step 0 and ${formatNumber(last.in_context_loss, 2)} now; ` +
      `best induction score ${formatPercent(ind.v)} (L${ind.l} H${ind.h}), best previous-token score ${formatPercent(prev.v)} (L${prev.l} H${prev.h}); ` +
      (change === null
        ? `no induction score has passed ${PHASE_CHANGE_SCORE} yet.`
        : `the phase change (an induction score above ${PHASE_CHANGE_SCORE}) came at step ${formatCount(change)}.`)
    );
  }

  disconnectedCallback(): void {
    this.training.dispose();
    this.resizeObserver?.disconnect();
    this.resizeObserver = null;
    super.disconnectedCallback();
  }

  protected build(): TransformerTrainingParts {
    const integerField = (
      input: HTMLInputElement,
      label: string,
      min: number,
      max: number,
      commit: (v: number) => void,
      current: () => number,
    ) =>
      this.bindField(input, {
        label,
        message: problem,
        parse: (text) => {
          const v = Number(text);
          if (!/^[0-9]+$/.test(text.trim()) || !Number.isInteger(v) || v < min || v > max) {
            throw new WidgetInputError(`${label} must be an integer from ${formatCount(min)} to ${formatCount(max)}, got "${text}"`);
          }
          return v;
        },
        commit: (v) => {
          commit(v);
          this.emitChange();
        },
        current: () => String(current()),
      });
    const problem = el('p', { class: 'input-problem', role: 'status' });
    const seedInput = el('input', { type: 'number', min: '0', max: String(MAX_SEED), step: '1', name: 'seed', inputmode: 'numeric' });
    const stepsInput = el('input', { type: 'number', min: '50', max: '20000', step: '50', name: 'steps', inputmode: 'numeric' });
    const seedField = integerField(
      seedInput,
      'the seed',
      0,
      MAX_SEED,
      (v) => {
        this.seed = v;
      },
      () => this.seed,
    );
    const stepsField = integerField(
      stepsInput,
      'the number of steps',
      50,
      20000,
      (v) => {
        this.steps = v;
      },
      () => this.steps,
    );
    const seedLabel = el('label', {}, 'Seed');
    seedLabel.append(seedInput);
    const stepsLabel = el('label', {}, 'Steps');
    stepsLabel.append(stepsInput);
    const trainButton = el('button', { type: 'button', class: 'primary' }, 'Train');
    const stopButton = el('button', { type: 'button' }, 'Stop');
    this.listen(trainButton, 'click', () => this.train());
    this.listen(stopButton, 'click', () => this.stop());
    const bar = el('progress', { max: '1', value: '0', 'aria-label': 'Training progress' });
    const progressText = el('span', { class: 'progress-text' });
    const settings = el('div', { class: 'row controls' });
    settings.append(seedLabel, stepsLabel, trainButton, stopButton);
    const progress = el('div', { class: 'row controls' });
    progress.append(bar, progressText);
    const statusLine = this.statusRegion();

    const chart = (label: string) => {
      const box = el('div', { class: 'chart' });
      const svg = svgEl('svg', { role: 'img', 'aria-label': label });
      box.append(svg);
      return { box, svg };
    };
    const loss = chart('Training loss and in-context loss against the step');
    const prev = chart('Previous-token score of each head against the step');
    const ind = chart('Induction score of each head against the step');
    const lossSvg = loss.svg;
    const prevSvg = prev.svg;
    const indSvg = ind.svg;
    const charts = el('div', { class: 'charts' });
    charts.append(loss.box, prev.box, ind.box);
    const legend = el('ul', { class: 'legend', 'aria-label': 'Line styles' });
    const historyLine = el('p', { class: 'input-problem', role: 'alert' });

    this.body.append(
      el('p', { class: 'title' }, 'Train the model in your browser'),
      settings,
      problem,
      progress,
      statusLine,
      historyLine,
      charts,
      legend,
      this.exportControls({ jsonLabel: 'Training state and trace (JSON)' }),
    );

    this.resizeObserver?.disconnect();
    this.chartMeasured = false;
    this.resizeObserver = new ResizeObserver((entries) => {
      const w = entries[0].contentRect.width;
      if (w > 0 && chartWidthFor(w) !== this.chartWidth) {
        this.chartWidth = chartWidthFor(w);
        this.requestRender();
      }
    });
    this.resizeObserver.observe(loss.box);
    return { seedField, stepsField, trainButton, stopButton, bar, progressText, lossSvg, prevSvg, indSvg, legend, historyLine };
  }

  protected render(): void {
    this.sink(); // a wrong model="…" is shown at once, not after a whole run
    this.loadHistory();
    this.parts.historyLine.textContent = this.historyProblem;
    this.parts.historyLine.hidden = this.historyProblem === '';
    this.parts.seedField.show(String(this.seed));
    this.parts.stepsField.show(String(this.steps));
    const training = this.training.status === 'training';
    this.parts.trainButton.textContent = this.training.status === 'idle' ? 'Train' : 'Train again';
    this.parts.stopButton.disabled = !training;
    const last = this.trace[this.trace.length - 1];
    this.parts.bar.max = this.runSteps;
    this.parts.bar.value = last?.step ?? 0;
    const recorded = this.shown().recorded ? this.recorded : null;
    this.parts.progressText.textContent =
      this.training.status === 'idle'
        ? recorded
          ? `Shown: the run that made the shipped model (seed ${recorded.seed}, ${formatCount(recorded.steps)} steps). Train runs ${formatCount(this.steps)} steps live.`
          : `${formatCount(this.steps)} steps in a background worker`
        : `step ${formatCount(last?.step ?? 0)} of ${formatCount(this.runSteps)}${last ? ` · in-context loss ${formatNumber(last.in_context_loss, 3)} nats` : ''}${this.training.status === 'failed' ? ` · failed: ${this.training.failure}` : ''}`;
    if (!this.chartMeasured) {
      this.chartMeasured = true;
      const [w] = this.measureOnce([this.parts.lossSvg.parentElement!]);
      if (w > 0) this.chartWidth = chartWidthFor(w);
    }
    drawSceneInto(this.parts.lossSvg, this.figure('loss'), { size: false });
    drawSceneInto(this.parts.prevSvg, this.figure('previous-token'), { size: false });
    drawSceneInto(this.parts.indSvg, this.figure('induction'), { size: false });
    this.renderLegend();
  }

  private renderLegend(): void {
    const c = this.themeColours();
    const first = this.shown().trace[0];
    const layers = first?.induction.length ?? 2,
      heads = first?.induction[0]?.length ?? 4;
    const behind = this.trace.length > 0 && this.recorded !== null;
    const key = `${layers}x${heads} ${rgbText(c.muted)} ${rgbText(c.focus)} ${behind}`;
    if (this.parts.legend.dataset.key === key) return;
    this.parts.legend.dataset.key = key;
    const items: HTMLLIElement[] = [];
    const item = (text: string, colour: string, dash?: number[]) => {
      const svg = svgEl('svg', { width: '26', height: '10', 'aria-hidden': 'true' });
      svg.append(
        svgEl('line', {
          x1: '1',
          y1: '5',
          x2: '25',
          y2: '5',
          stroke: colour,
          'stroke-width': '2',
          ...(dash ? { 'stroke-dasharray': dash.join(' ') } : {}),
        }),
      );
      const li = el('li');
      li.append(svg, text);
      items.push(li);
    };
    item('training loss', rgbText(c.muted));
    item('in-context loss', rgbText(c.focus));
    for (let h = 0; h < heads; h++) item(`head ${h}`, HEAD_COLOURS[h % HEAD_COLOURS.length]);
    for (let l = 0; l < layers; l++) item(`layer ${l}`, rgbText(c.fg), LAYER_DASHES[l % LAYER_DASHES.length]);
    if (behind) item("the shipped model's run (in-context loss, best head)", rgbText(c.rule));
    this.parts.legend.replaceChildren(...items);
  }
}

export interface HeadlabTransformerTraining extends AttributeProperties<typeof HeadlabTransformerTraining.attributes> {}
