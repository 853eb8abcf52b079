// <headlab-circuit-faithfulness model="m" circuit="0.0 1.1">: how much of a behaviour a chosen set of
// heads carries. Over a batch of prompt pairs (generated: pairs-task, count, pairs-seed; or a pairs
// file: pairs), every head
// outside the circuit is replaced (by its output on the corrupted prompt, or by its mean: ablation)
// and the share of the clean-vs-corrupted logit difference that survives is
//   recovery = (LD_circuit − LD_corrupted) / (LD_clean − LD_corrupted)
// per pair (core/circuit_faithfulness.hpp): 1 when the circuit alone carries the behaviour, 0 when
// it carries none. The figure draws the circuit's mean recovery with its bootstrap 95 % interval,
// and below it the recovery without each of its heads in turn (leave one out): a head whose removal
// costs little is not needed by this circuit. The reader toggles heads in and out and watches both.
//
// Each circuit's document is computed once in the worker (task 'transformer-faithfulness', one call)
// and kept per (model, batch, circuit, ablation), so a head toggled back shows at once.
//
// A circuit of edges instead (edges="0.0>1.1:k 0.0>1.1:q": sender>receiver:input, the command
// line's --faithfulness-edges): its heads are the edges' ends, each reads each input through the
// listed edges only (core/circuit_faithfulness.hpp), the reader ticks edges between them, and the
// rows below cut one edge each.
//
// Attributes: model, circuit (heads as layer.head, space or comma separated; default every head),
// edges (instead of circuit), ablation ("corrupted" | "mean", default corrupted), pairs-task ("induction" | "max-digit", default
// induction), count (pairs, 1 to 1024, default 64), pairs-seed (default 0), or pairs (a prompt-pairs
// file, formats/prompt_pairs.hpp, instead of the three; never taken from the URL hash).
// Events: `change` with CircuitFaithfulnessState when the reader toggles a head. Bound values
// (boundValue, for <headlab-value>): recovery, recovery.lower, recovery.upper, recovery.p_value,
// without.L<l>H<h> (the leave-one-out mean of a circuit head), without.<l.h>l.h:κ> (of an edge).
import type {
  TransformerCircuitEdge,
  TransformerEdgeFaithfulnessFile,
  TransformerFaithfulnessFile,
  TransformerRecoveryRow,
} from '../web/headlab-core.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  oneOf,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import type { BoundComputing, BoundValue } from './chart/format.js';
import { formatCount, formatNumber } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { drawIntoPlot } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { batchAttributes, fixed, pairsBatch, PairsFileReader, WorkerRefusals, type PairsBatch } from './transformer/batch.js';
import { EdgeBoxes, edgeHeads, edgeText, edgeWords, parseEdges } from './transformer/circuit-edges.js';
import { HEAD_BOXES_CSS, HeadBoxes } from './transformer/head-boxes.js';
import { TRANSFORMER_CSS, TransformerWidget, headName } from './transformer/widget.js';

export interface CircuitFaithfulnessState {
  /** The generated batch's task, pairs and seed (null with a pairs file). */
  pairs_task: 'induction' | 'max-digit' | null;
  count: number | null;
  pairs_seed: number | null;
  /** The pairs file as the attribute names it (null for generated pairs). */
  pairs: string | null;
  ablation: 'corrupted' | 'mean';
  /** The circuit's heads [layer, head], layer then head order (for a circuit of edges, their ends). */
  circuit: [number, number][];
  /** A circuit of edges, in the core's order (null for a circuit of heads). */
  edges: TransformerCircuitEdge[] | null;
  /** The circuit's recovery: mean and bootstrap 95 % interval (null before the worker's answer). */
  recovery: { mean: number; lower: number; upper: number; p_value: number } | null;
  /** The recovery without each circuit head (or each edge cut), in the circuit's order (empty before the answer). */
  leave_one_out: (({ layer: number; head: number } | { edge: TransformerCircuitEdge }) & { mean: number; lower: number; upper: number })[];
}

type FaithfulnessDoc = TransformerFaithfulnessFile | TransformerEdgeFaithfulnessFile;
type LeaveOneOutRow = FaithfulnessDoc['leave_one_out'][number];

/** A leave-one-out row's part: "L0 H1" or "L0 H0 → L1 H1 via k". */
const partWords = (x: LeaveOneOutRow): string => ('edge' in x ? edgeWords(x.edge) : headName(x.layer, x.head));

/** About five round ticks covering [lo, hi]. */
function ticks(lo: number, hi: number): number[] {
  const raw = (hi - lo) / 5;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return out;
}

// The chart's geometry (SVG units; drawn at most 1.6 times as wide, and never under 300 px on a 320 px
// page, so the 12-unit labels stay at least 11 px): a label column, then the axis; one row per interval.
const WIDTH = 300;
const LABEL = 100;
/** The label column for a circuit of edges ("cut L0H0→L1H1 k"). */
const EDGE_LABEL = 124;
const RIGHT = 14;
const TOP = 8;
const ROW = 26;
const AXIS_GAP = 10;

/** The parts build() makes (this.parts). */
interface CircuitFaithfulnessParts {
  plot: HTMLDivElement;
  readout: HTMLParagraphElement;
  captionLine: HTMLParagraphElement;
}

/**
 * Circuit faithfulness over a batch of prompt pairs: the share of the clean-vs-corrupted
 * logit difference a set of heads recovers with every other head replaced (by its corrupted-run
 * output, or its mean), with its bootstrap 95 % interval, and the same without each of its heads.
 * The reader toggles heads in and out. Or a circuit of edges (edges="0.0>1.1:k 0.0>1.1:q", instead of
 * circuit): its heads are the edges' ends, each input read through the listed edges only, the reader
 * ticks edges and the rows cut one edge each. Attributes: circuit (layer.head pairs; default every head), edges,
 * ablation ("corrupted" | "mean", default corrupted), pairs-task ("induction" | "max-digit", default
 * induction), count (1 to 1024, default 64), pairs-seed (default 0), or pairs (a prompt-pairs file's
 * location instead of the three), model. Shared: circuit, ablation,
 * edges, pairs-task, count, pairs-seed. figureData.faithfulness is `headlab model analyze --faithfulness`'s
 * (or --faithfulness-edges') document. Bound values: recovery, recovery.lower, recovery.upper,
 * recovery.p_value, without.L<l>H<h> (the recovery without that circuit head), without.<l.h>l.h:κ>
 * (with that edge cut).
 */
export class HeadlabCircuitFaithfulness extends TransformerWidget<CircuitFaithfulnessState, CircuitFaithfulnessParts> {
  static attributes = defineAttributes({
    circuit: text({ property: false, shared: true, doc: 'The circuit’s heads, "layer.head" pairs (default every head).' }),
    edges: text({ property: false, shared: true, doc: 'A circuit of edges instead, e.g. "0.0>1.1:k 0.0>1.1:q".' }),
    ablation: oneOf(['corrupted', 'mean'], {
      property: false,
      fallback: 'corrupted',
      shared: true,
      doc: 'What replaces the heads outside the circuit: their corrupted-run output or their mean.',
    }),
    ...batchAttributes(true),
  });
  protected static css = /* css */ `${TRANSFORMER_CSS}${HEAD_BOXES_CSS}
    .intervals { max-width: 480px; min-width: min(100%, 300px); }
    .intervals svg { display: block; width: 100%; height: auto; }
  `;

  private readonly heads = new HeadBoxes(
    (t, type, h) => this.listen(t, type, h),
    'Heads in the circuit (every other head is replaced)',
    (chosen) => {
      this.setAttribute('circuit', chosen.join(' '));
      this.emitChange();
    },
  );
  private readonly edgeBoxes = new EdgeBoxes(
    (t, type, h) => this.listen(t, type, h),
    (edges) => {
      this.setAttribute('edges', edges.map(edgeText).join(' '));
      this.emitChange();
    },
  );
  private shown: { doc: FaithfulnessDoc; model: LoadedTransformer; key: string; text: string } | null = null;
  /** The core's message for each batch or request the worker refused. */
  private readonly refusals = new WorkerRefusals();
  private readonly pairsFile = new PairsFileReader(() => this.requestRender());

  /** The batch from the attributes (pairsBatch). */
  private batch(): PairsBatch {
    return pairsBatch(this, this.pairsFile);
  }

  private get ablation(): 'corrupted' | 'mean' {
    const raw = (this.getAttribute('ablation') ?? '').trim();
    if (raw === '' || raw === 'corrupted') return 'corrupted';
    if (raw === 'mean') return 'mean';
    const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
    throw new WidgetInputError(`attribute ablation="${shown}" must be corrupted or mean`);
  }

  /**
   * The circuit from the `circuit` attribute, checked against `model`'s shape, in layer-then-head
   * order (the core's order); without the attribute, every head of the model.
   */
  private circuitOf(model: LoadedTransformer | null): [number, number][] {
    const edges = this.edgesOf(model);
    if (edges) return edgeHeads(edges);
    const raw = (this.getAttribute('circuit') ?? '').trim();
    const shown = raw.length > 60 ? `${raw.slice(0, 60)}…` : raw;
    if (raw === '') {
      if (!model) return [];
      const all: [number, number][] = [];
      for (let l = 0; l < model.config.n_layers; l++) for (let h = 0; h < model.config.n_heads; h++) all.push([l, h]);
      return all;
    }
    const out: [number, number][] = [];
    for (const part of raw.split(/[\s,]+/)) {
      const m = /^(\d{1,4})\.(\d{1,4})$/.exec(part);
      if (!m) throw new WidgetInputError(`attribute circuit="${shown}": "${part.slice(0, 20)}" is not a layer.head pair such as 1.2`);
      const l = Number(m[1]),
        h = Number(m[2]);
      if (model && (l >= model.config.n_layers || h >= model.config.n_heads)) {
        throw new WidgetInputError(
          `attribute circuit="${shown}": the model has no head ${part} (${model.config.n_layers} layers × ${model.config.n_heads} heads, numbered from 0)`,
        );
      }
      if (out.some(([a, b]) => a === l && b === h)) throw new WidgetInputError(`attribute circuit="${shown}": head ${part} is named twice`);
      out.push([l, h]);
    }
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }

  /** The circuit the figure computes: the attribute's heads checked against the model, or every head (for edges, their ends). */
  circuit(): [number, number][] {
    return this.circuitOf(this.currentModel);
  }

  /** The circuit of edges of the `edges` attribute, checked against the model; null without it. */
  edges(): TransformerCircuitEdge[] | null {
    return this.edgesOf(this.currentModel);
  }

  /** The circuit of edges of the `edges` attribute, checked against `model` (parseEdges); null without it. */
  private edgesOf(model: LoadedTransformer | null): TransformerCircuitEdge[] | null {
    const raw = this.getAttribute('edges');
    if (raw === null) return null;
    if (this.hasAttribute('circuit')) {
      const shown = (v: string) => (v.length > 40 ? `${v.slice(0, 40)}…` : v);
      throw new WidgetInputError(
        `attribute edges="${shown(raw)}" cannot be given with circuit="${shown(this.getAttribute('circuit') ?? '')}": a circuit is heads or edges`,
      );
    }
    return parseEdges(raw, model);
  }

  /** The key of one document: the batch, the ablation and the circuit (its heads, or its edges). */
  private keyOf(model: LoadedTransformer): string {
    const edges = this.edgesOf(model);
    const parts = edges
      ? `edges:${edges.map(edgeText).join(' ')}`
      : this.circuitOf(model)
          .map(([l, h]) => `${l}.${h}`)
          .join(' ');
    return `faithfulness:${this.batch().key}|${this.ablation}|${parts}`;
  }

  protected readState(): CircuitFaithfulnessState {
    const b = this.batch();
    const model = this.currentModel;
    const s = model && this.shown?.model === model && this.shown.key === this.keyOf(model) ? this.shown : null;
    const row = (r: TransformerRecoveryRow) => ({ mean: r.mean, lower: r.lower, upper: r.upper });
    return {
      pairs_task: b.task,
      count: b.count,
      pairs_seed: b.seed,
      pairs: b.file,
      ablation: this.ablation,
      circuit: this.circuit(),
      edges: this.edges(),
      recovery: s ? { ...row(s.doc.recovery), p_value: s.doc.recovery.p_value } : null,
      // One head: the circuit without it is empty (recovery 0 by definition), neither drawn nor listed.
      leave_one_out:
        s && s.doc.leave_one_out.length > 1
          ? s.doc.leave_one_out.map((r) => ('edge' in r ? { edge: r.edge, ...row(r) } : { layer: r.layer, head: r.head, ...row(r) }))
          : [],
    };
  }

  protected buildContent(content: HTMLDivElement): CircuitFaithfulnessParts {
    // A new plot (the figure built anew, e.g. attached again): its drawing is made anew too, not patched into the old one.
    this.heads.reset();
    this.edgeBoxes.reset();
    const plot = el('div', { class: 'intervals', role: 'img' });
    const readout = el('p', { class: 'readout', 'aria-live': 'polite' });
    const captionLine = el('p', { class: 'caption' });
    const figure = el('div', { class: 'figure' });
    figure.append(plot, readout, captionLine);
    content.append(
      el('p', { class: 'title' }, 'Circuit faithfulness: how much of the behaviour the chosen heads carry'),
      this.heads.box,
      this.edgeBoxes.box,
      figure,
    );
    return { plot, readout, captionLine };
  }

  protected workerFailed(model: LoadedTransformer, key: string, err: Error): void {
    this.refusals.remember(model.version, key, err.message);
    this.requestRender();
  }

  protected renderContent(model: LoadedTransformer): void {
    this.heads.build(model);
    const b = this.batch();
    const ablation = this.ablation;
    const edges = this.edgesOf(model);
    const circuit = this.circuitOf(model);
    if (circuit.length === 0) throw new WidgetInputError('attribute circuit="" names no head: a circuit keeps at least one head');
    this.heads.box.hidden = edges !== null;
    this.edgeBoxes.box.hidden = edges === null;
    if (edges) this.edgeBoxes.show(edges);
    else this.heads.show(circuit, 'A circuit keeps at least one head');
    const key = this.keyOf(model);
    const failure = this.refusals.of(model.version, key);
    if (failure !== undefined) throw new WidgetInputError(`Faithfulness cannot be computed for this circuit: ${failure}`);
    const doc =
      b.request && this.faithfulnessInWorker(model, key, edges ? { ...b.request, edges, ablation } : { ...b.request, circuit, ablation });
    if (!doc) {
      if (this.shown?.model !== model || this.shown.key !== key) {
        // The previous circuit's bars stay drawn but are not read out as this one's.
        const what = edges ? `the paths ${edges.map(edgeWords).join(', ')}` : circuit.map(([l, h]) => headName(l, h)).join(', ');
        const waiting = b.request ? `Computing the recovery of ${what} over ${b.pending} in the worker…` : 'Reading the pairs file…';
        if (this.parts.readout.textContent !== waiting) this.parts.readout.textContent = waiting;
        this.parts.plot.setAttribute('aria-label', waiting);
        this.parts.plot.setAttribute('aria-busy', 'true');
      }
      return;
    }
    if (this.shown?.doc !== doc) this.shown = { doc, model, key, text: this.summaryOf(doc, b) };
    const s = this.shown;
    const scene = this.scene(s.doc);
    drawIntoPlot(this.parts.plot, scene, false);
    const r = s.doc.recovery;
    const readout = `Recovered: ${fixed(r.mean, 3)} (95 % interval ${fixed(r.lower, 3)} to ${fixed(r.upper, 3)}, p = ${r.p_value.toPrecision(2)}) of the clean-vs-corrupted logit difference.`;
    if (this.parts.readout.textContent !== readout) this.parts.readout.textContent = readout;
    if (this.parts.captionLine.textContent !== s.text) this.parts.captionLine.textContent = s.text;
    this.parts.plot.setAttribute('aria-label', s.text);
    this.parts.plot.removeAttribute('aria-busy');
  }

  /** The summary: the circuit, what replaced the rest, its recovery with interval, and each head's leave-one-out. */
  private summaryOf(doc: FaithfulnessDoc, batch: PairsBatch): string {
    const names = doc.circuit.map(([l, h]) => headName(l, h));
    const replaced = doc.ablation === 'mean' ? 'its mean output over the batch' : 'its output on the corrupted prompt';
    const r = doc.recovery;
    const interval = (x: TransformerRecoveryRow) => `${fixed(x.mean, 3)} [${fixed(x.lower, 3)}, ${fixed(x.upper, 3)}]`;
    const rows: LeaveOneOutRow[] = doc.leave_one_out;
    const edges = 'edges' in doc ? doc.edges : null;
    const loo =
      rows.length > 1
        ? ` ${edges ? 'With one path cut' : 'Without one head'} (leave one out): ${rows.map((x) => `${partWords(x)} ${interval(x)}`).join('; ')}.`
        : '';
    // The part whose removal costs the most: the circuit's most needed part.
    const most = rows.length > 1 ? rows.reduce((a, b) => (b.mean < a.mean ? b : a)) : null;
    const needed = most ? ` ${edges ? 'Cutting' : 'Dropping'} ${partWords(most)} costs the most.` : '';
    const paths = edges
      ? ` and between them only the paths ${edges.map(edgeWords).join(', ')} (every other path carries the replacement)`
      : '';
    return (
      `Over ${batch.words(doc.pairs)}, with every head outside {${names.join(', ')}} replaced by ${replaced}${paths}, ` +
      `the circuit recovers ${interval(r)} of the clean-vs-corrupted logit difference (1: all of it, 0: none; bootstrap 95 % interval over ${formatCount(doc.resamples)} resamples).` +
      loo +
      needed
    );
  }

  /** The intervals: the circuit's row first (filled), then one row per left-out head, on one axis with 0 and 1 marked. */
  private scene(doc: FaithfulnessDoc): Scene {
    const c = this.themeColours();
    const fg = rgbText(c.fg),
      muted = rgbText(c.muted),
      rule = rgbText(c.rule),
      accent = rgbText(c.focus);
    const rows: { label: string; row: TransformerRecoveryRow; main: boolean }[] = [{ label: 'circuit', row: doc.recovery, main: true }];
    const parts: LeaveOneOutRow[] = doc.leave_one_out;
    // A cut edge in a short label ("cut L0H0→L1H1 k"); the summary says it in words.
    const label = (x: LeaveOneOutRow) =>
      'edge' in x ? `cut L${x.edge[0]}H${x.edge[1]}→L${x.edge[2]}H${x.edge[3]} ${x.edge[4]}` : `without ${headName(x.layer, x.head)}`;
    if (parts.length > 1) for (const x of parts) rows.push({ label: label(x), row: x, main: false });
    const LABEL_W = 'edges' in doc ? EDGE_LABEL : LABEL;
    let lo = 0,
      hi = 1;
    for (const { row } of rows) {
      lo = Math.min(lo, row.lower, row.mean);
      hi = Math.max(hi, row.upper, row.mean);
    }
    const pad = (hi - lo) * 0.04;
    lo -= pad;
    hi += pad;
    const span = WIDTH - LABEL_W - RIGHT;
    const x = (v: number) => LABEL_W + ((v - lo) / (hi - lo)) * span;
    const bottom = TOP + rows.length * ROW;
    const height = bottom + AXIS_GAP + 40;
    const shapes: Shape[] = [];
    // 0 (nothing recovered) and 1 (all of it): the two references a reader compares against.
    for (const [v, name] of [
      [0, 'none'],
      [1, 'all'],
    ] as const) {
      shapes.push({
        kind: 'line',
        x1: x(v),
        y1: TOP - 4,
        x2: x(v),
        y2: bottom,
        stroke: rule,
        width: 1.2,
        dash: v === 1 ? [4, 3] : undefined,
      });
      shapes.push({ kind: 'text', x: x(v), y: bottom + AXIS_GAP + 30, text: name, fill: muted, size: 12, anchor: 'middle' });
    }
    for (const t of ticks(lo, hi)) {
      shapes.push(
        { kind: 'line', x1: x(t), y1: bottom, x2: x(t), y2: bottom + 4, stroke: muted, width: 1 },
        { kind: 'text', x: x(t), y: bottom + AXIS_GAP + 8, text: formatNumber(t, 2), fill: muted, size: 12, anchor: 'middle' },
      );
    }
    shapes.push({ kind: 'line', x1: LABEL_W, y1: bottom, x2: WIDTH - RIGHT, y2: bottom, stroke: muted, width: 1 });
    rows.forEach(({ label, row, main }, i) => {
      const cy = TOP + i * ROW + ROW / 2;
      const colour = main ? accent : fg;
      shapes.push(
        {
          kind: 'text',
          x: LABEL_W - 8,
          y: cy,
          text: label,
          fill: main ? fg : muted,
          size: 12,
          anchor: 'end',
          weight: main ? 'bold' : undefined,
        },
        // The interval: a bar from lower to upper with end caps; the mean a filled square.
        { kind: 'line', x1: x(row.lower), y1: cy, x2: x(row.upper), y2: cy, stroke: colour, width: main ? 3 : 2 },
        { kind: 'line', x1: x(row.lower), y1: cy - 5, x2: x(row.lower), y2: cy + 5, stroke: colour, width: 1.5 },
        { kind: 'line', x1: x(row.upper), y1: cy - 5, x2: x(row.upper), y2: cy + 5, stroke: colour, width: 1.5 },
        { kind: 'rect', x: x(row.mean) - 4, y: cy - 4, w: 8, h: 8, fill: colour },
      );
    });
    return {
      width: WIDTH,
      height,
      background: rgbText(c.panel),
      title: 'Circuit faithfulness: recovered share with 95 % intervals',
      shapes,
    };
  }

  protected describe(): string {
    return this.shown?.text ?? 'Computing the circuit’s recovery in the worker…';
  }

  /**
   * Numbers for <headlab-value source="<this id>">: `recovery` (the circuit's mean recovery),
   * `recovery.lower`, `recovery.upper` (its bootstrap 95 % interval), `recovery.p_value`, and
   * `without.L<l>H<h>` (the mean recovery without that circuit head), `without.<l.h>l.h:κ>` (with that
   * edge cut, e.g. without.0.0>1.1:k). While another circuit is computed after one was shown: computing.
   */
  boundValue(name: string): BoundValue | BoundComputing | undefined {
    const model = this.currentModel;
    let key: string | null;
    try {
      key = model ? this.keyOf(model) : null;
    } catch {
      return undefined; // a bad attribute: the figure names it; the prose keeps its own text
    }
    const s = this.shown;
    if (!s || !model || s.model !== model || s.key !== key) return s ? { computing: true } : undefined;
    const r = s.doc.recovery;
    if (name === 'recovery') return { value: r.mean, kind: 'number' };
    if (name === 'recovery.lower') return { value: r.lower, kind: 'number' };
    if (name === 'recovery.upper') return { value: r.upper, kind: 'number' };
    if (name === 'recovery.p_value') return { value: r.p_value, kind: 'number' };
    const rows: LeaveOneOutRow[] = s.doc.leave_one_out;
    if (rows.length < 2 || !name.startsWith('without.')) return undefined;
    const part = name.slice('without.'.length);
    const row = rows.find((x) => ('edge' in x ? edgeText(x.edge) === part : `L${x.layer}H${x.head}` === part));
    return row ? { value: row.mean, kind: 'number' } : undefined;
  }

  /** The state with the core's document behind the figure (null before it arrives). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    const model = this.currentModel;
    const s = this.shown;
    if (!s || !model || state === null || s.model !== model || s.key !== this.keyOf(model)) return null;
    return { ...state, faithfulness: s.doc };
  }

  figures(): WidgetFigure[] {
    return [{ name: 'intervals', label: 'Recovered share with intervals', scene: () => this.scene(this.exportable(this.shown).doc) }];
  }
}

export interface HeadlabCircuitFaithfulness extends AttributeProperties<typeof HeadlabCircuitFaithfulness.attributes> {}
