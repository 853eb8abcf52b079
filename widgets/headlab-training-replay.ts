// <headlab-training-replay>: a replay of one feature-recovery training run, so the reader
// watches the identity blocks form instead of a finished picture. The worker task
// "feature-recovery-replay" trains in a Web Worker and keeps W_q, W_v, R·W_q, R·W_v and the
// loss at core.featureRecoveryReplaySteps(steps, 48) — step 0, then log-spaced, dense early.
// The figure opens on the finished run at its last snapshot: the run starts as the element does
// (about 0.2 to 0.4 s of the worker's time), and the still the page is prerendered with shows the
// same run, kept on screen until it ends (busy meanwhile), so the live widget takes over with the
// same picture and is never an empty figure in between. A scrubber (and
// "Play slowly") moves through the snapshots; the raw W beside R·W shows why
// the identity appears only in the latent basis. "Break it" buttons rerun with one setting
// changed and end with a one-line lesson whose numbers come from that run; "Draft settings" goes
// back to the run the page opens on (the draft's settings, seed 0).
//
// Every number comes from the core (the worker's trainer and its evaluate()); JS maps values
// to colours and pixels only. A diverged run (non-finite loss or weights) is reported as
// diverged at its step, never as NaN: the core stops training there and the replay keeps
// the snapshots before it; heatmap colours saturate at |value| = 1 (values beyond are marked).
//
// Attributes (mirrored; all but steps are shared in the URL hash):
//   seed (0), steps (1200), learning-rate (0.03), request-scale (1.8) — the draft's settings;
//   learned-keys ("true": K is trained too); keys — the task's four keys as JSON rows (4 × 3,
//   entries in [−10, 10]; default the tetrahedron), which the teacher and the model both use;
//   snapshot — index into the replay (default: the last).
// Bound values (boundValue, for <headlab-value>): heldout_mse, uniform_attention_mse (loss),
//   min_query_r2, min_value_r2 (number), diverged_at, steps_done (count), recovered_coordinates (the
//   three query and three value coordinates whose R² exceeds RECOVERED_R2, as a fraction of 6: with
//   format="count" "all 6" or "2 of 6", so a sentence about recovery follows the run shown).
import { getFeatureRecoveryCore } from '../web/browser-core.js';
import type { FeatureRecoveryCore, FeatureRecoveryExample } from '../web/headlab-core.js';
import { WorkerJobs } from '../web/worker-client.js';
import {
  type AttributeProperties,
  custom,
  defineAttributes,
  el,
  HeadlabElement,
  integer,
  json,
  MAX_SEED,
  number,
  numberGrid,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { formatNearOne, formatNumber, formatScientific, type BoundValue } from './chart/format.js';
import { Memo } from './base/memo.js';
import { finishedRunDecades, lossCurveScene } from './chart/loss-curve.js';
import { rgbText, type ResolvedColours, type Rgb } from './chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import { setAttributeIfChanged, setText } from './chart/text.js';
import { localId } from './base/ids.js';

/** R² above which a coordinate counts as recovered: the draft's published bound (every run above 0.999999). */
export const RECOVERED_R2 = 0.999999;

export interface ReplaySnapshot {
  step: number;
  loss: number | null;
  w_q: Float64Array;
  w_v: Float64Array;
  keys: Float64Array;
  response_query: Float64Array;
  response_value: Float64Array;
  /** Held-out example 0 traced through this snapshot's W_q, W_v, by the core in the worker that trained it. */
  example: FeatureRecoveryExample;
}

export interface ReplayEvaluation {
  heldout_mse: number;
  uniform_attention_mse: number;
  query_r2: number[];
  value_r2: number[];
}

export interface ReplayResult {
  settings: { seed: number; steps: number; learning_rate: number; request_scale: number; learned_keys: boolean };
  steps: number[];
  snapshots: ReplaySnapshot[];
  loss_trace: Float64Array;
  diverged_at: number;
  evaluation: ReplayEvaluation | null;
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

/** The "break it" experiments: attribute sets applied before a rerun (absent = the draft's value). */
export const EXPERIMENTS: Record<string, { label: string; attrs: Record<string, string> }> = {
  draft: { label: 'Draft settings', attrs: {} },
  'small-request': { label: 'Request scale 0.01', attrs: { 'request-scale': '0.01' } },
  'large-lr': { label: 'Learning rate 3', attrs: { 'learning-rate': '3' } },
  // Every key's third coordinate set to 0: a square in the plane q₃ = 0, so no score depends on q₃.
  'flat-keys': { label: 'Keys in a plane', attrs: { keys: '[[1,1,0],[1,-1,0],[-1,1,0],[-1,-1,0]]' } },
  'learned-keys': { label: 'Learned keys', attrs: { 'learned-keys': 'true' } },
};
const EXPERIMENT_ATTRS = ['request-scale', 'learning-rate', 'learned-keys', 'keys'];

const SNAPSHOTS = 48;
/** The four figures of a snapshot, in the order render draws them. */
const FIGURES = ['latent', 'raw', 'loss', 'schematic'] as const;
type Figure = (typeof FIGURES)[number];
/** warmScenes works at most this long per slice (a quarter of a 60 Hz frame) ... */
const WARM_SLICE_MS = 4;
/** ... with this gap between slices, so input and frames are served between them. */
const WARM_GAP_MS = 16;
/** Milliseconds per snapshot in "Play slowly": 48 snapshots in about 20 s. */
const PLAY_MS = 420;
const HEAT_LIMIT = 1;
const ROW_LATENT = ['req 1', 'req 2', 'req 3', 'pay 1', 'pay 2', 'pay 3', 'noise 1', 'noise 2', 'noise 3'];
const ROW_RAW = Array.from({ length: 9 }, (_, k) => `x${'₁₂₃₄₅₆₇₈₉'[k]}`);

/** The parts build() makes (this.parts). */
interface TrainingReplayParts {
  keysField: { show: (text: string) => void };
  scrub: HTMLInputElement;
  keysInput: HTMLTextAreaElement;
  scrubOut: HTMLOutputElement;
  playButton: HTMLButtonElement;
  progressBar: HTMLProgressElement;
  lessonBox: HTMLParagraphElement;
  svgs: Record<'latent' | 'raw' | 'loss' | 'schematic', SVGSVGElement>;
}

/**
 * Feature-recovery training replayed from log-spaced snapshots (R·W_q, R·W_v, raw W_q, W_v, loss), with a
 * scrubber and the "break it" runs. Attributes: seed (0–2³¹−1, default 0), steps (1–20000, default 1200),
 * learning-rate (default 0.03), request-scale (0.01–100, default 1.8), learned-keys ("true"), keys (the task's
 * four keys as JSON rows, 4 × 3, entries in [−10, 10]; absent = the tetrahedron; not with learned-keys), snapshot
 * (index; absent = the last). Shared: seed, learning-rate, request-scale, learned-keys, keys, snapshot.
 */
export class HeadlabTrainingReplay extends HeadlabElement<TrainingReplayState, TrainingReplayParts> {
  static attributes = defineAttributes({
    seed: integer({ fallback: 0, min: 0, max: MAX_SEED, shared: true, doc: 'Seed of the replayed run.' }),
    steps: integer({ fallback: 1200, min: 1, max: 20000, doc: 'Training steps of the replayed run.' }),
    'learning-rate': number({ fallback: 0.03, min: 1e-6, max: 10, shared: true, doc: 'Adam’s learning rate.' }),
    'request-scale': number({ fallback: 1.8, min: 0.01, max: 100, shared: true, doc: 'Scale of the request features.' }),
    'learned-keys': custom({
      type: 'boolean',
      markup: "'true' | 'false'",
      shared: true,
      doc: 'Whether the keys are learned ("true") or fixed ("false", the default).',
      parse: (raw) => {
        if (raw === null || raw === 'false') return false;
        if (raw === 'true' || raw === '') return true;
        throw new WidgetInputError(`attribute learned-keys="${raw}" must be "true" or "false"`);
      },
      format: (v: boolean) => (v ? 'true' : null),
    }),
    keys: json({
      type: 'number[][] | null',
      shared: true,
      doc: 'The task’s keys (JSON rows, 4 × 3, entries in [−10, 10]); absent: the tetrahedron.',
      fallback: null,
      check: (raw): number[][] | null => {
        if (raw === null) return null;
        const g = numberGrid(raw, 'attribute keys', 4, 3);
        for (const row of g)
          for (const x of row) if (!(Math.abs(x) <= 10)) throw new WidgetInputError('attribute keys entries must be between −10 and 10');
        return g;
      },
    }),
    snapshot: integer({
      fallback: null,
      min: 0,
      max: 400,
      shared: true,
      doc: 'Snapshot index shown (clamped to the replay); absent: the last.',
    }),
  });
  protected static loadModule: () => Promise<unknown> = getFeatureRecoveryCore;
  /** The page's headlab_feature_recovery module (null before it has loaded). */
  protected featureRecovery: FeatureRecoveryCore | null = null;

  protected moduleLoaded(module: unknown): void {
    this.featureRecovery = module as FeatureRecoveryCore;
  }

  protected static css = /* css */ `
    .figs { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: flex-start; }
    /* A box at least as wide as the heatmap pair's drawing (310 units): three boxes in a row only
       when each has that room, so no drawing (nor a prerendered one from a narrower window, whose
       boxes stood two in a row) is shrunk below its size; with 280 px, three 287 px boxes drew the
       319 px drawings of two in a row with 12 px text at 10.8 px. */
    .fig { flex: 1 1 310px; max-width: 400px; min-width: 0; }
    .fig.wide { flex-basis: 100%; max-width: 640px; }
    .fig svg { display: block; width: 100%; height: auto; }
    .fig .label { font-weight: 600; margin: 0.2rem 0; }
    .controls { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; margin: 0.5rem 0; }
    .controls input[type="range"] { flex: 1 1 12rem; min-width: 8rem; min-height: 44px; }
    button { min-height: 44px; }
    progress { width: 100%; height: 0.6rem; }
    .lesson { font-weight: 600; min-height: 1.4em; }
    textarea.keys { flex: 1 1 19rem; min-width: 0; max-width: 22rem; min-height: 44px; font: inherit; font-variant-numeric: tabular-nums;
      box-sizing: border-box; padding: 0.45rem 0.4rem; line-height: 1.5; resize: none; overflow: hidden; field-sizing: content; white-space: pre-wrap;
      color: var(--hl-fg); background: var(--hl-control); border: 1px solid var(--hl-rule); border-radius: 4px; }
  `;

  private readonly jobs = new WorkerJobs(this);
  private result: ReplayResult | null = null;
  private status: TrainingReplayState['status'] = 'idle';
  private lastExperiment = 'draft';
  private playTimer = 0;
  /** The colours the kept scenes were drawn in. */
  private scenesColours: ResolvedColours | null = null;
  private experimentButtons: Record<string, HTMLButtonElement> = {};
  private runKey = '';
  /** The task's keys of the finished run (null: the tetrahedron); the worker's settings echo leaves them out. */
  private resultKeys: number[][] | null = null;
  private boxWidths: Partial<Record<'loss' | 'schematic', number>> = {};
  private resizeObserver: ResizeObserver | null = null;
  /** Each snapshot's drawn scenes (never changed once drawn), forgotten when the colours change. */
  private scenes = new WeakMap<ReplaySnapshot, Record<Figure, { width: number; scene: Scene } | null>>();
  /** The pending slice of warmScenes (0: none). */
  private warmTimer = 0;
  /** The lesson of the finished run (the same for every snapshot; a chosen-keys lesson calls the core). */
  private readonly lessons = new Memo<string>();

  private settingsNow() {
    return {
      seed: this.seed,
      steps: this.steps,
      learning_rate: this.learningRate,
      request_scale: this.requestScale,
      learned_keys: this.learnedKeys,
      keys: this.keys,
    };
  }

  /** The worker's settings: the keys as a core matrix (fixed_keys), absent for the tetrahedron. */
  private static trainerSettings(s: TrainingReplayState['settings']) {
    const { keys, ...rest } = s;
    return keys ? { ...rest, fixed_keys: keysMatrix(keys) } : rest;
  }

  private shownIndex(): number | null {
    if (!this.result || this.result.snapshots.length === 0) return null;
    const last = this.result.snapshots.length - 1;
    const want = this.snapshot;
    return want === null ? last : Math.min(want, last);
  }

  protected readState(): TrainingReplayState {
    const i = this.shownIndex();
    const snap = i === null ? null : this.result!.snapshots[i];
    return {
      status: this.status,
      settings: this.settingsNow(),
      snapshot: i,
      step: snap?.step ?? null,
      loss: snap?.loss ?? null,
      diverged_at: this.result?.diverged_at ?? 0,
      evaluation: this.result?.evaluation ?? null,
      lesson: this.lesson(),
    };
  }

  /** Numbers for <headlab-value> bound to this run (undefined until a run has finished). */
  boundValue(name: string): BoundValue | undefined {
    const r = this.result;
    if (!r || this.status !== 'done') return undefined;
    const e = r.evaluation;
    switch (name) {
      case 'diverged_at':
        return { value: r.diverged_at, kind: 'count' };
      case 'steps_done':
        return { value: r.loss_trace.length, kind: 'count' };
      case 'heldout_mse':
        return e ? { value: e.heldout_mse, kind: 'loss' } : undefined;
      case 'uniform_attention_mse':
        return e ? { value: e.uniform_attention_mse, kind: 'loss' } : undefined;
      case 'min_query_r2':
        return e ? { value: Math.min(...e.query_r2), kind: 'number' } : undefined;
      case 'min_value_r2':
        return e ? { value: Math.min(...e.value_r2), kind: 'number' } : undefined;
      case 'recovered_coordinates':
        return e
          ? { value: [...e.query_r2, ...e.value_r2].filter((r2) => r2 > RECOVERED_R2).length / 6, kind: 'fraction', of: 6 }
          : undefined;
      default:
        return undefined;
    }
  }

  protected build(): TrainingReplayParts {
    const title = el('p', { class: 'title' }, 'Training replay: watch the blocks form');
    const intro = el(
      'p',
      { class: 'caption' },
      'Snapshots at step 0 and then at log-spaced steps, dense early. Drag the scrubber or press Play slowly.',
    );
    const experiments = el('div', { class: 'controls', role: 'group', 'aria-label': 'Break it: rerun with one setting changed' });
    experiments.append(el('span', {}, 'Run with:'));
    for (const [name, x] of Object.entries(EXPERIMENTS)) {
      const b = el('button', { type: 'button', 'data-experiment': name, 'aria-pressed': 'false' }, x.label);
      this.listen(b, 'click', () => this.runExperiment(name));
      experiments.append(b);
      this.experimentButtons[name] = b;
    }
    // The reader's own keys, typed as four rows of three numbers; a valid entry reruns (debounced),
    // an invalid one is flagged beside the field and the last valid keys are kept.
    const keysId = localId(this, 'keys');
    const keysRow = el('div', { class: 'controls' });
    // A text area that wraps (a one-line field cut the four keys off at 320 to 560 px).
    const keysInput = el('textarea', {
      id: keysId,
      class: 'keys',
      rows: '1',
      spellcheck: 'false',
      autocomplete: 'off',
      autocapitalize: 'off',
    });
    keysRow.append(el('label', { for: keysId }, 'Keys (rows k₁; k₂; k₃; k₄)'), keysInput);
    const keysField = this.bindField(keysInput, {
      label: 'the keys',
      parse: parseKeys,
      commit: (keys) => {
        this.keys = sameRows(keys, TETRAHEDRON) ? null : keys;
        if (this.keys !== null) this.learnedKeys = false;
        this.removeAttribute('snapshot');
        this.startRun();
        this.requestRender();
        this.emitChange();
      },
      current: () => keysInputText(this.keys ?? TETRAHEDRON),
      delay: 800,
    });
    const progressBar = el('progress', { max: '1', value: '0', 'aria-label': 'Training progress' });
    const scrubId = localId(this, 'snap');
    const controls = el('div', { class: 'controls' });
    const scrub = el('input', { type: 'range', id: scrubId, min: '0', max: '0', step: '1' });
    const scrubOut = el('output', { for: scrubId, class: 'num' });
    const playButton = el('button', { type: 'button', 'aria-pressed': 'false' }, 'Play slowly');
    this.listen(scrub, 'input', () => {
      this.stopPlaying();
      this.snapshot = scrub.valueAsNumber;
      this.emitChange();
    });
    this.listen(playButton, 'click', () => (this.playTimer ? this.stopPlaying() : this.play()));
    controls.append(el('label', { for: scrubId }, 'Snapshot'), scrub, scrubOut, playButton);

    const figs = el('div', { class: 'figs' });
    const box = (cls: string, label: string) => {
      const d = el('div', { class: `fig ${cls}` });
      d.append(el('p', { class: 'label' }, label));
      const svg = svgEl('svg', { role: 'img', 'aria-label': label });
      d.append(svg);
      figs.append(d);
      return svg;
    };
    const svgs = {
      latent: box('', 'Measured in the latent basis: R·Wq and R·Wv'),
      raw: box('', 'As trained: raw Wq and Wv'),
      loss: box('', 'Training loss (log scale) up to the snapshot'),
      schematic: box('', 'One held-out example through the model at this snapshot'),
    };
    if (typeof ResizeObserver === 'function') {
      this.resizeObserver = new ResizeObserver((entries) => {
        for (const e of entries) {
          const which = e.target === svgs.loss.parentElement ? 'loss' : 'schematic';
          const w = e.contentRect.width;
          // A box not laid out (the body hidden until the first render) reports 0: not a width.
          if (w > 0 && Math.floor(w) !== Math.floor(this.boxWidths[which] ?? -1)) {
            this.boxWidths[which] = w;
            this.requestRender();
          }
        }
      });
      this.resizeObserver.observe(svgs.loss.parentElement!);
      this.resizeObserver.observe(svgs.schematic.parentElement!);
    }
    const lessonBox = el('p', { class: 'lesson', role: 'status' });
    this.body.append(title, intro, experiments, keysRow, progressBar, controls, figs, lessonBox, this.exportControls());
    return { keysField, scrub, keysInput, scrubOut, playButton, progressBar, lessonBox, svgs };
  }

  protected afterBuild(): void {
    this.startRun();
  }

  /** The run is under way: its snapshots are drawn when it ends. */
  get busy(): boolean {
    return this.status === 'training';
  }

  /**
   * The figure's default state is its finished run at the last snapshot, which the still shows:
   * the still stays until the live run has ended (the same run, so the same picture), never
   * replaced by an empty figure in between.
   */
  protected snapshotReplaceable(): boolean {
    return this.status === 'done' || this.status === 'failed';
  }

  disconnectedCallback(): void {
    this.resizeObserver?.disconnect();
    this.resizeObserver = null;
    this.stopPlaying();
    this.jobs.dispose();
    this.runKey = '';
    window.clearTimeout(this.warmTimer);
    super.disconnectedCallback();
  }

  private runExperiment(name: string): void {
    this.lastExperiment = name;
    // "Draft settings" is the way back to the run the page opens on: the draft's seed 0 too (a
    // seed from the URL hash stays for the other experiments, each one setting changed).
    if (name === 'draft') this.removeAttribute('seed');
    for (const attr of EXPERIMENT_ATTRS) {
      const v = EXPERIMENTS[name].attrs[attr];
      if (v === undefined) this.removeAttribute(attr);
      else this.setAttribute(attr, v);
    }
    this.removeAttribute('snapshot');
    this.startRun();
    this.requestRender();
    this.emitChange();
  }

  private startRun(): void {
    const settings = this.settingsNow();
    const key = JSON.stringify(settings);
    if (key === this.runKey && this.status !== 'failed') return;
    this.runKey = key;
    this.stopPlaying();
    this.status = 'training';
    this.result = null;
    this.parts.progressBar.value = 0;
    if (settings.keys && settings.learned_keys) {
      this.status = 'failed';
      this.showError('attributes keys and learned-keys exclude each other: learned keys start from random values');
      return;
    }
    this.jobs.start<ReplayResult>(
      'feature-recovery-replay',
      { settings: HeadlabTrainingReplay.trainerSettings(settings), count: SNAPSHOTS },
      {
        progress: (d) => {
          this.parts.progressBar.value = Number(d.steps_taken) / Math.max(1, Number(d.steps_total));
        },
        done: ({ value }) => {
          this.result = value;
          this.resultKeys = settings.keys;
          this.status = 'done';
          this.parts.progressBar.value = 1;
          // The run is over: end its worker (a rerun starts a new one), so a finished replay holds none.
          this.jobs.dispose();
          this.requestRender();
          this.warmScenes();
          this.safely(() => this.emitChange());
        },
        failed: (err) => {
          this.status = 'failed';
          this.jobs.dispose();
          this.showError(`Training failed: ${err.message}`);
        },
      },
    );
    this.requestRender();
  }

  /** Runs fn from a timer or worker callback: a bad attribute is shown in the widget, not thrown to the page. */
  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (err instanceof WidgetInputError) this.showError(err.message);
      else throw err;
    }
  }

  private play(): void {
    if (!this.result) return;
    const n = this.result.snapshots.length;
    if ((this.shownIndex() ?? n - 1) >= n - 1) this.snapshot = 0;
    this.parts.playButton.textContent = 'Pause';
    this.parts.playButton.setAttribute('aria-pressed', 'true');
    this.playTimer = window.setInterval(
      () =>
        this.safely(() => {
          const i = this.shownIndex() ?? 0;
          if (i >= n - 1) {
            this.stopPlaying();
            this.emitChange();
            return;
          }
          this.snapshot = i + 1;
        }),
      PLAY_MS,
    );
  }

  /** Every scrub step calls this: the button is written only when it changes (its text set again lays it out). */
  private stopPlaying(): void {
    if (this.playTimer) window.clearInterval(this.playTimer);
    this.playTimer = 0;
    // Also on a disconnect before the first build (no button yet).
    if (this.hasParts) {
      setText(this.parts.playButton, 'Play slowly');
      setAttributeIfChanged(this.parts.playButton, 'aria-pressed', 'false');
    }
  }

  /** The one-line lesson of the last finished run, with its own numbers. */
  private lesson(): string {
    return this.lessons.get([this.result, this.status, this.resultKeys, this.featureRecovery], () => this.lessonNow());
  }

  private lessonNow(): string {
    const r = this.result;
    if (!r || this.status !== 'done') return this.status === 'training' ? 'Training…' : '';
    const s = r.settings;
    if (r.diverged_at > 0) {
      const before = r.diverged_at > 1 ? r.loss_trace[r.diverged_at - 2] : NaN;
      return (
        `Learning rate ${formatNumber(s.learning_rate, 4)}: training diverged at step ${r.diverged_at}` +
        `${Number.isFinite(before) ? ` (the loss was ${formatScientific(before)} one step earlier)` : ''}; the replay stops there and no held-out numbers exist.`
      );
    }
    const e = r.evaluation!;
    const qMin = Math.min(...e.query_r2),
      vMin = Math.min(...e.value_r2);
    const final = r.loss_trace[r.loss_trace.length - 1];
    if (this.resultKeys) return this.keysLesson(this.resultKeys, e);
    if (s.learned_keys) {
      return (
        `Learned keys: held-out MSE ${formatScientific(e.heldout_mse)}, far below uniform attention's ${formatNumber(e.uniform_attention_mse, 3)}, yet the smallest query R² is ${formatNumber(qMin, 3)}: ` +
        `the keys moved too, and any Q A with K A⁻ᵀ fits equally well, so R·Wq need not be the identity block (value R² still ${formatNearOne(vMin) === '1' ? '1 in double precision' : formatNearOne(vMin)}).`
      );
    }
    if (qMin < 0.9 && vMin > 0.99) {
      return (
        `Request scale ${formatNumber(s.request_scale, 4)}: held-out MSE ${formatScientific(e.heldout_mse)}, close to uniform attention's ${formatScientific(e.uniform_attention_mse)}, ` +
        `but the smallest query R² is ${formatNumber(qMin, 3)}: with requests this small the scores barely vary, so the loss cannot tell W_q's direction and the query is not identified (value R² still ${formatNearOne(vMin)}).`.replace(
          /W_q/g,
          'Wq',
        )
      );
    }
    if (!(final < 1e-6)) {
      const vsUniform = e.heldout_mse > e.uniform_attention_mse ? 'worse than' : 'against';
      let peak = 0;
      for (let t = 1; t < r.loss_trace.length; t++) if (r.loss_trace[t] > r.loss_trace[peak]) peak = t;
      return `Learning rate ${formatNumber(s.learning_rate, 4)}: the loss leaps from ${formatNumber(r.loss_trace[0], 3)} to ${formatNumber(r.loss_trace[peak], 3)} at step ${peak + 1} and never settles; the last step's loss is ${formatScientific(final)} and the held-out MSE ${formatNumber(e.heldout_mse, 3)}, ${vsUniform} uniform attention's ${formatNumber(e.uniform_attention_mse, 3)} (smallest query R² ${formatNumber(qMin, 3)}, value R² ${formatNumber(vMin, 3)}).`;
    }
    const r2 = formatNearOne(Math.min(qMin, vMin));
    return `Held-out MSE ${formatScientific(e.heldout_mse)} against ${formatNumber(e.uniform_attention_mse, 3)} for uniform attention; every query and value coordinate reads its feature with R² ${r2 === '1' ? 'equal to 1 in double precision' : r2.startsWith('above') ? r2 : `of at least ${r2}`}.`;
  }

  /**
   * The lesson of a run with chosen keys: the query directions they cannot see (from the core), and
   * what the run made of each query coordinate. A direction u is lost when every key difference is
   * orthogonal to it: softmax ignores a shift shared by all scores, so q·u moves no weight and the
   * loss has no gradient along it.
   */
  private keysLesson(keys: number[][], e: ReplayEvaluation): string {
    const lost = this.featureRecovery!.featureRecoveryLostDirections(keysMatrix(keys));
    const r2 = e.query_r2.map((x) => formatNumber(x, 3)).join(', ');
    const fit = `held-out MSE ${formatScientific(e.heldout_mse)} against uniform attention's ${formatNumber(e.uniform_attention_mse, 3)}`;
    if (lost.rows === 0) {
      return `Keys ${keysText(keys)}: their differences span all three query directions, so none is lost: ${fit}; query R² per coordinate ${r2}.`;
    }
    const directions = Array.from({ length: lost.rows }, (_, i) => v3(lost.data, 3 * i)).join(' and ');
    // A lost direction along a coordinate axis (as for keys in the plane q₃ = 0): that coordinate's
    // gradient is exactly zero, so its column of W_q (and of R·W_q) keeps its random start.
    const axis = lost.rows === 1 ? [0, 1, 2].find((j) => Math.abs(lost.data[j]) > 1 - 1e-9) : undefined;
    const which =
      axis === undefined
        ? `each coordinate loses as much R² as it leans on the lost direction${lost.rows > 1 ? 's' : ''}`
        : `coordinate ${axis + 1} is lost (R² ${formatNumber(e.query_r2[axis], 3)}; R·Wq's column ${axis + 1} keeps its random start)`;
    return (
      `Keys ${keysText(keys)}: their differences miss the direction${lost.rows > 1 ? 's' : ''} ${directions}, so no score depends on that part of the query and the loss never trains it. ` +
      `The fit is still good (${fit}), but the query R² per coordinate is ${r2}: ${which}.`
    );
  }

  private resolved(): ResolvedColours {
    const c = this.themeColours();
    if (c !== this.scenesColours) {
      this.scenesColours = c;
      this.scenes = new WeakMap(); // drawn in the colours before
    }
    return c;
  }

  /**
   * The kept scene of figure `which` of snapshot `snap` at `width` (0: the figure's own), built by
   * make() the first time and kept for the next (scenes are never changed once drawn).
   */
  private keptScene(which: Figure, snap: ReplaySnapshot, width: number, make: () => Scene): Scene {
    let kept = this.scenes.get(snap);
    if (!kept) {
      kept = { latent: null, raw: null, loss: null, schematic: null };
      this.scenes.set(snap, kept);
    }
    let entry = kept[which];
    if (!entry || entry.width !== width) {
      entry = { width, scene: make() };
      kept[which] = entry;
    }
    return entry.scene;
  }

  /** Draws figure `which` of snapshot `snap`: its kept scene when there is one (none before a run). */
  private drawKept(which: Figure, snap: ReplaySnapshot | null, width: number, make: () => Scene): void {
    const svg = this.parts.svgs[which];
    if (!snap) {
      drawFluid(svg, make());
      return;
    }
    drawSceneInto(svg, this.keptScene(which, snap, width, make), { reuse: true, size: false, kept: true });
  }

  /** Width and builder of figure `which` at snapshot index i: render and warmScenes share them. */
  private figureAt(which: Figure, i: number | null, c: ResolvedColours): [number, () => Scene] {
    switch (which) {
      case 'latent':
      case 'raw':
        return [0, () => this.pairScene(which, c, i)];
      case 'loss':
        return [this.shownWidth('loss'), () => this.lossScene(c, i)];
      case 'schematic':
        return [this.shownWidth('schematic'), () => schematicScene(this.example(i), c, this.shownWidth('schematic'))];
    }
  }

  /**
   * After a run, builds every snapshot's four scenes in slices of at most WARM_SLICE_MS between
   * frames, so a scrub's first view of a snapshot redraws a kept scene too (building one costs a
   * few ms; patching a kept one about 1 ms: bench/canvas.bench.mjs).
   */
  private warmScenes(): void {
    window.clearTimeout(this.warmTimer);
    const r = this.result;
    if (!r) return;
    const c = this.resolved();
    let k = 0;
    const total = r.snapshots.length * FIGURES.length;
    const slice = () =>
      this.safely(() => {
        if (this.result !== r || !this.isConnected || this.themeColours() !== c) return;
        const t0 = performance.now();
        while (k < total && performance.now() - t0 < WARM_SLICE_MS) {
          const i = Math.floor(k / FIGURES.length),
            which = FIGURES[k % FIGURES.length];
          const [width, make] = this.figureAt(which, i, c);
          this.keptScene(which, r.snapshots[i], width, make);
          k += 1;
        }
        if (k < total) this.warmTimer = window.setTimeout(slice, WARM_GAP_MS);
      });
    this.warmTimer = window.setTimeout(slice, WARM_GAP_MS);
  }

  figures(): WidgetFigure[] {
    const c = () => this.resolved();
    return [
      { name: 'latent', label: 'R·W heatmaps', scene: () => this.pairScene('latent', c()) },
      { name: 'raw', label: 'Raw W heatmaps', scene: () => this.pairScene('raw', c()) },
      { name: 'loss', label: 'Loss curve', scene: () => this.lossScene(c()) },
      { name: 'schematic', label: 'Example schematic', scene: () => schematicScene(this.example(), c(), this.shownWidth('schematic')) },
    ];
  }

  private pairScene(which: 'latent' | 'raw', c: ResolvedColours, i = this.shownIndex()): Scene {
    const snap = i === null ? null : this.result!.snapshots[i];
    const step = snap ? `step ${snap.step}` : 'no run yet';
    return which === 'latent'
      ? heatPairScene(
          snap?.response_query ?? null,
          snap?.response_value ?? null,
          ['R·W_q', 'R·W_v'],
          ROW_LATENT,
          c,
          `R·W_q and R·W_v at ${step}`,
        )
      : heatPairScene(snap?.w_q ?? null, snap?.w_v ?? null, ['W_q', 'W_v'], ROW_RAW, c, `Raw W_q and W_v at ${step}`);
  }

  /**
   * Width in CSS px of a figure's box (260 … 400; 380 when not laid out), so its text is drawn at
   * its own size. Read once at the first render (so the first drawing is at the shown width, as
   * the prerendered snapshot is, and no second drawing follows it), then kept up to date by a
   * ResizeObserver, so no later redraw forces a layout.
   */
  private shownWidth(which: 'loss' | 'schematic'): number {
    if (this.boxWidths[which] === undefined && this.isConnected && this.hasParts) {
      // Both boxes in one read (one layout).
      const [loss, schematic] = this.measureOnce([this.parts.svgs.loss.parentElement!, this.parts.svgs.schematic.parentElement!]);
      this.boxWidths = { loss, schematic };
    }
    const shown = this.boxWidths[which] ?? 0;
    return Math.floor(Math.min(400, Math.max(260, shown || 380)));
  }

  /**
   * Held-out example 0 traced by the core through the shown snapshot's W_q, W_v (null before a
   * run): computed in the worker that trained the run (task 'feature-recovery-replay'), so showing
   * a snapshot sends no weights into the page's module.
   */
  private example(i = this.shownIndex()): FeatureRecoveryExample | null {
    if (i === null) return null;
    return this.result!.snapshots[i].example;
  }

  private lossScene(c: ResolvedColours, i = this.shownIndex()): Scene {
    const r = this.result;
    const upTo = i === null || !r ? 0 : r.snapshots[i].step;
    const losses = r ? r.loss_trace.subarray(0, upTo) : new Float64Array(0);
    // Drawn at the width it is shown (its axis text is 11 px and must not be scaled down).
    const width = this.shownWidth('loss');
    // The x axis spans the steps so far, so the early steps (most snapshots) are not squeezed into a corner.
    // The axis is the whole run's (fixed while the reader scrubs); a run whose loss never falls
    // (learning rate 3) is drawn on its own decades, its leap to 57 at full height.
    const scene = lossCurveScene({
      losses,
      steps: Math.max(1, upTo),
      width,
      height: 220,
      colours: c,
      title: `Loss up to step ${upTo}`,
      ...(r ? { decades: finishedRunDecades(r.loss_trace) } : {}),
    });
    if (r && r.diverged_at > 0) {
      scene.shapes.push({
        kind: 'text',
        x: width - 8,
        y: 40,
        text: `diverged at step ${r.diverged_at}`,
        fill: rgbText(c.fg),
        size: 12,
        anchor: 'end',
        weight: 'bold',
      });
    }
    return scene;
  }

  protected summarize(): string {
    const s = this.readState();
    if (s.status !== 'done')
      return s.status === 'training'
        ? 'Training the replay run; the snapshots appear when it ends.'
        : 'No run yet: the replay trains as the figure starts, or when a run is chosen above.';
    return `Snapshot ${(s.snapshot ?? 0) + 1} of ${this.result!.snapshots.length}, step ${s.step}${s.loss !== null ? `, loss ${formatScientific(s.loss)}` : ''}. ${s.lesson}`;
  }

  protected render(): void {
    // Settings changed through attributes (or a link): rerun.
    if (JSON.stringify(this.settingsNow()) !== this.runKey) this.startRun();
    const c = this.resolved();
    const i = this.shownIndex();
    const n = this.result?.snapshots.length ?? 0;
    // A scrub step writes only what it changes: the range's max set again (same value) lays out the
    // controls row, the output's text is rewritten in place (widgets/chart/text.ts).
    setAttributeIfChanged(this.parts.scrub, 'max', String(Math.max(0, n - 1)));
    if (this.parts.scrub.disabled !== (n === 0)) this.parts.scrub.disabled = n === 0;
    if (this.parts.playButton.disabled !== (n === 0)) this.parts.playButton.disabled = n === 0;
    if (i !== null) {
      if (this.parts.scrub.valueAsNumber !== i) this.parts.scrub.value = String(i);
      const snap = this.result!.snapshots[i];
      const text = `step ${snap.step} of ${this.result!.settings.steps}`;
      setText(this.parts.scrubOut, text);
      setAttributeIfChanged(
        this.parts.scrub,
        'aria-valuetext',
        `${text}${snap.loss !== null ? `, loss ${formatScientific(snap.loss)}` : ''}`,
      );
    } else {
      setText(this.parts.scrubOut, this.status === 'training' ? 'training…' : '');
    }
    this.parts.keysField.show(keysInputText(this.keys ?? TETRAHEDRON));
    for (const [name, b] of Object.entries(this.experimentButtons)) {
      const match = EXPERIMENT_ATTRS.every((a) => (this.getAttribute(a) ?? null) === (EXPERIMENTS[name].attrs[a] ?? null));
      if (b.getAttribute('aria-pressed') !== String(match)) b.setAttribute('aria-pressed', String(match));
    }
    // Each snapshot's four scenes are built once and kept: scrubbing back and forth redraws kept
    // scenes, which patches only the attributes that differ and allocates almost nothing.
    const snap = i === null ? null : this.result!.snapshots[i];
    for (const which of FIGURES) this.drawKept(which, snap, ...this.figureAt(which, i, c));
    setText(this.parts.lessonBox, this.lesson());
  }
}

/**
 * Draws a scene into an on-page svg that scales with its box (viewBox kept, no fixed size),
 * patching the previous draw's nodes: the scrubber redraws all four figures on every step.
 */
function drawFluid(svg: SVGSVGElement, scene: Scene): void {
  drawSceneInto(svg, scene, { reuse: true, size: false });
}

function mix(a: Rgb, b: Rgb, t: number): string {
  return rgbText([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]);
}

/**
 * Two 9 × 3 maps side by side as heat cells on a diverging scale clamped at |value| = 1 (the
 * identity blocks' entries are 0 and ±1); a cell beyond the scale gets a "+" or "−" mark, so
 * a run that blows up does not stretch the scale of the others.
 */
export function heatPairScene(
  a: ArrayLike<number> | null,
  b: ArrayLike<number> | null,
  names: [string, string],
  rowLabels: string[],
  c: ResolvedColours,
  title: string,
): Scene {
  const fg = rgbText(c.fg),
    muted = rgbText(c.muted);
  const cellW = 30,
    cellH = 19,
    labelW = 56,
    top = 38,
    gap = 14;
  const blockW = labelW + 3 * cellW;
  const width = 2 * blockW + gap + 4,
    height = top + 9 * cellH + 8;
  const shapes: Shape[] = [];
  [a, b].forEach((values, m) => {
    const x0 = m * (blockW + gap);
    const coord = names[m].endsWith('q') ? 'q' : 'v';
    shapes.push({
      kind: 'text',
      x: x0 + labelW + 1.5 * cellW,
      y: 11,
      text: names[m],
      fill: fg,
      size: 16,
      anchor: 'middle',
      weight: 'bold',
    });
    for (let j = 0; j < 3; j++)
      shapes.push({
        kind: 'text',
        x: x0 + labelW + (j + 0.5) * cellW,
        y: top - 10,
        text: `${coord}${'₁₂₃'[j]}`,
        fill: muted,
        size: 12.5,
        anchor: 'middle',
      });
    for (let k = 0; k < 9; k++) {
      shapes.push({
        kind: 'text',
        x: x0 + labelW - 4,
        y: top + (k + 0.5) * cellH,
        text: rowLabels[k],
        fill: muted,
        size: 12.5,
        anchor: 'end',
      });
      for (let j = 0; j < 3; j++) {
        const v = values ? values[3 * k + j] : 0;
        const t = Math.min(1, Math.abs(v) / HEAT_LIMIT);
        const fill = values ? mix(c.panel, v < 0 ? c.neg : c.pos, t) : rgbText(c.panel);
        const x = x0 + labelW + j * cellW,
          y = top + k * cellH;
        shapes.push({ kind: 'rect', x, y, w: cellW - 1, h: cellH - 1, fill, stroke: rgbText(c.rule) });
        if (values && Math.abs(v) > 1.5 * HEAT_LIMIT)
          shapes.push({
            kind: 'text',
            x: x + cellW / 2,
            y: y + cellH / 2,
            text: v > 0 ? '+' : '−',
            fill: rgbText(c.panel),
            size: 12,
            anchor: 'middle',
            weight: 'bold',
          });
      }
    }
  });
  return { width, height, background: rgbText(c.panel), title, shapes };
}

const TETRAHEDRON = [
  [1, 1, 1],
  [1, -1, -1],
  [-1, 1, -1],
  [-1, -1, 1],
];

function sameRows(a: number[][], b: number[][]): boolean {
  return a.every((row, i) => row.every((x, j) => x === b[i][j]));
}

/** "1 1 0; 1 −1 0; …": four rows of three numbers in [−10, 10] (spaces or commas; − or -). */
export function parseKeys(text: string): number[][] {
  const rows = text
    .split(';')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  const keys = rows.map((r) =>
    r
      .replace(/[−–]/g, '-')
      .split(/[\s,]+/)
      .map(Number),
  );
  if (keys.length !== 4 || keys.some((k) => k.length !== 3)) {
    throw new WidgetInputError('the keys must be four rows of three numbers, rows separated by ";"');
  }
  if (keys.some((k) => k.some((x) => !(Math.abs(x) <= 10)))) throw new WidgetInputError('every key entry must be a number from −10 to 10');
  return keys;
}

function keysInputText(keys: number[][]): string {
  return keys.map((k) => k.map((x) => formatNumber(x, 6)).join(' ')).join('; ');
}

function keysMatrix(keys: number[][]): { rows: number; cols: number; data: Float64Array } {
  return { rows: 4, cols: 3, data: Float64Array.from(keys.flat()) };
}

function keysText(keys: number[][]): string {
  return keys.map((k) => `[${k.map((x) => formatNumber(x, 2)).join(', ')}]`).join(' ');
}

function v3(row: ArrayLike<number>, offset = 0): string {
  return `[${[0, 1, 2].map((j) => formatNumber(row[offset + j], 2)).join(', ')}]`;
}

/**
 * The schematic: request → query → scores against the four fixed keys → softmax weights (bars;
 * the teacher's weight as a tick) → the records' values → their mixture (the prediction) beside
 * the target. Every number is from core.featureRecoveryExample.
 */
export function schematicScene(e: FeatureRecoveryExample | null, c: ResolvedColours, width = 380): Scene {
  const fg = rgbText(c.fg),
    muted = rgbText(c.muted),
    pos = rgbText(c.pos),
    neg = rgbText(c.neg),
    rule = rgbText(c.rule);
  // Below 390 units each record takes two lines (the value under its key), so text keeps ≥ 12 px.
  const narrow = width < 390;
  const rowH = narrow ? 50 : 34,
    top = 62,
    height = top + 4 * rowH + 64;
  const shapes: Shape[] = [];
  const title = 'One held-out example: request → scores → weights → mixture of values';
  if (!e)
    return {
      width,
      height,
      background: rgbText(c.panel),
      title,
      shapes: [{ kind: 'text', x: 10, y: 20, text: 'training…', fill: muted, size: 13 }],
    };
  // Narrower, the lines are shorter: "request: query q = [0.11, −4.03, −1.51]" ran past 260 units.
  const query = `${narrow ? 'query' : 'request: query'} q = ${v3(e.query.data)}`;
  const features = narrow ? `from request z = ${v3(e.request_features.data)}` : `(its request features z = ${v3(e.request_features.data)})`;
  shapes.push({ kind: 'text', x: 6, y: 12, text: query, fill: pos, size: 13, weight: 'bold' });
  shapes.push({ kind: 'text', x: 6, y: 31, text: features, fill: muted, size: 12 });
  shapes.push({ kind: 'text', x: 6, y: top - 12, text: 'key', fill: muted, size: 12 });
  shapes.push({ kind: 'text', x: 150, y: top - 12, text: 'score', fill: muted, size: 12, anchor: 'end' });
  // The teacher's weight is the tick on each bar (the figure's caption says so); narrower, the header says "weight".
  shapes.push({ kind: 'text', x: 158, y: top - 12, text: narrow ? 'weight' : 'weight (| teacher)', fill: muted, size: 12 });
  if (!narrow) shapes.push({ kind: 'text', x: width - 6, y: top - 12, text: 'value v', fill: muted, size: 12, anchor: 'end' });
  const barX = 158,
    barW = narrow ? Math.max(50, width - barX - 50) : 66;
  for (let i = 0; i < 4; i++) {
    const y = top + i * rowH + (narrow ? 14 : rowH / 2);
    const w = e.weights.data[i],
      t = e.teacher_weights.data[i];
    const key = Array.from(e.keys.data.subarray(3 * i, 3 * i + 3), (x) => (Number.isInteger(x) ? formatNumber(x, 0) : formatNumber(x, 1)));
    shapes.push({ kind: 'text', x: 6, y, text: `[${key.join(', ')}]`, fill: neg, size: 12.5 });
    shapes.push({ kind: 'text', x: 150, y, text: formatNumber(e.scores.data[i], 2), fill: fg, size: 12.5, anchor: 'end' });
    shapes.push({ kind: 'rect', x: barX, y: y - 8, w: barW, h: 16, fill: rgbText(c.panel), stroke: rule });
    shapes.push({ kind: 'rect', x: barX, y: y - 8, w: Math.max(0, Math.min(1, w)) * barW, h: 16, fill: pos });
    shapes.push({ kind: 'line', x1: barX + t * barW, y1: y - 12, x2: barX + t * barW, y2: y + 12, stroke: fg, width: 2 });
    shapes.push({ kind: 'text', x: barX + barW + 6, y, text: `${formatNumber(100 * w, 0)}%`, fill: fg, size: 12.5 });
    if (narrow) shapes.push({ kind: 'text', x: 6, y: y + 21, text: `value v = ${v3(e.values.data, 3 * i)}`, fill: fg, size: 12.5 });
    else shapes.push({ kind: 'text', x: width - 6, y, text: v3(e.values.data, 3 * i), fill: fg, size: 12.5, anchor: 'end' });
  }
  const yb = top + 4 * rowH + 18;
  shapes.push({ kind: 'line', x1: 6, y1: yb - 12, x2: width - 6, y2: yb - 12, stroke: rule });
  shapes.push({
    kind: 'text',
    x: 6,
    y: yb + 2,
    text: `${narrow ? 'prediction' : 'mixture Σ aᵢvᵢ = prediction'} ${v3(e.prediction.data)}`,
    fill: pos,
    size: 13,
    weight: 'bold',
  });
  shapes.push({ kind: 'text', x: 6, y: yb + 24, text: `teacher's target ${v3(e.target.data)}`, fill: fg, size: 13 });
  return { width, height, background: rgbText(c.panel), title, shapes };
}

export interface HeadlabTrainingReplay extends AttributeProperties<typeof HeadlabTrainingReplay.attributes> {}
