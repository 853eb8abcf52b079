// <headlab-basis-rotation>: rotate the query/key basis, Q' = Q R and K' = K R with
// R the plane rotation by the reader's angle in coordinates 1 and 2. The
// coordinates of every query and key move; the score matrix Q Kᵀ/√d_k does not,
// because R Rᵀ = I. Shows Q, K, Q', K', both score matrices and max |S' − S|.
//
// The core computes everything: R = core.planeRotation; the rotated projections
// W_Q R, W_K R = core.rotateQueryKey(W_Q, W_K, R); Q', K', S' = core.attention with
// them (Q' = X W_Q R = Q R). JS only takes the largest difference of two score matrices.
//
// Attributes (mirrored): angle — degrees in [−180, 180] (default 30); x — JSON
// n × d_model tokens; w-q, w-k — JSON d_model × d_k projections (d_k ≥ 2).
import type { AttentionResult, Matrix } from '../web/headlab-core.js';
import { matrix } from '../web/matrix.js';
import { Memo } from './base/memo.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  HeadlabElement,
  jsonAttribute,
  number,
  numberGrid,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { formatDifference, formatMagnitude, formatNumber } from './chart/format.js';
import { MatrixTable } from './chart/matrix-table.js';
import { rgbText, type ResolvedColours } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import { tablesScene } from './chart/table-scene.js';
import { localId } from './base/ids.js';

/**
 * Scores of the rotated basis must equal the originals within this: each score is a
 * d_k-term dot product of O(1) entries rotated by one 2 × 2 product, so rounding
 * differences are a few ulps (~1e-16); 1e-12 leaves four orders of margin.
 */
export const SCORE_INVARIANCE_TOLERANCE = 1e-12;

/**
 * Most rows and columns of x, w-q and w-k (docs/limits.md). The widget shows six n × d_k and
 * n × n tables and rewrites the rotated ones on every angle step: at 8 × 8 a step takes
 * p95 3.7 ms of main-thread CPU (inside the 4 ms budget), at 16 × 16 p95 10.9 ms (four times as
 * many score cells to write and lay out), measured by bench/widgets.bench.mjs ("limits").
 */
export const MAX_ROTATION_SIDE = 8;

const DEFAULTS = {
  x: [
    [1, 0],
    [0, 1],
    [1, 1],
  ],
  w_q: [
    [1, 0.5],
    [-0.5, 1],
  ],
  w_k: [
    [0.5, 1],
    [1, -0.5],
  ],
};

export interface BasisRotationState {
  angle_degrees: number;
  q: number[][];
  k: number[][];
  q_rotated: number[][];
  k_rotated: number[][];
  scores: number[][];
  scores_rotated: number[][];
  max_score_difference: number;
}

/** The unrotated head and its inputs as core matrices (d_k = columns of W_Q). */
interface RotationBase {
  X: Matrix;
  Wq: Matrix;
  Wk: Matrix;
  dk: number;
  before: AttentionResult;
}

/** The parts build() makes (this.parts). */
interface BasisRotationParts {
  panels: HTMLDivElement;
  slider: HTMLInputElement;
  angleText: HTMLOutputElement;
  verdict: HTMLParagraphElement;
}

/** Attributes: angle (degrees in [−180, 180], default 30), x, w-q, w-k (JSON rows). Shared: angle. */
export class HeadlabBasisRotation extends HeadlabElement<BasisRotationState, BasisRotationParts> {
  static attributes = defineAttributes({
    angle: number({ fallback: 30, min: -180, max: 180, shared: true, doc: 'The rotation, in degrees.' }),
    x: text({ property: false, doc: 'The inputs (JSON rows).' }),
    'w-q': text({ property: false, doc: 'W_Q (JSON rows, d × d_k, d_k ≥ 2).' }),
    'w-k': text({ property: false, doc: 'W_K (JSON rows, d × d_k).' }),
  });
  private readonly base = new Memo<RotationBase>();
  private readonly heads = new Memo<{ before: AttentionResult; after: AttentionResult; maxDiff: number }>();
  protected static css = /* css */ `
    .slider { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 0.75rem; }
    .slider input { flex: 1 1 12rem; min-width: 10rem; }
    .panels { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: flex-start; }
    .panels table { margin: 0.25rem 0; }
    .plot { flex: 0 0 auto; }
    .plot .q { stroke: var(--hl-pos); fill: var(--hl-pos); }
    .plot .k { stroke: var(--hl-neg); fill: var(--hl-neg); }
    .plot line.vec { stroke-width: 2.5; }
    .plot line.q.vec { stroke-dasharray: none; }
    .plot line.k.vec { stroke-dasharray: 5 3; }
    .plot text { font-size: 11px; stroke: none; }
    .verdict { font-weight: 600; }
    /* Legend text in the text colour (contrast), underlined in the line's colour and dash. */
    .legend-q { font-weight: 600; text-decoration: underline solid 3px var(--hl-pos); text-underline-offset: 3px; }
    .legend-k { font-weight: 600; text-decoration: underline dashed 3px var(--hl-neg); text-underline-offset: 3px; }
  `;
  private tables: Record<string, MatrixTable> = {};
  /** The plot of the current shape (rebuildShape makes it at the first render and at each new shape). */
  private plot: Plot | null = null;
  private lastShape = '';

  private inputs(): { x: number[][]; w_q: number[][]; w_k: number[][] } {
    const x = numberGrid(jsonAttribute(this, 'x') ?? DEFAULTS.x, 'attribute x', 0, 0, MAX_ROTATION_SIDE);
    const d = x[0].length;
    const w_q = numberGrid(jsonAttribute(this, 'w-q') ?? DEFAULTS.w_q, 'attribute w-q', d, 0, MAX_ROTATION_SIDE);
    const w_k = numberGrid(jsonAttribute(this, 'w-k') ?? DEFAULTS.w_k, 'attribute w-k', d, 0, MAX_ROTATION_SIDE);
    if (w_q[0].length !== w_k[0].length)
      throw new WidgetInputError(`w-q and w-k must have the same number of columns d_k (${w_q[0].length} ≠ ${w_k[0].length})`);
    if (w_q[0].length < 2) throw new WidgetInputError('a rotation needs d_k ≥ 2 columns in w-q and w-k');
    return { x, w_q, w_k };
  }

  /**
   * Both heads and their largest score difference, shared by render(), state and the summary.
   * The unrotated head depends on x, w-q and w-k only, so an angle step costs one rotation and
   * one attention call (the core's), not a parse of the matrices and two attention calls.
   */
  private compute(): { before: AttentionResult; after: AttentionResult; maxDiff: number } {
    const base = this.base.get([this.core, this.getAttribute('x'), this.getAttribute('w-q'), this.getAttribute('w-k')], () =>
      this.computeBase(),
    );
    return this.heads.get([base, this.angle], () => this.computeNow(base));
  }

  private computeBase(): RotationBase {
    const core = this.core!;
    const { x, w_q, w_k } = this.inputs();
    const X = matrix(x),
      Wq = matrix(w_q),
      Wk = matrix(w_k);
    return { X, Wq, Wk, dk: w_q[0].length, before: core.attention({ x: X, w_q: Wq, w_k: Wk, w_v: Wq }) };
  }

  private computeNow({ X, Wq, Wk, dk, before }: RotationBase): { before: AttentionResult; after: AttentionResult; maxDiff: number } {
    const core = this.core!;
    const R = core.planeRotation(dk, 0, 1, (this.angle * Math.PI) / 180);
    const rotated = core.rotateQueryKey(Wq, Wk, R);
    const after = core.attention({ x: X, w_q: rotated.q, w_k: rotated.k, w_v: Wq });
    let maxDiff = 0;
    before.scores.data.forEach((s, i) => {
      maxDiff = Math.max(maxDiff, Math.abs(after.scores.data[i] - s));
    });
    return { before, after, maxDiff };
  }

  protected readState(): BasisRotationState {
    const { before, after, maxDiff } = this.compute();
    return {
      angle_degrees: this.angle,
      q: rows(before.q),
      k: rows(before.k),
      q_rotated: rows(after.q),
      k_rotated: rows(after.k),
      scores: rows(before.scores),
      scores_rotated: rows(after.scores),
      max_score_difference: maxDiff,
    };
  }

  protected build(): BasisRotationParts {
    this.tables = {};
    this.lastShape = '';
    const title = el('p', { class: 'title' }, 'Rotate the query–key basis');
    const intro = el(
      'p',
      { class: 'caption' },
      'Both queries and keys are multiplied by the same rotation R. Their coordinates change; every score stays the same.',
    );
    const sliderId = localId(this, 'angle');
    const slider = el('input', { type: 'range', min: '-180', max: '180', step: '1', id: sliderId });
    const label = el('label', { for: sliderId }, 'Rotation angle');
    const out = el('output', { for: sliderId, class: 'num' });
    this.listen(slider, 'input', () => {
      this.angle = slider.valueAsNumber;
      this.emitChange();
    });
    const sliderRow = el('div', { class: 'slider' });
    sliderRow.append(label, slider, out);
    const panels = el('div', { class: 'panels' });
    const legend = el('p', { class: 'note' });
    legend.append(
      'Plot: ',
      el('span', { class: 'legend-q' }, 'queries (solid)'),
      ' and ',
      el('span', { class: 'legend-k' }, 'keys (dashed)'),
      ' after rotation, in coordinates 1 and 2.',
    );
    const verdict = el('p', { class: 'verdict', role: 'status' });
    this.body.append(title, intro, sliderRow, panels, legend, verdict, this.exportControls());
    return { panels, slider, angleText: out, verdict };
  }

  figures(): WidgetFigure[] {
    const colours = () => this.themeColours();
    return [
      { name: 'plot', label: 'Plot', scene: () => plotScene(this.readState(), colours()) },
      {
        name: 'scores',
        label: 'Score tables',
        scene: () =>
          tablesScene(
            [this.tables.s.table, this.tables.sr.table],
            colours(),
            `Scores before and after a rotation by ${formatNumber(this.angle, 1)}°`,
          ),
      },
    ];
  }

  protected summarize(): string {
    // The first rows of `state` (not the whole state: copying six 16 × 16 matrices per render).
    const { before, after, maxDiff } = this.compute();
    const first = (m: Matrix) => Array.from(m.data.subarray(0, m.cols));
    const ok = maxDiff <= SCORE_INVARIANCE_TOLERANCE;
    return `Rotation by ${formatNumber(this.angle, 1)}° of the query–key basis: q₁ moves from ${vec(first(before.q))} to ${vec(first(after.q))} and k₁ from ${vec(first(before.k))} to ${vec(first(after.k))}; the largest score difference is ${formatMagnitude(maxDiff)}, so ${ok ? 'every score is unchanged' : 'the scores changed'}.`;
  }

  private rebuildShape(n: number, dk: number): Plot {
    this.lastShape = `${n}×${dk}`;
    const coords = Array.from({ length: dk }, (_, j) => `${j + 1}`);
    const keys = Array.from({ length: n }, (_, j) => `k${subscript(j + 1)}`);
    const queries = Array.from({ length: n }, (_, i) => `q${subscript(i + 1)}`);
    const make = (caption: string, rowLabels: string[], colLabels: string[], heat = 0) =>
      new MatrixTable({ caption, rowLabels, colLabels, heatScale: heat });
    this.tables = {
      q: make('Q (before)', queries, coords),
      k: make('K (before)', keys, coords),
      qr: make('Q′ = QR (after)', queries, coords),
      kr: make('K′ = KR (after)', keys, coords),
      s: make('Scores QKᵀ/√d_k (before)', queries, keys, 1),
      sr: make('Scores Q′K′ᵀ/√d_k (after)', queries, keys, 1),
    };
    const { panels } = this.parts;
    const group = (...t: MatrixTable[]) => {
      const div = el('div', { class: 'scroll' });
      div.append(...t.map((x) => x.table));
      return div;
    };
    const plot = makePlot(n);
    const plotBox = el('div', { class: 'plot' });
    plotBox.append(plot.svg);
    panels.replaceChildren(
      group(this.tables.q, this.tables.k),
      group(this.tables.qr, this.tables.kr),
      plotBox,
      group(this.tables.s),
      group(this.tables.sr),
    );
    return plot;
  }

  protected render(): void {
    const angle = this.angle;
    const { before, after, maxDiff } = this.compute();
    const shape = `${before.q.rows}×${before.q.cols}`;
    if (shape !== this.lastShape || !this.plot) this.plot = this.rebuildShape(before.q.rows, before.q.cols);
    if (this.parts.slider.valueAsNumber !== angle) this.parts.slider.value = String(angle);
    this.parts.slider.setAttribute('aria-valuetext', `${formatNumber(angle, 1)} degrees`);
    this.parts.angleText.textContent = `${formatNumber(angle, 1)}°`;
    this.tables.q.update(before.q);
    this.tables.k.update(before.k);
    this.tables.qr.update(after.q);
    this.tables.kr.update(after.k);
    this.tables.s.update(before.scores);
    this.tables.sr.update(after.scores);
    this.parts.verdict.dataset.value = String(maxDiff);
    const ok = maxDiff <= SCORE_INVARIANCE_TOLERANCE;
    this.parts.verdict.textContent = ok
      ? `Rotating both projections leaves the scores ${formatDifference(maxDiff, SCORE_INVARIANCE_TOLERANCE)}.`
      : `Rotating both projections changes the scores: ${formatDifference(maxDiff, SCORE_INVARIANCE_TOLERANCE)}.`;
    updatePlot(this.plot, after.q, after.k);
  }
}

function vec(v: number[]): string {
  return `[${v.map((x) => formatNumber(x, 3)).join(', ')}]`;
}

/** Coordinates 1 and 2 of each rotated query (solid, orange) and key (dashed, blue), as an exportable Scene. */
function plotScene(s: BasisRotationState, c: ResolvedColours): Scene {
  // A 240 × 240 plot centred under a title; the width leaves room for the title.
  const width = 340,
    size = 240,
    half = size / 2,
    top = 26,
    cx = width / 2,
    cy = top + half;
  const title = `Queries and keys after a rotation by ${formatNumber(s.angle_degrees, 1)}°`;
  const muted = rgbText(c.muted),
    pos = rgbText(c.pos),
    neg = rgbText(c.neg),
    fg = rgbText(c.fg);
  const shapes: Shape[] = [
    { kind: 'text', x: cx, y: 12, text: title, fill: fg, size: 12, weight: 'bold', anchor: 'middle' },
    { kind: 'line', x1: cx - half, y1: cy, x2: cx + half, y2: cy, stroke: muted },
    { kind: 'line', x1: cx, y1: top, x2: cx, y2: top + size, stroke: muted },
  ];
  let r = 0;
  for (const m of [s.q_rotated, s.k_rotated]) for (const v of m) r = Math.max(r, Math.hypot(v[0], v[1]));
  const scale = r > 0 ? (half - 18) / r : 0;
  const draw = (m: number[][], colour: string, prefix: string, dash?: number[]) =>
    m.forEach((v, i) => {
      const x = v[0] * scale,
        y = -v[1] * scale,
        len = Math.hypot(x, y) || 1;
      shapes.push({ kind: 'line', x1: cx, y1: cy, x2: cx + x, y2: cy + y, stroke: colour, width: 2.5, ...(dash ? { dash } : {}) });
      shapes.push({
        kind: 'text',
        x: cx + x + (x / len) * 10,
        y: cy + y + (y / len) * 10,
        text: `${prefix}${subscript(i + 1)}`,
        fill: colour,
        size: 11,
        anchor: 'middle',
      });
    });
  draw(s.q_rotated, pos, 'q');
  draw(s.k_rotated, neg, 'k', [5, 3]);
  shapes.push({ kind: 'text', x: 8, y: top + size + 10, text: 'queries solid, keys dashed; coordinates 1 and 2', fill: muted, size: 11 });
  return { width, height: top + size + 22, background: rgbText(c.panel), title, shapes };
}

function rows(m: Matrix): number[][] {
  return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
}

function subscript(n: number): string {
  return String(n).replace(/\d/g, (c) => '₀₁₂₃₄₅₆₇₈₉'[Number(c)]);
}

const PLOT = 180;

function makePlot(n: number) {
  const svg = svgEl('svg', {
    width: PLOT,
    height: PLOT,
    viewBox: `${-PLOT / 2} ${-PLOT / 2} ${PLOT} ${PLOT}`,
    'aria-hidden': 'true',
    focusable: 'false',
  });
  svg.append(
    svgEl('line', { x1: -PLOT / 2, x2: PLOT / 2, y1: 0, y2: 0, class: 'axis' }),
    svgEl('line', { x1: 0, x2: 0, y1: -PLOT / 2, y2: PLOT / 2, class: 'axis' }),
  );
  const make = (cls: string) =>
    Array.from({ length: n }, () => {
      const line = svgEl('line', { x1: 0, y1: 0, x2: 0, y2: 0, class: `${cls} vec` });
      svg.append(line);
      return line;
    });
  const q = make('q'),
    k = make('k');
  const label = (cls: string, prefix: string) =>
    Array.from({ length: n }, (_, i) => {
      const t = svgEl('text', { class: cls, 'text-anchor': 'middle', 'dominant-baseline': 'middle' });
      t.textContent = `${prefix}${subscript(i + 1)}`;
      svg.append(t);
      return t;
    });
  return { svg, q, k, qLabel: label('q', 'q'), kLabel: label('k', 'k') };
}

/** Draws coordinates 1 and 2 of each query and key row (scaled to the largest length; y up). */
type Plot = ReturnType<typeof makePlot>;

function updatePlot(plot: Plot, q: Matrix, k: Matrix): void {
  let r = 0;
  for (const m of [q, k]) for (let i = 0; i < m.rows; i++) r = Math.max(r, Math.hypot(m.data[i * m.cols], m.data[i * m.cols + 1]));
  const s = r > 0 ? (PLOT / 2 - 16) / r : 0;
  const draw = (m: Matrix, lines: SVGLineElement[], labels: SVGTextElement[]) => {
    lines.forEach((line, i) => {
      const x = m.data[i * m.cols] * s,
        y = -m.data[i * m.cols + 1] * s;
      line.setAttribute('x2', x.toFixed(2));
      line.setAttribute('y2', y.toFixed(2));
      const len = Math.hypot(x, y) || 1;
      labels[i].setAttribute('x', (x + (x / len) * 9).toFixed(2));
      labels[i].setAttribute('y', (y + (y / len) * 9).toFixed(2));
    });
  };
  draw(q, plot.q, plot.qLabel);
  draw(k, plot.k, plot.kLabel);
}

export interface HeadlabBasisRotation extends AttributeProperties<typeof HeadlabBasisRotation.attributes> {}
