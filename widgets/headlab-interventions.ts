// <headlab-interventions>: interventions on the matrices a <headlab-feature-recovery> trained.
// The reader erases one request feature of the request, or one payload feature of every
// record (original targets kept), or adds a shift to every coordinate that neither map
// should read; the held-out set is re-mixed by R and the core (FeatureRecoveryModel.intervene)
// reports the prediction MSE next to the clean one. Asked of the source's worker (task
// 'feature-recovery-intervene', HeadlabFeatureRecovery.request), which keeps the trained run with
// its held-out set drawn once: one call runs the held-out set once (about 3 ms of WASM, most of a
// frame's script budget), so an intervention not computed before is drawn when the worker
// answers, a frame or two later, no matrix crosses per request, and the main thread only draws. Meanwhile the last result stays
// on screen, marked busy; only an answer slower than PENDING_SHOWN_MS dims it and lays a line over
// its top saying what is being computed (no layout shift, no flicker for the usual few ms).
//
// Attributes (mirrored by properties):
//   source        id of the <headlab-feature-recovery> whose last run is used
//                 (default: the first one in the same document or shadow root)
//   intervention  "erase-request" (default) | "erase-payload" | "shift"
//   feature       1, 2 or 3 (default 1): which request or payload feature is erased
//   shift         added to every irrelevant latent coordinate (default 5, |shift| ≤ 10^6)
// Events: `change` (bubbling) with InterventionsState.
import type { FeatureRecoveryInterventionResult } from '../web/headlab-core.js';
import { getFeatureRecoveryCore } from '../web/browser-core.js';
import type { FeatureRecoveryCore, FeatureRecoveryRun } from '../web/headlab-core.js';
import { DRAFT_PUBLISHED } from '../web/feature-recovery.js';
import type { HeadlabFeatureRecovery } from './headlab-feature-recovery.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  HeadlabElement,
  integer,
  number,
  oneOf,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { MAX_FEATURE_RECOVERY_SHIFT } from './base/core-limits.js';
import { stackedTableCss } from './base/theme.js';
import { formatMagnitude, formatNumber, subscripted } from './chart/format.js';
import { decadeLabel } from './chart/loss-curve.js';
import { setVectorCell } from './chart/matrix-table.js';
import { rgbText } from './chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import { localId } from './base/ids.js';

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

const KINDS: { kind: InterventionKind; core: 'erase_request' | 'erase_payload' | 'irrelevant_shift'; label: string }[] = [
  { kind: 'erase-request', core: 'erase_request', label: 'Erase one request feature of the request' },
  { kind: 'erase-payload', core: 'erase_payload', label: 'Erase one payload feature from every record' },
  { kind: 'shift', core: 'irrelevant_shift', label: 'Shift every coordinate the maps should ignore' },
];

type CoreKind = 'erase_request' | 'erase_payload' | 'irrelevant_shift';
/** The key of one intervention's result within a run (the shift ignores the feature). */
const resultKey = (kind: CoreKind, feature: number, shift: number) =>
  kind === 'irrelevant_shift' ? `${kind}|${shift}` : `${kind}|${feature}|${shift}`;
/** Results kept per run (7 interventions at the current shift and the shifts typed since). */
const MAX_KEPT_RESULTS = 64;

const WAITING_TEXT = 'Waiting for a trained model: train it in the figure above, and its matrices appear here.';
/** How long an answer may take before the last result is dimmed and the computing line shown, ms. */
const PENDING_SHOWN_MS = 200;

/** Example rows of the held-out set shown before and after. */
const EXAMPLES = 4;
/** Largest |shift|: the core's bound (core/feature_recovery_task.hpp kMaxFeatureRecoveryShift). */
const SHIFT_LIMIT = MAX_FEATURE_RECOVERY_SHIFT;

/** The parts build() makes (this.parts). */
interface InterventionsParts {
  shiftField: { show: (text: string) => void };
  featureSelect: HTMLSelectElement;
  shiftInput: HTMLInputElement;
  waiting: HTMLParagraphElement;
  computing: HTMLParagraphElement;
  runNote: HTMLParagraphElement;
  output: HTMLDivElement;
  cleanCell: HTMLTableCellElement;
  afterCell: HTMLTableCellElement;
  afterLabel: HTMLTableCellElement;
  draftNote: HTMLParagraphElement;
  barsSvg: SVGSVGElement;
}

/** Attributes: source (id of a headlab-feature-recovery; naming the element itself or anything else is refused with a message), intervention, feature (1–3), shift. Shared: intervention, feature, shift. */
export class HeadlabInterventions extends HeadlabElement<InterventionsState, InterventionsParts> {
  static attributes = defineAttributes({
    source: text({
      property: false,
      doc: 'Id of the <headlab-feature-recovery> whose run is intervened on (the element itself or anything else is refused with a message).',
    }),
    intervention: oneOf(
      KINDS.map((k) => k.kind),
      { fallback: 'erase-request', shared: true, doc: 'What is done to the trained model’s inputs.' },
    ),
    feature: integer({ fallback: 1, min: 1, max: 3, shared: true, doc: 'The feature erased, 1–3 (not for "shift").' }),
    shift: number({
      fallback: 5,
      min: -SHIFT_LIMIT,
      max: SHIFT_LIMIT,
      shared: true,
      doc: 'How far every irrelevant coordinate is shifted.',
    }),
  });
  // Computes in its worker, on the page's compiled module: loaded here so the page downloads it once.
  protected static loadModule: () => Promise<unknown> = getFeatureRecoveryCore;
  /** The page's headlab_feature_recovery module (null before it has loaded; its worker computes with its own instance). */
  protected featureRecovery: FeatureRecoveryCore | null = null;

  protected moduleLoaded(module: unknown): void {
    this.featureRecovery = module as FeatureRecoveryCore;
  }

  protected static css = /* css */ `
    fieldset { border: 1px solid var(--hl-rule); border-radius: 4px; margin: 0 0 0.5rem; padding: 0.3rem 0.6rem 0.5rem; }
    legend { font-weight: 600; padding: 0 0.25rem; }
    .kinds label { display: block; margin: 0.15rem 0; }
    .params { display: flex; flex-wrap: wrap; gap: 0.5rem 1.2rem; align-items: center; }
    .params input[type="number"] { width: 6em; }
    .waiting { color: var(--hl-muted); }
    .figure svg { display: block; max-width: 100%; height: auto; }
    .compare th[scope="row"] { font-weight: 400; }
    .examples td { text-align: left; }
    input[aria-invalid="true"] { border-color: var(--hl-bad); border-width: 2px; }
    /* The last result, while the worker computes the one chosen since (the line over it says which). */
    .output { position: relative; }
    .output.slow .compare td, .output.slow .figure svg, .output.slow .examples td { opacity: 0.45; }
    .output .computing { position: absolute; inset: 0 0 auto 0; margin: 0; padding: 0.1rem 0; background: var(--hl-panel); color: var(--hl-fg); }
    /* Narrow widgets: each example becomes a block of labelled vectors instead of a 4-column row. */
    ${stackedTableCss('.examples', '32rem', '.examples th[scope="row"]::before { content: "example "; }')}
  `;

  private source: Element | null = null;
  private trained: FeatureRecoveryRun | null = null;
  /** The worker's results for the run in use, by intervention, feature and shift, and the messages of those that failed. */
  private results: { run: FeatureRecoveryRun | null; byKey: Map<string, FeatureRecoveryInterventionResult>; failed: Map<string, string> } =
    { run: null, byKey: new Map(), failed: new Map() };
  /** The key of the intervention asked of the source's worker (null: idle), and the request's token (a new one drops the answer). */
  private inWorker: string | null = null;
  private requestToken = 0;
  /** The result drawn last (kept on screen, dimmed, while the worker computes the one chosen since). */
  private shown: {
    run: FeatureRecoveryRun;
    result: FeatureRecoveryInterventionResult;
    kind: InterventionKind;
    feature: number;
    shift: number;
  } | null = null;
  /** Whether a pointer or focus has reached the figure (the other interventions are computed ahead only then). */
  private reached = false;

  private radios: HTMLInputElement[] = [];
  private slowTimer = 0;
  private exampleRows: HTMLTableCellElement[][] = [];

  /** The result for the current choice: null while the worker computes it (or before a run). */
  protected readState(): InterventionsState {
    const r = this.trained ? this.lookup(this.trained) : null;
    return {
      intervention: this.intervention,
      feature: this.feature,
      shift: this.shift,
      seed: this.trained?.settings.seed ?? null,
      partial: this.trained ? this.trained.partial : null,
      clean_mse: r?.heldout_mse ?? null,
      mse: r?.mse ?? null,
    };
  }

  /**
   * The trained run in use (from the source element; matrices as { rows, cols, data }), or null.
   * @internal
   */
  get trainedResults(): FeatureRecoveryRun | null {
    return this.trained;
  }

  /** The key of the current choice (intervention, feature, shift). */
  private currentKey(): string {
    return resultKey(KINDS.find((k) => k.kind === this.intervention)!.core, this.feature - 1, this.shift);
  }

  /** The results kept for run `t` (a new run object for each run the source hands over: the old ones go). */
  private resultsOf(t: FeatureRecoveryRun): typeof this.results {
    if (this.results.run !== t) this.results = { run: t, byKey: new Map(), failed: new Map() };
    return this.results;
  }

  /** The kept result of the current choice on run `t`, or null (not computed yet). */
  private lookup(t: FeatureRecoveryRun): FeatureRecoveryInterventionResult | null {
    return this.resultsOf(t).byKey.get(this.currentKey()) ?? null;
  }

  /**
   * Whether the worker computes the current choice's result (a render follows its answer), or will.
   * Never throws: an invalid attribute computes nothing (the widget shows its message), so false.
   */
  get busy(): boolean {
    const t = this.trained;
    if (!t || !this.isConnected) return false;
    let key: string;
    try {
      key = this.currentKey();
    } catch {
      return false;
    }
    const kept = this.resultsOf(t);
    return !kept.byKey.has(key) && !kept.failed.has(key);
  }

  /**
   * The still (the intervention on the source's opening run) stays until this figure can draw the
   * same: its source's run has arrived and the current choice's answer with it. A source that
   * failed, or none, is said at once.
   */
  protected snapshotReplaceable(): boolean {
    const source = this.source as HeadlabFeatureRecovery | null;
    if (!source || source.localName !== 'headlab-feature-recovery') return true;
    if (!this.trained) return source.trainingStatus === 'failed';
    return !this.busy;
  }

  /**
   * Feeds the worker, one intervention per job (each one pass over the held-out set, ≈ 3 ms there):
   * first the current choice if it is not kept, then (once the reader has reached for the figure:
   * pointer over it or focus in it) the other six at the current shift, so choosing another
   * intervention or feature draws at once. Each result is kept per run, so going back costs
   * nothing; a reader typing shift after shift waits for at most the job in the worker.
   * Not before a pointer or focus: a page that only trains computes nothing more than it shows.
   */
  private feedWorker(): void {
    const t = this.trained;
    const source = this.source as HeadlabFeatureRecovery | null;
    if (this.inWorker !== null || !t || !this.isConnected || typeof source?.request !== 'function') return;
    const kept = this.resultsOf(t);
    const shift = this.shift;
    const wanted: [CoreKind, number][] = [];
    const current = KINDS.find((k) => k.kind === this.intervention)!.core;
    wanted.push([current, current === 'irrelevant_shift' ? 0 : this.feature - 1]);
    if (this.reached) {
      for (const k of KINDS) for (const f of k.core === 'irrelevant_shift' ? [0] : [0, 1, 2]) wanted.push([k.core, f]);
    }
    const next = wanted.find(([kind, f]) => !kept.byKey.has(resultKey(kind, f, shift)) && !kept.failed.has(resultKey(kind, f, shift)));
    if (!next) return;
    const [kind, feature] = next;
    const key = resultKey(kind, feature, shift);
    this.inWorker = key;
    const token = ++this.requestToken;
    const settle = () => {
      this.inWorker = null;
      // Guarded: an attribute made invalid while the job ran (by a script or a shared link) is shown
      // in the widget, not thrown from the job's callback.
      this.guard(() => {
        // Only the answer for the current choice changes what is drawn.
        if (this.trained === t && key === this.currentKey()) this.requestRender();
        this.feedWorker();
      });
    };
    // The source's worker keeps the run (its matrices and held-out set): only the choice goes with the request.
    source.request<FeatureRecoveryInterventionResult>(
      t,
      'feature-recovery-intervene',
      { intervention: kind, ...(kind === 'irrelevant_shift' ? {} : { feature }), shift, examples: EXAMPLES },
      {
        done: (value) => {
          if (token !== this.requestToken) return;
          if (this.results.run === t) {
            // Bounded: a reader typing shift after shift never grows the page without limit.
            if (kept.byKey.size >= MAX_KEPT_RESULTS) kept.byKey.clear();
            kept.byKey.set(key, value);
          }
          settle();
        },
        failed: (err) => {
          if (token !== this.requestToken) return;
          if (this.results.run === t) kept.failed.set(key, err.message);
          settle();
        },
      },
    );
  }

  /** Marks the output busy; after PENDING_SHOWN_MS still pending, dims it and shows the computing line. */
  private setPending(pending: boolean): void {
    const output = this.parts.output;
    if (output.getAttribute('aria-busy') !== String(pending)) output.setAttribute('aria-busy', String(pending));
    if (!pending) {
      window.clearTimeout(this.slowTimer);
      this.slowTimer = 0;
      output.classList.remove('slow');
      this.parts.computing.hidden = true;
      // Emptied too: the same markup whether or not a wait came before this state.
      if (this.parts.computing.textContent !== '') this.parts.computing.textContent = '';
      return;
    }
    const text = this.computingText();
    if (this.parts.computing.textContent !== text) this.parts.computing.textContent = text;
    if (this.slowTimer || output.classList.contains('slow')) return;
    this.slowTimer = window.setTimeout(() => {
      this.slowTimer = 0;
      if (!this.busy) return;
      output.classList.add('slow');
      this.parts.computing.hidden = false;
    }, PENDING_SHOWN_MS);
  }

  disconnectedCallback(): void {
    // The source's worker stays (its element owns it); this figure's answer still to come is
    // dropped, and a re-attached figure asks again when it renders.
    window.clearTimeout(this.slowTimer);
    this.slowTimer = 0;
    this.requestToken++;
    this.inWorker = null;
    super.disconnectedCallback();
  }

  /** Finds the source trainer and follows its finished runs. */
  private connectSource(): void {
    const id = this.getAttribute('source');
    const scope = this.getRootNode() as Document | ShadowRoot;
    const found = id ? (scope.getElementById?.(id) ?? null) : scope.querySelector('headlab-feature-recovery');
    if (found === this.source) return;
    this.source = found;
    this.trained = null;
    if (!found) return;
    const take = () => {
      if (found !== this.source) return;
      const r = (found as unknown as { run?: FeatureRecoveryRun | null }).run ?? null;
      if (r && r !== this.trained) {
        this.trained = r;
        this.requestRender();
        // Asked now, not at the render: behind its still the figure renders only once it has the answer.
        this.feedWorker();
        this.emitChange();
      }
    };
    this.listen(found, 'change', (e) => {
      if (e.target === found) take();
    });
    take();
  }

  protected build(): InterventionsParts {
    this.source = null;
    this.radios = [];
    const reach = () => {
      if (this.reached) return;
      this.reached = true;
      this.feedWorker();
    };
    this.listen(this.body, 'pointerover', reach);
    this.listen(this.body, 'focusin', reach);
    const title = el('p', { class: 'title' }, 'Intervene on the trained model');
    const intro = el('p', { class: 'caption' });
    intro.append(
      subscripted(
        'Each intervention edits the held-out examples’ latent features, mixes them again with R and runs the trained W_q and W_v. Erasures compare with the original targets; the shift compares the predictions before and after it.',
      ),
    );
    const kinds = el('fieldset', { class: 'kinds' });
    kinds.append(el('legend', {}, 'Intervention'));
    const group = localId(this, 'kind');
    for (const k of KINDS) {
      const radio = el('input', { type: 'radio', name: group, value: k.kind });
      const label = el('label');
      label.append(radio, ` ${k.label}`);
      kinds.append(label);
      this.radios.push(radio);
      this.listen(radio, 'change', () => {
        if (radio.checked) {
          this.intervention = k.kind;
          this.emitChange();
        }
      });
    }
    const featureSelect = el('select');
    featureSelect.append(...[1, 2, 3].map((i) => el('option', { value: String(i) }, `feature ${i}`)));
    this.listen(featureSelect, 'change', () => {
      this.feature = Number(featureSelect.value);
      this.emitChange();
    });
    const shiftInput = el('input', { type: 'number', step: 'any', min: String(-SHIFT_LIMIT), max: String(SHIFT_LIMIT) });
    const params = el('div', { class: 'params' });
    const fLabel = el('label', {}, 'Which feature ');
    fLabel.append(featureSelect);
    const sLabel = el('label', {}, 'Shift ');
    sLabel.append(shiftInput);
    params.append(fLabel, sLabel);
    // As the reader types (debounced): an empty or out-of-range shift is flagged beside the
    // field and the last valid shift is kept (docs/reading.md, typed fields).
    const shiftField = this.bindField(shiftInput, {
      label: 'the shift',
      parse: (text) => {
        const v = Number(text);
        if (text.trim() === '' || !Number.isFinite(v) || Math.abs(v) > SHIFT_LIMIT) {
          throw new WidgetInputError(`the shift must be a number from −${SHIFT_LIMIT} to ${SHIFT_LIMIT}`);
        }
        return v;
      },
      commit: (v) => {
        this.shift = v;
        this.emitChange();
      },
      current: () => String(this.shift),
    });

    const waiting = el('p', { class: 'waiting', role: 'status' }, WAITING_TEXT);
    // Over the top of the last result while a slow answer is computed (aria-busy on the output says it to screen readers).
    const computing = el('p', { class: 'waiting computing', hidden: '' });
    const output = el('div', { class: 'output', hidden: '' });
    const runNote = el('p', { class: 'note run', role: 'status' });
    const compare = el('table', { class: 'compare' });
    compare.createCaption().textContent = 'Prediction MSE on the held-out examples';
    const body = compare.createTBody();
    const r1 = body.insertRow();
    r1.append(el('th', { scope: 'row' }, 'clean: prediction against target'));
    const cleanCell = r1.insertCell();
    const r2 = body.insertRow();
    const afterLabel = el('th', { scope: 'row' });
    r2.append(afterLabel);
    const afterCell = r2.insertCell();
    cleanCell.className = afterCell.className = 'num';
    const draftNote = el('p', { class: 'note' });
    const figure = el('div', { class: 'figure' });
    const barsSvg = svgEl('svg', { role: 'img' });
    figure.append(barsSvg, this.exportControls());

    const examples = el('table', { class: 'examples' });
    examples.createCaption().textContent = `First ${EXAMPLES} held-out examples`;
    const head = examples.createTHead().insertRow();
    for (const h of ['#', 'target', 'clean prediction', 'with the intervention']) head.append(el('th', { scope: 'col' }, h));
    const ebody = examples.createTBody();
    this.exampleRows = [];
    for (let i = 0; i < EXAMPLES; i++) {
      const tr = ebody.insertRow();
      tr.append(el('th', { scope: 'row' }, String(i + 1)));
      this.exampleRows.push([tr.insertCell(), tr.insertCell(), tr.insertCell()]);
      this.exampleRows[i].forEach((c, j) => {
        c.className = 'num';
        c.dataset.label = ['target', 'clean', 'intervened'][j];
      });
    }
    const compareBox = el('div', { class: 'scroll' });
    compareBox.append(compare);
    const examplesBox = el('div', { class: 'scroll' });
    examplesBox.append(examples);
    output.append(runNote, compareBox, draftNote, figure, examplesBox, computing);
    this.body.append(title, intro, kinds, params, waiting, output);
    this.connectSource();
    return {
      shiftField,
      featureSelect,
      shiftInput,
      waiting,
      computing,
      runNote,
      output,
      cleanCell,
      afterCell,
      afterLabel,
      draftNote,
      barsSvg,
    };
  }

  figures(): WidgetFigure[] {
    return this.shown ? [{ name: this.shown.kind, label: 'Intervention figure', scene: () => this.figure() }] : [];
  }

  protected fileStem(): string {
    return `feature-recovery-seed${this.trained?.settings.seed ?? 'none'}`;
  }

  protected summarize(): string {
    if (!this.trained) return 'Waiting for a trained model: nothing to intervene on yet.';
    const s = this.shown;
    if (!s || this.busy) return this.computingText();
    const r = s.result;
    const what =
      s.kind === 'shift'
        ? `the predictions move by an MSE of ${formatMagnitude(r.mse)}`
        : `the prediction MSE against the original targets is ${formatMagnitude(r.mse)}`;
    const run = s.run.partial ? `, a partial run stopped at step ${s.run.steps_done} of ${s.run.settings.steps}` : '';
    return `${this.describe(s)} (seed ${s.run.settings.seed}${run}): ${what}; without the intervention it is ${formatMagnitude(r.heldout_mse)}.`;
  }

  /** The status line while the worker computes the current choice. */
  private computingText(): string {
    return `Computing: ${this.describe({ kind: this.intervention, feature: this.feature, shift: this.shift })} on the ${this.trained!.settings.eval_size} held-out examples…`;
  }

  /**
   * Bars of the clean and intervened MSE (of the result drawn last) on a log axis from 10⁻³⁴ to 10¹.
   * @internal
   */
  figure(): Scene {
    const c = this.themeColours();
    const s = this.shown!;
    const r = s.result;
    const [lo, hi] = [-34, 1];
    const width = 360,
      left = 96,
      right = 64,
      barH = 18;
    const plotW = width - left - right;
    const xOf = (v: number) => left + ((Math.max(lo, Math.min(hi, v > 0 ? Math.log10(v) : lo)) - lo) / (hi - lo)) * plotW;
    const fg = rgbText(c.fg),
      muted = rgbText(c.muted);
    const title = `${this.describe(s)}, seed ${s.run.settings.seed}`;
    const shapes: Shape[] = [{ kind: 'text', x: 8, y: 12, text: title, fill: fg, size: 12, weight: 'bold' }];
    const bars: [string, number, string][] = [
      ['clean', r.heldout_mse, rgbText(c.neg)],
      [s.kind === 'shift' ? 'shift change' : 'after erasing', r.mse, rgbText(c.pos)],
    ];
    bars.forEach(([label, v, colour], i) => {
      const y = 30 + i * (barH + 10);
      shapes.push({ kind: 'text', x: left - 6, y: y + barH / 2, text: label, fill: fg, size: 11, anchor: 'end' });
      shapes.push({ kind: 'rect', x: left, y, w: Math.max(1, xOf(v) - left), h: barH, fill: colour });
      shapes.push({ kind: 'text', x: xOf(v) + 5, y: y + barH / 2, text: mseText(v), fill: fg, size: 11 });
    });
    const axisY = 30 + 2 * (barH + 10);
    shapes.push({ kind: 'line', x1: left, y1: axisY, x2: left + plotW, y2: axisY, stroke: muted });
    for (let d = hi - 1; d >= lo; d -= 1) {
      const x = xOf(10 ** d);
      const major = d % 8 === 0;
      shapes.push({ kind: 'line', x1: x, y1: axisY, x2: x, y2: axisY + (major ? 5 : 3), stroke: muted });
      if (major) shapes.push({ kind: 'text', x, y: axisY + 14, text: decadeLabel(d), fill: muted, size: 10, anchor: 'middle' });
    }
    shapes.push({ kind: 'text', x: left + plotW / 2, y: axisY + 30, text: 'MSE (log scale)', fill: muted, size: 11, anchor: 'middle' });
    return { width, height: axisY + 40, background: rgbText(c.panel), title, shapes };
  }

  private describe(c: { kind: InterventionKind; feature: number; shift: number }): string {
    switch (c.kind) {
      case 'erase-request':
        return `Erase request feature ${c.feature}`;
      case 'erase-payload':
        return `Erase payload feature ${c.feature}`;
      case 'shift':
        return `Shift irrelevant coordinates by ${formatNumber(c.shift)}`;
    }
  }

  protected render(): void {
    this.connectSource();
    const kind = this.intervention;
    this.radios.forEach((radio) => {
      radio.checked = radio.value === kind;
    });
    this.parts.featureSelect.value = String(this.feature);
    this.parts.featureSelect.disabled = kind === 'shift';
    this.parts.shiftField.show(String(this.shift));
    this.parts.shiftInput.disabled = kind !== 'shift';
    if (this.source === this) {
      throw new WidgetInputError(
        `attribute source="${this.getAttribute('source')}" names this element itself; give the id of a <headlab-feature-recovery>`,
      );
    }
    if (this.source && this.source.localName !== 'headlab-feature-recovery') {
      // Only a trainer holds runs, so a source naming another interventions element (or a cycle of them) is refused here.
      throw new WidgetInputError(
        `attribute source="${this.getAttribute('source')}" names a <${this.source.localName}>, not a <headlab-feature-recovery> with trained matrices`,
      );
    }
    if (!this.source) {
      throw new WidgetInputError(
        this.getAttribute('source')
          ? `no element with id="${this.getAttribute('source')}" to take the trained matrices from (attribute source)`
          : 'no <headlab-feature-recovery> on the page to take the trained matrices from (give its id in attribute source)',
      );
    }
    const t = this.trained;
    this.parts.waiting.hidden = t !== null;
    if (!t) {
      if (this.parts.waiting.textContent !== WAITING_TEXT) this.parts.waiting.textContent = WAITING_TEXT;
      this.parts.output.hidden = true;
      this.setPending(false);
      return;
    }
    const key = this.currentKey();
    const failed = this.resultsOf(t).failed.get(key);
    if (failed !== undefined) throw new WidgetInputError(`The intervention could not be computed: ${failed}`);
    const r = this.lookup(t);
    this.feedWorker();
    // Until the worker answers: the result drawn before stays (dimmed) if it is of this run.
    if (this.shown?.run !== t) this.shown = null;
    const pending = r === null;
    this.setPending(pending);
    if (pending) {
      // Nothing of this run drawn yet: the waiting line says what is computed.
      this.parts.output.hidden = this.shown === null;
      this.parts.waiting.hidden = this.shown !== null;
      if (this.shown === null) this.parts.waiting.textContent = this.computingText();
      return;
    }
    this.parts.output.hidden = false;
    // The hidden waiting line back to its text for the next wait, whatever it said before (a render
    // while the answer was pending wrote "Computing…"; behind a still none ran): one markup for one state.
    if (this.parts.waiting.textContent !== WAITING_TEXT) this.parts.waiting.textContent = WAITING_TEXT;
    this.shown = { run: t, result: r, kind, feature: this.feature, shift: this.shift };
    this.parts.runNote.textContent = t.partial
      ? `Using a partial run: training was stopped at step ${t.steps_done} of ${t.settings.steps} (seed ${t.settings.seed}), so these matrices are not the finished model's.`
      : `Using the finished run: ${t.steps_done} steps, seed ${t.settings.seed}.`;
    this.parts.runNote.classList.toggle('partial', t.partial);
    setMse(this.parts.cleanCell, r.heldout_mse);
    setMse(this.parts.afterCell, r.mse);
    this.parts.afterLabel.textContent =
      kind === 'shift'
        ? `shifted: prediction against clean prediction (shift ${formatNumber(this.shift)})`
        : `${kind === 'erase-request' ? 'request' : 'payload'} feature ${this.feature} erased: prediction against original target`;
    const range =
      kind === 'erase-request'
        ? DRAFT_PUBLISHED.erase_request_mse
        : kind === 'erase-payload'
          ? DRAFT_PUBLISHED.erase_payload_mse
          : DRAFT_PUBLISHED.irrelevant_shift_mse;
    this.parts.draftNote.textContent =
      kind === 'shift'
        ? `The draft reports a change of about ${formatMagnitude(range[0])} to ${formatMagnitude(range[1])} in MSE for a shift of 5, across its three seeds.`
        : `The draft reports ${range[0]}–${range[1]} across its three seeds and the three feature choices.`;
    // Patched in place (the same 45 shapes each time): a typed shift creates no nodes.
    drawSceneInto(this.parts.barsSvg, this.figure(), { reuse: true });
    this.parts.barsSvg.setAttribute(
      'aria-label',
      `MSE on a log scale: clean ${formatMagnitude(r.heldout_mse)}, with the intervention ${formatMagnitude(r.mse)}.`,
    );
    const d = 3;
    for (let i = 0; i < EXAMPLES; i++) {
      const rowOf = (m: { data: Float64Array }) => Array.from(m.data.subarray(i * d, (i + 1) * d));
      const [target, before, after] = this.exampleRows[i];
      setVectorCell(target, rowOf(r.target), 2);
      setVectorCell(before, rowOf(r.before), 2);
      setVectorCell(after, rowOf(r.after), 2);
    }
  }
}

/** Tiny MSEs as 7.1e−32, the others as decimals. */
function mseText(x: number): string {
  return x < 1e-3 ? formatMagnitude(x) : formatNumber(x, 4);
}

function setMse(cell: HTMLTableCellElement, x: number): void {
  cell.textContent = mseText(x);
  cell.dataset.value = String(x);
  cell.title = String(x);
}

export interface HeadlabInterventions extends AttributeProperties<typeof HeadlabInterventions.attributes> {}
