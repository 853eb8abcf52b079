// <headlab-attribution-patching model="m">: where attribution patching's first-order estimate agrees
// with the real patch, and where it fails. Over a batch of prompt pairs (generated: pairs-task,
// count, pairs-seed; or a pairs file: pairs), for every head (node: its output patched at every position) and every edge
// sender → receiver's q, k or v (path patching), the mean first-order estimate
//   ê = −(A_corrupted − A_clean) · ∂LD/∂A |clean / (LD_clean − LD_corrupted)
// is drawn against the mean real effect e = 1 − normalised LD (core/attribution_patching.hpp), one
// point each: x the real patch, y the estimate, the diagonal y = x where a point would sit were the
// metric linear in the activation. Edges are coloured and shaped by the receiver's input (q, k, v:
// Okabe–Ito colours, a triangle, a diamond, a square), heads are crosses. Edges into q and k pass
// through the softmax, where a patch of order one is far from linear: their points leave the diagonal.
//
// The whole document is computed once per batch in the worker (task
// 'transformer-attribution-patching', one call); moving between points only reads it.
//
// Attributes: model, pairs-task ("induction" | "max-digit", default induction), count (pairs, 1 to
// 1024, default 64), pairs-seed (default 0), or pairs (a prompt-pairs file, formats/prompt_pairs.hpp,
// instead of the three; never taken from the URL hash), point (the point read out: its index, heads first in
// order l·H + h, then edges e·3 + κ in the core's path_edges order; default the largest disagreement).
// Events: `change` with AttributionPatchingState when the reader moves to another point.
import type { TransformerAttributionPatchingFile } from '../web/headlab-core.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  integerAttribute,
  setNumberAttribute,
  text,
  type WidgetFigure,
  WidgetInputError,
  shownIn,
} from './base/headlab-element.js';
import { formatNumber } from './chart/format.js';
import { rgbText, type ResolvedColours } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { drawIntoPlot } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { batchAttributes, fixed, pairsBatch, PairsFileReader, WorkerRefusals, type PairsBatch } from './transformer/batch.js';
import { TRANSFORMER_CSS, TransformerWidget, headName } from './transformer/widget.js';

export interface AttributionPatchingState {
  /** The generated batch's task, pairs and seed (null with a pairs file). */
  pairs_task: 'induction' | 'max-digit' | null;
  count: number | null;
  pairs_seed: number | null;
  /** The pairs file as the attribute names it (null for generated pairs). */
  pairs: string | null;
  /** The point read out (heads first, then edges e·3 + κ); −1 before the document arrives. */
  point: number;
  /** Spearman ρ of estimate against real patch over the heads, the edges, and the edges into q, k, v (null: undefined). */
  spearman: { nodes: number | null; edges: number | null; q: number | null; k: number | null; v: number | null } | null;
}

/** One point of the scatter: a head or an edge, its mean estimate and mean real effect. */
export interface AttributionPoint {
  kind: 'node' | 'q' | 'k' | 'v';
  /** "head L1 H0" or "edge L0 H0 → L1 H1 via k". */
  name: string;
  estimate: number;
  actual: number;
}

const INPUTS = ['q', 'k', 'v'] as const;

/** Every point of a document: the L·H heads (row-major), then the E edges × q, k, v. */
export function attributionPoints(doc: TransformerAttributionPatchingFile): AttributionPoint[] {
  const points: AttributionPoint[] = [];
  doc.nodes.estimate.forEach((row, l) =>
    row.forEach((estimate, h) => points.push({ kind: 'node', name: `head ${headName(l, h)}`, estimate, actual: doc.nodes.actual[l][h] })),
  );
  doc.edges.edges.forEach(([sl, sh, rl, rh], e) =>
    INPUTS.forEach((input, k) =>
      points.push({
        kind: input,
        name: `edge ${headName(sl, sh)} → ${headName(rl, rh)} via ${input}`,
        estimate: doc.edges.estimate[e][k],
        actual: doc.edges.actual[e][k],
      }),
    ),
  );
  return points;
}

/** ρ in words: two decimals, or "undefined" (fewer than two points, or one side constant). */
function rho(v: number | null): string {
  return v === null ? 'undefined' : fixed(v, 2);
}

/**
 * The colours of the receiver's inputs: Okabe and Ito's palette (told apart with any colour vision),
 * the darker member of each hue on a light panel and the lighter on a dark one (at least 3:1 against it).
 */
function inputColours(c: ResolvedColours): Record<'q' | 'k' | 'v', string> {
  const [r, g, b] = c.panel;
  const dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
  return dark ? { q: '#E69F00', k: '#56B4E9', v: '#3FC9A4' } : { q: '#D55E00', k: '#0072B2', v: '#007A5A' };
}

/** A marker of `kind` centred at (x, y), radius r: cross (head), triangle (q), diamond (k), square (v). */
function marker(kind: AttributionPoint['kind'], x: number, y: number, r: number, stroke: string, width = 1.6): Shape[] {
  if (kind === 'node')
    return [
      { kind: 'line', x1: x - r, y1: y, x2: x + r, y2: y, stroke, width },
      { kind: 'line', x1: x, y1: y - r, x2: x, y2: y + r, stroke, width },
    ];
  const outline: [number, number][] =
    kind === 'q'
      ? [
          [x, y - r],
          [x + r, y + r * 0.8],
          [x - r, y + r * 0.8],
        ]
      : kind === 'k'
        ? [
            [x, y - r],
            [x + r, y],
            [x, y + r],
            [x - r, y],
          ]
        : [
            [x - r * 0.8, y - r * 0.8],
            [x + r * 0.8, y - r * 0.8],
            [x + r * 0.8, y + r * 0.8],
            [x - r * 0.8, y + r * 0.8],
          ];
  return [{ kind: 'polyline', points: [...outline, outline[0]], stroke, width }];
}

/** About four round ticks covering [lo, hi]. */
function ticks(lo: number, hi: number): number[] {
  const raw = (hi - lo) / 4;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return out;
}

// The scatter's geometry (SVG units; drawn at most 1.5 times as wide, never under 300 px on a 320 px
// page, so the 12-unit labels stay at least 11 px).
const WIDTH = 300;
const LEFT = 50;
const TOP = 12;
const SIDE = WIDTH - LEFT - 12;
const LEGEND_TOP = TOP + SIDE + 42;
const HEIGHT = LEGEND_TOP + 40;

/** The parts build() makes (this.parts). */
interface AttributionPatchingParts {
  plot: HTMLDivElement;
  readout: HTMLParagraphElement;
  captionLine: HTMLParagraphElement;
}

/**
 * Attribution patching against real patching over a batch of prompt pairs: every head's and
 * every edge's (sender → receiver's q, k, v) mean first-order estimate against the mean real patch, the
 * diagonal drawn, Spearman ρ per group and the largest disagreements named. Attributes: pairs-task
 * ("induction" | "max-digit", default induction), count (1 to 1024, default 64), pairs-seed (default 0),
 * or pairs (a prompt-pairs file's location instead of the three), point (the point read out; default the largest disagreement), model. Shared: pairs-task, count,
 * pairs-seed, point. figureData.attribution_patching is `headlab model analyze --attribution-patching`'s document.
 */
export class HeadlabAttributionPatching extends TransformerWidget<AttributionPatchingState, AttributionPatchingParts> {
  static attributes = defineAttributes({
    ...batchAttributes(true),
    point: text({
      property: false,
      shared: true,
      markup: 'Num',
      doc: 'The selected point (a head’s or edge’s index; default the largest).',
    }),
  });
  protected static css = /* css */ `${TRANSFORMER_CSS}
    .scatter { max-width: 450px; touch-action: manipulation; }
    .scatter svg { display: block; width: 100%; height: auto; }
    .scatter:focus-visible { outline: 3px solid var(--hl-focus); outline-offset: 2px; }
  `;
  private shown: {
    doc: TransformerAttributionPatchingFile;
    model: LoadedTransformer;
    key: string;
    points: AttributionPoint[];
    text: string;
  } | null = null;
  private step: { key: string; done: number; total: number } | null = null;
  /** The core's message for each batch or request the worker refused. */
  private readonly refusals = new WorkerRefusals();
  private readonly pairsFile = new PairsFileReader(() => this.requestRender());

  /** The batch from the attributes (pairsBatch), keyed for the worker's cache. */
  private batch(): PairsBatch {
    const b = pairsBatch(this, this.pairsFile);
    return { ...b, key: `attribution:${b.key}` };
  }

  /** The point read out: the attribute (at most the last point), else the largest disagreement. */
  private pointOf(points: AttributionPoint[]): number {
    if (this.hasAttribute('point')) return Math.min(integerAttribute(this, 'point', 0, 0, 1 << 20), points.length - 1);
    let best = 0;
    points.forEach((p, i) => {
      if (Math.abs(p.estimate - p.actual) > Math.abs(points[best].estimate - points[best].actual)) best = i;
    });
    return best;
  }

  protected readState(): AttributionPatchingState {
    const b = this.batch();
    const s = this.shown?.key === b.key ? this.shown : null;
    const a = s?.doc.agreement;
    return {
      pairs_task: b.task,
      count: b.count,
      pairs_seed: b.seed,
      pairs: b.file,
      point: s ? this.pointOf(s.points) : -1,
      spearman: a
        ? {
            nodes: a.nodes.spearman,
            edges: a.edges.spearman,
            q: a.edges.spearman_by_input.q,
            k: a.edges.spearman_by_input.k,
            v: a.edges.spearman_by_input.v,
          }
        : null,
    };
  }

  protected buildContent(content: HTMLDivElement): AttributionPatchingParts {
    // A new plot (the figure built anew, e.g. attached again): its drawing is made anew too, not patched into the old one.
    // Focusable once it holds a drawing (an empty box is no target for a finger or the Tab key).
    const plot = el('div', { class: 'scatter', role: 'group' });
    const readout = el('p', { class: 'readout', 'aria-live': 'polite' });
    const captionLine = el('p', { class: 'caption' });
    const figure = el('div', { class: 'figure' });
    figure.append(plot, readout, captionLine);
    content.append(el('p', { class: 'title' }, 'Attribution patching: the first-order estimate against the real patch'), figure);
    // Arrow keys step through the points (heads, then edges), Home and End go to the first and last.
    this.listen(plot, 'keydown', (e) => {
      const k = (e as KeyboardEvent).key;
      const s = this.shown;
      if (!s) return;
      const n = s.points.length;
      const at = this.pointOf(s.points);
      const next =
        k === 'ArrowRight' || k === 'ArrowDown'
          ? Math.min(n - 1, at + 1)
          : k === 'ArrowLeft' || k === 'ArrowUp'
            ? Math.max(0, at - 1)
            : k === 'Home'
              ? 0
              : k === 'End'
                ? n - 1
                : null;
      if (next === null) return;
      e.preventDefault();
      this.choose(next);
    });
    // Pointer and touch: the point nearest the pointer (within 16 units) is read out.
    const pick = (e: Event) => {
      const p = e as PointerEvent;
      const s = this.shown;
      const svg = shownIn(this.parts.plot, SVGSVGElement);
      if (!s || !svg) return;
      const box = svg.getBoundingClientRect();
      if (box.width === 0) return;
      const u = WIDTH / box.width;
      const x = (p.clientX - box.left) * u,
        y = (p.clientY - box.top) * u;
      const place = this.placement(s.points);
      let best = -1,
        bestD = 16 * 16;
      s.points.forEach((q, i) => {
        const d = (place.x(q.actual) - x) ** 2 + (place.y(q.estimate) - y) ** 2;
        if (d < bestD) {
          bestD = d;
          best = i;
        }
      });
      if (best >= 0 && best !== this.pointOf(s.points)) this.choose(best);
    };
    this.listen(plot, 'pointermove', pick);
    this.listen(plot, 'pointerdown', pick);
    return { plot, readout, captionLine };
  }

  private choose(i: number): void {
    setNumberAttribute(this, 'point', i);
    this.emitChange();
  }

  protected batchProgressed(_model: LoadedTransformer, key: string, done: number, total: number): void {
    this.step = { key, done, total };
    this.requestRender();
  }

  protected workerFailed(model: LoadedTransformer, key: string, err: Error): void {
    this.refusals.remember(model.version, key, err.message);
    this.requestRender();
  }

  protected renderContent(model: LoadedTransformer): void {
    const b = this.batch();
    const key = b.key;
    const failure = this.refusals.of(model.version, key);
    if (failure !== undefined) throw new WidgetInputError(`Attribution patching cannot be computed for these pairs: ${failure}`);
    const doc = b.request && this.attributionPatchedInWorker(model, key, b.request);
    if (!doc) {
      if (this.shown?.model !== model || this.shown.key !== key) {
        this.shown = null;
        const step = this.step?.key === key ? this.step : null;
        const waiting = b.request
          ? `Computing attribution patching and the real patches over ${b.pending} in the worker… ${step ? `${step.done} of ${step.total} pairs done` : 'starting'}`
          : 'Reading the pairs file…';
        if (this.parts.captionLine.textContent !== waiting) this.parts.captionLine.textContent = waiting;
        this.parts.plot.setAttribute('aria-label', waiting);
      }
      return;
    }
    if (this.shown?.doc !== doc) {
      const points = attributionPoints(doc);
      this.shown = { doc, model, key, points, text: this.summaryOf(doc, b) };
    }
    const s = this.shown;
    const at = this.pointOf(s.points);
    const scene = this.scene(s.points, at);
    drawIntoPlot(this.parts.plot, scene, true);
    const p = s.points[at];
    const readout = `${p.name}: estimate ${fixed(p.estimate, 3)}, actual ${fixed(p.actual, 3)} (mean over ${doc.pairs} pairs; gap ${fixed(Math.abs(p.estimate - p.actual), 3)})`;
    if (this.parts.readout.textContent !== readout) this.parts.readout.textContent = readout;
    if (this.parts.captionLine.textContent !== s.text) this.parts.captionLine.textContent = s.text;
    this.parts.plot.setAttribute('aria-label', `${s.text} Arrow keys move through the points; the one read out: ${readout}.`);
  }

  /** The text summary: the batch, ρ per group, and the two largest disagreements among heads and among edges. */
  private summaryOf(doc: TransformerAttributionPatchingFile, batch: PairsBatch): string {
    const a = doc.agreement;
    const L = doc.nodes.estimate.length,
      H = doc.nodes.estimate[0]?.length ?? 0,
      E = doc.edges.edges.length;
    // The two largest of each kind: heads and edges differ in scale, so one list would name only heads.
    const said = (g: { estimate: number; actual: number }) => `estimate ${fixed(g.estimate, 3)}, actual ${fixed(g.actual, 3)}`;
    const heads = a.nodes.largest.slice(0, 2).map((g) => `head ${headName(g.layer, g.head)}: ${said(g)}`);
    const edgeGaps = a.edges.largest
      .slice(0, 2)
      .map((g) => `edge ${headName(g.sender[0], g.sender[1])} → ${headName(g.receiver[0], g.receiver[1])} via ${g.input}: ${said(g)}`);
    const named = [...heads, ...edgeGaps].join('; ');
    const edges =
      E === 0
        ? 'no edges (one layer)'
        : `the ${3 * E} edges ${rho(a.edges.spearman)} (into q ${rho(a.edges.spearman_by_input.q)}, k ${rho(a.edges.spearman_by_input.k)}, v ${rho(a.edges.spearman_by_input.v)})`;
    return (
      `Over ${batch.words(doc.pairs)}, Spearman ρ of the estimate against the real patch: the ${L * H} heads ${rho(a.nodes.spearman)}, ${edges}. ` +
      `Largest disagreements: ${named}.`
    );
  }

  /** Where a point sits: one range for both axes (so y = x is the diagonal), 0 included, padded 6 %. */
  private placement(points: AttributionPoint[]): { x: (v: number) => number; y: (v: number) => number; lo: number; hi: number } {
    let lo = 0,
      hi = 0;
    for (const p of points) {
      lo = Math.min(lo, p.estimate, p.actual);
      hi = Math.max(hi, p.estimate, p.actual);
    }
    if (hi - lo < 1e-12) hi = lo + 1;
    const pad = (hi - lo) * 0.06;
    lo -= pad;
    hi += pad;
    const scale = SIDE / (hi - lo);
    return { x: (v) => LEFT + (v - lo) * scale, y: (v) => TOP + SIDE - (v - lo) * scale, lo, hi };
  }

  /** The scatter with its axes, diagonal, the point read out ringed, and the legend of the four marks. */
  private scene(points: AttributionPoint[], at: number): Scene {
    const c = this.themeColours();
    const fg = rgbText(c.fg),
      muted = rgbText(c.muted),
      rule = rgbText(c.rule);
    const colour = inputColours(c);
    const stroke = (kind: AttributionPoint['kind']) => (kind === 'node' ? fg : colour[kind]);
    const { x, y, lo, hi } = this.placement(points);
    const shapes: Shape[] = [{ kind: 'rect', x: LEFT, y: TOP, w: SIDE, h: SIDE, fill: rgbText(c.panel), stroke: rule }];
    for (const t of ticks(lo, hi)) {
      shapes.push(
        { kind: 'line', x1: x(t), y1: TOP + SIDE, x2: x(t), y2: TOP + SIDE + 4, stroke: muted, width: 1 },
        { kind: 'text', x: x(t), y: TOP + SIDE + 16, text: formatNumber(t, 2), fill: muted, size: 12, anchor: 'middle' },
        { kind: 'line', x1: LEFT - 4, y1: y(t), x2: LEFT, y2: y(t), stroke: muted, width: 1 },
        { kind: 'text', x: LEFT - 6, y: y(t), text: formatNumber(t, 2), fill: muted, size: 12, anchor: 'end' },
      );
      if (t === 0) {
        shapes.push(
          { kind: 'line', x1: x(0), y1: TOP, x2: x(0), y2: TOP + SIDE, stroke: rule, width: 1 },
          { kind: 'line', x1: LEFT, y1: y(0), x2: LEFT + SIDE, y2: y(0), stroke: rule, width: 1 },
        );
      }
    }
    // The diagonal y = x: where an estimate equals the real patch.
    shapes.push({ kind: 'line', x1: x(lo), y1: y(lo), x2: x(hi), y2: y(hi), stroke: muted, width: 1.2, dash: [5, 4] });
    // Its label above the line, clear of it (the line at x(hi) − 34 runs 34 units below y(hi)).
    shapes.push({ kind: 'text', x: x(hi) - 34, y: y(hi) + 12, text: 'y = x', fill: muted, size: 12, anchor: 'end' });
    // Heads first, then edges v, k, q: the q and k points (the ones that leave the diagonal) on top.
    const order = points.map((_, i) => i);
    const rank = { node: 0, v: 1, k: 2, q: 3 };
    order.sort((i, j) => rank[points[i].kind] - rank[points[j].kind] || i - j);
    for (const i of order) {
      const p = points[i];
      shapes.push(...marker(p.kind, x(p.actual), y(p.estimate), 4, stroke(p.kind)).map((m) => ({ ...m, data: { point: String(i) } })));
    }
    const p = points[at];
    if (p) {
      const cx = x(p.actual),
        cy = y(p.estimate),
        r = 9;
      const ring: [number, number][] = Array.from({ length: 17 }, (_, k) => [
        cx + r * Math.cos((k * Math.PI) / 8),
        cy + r * Math.sin((k * Math.PI) / 8),
      ]);
      shapes.push({ kind: 'polyline', points: ring, stroke: rgbText(c.focus), width: 2 });
    }
    shapes.push(
      { kind: 'text', x: LEFT + SIDE / 2, y: TOP + SIDE + 32, text: 'real patch (mean effect) →', fill: fg, size: 12, anchor: 'middle' },
      { kind: 'text', x: 12, y: TOP + SIDE / 2, text: 'estimate →', fill: fg, size: 12, anchor: 'middle', rotate: -90 },
    );
    const legend: [AttributionPoint['kind'], string][] = [
      ['node', 'head'],
      ['q', 'edge via q'],
      ['k', 'edge via k'],
      ['v', 'edge via v'],
    ];
    legend.forEach(([kind, label], i) => {
      const lx = 14 + (i % 2) * 140,
        ly = LEGEND_TOP + 8 + Math.floor(i / 2) * 20;
      shapes.push(...marker(kind, lx, ly, 5, stroke(kind)), { kind: 'text', x: lx + 12, y: ly, text: label, fill: fg, size: 12 });
    });
    return { width: WIDTH, height: HEIGHT, background: rgbText(c.panel), title: 'Attribution patching against real patching', shapes };
  }

  protected describe(): string {
    return this.shown?.text ?? 'Computing attribution patching and the real patches in the worker…';
  }

  /** The state with the core's document behind the figure (null before it arrives). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    const s = this.shown;
    if (!s || state === null || s.key !== this.batch().key) return null;
    return { ...state, attribution_patching: s.doc };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'scatter',
        label: 'Estimate against real patch',
        scene: () => {
          const s = this.exportable(this.shown);
          return this.scene(s.points, this.pointOf(s.points));
        },
      },
    ];
  }
}

export interface HeadlabAttributionPatching extends AttributeProperties<typeof HeadlabAttributionPatching.attributes> {}
