// <headlab-query-key-canvas>: the first article's head drawn in the plane. Two tokens
// x₁ = [1, 0], x₂ = [0, 1] (so q_i = x_i W_Q is row i of W_Q, and likewise for keys and
// values); their queries (solid, orange) and keys (dashed, blue) are arrows whose tips the
// reader drags by mouse, touch or arrow keys; attention is drawn as edges from each query
// to each key whose width is the weight. A score-scale control sharpens or flattens the
// softmax, and the basis-change views show the queries and keys after Q′ = Q A,
// K′ = K A⁻ᵀ (A = a rotation R, or any invertible A) over ghosts of the originals.
//
// The core computes every number drawn: Q, K, V = core.attention (x = I); the change of
// basis = core.changeQueryKeyBasis; scores, weights, readings, lengths and angles =
// core.queryKeyPicture. JS only maps them to pixels (and takes max |S′ − S| of two score
// matrices the core returned).
//
// Attributes (mirrored, all shared in the URL hash): w-q, w-k, w-v — JSON 2 × 2 (defaults
// START_W_Q, START_W_K and the identity); scale — the score scale s ≥ 0 in s·q·k (default 1/√2, the head's 1/√d_k);
// basis — none | rotation | invertible (default none); angle — rotation in degrees
// [−180, 180] (default 40); a — JSON 2 × 2 invertible A (default [[1.6, 0.6], [0, 0.7]]).
import type { Matrix, QueryKeyPicture } from '../web/headlab-core.js';
import { matrix } from '../web/matrix.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  HeadlabElement,
  jsonAttribute,
  number,
  numberGrid,
  oneOf,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { formatMagnitude, formatNumber } from './chart/format.js';
import { rgbText, type ResolvedColours } from './chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import { setText } from './chart/text.js';
import { localId } from './base/ids.js';

/** max |S′ − S| below this counts as "scores unchanged": 2 × 2 entries of O(1), κ(A) ≤ 1e8 at worst → far below; the default A (κ ≈ 3) gives ~1e-16. */
export const SCORE_INVARIANCE_TOLERANCE = 1e-12;
export const DEFAULT_SCALE = Math.SQRT1_2;
const DEFAULT_A = [
  [1.6, 0.6],
  [0, 0.7],
];
const IDENTITY = [
  [1, 0],
  [0, 1],
];
/**
 * The starting head. With W_Q = W_K = I each query would lie on its own token's key, and exchanging
 * the columns of either (a reflection across the diagonal) would only trade two labels in the plane.
 * Here each query leans 11.3° above its token (row i of W_Q is x_i plus 0.2 of the other axis) and
 * each key as far below, so no arrow lies on another and q₁·k₁ = 0.96 > q₁·k₂ = 0.4. Exchanging the
 * columns of W_Q reflects the queries across the diagonal, onto the other token's keys
 * (q₁′ = [0.2, 1] = k₂): the arrows visibly move and the edges cross over; likewise for W_K.
 */
export const START_W_Q = [
  [1, 0.2],
  [-0.2, 1],
];
export const START_W_K = [
  [1, -0.2],
  [0.2, 1],
];
/** M with its two columns exchanged: M [[0, 1], [1, 0]]. */
const columnsSwapped = (m: number[][]) => m.map(([a, b]) => [b, a]);
/** Keyboard step for a vector tip (Shift: 5×), in plane units. */
const KEY_STEP = 0.1;
/** The basis edit the canvas applies to W_Q and W_K. */
export type QueryKeyBasis = 'none' | 'rotation' | 'invertible';
const BASES: readonly QueryKeyBasis[] = ['none', 'rotation', 'invertible'];

/** The three edits of the first article, as attribute sets (absent = the starting head). */
export const PRESETS: Record<string, { label: string; attrs: Record<string, string> }> = {
  start: { label: 'Start', attrs: {} },
  'edit-q': { label: 'Swap W_Q', attrs: { 'w-q': JSON.stringify(columnsSwapped(START_W_Q)) } },
  'edit-k': { label: 'Swap W_K', attrs: { 'w-k': JSON.stringify(columnsSwapped(START_W_K)) } },
  'edit-v': { label: 'W_V = diag(2, −3)', attrs: { 'w-v': '[[2,0],[0,-3]]' } },
};

export interface QueryKeyCanvasState {
  w_q: number[][];
  w_k: number[][];
  w_v: number[][];
  score_scale: number;
  basis: QueryKeyBasis;
  angle_degrees: number;
  a: number[][];
  /** Queries and keys as drawn (after the change of basis when one is on). */
  q: number[][];
  k: number[][];
  v: number[][];
  q_before: number[][];
  k_before: number[][];
  scores: number[][];
  weights: number[][];
  reading: number[][];
  query_lengths: number[];
  query_lengths_before: number[];
  /** Angle between q₁ and q₂ in degrees, after and before the change of basis. */
  query_angle_degrees: number;
  query_angle_degrees_before: number;
  condition_number: number | null;
  max_score_difference: number;
}

interface Computed extends QueryKeyCanvasState {
  picture: QueryKeyPicture;
  /** The core's reason for refusing the a attribute (singular, ill-conditioned), or null: the figure then draws no change of basis. */
  refusedA: string | null;
}

/** Plane geometry of the on-page and exported figure (scene units ≈ CSS px at full size). */
const PLANE = 300,
  MARGIN = 26,
  ROUTES_W = 300,
  ROUTES_H = 200;
const FONT = 13;

/** The parts build() makes (this.parts). */
interface QueryKeyCanvasParts {
  planeSvg: SVGSVGElement;
  planeScene: SVGSVGElement;
  routesSvg: SVGSVGElement;
  handleLayer: SVGGElement;
  scaleInput: HTMLInputElement;
  scaleOut: HTMLOutputElement;
  angleRow: HTMLDivElement;
  angleInput: HTMLInputElement;
  angleOut: HTMLOutputElement;
  aRow: HTMLDivElement;
  /** Why the A typed in the entries was not applied (hidden when it was). */
  aProblem: HTMLParagraphElement;
  readout: HTMLParagraphElement;
  verdict: HTMLParagraphElement;
  live: HTMLParagraphElement;
}

/**
 * Two tokens' queries and keys in the plane, draggable; attention drawn as edges as wide as the weight.
 * Attributes: w-q, w-k, w-v (2 × 2 JSON), scale (score scale, 0–50), basis (change of basis shown),
 * angle (rotation in degrees, −180–180), a (invertible 2 × 2 JSON for K′ = KA^{−T}). Shared: all of them.
 */
export class HeadlabQueryKeyCanvas extends HeadlabElement<QueryKeyCanvasState, QueryKeyCanvasParts> {
  static attributes = defineAttributes({
    'w-q': text({ property: false, shared: true, doc: 'W_Q (2 × 2 JSON rows, entries within ±1000).' }),
    'w-k': text({ property: false, shared: true, doc: 'W_K (2 × 2 JSON rows, entries within ±1000).' }),
    'w-v': text({ property: false, shared: true, doc: 'W_V (2 × 2 JSON rows, entries within ±1000; default the identity).' }),
    scale: number({ fallback: DEFAULT_SCALE, min: 0, max: 50, shared: true, doc: 'The score scale, 0–50 (default 1/√2).' }),
    basis: oneOf(BASES, { fallback: 'none', shared: true, doc: 'The change of basis shown.' }),
    angle: number({ fallback: 40, min: -180, max: 180, shared: true, doc: 'The rotation’s angle, in degrees (basis "rotation").' }),
    a: text({ property: false, shared: true, doc: 'The invertible A (2 × 2 JSON rows; basis "invertible").' }),
  });
  protected static css = /* css */ `
    .figs { display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; align-items: flex-start; }
    .fig { flex: 1 1 260px; max-width: 420px; min-width: 0; position: relative; }
    .fig svg.outer { display: block; width: 100%; height: auto; touch-action: none; }
    .handle { cursor: grab; }
    .handle:focus-visible .ring { stroke: var(--hl-focus); stroke-width: 3; }
    .handle .hit { fill: transparent; }
    .handle .ring { fill: none; stroke: transparent; }
    .handle .dot { fill: none; stroke-width: 2.5; }
    .handle.q .dot { stroke: var(--hl-pos); }
    .handle.k .dot { stroke: var(--hl-neg); stroke-dasharray: 4 2.5; }
    .handle.dragging { cursor: grabbing; }
    .presets button, .bases button { min-height: 44px; }
    .controls { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; margin: 0.5rem 0; }
    .controls label { white-space: nowrap; }
    .controls input[type="range"] { flex: 1 1 10rem; min-width: 8rem; min-height: 44px; }
    .a-grid { display: inline-grid; grid-template-columns: repeat(2, 5rem); gap: 0.3rem; vertical-align: middle; }
    .a-grid input { width: 100%; min-height: 44px; box-sizing: border-box; }
    .readout { margin: 0.35rem 0; }
    .verdict { font-weight: 600; }
    [hidden] { display: none !important; }
  `;
  private handles: { g: SVGGElement; kind: 'q' | 'k'; index: number }[] = [];
  private aInputs: HTMLInputElement[] = [];
  /** The a attribute the entries last showed. */
  private aRendered: string | null | undefined = undefined;
  private presetButtons: Record<string, HTMLButtonElement> = {};
  private basisButtons: Record<string, HTMLButtonElement> = {};
  /** Plane units → scene units of the figure drawn last (for pointer mapping). */
  private extent = 2;

  private grid(name: string, fallback: number[][]): number[][] {
    const raw = jsonAttribute(this, name);
    const g = numberGrid(raw ?? fallback, `attribute ${name}`, 2, 2);
    for (const row of g)
      for (const x of row) if (Math.abs(x) > 1e3) throw new WidgetInputError(`attribute ${name} entries must be between −1000 and 1000`);
    return g;
  }

  /**
   * The head and pictures of the current attributes, computed once per change of them: a redraw
   * reads them for both figures, the readout and the summary, so a drag step calls the core once.
   */
  private compute(): Computed {
    const key = HeadlabQueryKeyCanvas.observedAttributes.map((a) => this.getAttribute(a) ?? '\u0001').join('\u0000');
    if (this.computed?.key !== key) this.computed = { key, value: this.computeNow() };
    return this.computed.value;
  }

  private computed: { key: string; value: Computed } | null = null;

  private computeNow(): Computed {
    const core = this.core!;
    const w_q = this.grid('w-q', START_W_Q),
      w_k = this.grid('w-k', START_W_K),
      w_v = this.grid('w-v', IDENTITY);
    const a = this.grid('a', DEFAULT_A);
    const basis = this.basis,
      angle = this.angle,
      scale = this.scale;
    const head = core.attention({ x: matrix(IDENTITY), w_q: matrix(w_q), w_k: matrix(w_k), w_v: matrix(w_v) });
    let q: Matrix = head.q,
      k: Matrix = head.k,
      condition: number | null = null;
    let refusedA: string | null = null;
    if (basis !== 'none') {
      const A = basis === 'rotation' ? core.planeRotation(2, 0, 1, (angle * Math.PI) / 180) : matrix(a);
      try {
        const changed = core.changeQueryKeyBasis(head.q, head.k, A);
        q = changed.q;
        k = changed.k;
        condition = changed.condition_number;
      } catch (e) {
        // An A from the markup or a link that the core refuses keeps the figure and its entries:
        // the plane draws the queries and keys unchanged and the reason stands beside the entries.
        if (basis !== 'invertible') throw e;
        refusedA = `Not applied: ${(e instanceof Error ? e.message : String(e)).replace(/\.?$/, '.')} The figure shows the queries and keys before any change.`;
      }
    }
    const before = core.queryKeyPicture(head.q, head.k, head.v, scale);
    const picture = basis === 'none' ? before : core.queryKeyPicture(q, k, head.v, scale);
    let maxDiff = 0;
    before.scores.data.forEach((s, i) => {
      maxDiff = Math.max(maxDiff, Math.abs(picture.scores.data[i] - s));
    });
    return {
      w_q,
      w_k,
      w_v,
      score_scale: scale,
      basis,
      angle_degrees: angle,
      a,
      q: rows(q),
      k: rows(k),
      v: rows(head.v),
      q_before: rows(head.q),
      k_before: rows(head.k),
      scores: rows(picture.scores),
      weights: rows(picture.weights),
      reading: rows(picture.reading),
      query_lengths: Array.from(picture.query_lengths.data),
      query_lengths_before: Array.from(before.query_lengths.data),
      query_angle_degrees: (picture.query_angles.data[1] * 180) / Math.PI,
      query_angle_degrees_before: (before.query_angles.data[1] * 180) / Math.PI,
      condition_number: condition,
      max_score_difference: maxDiff,
      picture,
      refusedA,
    };
  }

  protected readState(): QueryKeyCanvasState {
    const { picture: _picture, refusedA: _refused, ...s } = this.compute();
    // A copy: listeners of the change event get their own arrays, not the cached ones.
    return structuredClone(s);
  }

  protected build(): QueryKeyCanvasParts {
    const title = el('p', { class: 'title' }, 'Queries, keys and where attention goes');
    const intro = el(
      'p',
      { class: 'caption' },
      'Drag a query (solid) or key (dashed) tip, or focus it and use the arrow keys. Edge width is the attention weight.',
    );

    const presets = el('div', { class: 'row presets', role: 'group', 'aria-label': 'The three edits of the text' });
    for (const [name, p] of Object.entries(PRESETS)) {
      const b = el('button', { type: 'button', 'data-preset': name, 'aria-pressed': 'false' }, p.label.replace(/_([QKV])/g, '$1'));
      this.listen(b, 'click', () => this.applyPreset(name));
      presets.append(b);
      this.presetButtons[name] = b;
    }

    const scaleId = localId(this, 'scale');
    const scaleRow = el('div', { class: 'controls' });
    const scaleInput = el('input', { type: 'range', id: scaleId, min: '-2', max: '3', step: '0.01' });
    const scaleOut = el('output', { for: scaleId, class: 'num' });
    this.listen(scaleInput, 'input', () => {
      // Log scale: slider value u ↦ s = 2^u, from 1/4 to 8.
      this.scale = Number((2 ** scaleInput.valueAsNumber).toPrecision(3));
      this.emitChange();
    });
    scaleRow.append(el('label', { for: scaleId }, 'Score scale s'), scaleInput, scaleOut);

    const bases = el('div', { class: 'row bases', role: 'group', 'aria-label': 'Change of query–key basis' });
    for (const [name, label] of [
      ['none', 'Original basis'],
      ['rotation', 'Rotate: R'],
      ['invertible', 'Any invertible A'],
    ] as const) {
      const b = el('button', { type: 'button', 'data-basis': name, 'aria-pressed': 'false' }, label);
      this.listen(b, 'click', () => {
        this.basis = name;
        this.emitChange();
      });
      bases.append(b);
      this.basisButtons[name] = b;
    }

    const angleId = localId(this, 'angle');
    const angleRow = el('div', { class: 'controls' });
    const angleInput = el('input', { type: 'range', id: angleId, min: '-180', max: '180', step: '1' });
    const angleOut = el('output', { for: angleId, class: 'num' });
    this.listen(angleInput, 'input', () => {
      this.angle = angleInput.valueAsNumber;
      this.emitChange();
    });
    angleRow.append(el('label', { for: angleId }, 'Rotation angle θ'), angleInput, angleOut);

    const aRow = el('div', { class: 'controls' });
    const aGrid = el('div', { class: 'a-grid', role: 'group', 'aria-label': 'Matrix A, by rows' });
    this.aInputs = [0, 1, 2, 3].map((i) => {
      const input = el('input', { type: 'number', step: '0.1', 'aria-label': `A row ${(i >> 1) + 1}, column ${(i & 1) + 1}` });
      this.listen(input, 'change', () => {
        const values = this.aInputs.map((x) => x.valueAsNumber);
        if (values.some((x) => !Number.isFinite(x))) return;
        const A = [
          [values[0], values[1]],
          [values[2], values[3]],
        ];
        // An A the core refuses (singular, ill-conditioned) is not committed: the figure keeps the
        // last A it drew and the reason stands beside the entries, which stay editable.
        const problem = this.refusedA(A);
        aProblem.textContent = problem ?? '';
        aProblem.hidden = problem === null;
        for (const x of this.aInputs) x.toggleAttribute('aria-invalid', problem !== null);
        if (problem !== null) return;
        this.setAttribute('a', JSON.stringify(A));
        this.emitChange();
      });
      aGrid.append(input);
      return input;
    });
    const aProblem = el('p', { class: 'note', role: 'alert', id: localId(this, 'a-problem'), hidden: '' });
    for (const x of this.aInputs) x.setAttribute('aria-describedby', aProblem.id);
    aRow.append(el('span', {}, 'A ='), aGrid, aProblem);

    const figs = el('div', { class: 'figs' });
    const planeBox = el('div', { class: 'fig' });
    const planeSvg = svgEl('svg', { class: 'outer', viewBox: `0 0 ${PLANE} ${PLANE}`, role: 'group', 'aria-label': 'Query and key plane' });
    const planeScene = svgEl('svg', { 'aria-hidden': 'true' });
    const handleLayer = svgEl('g');
    planeSvg.append(planeScene, handleLayer);
    planeBox.append(planeSvg);
    const routesBox = el('div', { class: 'fig' });
    const routesSvg = svgEl('svg', { class: 'outer', viewBox: `0 0 ${ROUTES_W} ${ROUTES_H}`, 'aria-hidden': 'true' });
    routesBox.append(routesSvg);
    figs.append(planeBox, routesBox);
    this.buildHandles(handleLayer);

    const readout = el('p', { class: 'readout' });
    const verdict = el('p', { class: 'verdict', role: 'status' });
    const live = el('p', { class: 'sr-only', 'aria-live': 'polite' });
    this.body.append(title, intro, presets, scaleRow, figs, bases, angleRow, aRow, readout, verdict, live, this.exportControls());
    return {
      planeSvg,
      planeScene,
      routesSvg,
      handleLayer,
      scaleInput,
      scaleOut,
      angleRow,
      angleInput,
      angleOut,
      aRow,
      aProblem,
      readout,
      verdict,
      live,
    };
  }

  private applyPreset(name: string): void {
    for (const attr of ['w-q', 'w-k', 'w-v']) {
      const v = PRESETS[name].attrs[attr];
      if (v === undefined) this.removeAttribute(attr);
      else this.setAttribute(attr, v);
    }
    this.removeAttribute('basis');
    this.requestRender();
    this.emitChange();
  }

  private buildHandles(handleLayer: SVGGElement): void {
    this.handles = [];
    for (const kind of ['q', 'k'] as const) {
      for (let index = 0; index < 2; index++) {
        const g = svgEl('g', {
          class: `handle ${kind}`,
          tabindex: '0',
          role: 'button',
          'aria-roledescription': 'draggable vector',
        });
        g.append(
          svgEl('circle', { class: 'hit', r: 24 }),
          svgEl('circle', { class: 'ring', r: 11 }),
          svgEl('circle', { class: 'dot', r: 9 }),
        );
        handleLayer.append(g);
        this.handles.push({ g, kind, index });
        this.listen(g, 'pointerdown', (e) => {
          // Grab areas overlap where a query and a key tip meet (each 24 units round, the rings 22
          // apart): the press goes to the handle whose ring is nearest, not to the one on top.
          const h = this.nearestHandle(e as PointerEvent) ?? { g, kind, index };
          this.startDrag(e as PointerEvent, h.kind, h.index, h.g);
        });
        this.listen(g, 'keydown', (e) => this.keyMove(e as KeyboardEvent, kind, index));
      }
    }
  }

  /** The core's reason for refusing A as a change of basis of this head's queries and keys, or null. */
  private refusedA(A: number[][]): string | null {
    const s = this.compute();
    try {
      this.core!.changeQueryKeyBasis(matrix(s.q_before), matrix(s.k_before), matrix(A));
      return null;
    } catch (e) {
      return `Not applied: ${(e instanceof Error ? e.message : String(e)).replace(/\.?$/, '.')} The figure shows the last A.`;
    }
  }

  /** The handle whose ring centre is nearest to the pointer (rings as drawn, in the plane's SVG units). */
  private nearestHandle(e: PointerEvent): HeadlabQueryKeyCanvas['handles'][number] | null {
    const ctm = this.parts.planeSvg.getScreenCTM();
    if (!ctm) return null;
    const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    let best: HeadlabQueryKeyCanvas['handles'][number] | null = null,
      bestD = Infinity;
    for (const h of this.handles) {
      if (h.g.hasAttribute('hidden')) continue;
      const m = h.g.transform.baseVal.consolidate()?.matrix;
      if (!m) continue;
      const d = Math.hypot(pt.x - m.e, pt.y - m.f);
      if (d < bestD) {
        bestD = d;
        best = h;
      }
    }
    return best;
  }

  /** Sets tip `index` of the queries (row of W_Q) or keys (row of W_K) to (x, y), rounded to 0.01. */
  private moveTip(kind: 'q' | 'k', index: number, x: number, y: number): void {
    const name = kind === 'q' ? 'w-q' : 'w-k';
    const w = this.grid(name, kind === 'q' ? START_W_Q : START_W_K).map((r) => r.slice());
    const clamp = (t: number) => Math.max(-this.extent, Math.min(this.extent, Math.round(t * 100) / 100));
    w[index] = [clamp(x), clamp(y)];
    this.setAttribute(name, JSON.stringify(w));
  }

  private startDrag(e: PointerEvent, kind: 'q' | 'k', index: number, g: SVGGElement): void {
    e.preventDefault();
    g.focus();
    g.setPointerCapture?.(e.pointerId);
    g.classList.add('dragging');
    // The tip follows the pointer's movement from where it was grabbed (the ring may sit a
    // little off the tip when a query and a key coincide).
    const start = this.toPlane(e.clientX, e.clientY);
    const w0 = this.grid(kind === 'q' ? 'w-q' : 'w-k', kind === 'q' ? START_W_Q : START_W_K)[index];
    const move = (ev: PointerEvent) => {
      const p = this.toPlane(ev.clientX, ev.clientY);
      if (p && start) {
        this.moveTip(kind, index, w0[0] + p[0] - start[0], w0[1] + p[1] - start[1]);
        this.emitChange();
      }
    };
    const end = () => {
      g.classList.remove('dragging');
      g.removeEventListener('pointermove', move);
      g.removeEventListener('pointerup', end);
      g.removeEventListener('pointercancel', end);
      this.announceTip(kind, index);
    };
    g.addEventListener('pointermove', move);
    g.addEventListener('pointerup', end);
    g.addEventListener('pointercancel', end);
  }

  private keyMove(e: KeyboardEvent, kind: 'q' | 'k', index: number): void {
    const step = e.shiftKey ? 5 * KEY_STEP : KEY_STEP;
    const d: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    const delta = d[e.key];
    if (!delta) return;
    e.preventDefault();
    const w = this.grid(kind === 'q' ? 'w-q' : 'w-k', kind === 'q' ? START_W_Q : START_W_K);
    this.moveTip(kind, index, w[index][0] + delta[0], w[index][1] + delta[1]);
    this.emitChange();
    this.announceTip(kind, index);
  }

  /** Writes the moved vector and its query's weights into the live region (after the core recomputes). */
  private announceTip(kind: 'q' | 'k', index: number): void {
    const s = this.compute();
    const v = (kind === 'q' ? s.q : s.k)[index];
    const weights = s.weights.map((row, i) => `query ${i + 1} gives ${pct(row[0])} to key 1 and ${pct(row[1])} to key 2`).join('; ');
    this.parts.live.textContent = `${kind === 'q' ? 'Query' : 'Key'} ${index + 1} at ${vec(v)}. ${weights}.`;
  }

  private toPlane(clientX: number, clientY: number): [number, number] | null {
    const ctm = this.parts.planeSvg.getScreenCTM();
    if (!ctm) return null;
    const pt = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
    const unit = (PLANE / 2 - MARGIN) / this.extent;
    return [(pt.x - PLANE / 2) / unit, (PLANE / 2 - pt.y) / unit];
  }

  figures(): WidgetFigure[] {
    const colours = () => this.themeColours();
    return [
      { name: 'plane', label: 'Query–key plane', scene: () => planeScene(this.compute(), colours(), this.extent) },
      { name: 'routes', label: 'Attention edges', scene: () => routesScene(this.compute(), colours()) },
    ];
  }

  protected summarize(): string {
    const s = this.compute();
    const w = s.weights.map((r, i) => `query ${i + 1} puts ${pct(r[0])} on key 1 and ${pct(r[1])} on key 2`).join('; ');
    const basis =
      s.basis === 'none'
        ? ''
        : ` After the change of basis (${s.basis === 'rotation' ? `rotation by ${formatNumber(s.angle_degrees, 1)}°` : 'invertible A'}) the largest score change is ${formatMagnitude(s.max_score_difference)}.`;
    return `Score scale ${formatNumber(s.score_scale, 3)}: ${w}; readings ${s.reading.map(vec).join(' and ')}.${basis}`;
  }

  protected render(): void {
    const s = this.compute();
    const c = this.themeColours();
    // Extent: the largest vector drawn (ghosts included), at least 1.5, so tips stay inside.
    let r = 1.5;
    for (const m of [s.q, s.k, s.q_before, s.k_before]) for (const v of m) r = Math.max(r, Math.hypot(v[0], v[1]) * 1.1);
    this.extent = r;
    // Patched in place (no nodes created per frame): this figure redraws on every step of a drag.
    drawSceneInto(this.parts.planeScene, planeScene(s, c, r), { reuse: true });
    drawSceneInto(this.parts.routesSvg, routesScene(s, c), { reuse: true, size: false });

    const unit = (PLANE / 2 - MARGIN) / r;
    const editable = s.basis === 'none';
    const rings = ringCentres(s, unit);
    const tips = this.handles.map((h) => rings[(h.kind === 'q' ? 0 : 2) + h.index]);
    for (const [n, h] of this.handles.entries()) {
      const v = (h.kind === 'q' ? s.q : s.k)[h.index];
      h.g.setAttribute('transform', `translate(${tips[n][0].toFixed(2)} ${tips[n][1].toFixed(2)})`);
      h.g.setAttribute('aria-label', `${h.kind === 'q' ? 'query' : 'key'} ${h.index + 1} at ${vec(v)}; arrow keys move it`);
      h.g.toggleAttribute('hidden', !editable);
      if (editable) h.g.setAttribute('tabindex', '0');
      else h.g.removeAttribute('tabindex');
    }

    const u = Math.log2(Math.max(s.score_scale, 2 ** -2));
    if (Math.abs(this.parts.scaleInput.valueAsNumber - u) > 0.005) this.parts.scaleInput.value = String(u);
    this.parts.scaleOut.textContent = formatNumber(s.score_scale, 3);
    this.parts.scaleInput.setAttribute('aria-valuetext', `score scale ${formatNumber(s.score_scale, 3)}`);
    this.parts.angleRow.hidden = s.basis !== 'rotation';
    this.parts.aRow.hidden = s.basis !== 'invertible';
    if (this.parts.angleInput.valueAsNumber !== s.angle_degrees) this.parts.angleInput.value = String(s.angle_degrees);
    this.parts.angleOut.textContent = `${formatNumber(s.angle_degrees, 1)}°`;
    this.parts.angleInput.setAttribute('aria-valuetext', `${formatNumber(s.angle_degrees, 1)} degrees`);
    // A new A from elsewhere (a preset, a link, the hash) replaces a refused entry and its message;
    // while the message stands the entries keep what the reader typed.
    const aAttribute = this.getAttribute('a');
    if (aAttribute !== this.aRendered) {
      this.aRendered = aAttribute;
      this.parts.aProblem.hidden = true;
      for (const x of this.aInputs) x.removeAttribute('aria-invalid');
    }
    if (this.parts.aProblem.hidden)
      s.a.flat().forEach((x, i) => {
        if (this.aInputs[i].valueAsNumber !== x && this.root.activeElement !== this.aInputs[i]) this.aInputs[i].value = String(x);
      });
    if (s.refusedA !== null && s.basis === 'invertible') {
      setText(this.parts.aProblem, s.refusedA);
      this.parts.aProblem.hidden = false;
      for (const x of this.aInputs) x.setAttribute('aria-invalid', '');
    }
    const presetNow = Object.entries(PRESETS).find(([, p]) =>
      ['w-q', 'w-k', 'w-v'].every((a) => (this.getAttribute(a) ?? null) === (p.attrs[a] ?? null)),
    )?.[0];
    for (const [name, b] of Object.entries(this.presetButtons)) b.setAttribute('aria-pressed', String(name === presetNow));
    for (const [name, b] of Object.entries(this.basisButtons)) b.setAttribute('aria-pressed', String(name === s.basis));

    this.parts.readout.textContent =
      s.reading.map((rd, i) => `q${sub(i + 1)} reads ${vec(rd)} (weights ${pct(s.weights[i][0])} / ${pct(s.weights[i][1])})`).join('; ') +
      '.';
    if (s.basis === 'none') {
      this.parts.verdict.textContent = `Scores s·q·k: ${s.scores.map((row) => row.map((x) => formatNumber(x, 3)).join(', ')).join(' | ')}.`;
      delete this.parts.verdict.dataset.value;
    } else if (s.refusedA !== null) {
      this.parts.verdict.textContent = 'A was not applied (see the message above): the queries and keys are drawn before any change.';
      delete this.parts.verdict.dataset.value;
    } else {
      const ok = s.max_score_difference <= SCORE_INVARIANCE_TOLERANCE;
      const geometry = `‖q₁‖ ${formatNumber(s.query_lengths_before[0], 2)} → ${formatNumber(s.query_lengths[0], 2)}, angle between q₁ and q₂ ${formatNumber(s.query_angle_degrees_before, 1)}° → ${formatNumber(s.query_angle_degrees, 1)}°`;
      this.parts.verdict.dataset.value = String(s.max_score_difference);
      this.parts.verdict.textContent = `${geometry}; largest score change ${formatMagnitude(s.max_score_difference)}: ${ok ? 'every score unchanged' : 'scores changed'}${s.condition_number !== null ? ` (condition number of ${s.basis === 'rotation' ? 'R' : 'A'} ${formatNumber(s.condition_number, 2)})` : ''}.`;
    }
  }
}

/**
 * Whether the figure shows a change of basis: one is chosen and the core applied it (a refused A
 * leaves no condition number). Only then are the arrows Q′ and K′ over ghosts of Q and K; a
 * refused A draws the originals under their own names.
 */
function basisApplied(s: QueryKeyCanvasState): boolean {
  return s.basis !== 'none' && s.condition_number !== null;
}

function rows(m: Matrix): number[][] {
  return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
}

function sub(n: number): string {
  return String(n).replace(/\d/g, (c) => '₀₁₂₃₄₅₆₇₈₉'[Number(c)]);
}

function vec(v: number[]): string {
  return `[${v.map((x) => formatNumber(x, 2)).join(', ')}]`;
}

function pct(w: number): string {
  return `${formatNumber(100 * w, 0)}%`;
}

/** An arrow from (x1, y1) to (x2, y2) in scene units: the shaft and a two-stroke head. */
function arrow(shapes: Shape[], x1: number, y1: number, x2: number, y2: number, stroke: string, width: number, dash?: number[]): void {
  const len = Math.hypot(x2 - x1, y2 - y1);
  shapes.push({ kind: 'line', x1, y1, x2, y2, stroke, width, ...(dash ? { dash } : {}) });
  if (len < 4) return;
  const ux = (x2 - x1) / len,
    uy = (y2 - y1) / len,
    head = Math.min(10, len / 3);
  const left: [number, number] = [x2 - head * ux + head * 0.5 * uy, y2 - head * uy - head * 0.5 * ux];
  const right: [number, number] = [x2 - head * ux - head * 0.5 * uy, y2 - head * uy + head * 0.5 * ux];
  shapes.push({ kind: 'polyline', points: [left, [x2, y2], right], stroke, width });
}

/**
 * The plane: axes, tokens x₁, x₂ as points, queries (solid, orange) and keys (dashed, blue)
 * as arrows; under a change of basis the originals stay as thin ghosts and, for a rotation,
 * an arc marks θ from q₁ to q₁′.
 */
export function planeScene(s: QueryKeyCanvasState, c: ResolvedColours, extent: number): Scene {
  const fg = rgbText(c.fg),
    muted = rgbText(c.muted),
    rule = rgbText(c.rule),
    pos = rgbText(c.pos),
    neg = rgbText(c.neg);
  const mid = PLANE / 2,
    unit = (mid - MARGIN) / extent;
  const X = (x: number) => mid + x * unit,
    Y = (y: number) => mid - y * unit;
  const shapes: Shape[] = [];
  for (let t = -Math.floor(extent); t <= Math.floor(extent); t++) {
    if (t === 0) continue;
    shapes.push({ kind: 'line', x1: X(t), y1: MARGIN / 2, x2: X(t), y2: PLANE - MARGIN / 2, stroke: rule, width: 0.5 });
    shapes.push({ kind: 'line', x1: MARGIN / 2, y1: Y(t), x2: PLANE - MARGIN / 2, y2: Y(t), stroke: rule, width: 0.5 });
  }
  shapes.push({ kind: 'line', x1: MARGIN / 2, y1: mid, x2: PLANE - MARGIN / 2, y2: mid, stroke: muted });
  shapes.push({ kind: 'line', x1: mid, y1: MARGIN / 2, x2: mid, y2: PLANE - MARGIN / 2, stroke: muted });
  // Axis names at the negative ends, where the article's vectors seldom go.
  shapes.push({ kind: 'text', x: MARGIN / 2 + 2, y: mid - 10, text: 'coord 1', fill: muted, size: FONT - 1 });
  shapes.push({ kind: 'text', x: mid + 6, y: PLANE - 12, text: 'coord 2', fill: muted, size: FONT - 1 });
  // Tokens as points (small diamonds); their labels are placed after the arrows, where they are free.
  const tokenAt: [number, number, number][] = [];
  [
    [1, 0],
    [0, 1],
  ].forEach(([x, y], i) => {
    const px = X(x),
      py = Y(y),
      d = 4;
    shapes.push({
      kind: 'polyline',
      points: [
        [px - d, py],
        [px, py - d],
        [px + d, py],
        [px, py + d],
        [px - d, py],
      ],
      stroke: fg,
      width: 1.5,
    });
    tokenAt.push([px, py, i]);
  });
  const ghosts = basisApplied(s);
  if (ghosts) {
    s.q_before.forEach((v) => arrow(shapes, mid, mid, X(v[0]), Y(v[1]), pos, 1, [2, 3]));
    s.k_before.forEach((v) => arrow(shapes, mid, mid, X(v[0]), Y(v[1]), neg, 1, [2, 3]));
  }
  const label = (v: number[], text: string, colour: string, side: 1 | -1) => {
    const x = X(v[0]),
      y = Y(v[1]),
      len = Math.hypot(x - mid, y - mid) || 1;
    const ux = (x - mid) / len,
      uy = (y - mid) / len;
    // Beyond the tip, pushed to one side of the arrow so a query and key on the same line both read;
    // where that box meets a tip label already placed (two tips close together), the other side,
    // then further out along the arrow.
    const places: [number, number][] = [
      [14, side],
      [14, -side],
      [30, side],
      [30, -side],
    ];
    const at = ([out, sd]: [number, number]) => ({ x: x + ux * out - uy * 12 * sd, y: y + uy * out + ux * 12 * sd });
    const w = 8 * [...text].length;
    const free = (p: { x: number; y: number }) => placed.every((o) => Math.abs(o.x - p.x) >= (w + o.w) / 2 || Math.abs(o.y - p.y) >= FONT);
    const p = at(places.find((c) => free(at(c))) ?? places[0]);
    placed.push({ ...p, w });
    shapes.push({ kind: 'text', x: p.x, y: p.y, text, fill: colour, size: FONT, anchor: 'middle', weight: 'bold' });
  };
  const placed: { x: number; y: number; w: number }[] = [];
  const prime = ghosts ? '′' : '';
  s.k.forEach((v, i) => {
    arrow(shapes, mid, mid, X(v[0]), Y(v[1]), neg, 2.5, [6, 4]);
    label(v, `k${prime}${sub(i + 1)}`, neg, -1);
  });
  s.q.forEach((v, i) => {
    arrow(shapes, mid, mid, X(v[0]), Y(v[1]), pos, 2.5);
    label(v, `q${prime}${sub(i + 1)}`, pos, 1);
  });
  // The rings are drawn only where the tips can be dragged (no change of basis).
  placeTokenLabels(shapes, tokenAt, fg, s.basis === 'none' ? ringCentres(s, unit) : []);
  if (s.basis === 'rotation' && s.angle_degrees !== 0) {
    // Arc from q₁ (before) to q₁′ at radius 0.45 of |q₁|; θ is the rotation, read off the same R.
    const a0 = Math.atan2(s.q_before[0][1], s.q_before[0][0]),
      a1 = Math.atan2(s.q[0][1], s.q[0][0]);
    let da = a1 - a0;
    while (da > Math.PI) da -= 2 * Math.PI;
    while (da < -Math.PI) da += 2 * Math.PI;
    const rad = 0.45 * Math.hypot(s.q[0][0], s.q[0][1]) * unit;
    const pts: [number, number][] = [];
    for (let t = 0; t <= 24; t++) {
      const a = a0 + (da * t) / 24;
      pts.push([mid + rad * Math.cos(a), mid - rad * Math.sin(a)]);
    }
    shapes.push({ kind: 'polyline', points: pts, stroke: fg, width: 1.5 });
    const am = a0 + da / 2;
    shapes.push({
      kind: 'text',
      x: mid + (rad + 16) * Math.cos(am),
      y: mid - (rad + 16) * Math.sin(am),
      text: `θ = ${formatNumber(s.angle_degrees, 0)}°`,
      fill: fg,
      size: FONT,
      anchor: 'middle',
    });
  }
  const title = s.basis === 'none' ? 'Queries (solid) and keys (dashed) in the plane' : 'After the change of basis (thin dotted: before)';
  return { width: PLANE, height: PLANE, background: rgbText(c.panel), title, shapes };
}

/**
 * Centres of the four handle rings, in scene units, in the order q₁, q₂, k₁, k₂: each at its tip,
 * except that a query tip and a key tip closer than 20 units have their rings moved 11 units apart
 * across the arrow, so each stays grabbable (the drag follows pointer movement, not position).
 */
function ringCentres(s: Pick<QueryKeyCanvasState, 'q' | 'k'>, unit: number): [number, number][] {
  const mid = PLANE / 2;
  const tips: [number, number][] = [...s.q, ...s.k].map((v) => [mid + v[0] * unit, mid - v[1] * unit]);
  for (const i of [0, 1])
    for (const j of [2, 3]) {
      const [ax, ay] = tips[i],
        [bx, by] = tips[j];
      if (Math.hypot(ax - bx, ay - by) >= 20) continue;
      const len = Math.hypot(ax - mid, ay - mid) || 1;
      const nx = -(ay - mid) / len,
        ny = (ax - mid) / len;
      tips[i] = [ax + 11 * nx, ay + 11 * ny];
      tips[j] = [bx - 11 * nx, by - 11 * ny];
    }
  return tips;
}

/**
 * Writes x₁, x₂ beside their diamonds at the first of eight places around each whose box
 * (FONT-sized text of two characters, about 16 × 13 units) meets no line, ring or text drawn so far —
 * the arrows, their rings and tip labels — or, when none is free, where it covers least (text and
 * rings weigh most, ghost shafts least).
 * Queries and keys lean off the tokens, so a fixed place (below left) fell on an arrow or its ring.
 */
function placeTokenLabels(shapes: Shape[], tokens: [number, number, number][], fill: string, rings: [number, number][]): void {
  const W = 16,
    H = 13;
  // [dx, dy, anchor]: the baseline point relative to the diamond.
  const places: [number, number, 'start' | 'middle' | 'end'][] = [
    [-8, 14, 'end'],
    [-8, -7, 'end'],
    [8, 14, 'start'],
    [8, -7, 'start'],
    [0, 22, 'middle'],
    [0, -12, 'middle'],
    [-10, 4, 'end'],
    [10, 4, 'start'],
  ];
  const box = (x: number, y: number, anchor: 'start' | 'middle' | 'end', w = W) => {
    const x0 = anchor === 'end' ? x - w : anchor === 'middle' ? x - w / 2 : x;
    // From the cap height above the baseline to the subscript digits' descent below it.
    return { x0, x1: x0 + w, y0: y - H + 2, y1: y + 4 };
  };
  type Box = ReturnType<typeof box>;
  const hits = (b: Box, shape: Shape): boolean => {
    if (shape.kind === 'line') {
      // The shaft, sampled along the segment (2 units of margin).
      for (let t = 0; t <= 1; t += 1 / 24) {
        const x = shape.x1 + t * (shape.x2 - shape.x1),
          y = shape.y1 + t * (shape.y2 - shape.y1);
        if (x >= b.x0 - 2 && x <= b.x1 + 2 && y >= b.y0 - 2 && y <= b.y1 + 2) return true;
      }
      return false;
    }
    if (shape.kind === 'text') {
      // About 8.5 units a character at FONT, bold.
      const o = box(shape.x, shape.y, shape.anchor ?? 'start', 8.5 * [...shape.text].length);
      return !(o.x1 < b.x0 || o.x0 > b.x1 || o.y1 < b.y0 || o.y0 > b.y1);
    }
    return false;
  };
  // The arrows' shafts (lines from the plane's middle, not the grid and axes) and the tip labels (bold).
  const mid = PLANE / 2;
  const obstacles = shapes.filter(
    (sh) => (sh.kind === 'line' && sh.x1 === mid && sh.y1 === mid) || (sh.kind === 'text' && sh.weight === 'bold'),
  );
  for (const [px, py, i] of tokens) {
    let best = places[0],
      bestCount = Infinity;
    for (const p of places) {
      const b = box(px + p[0], py + p[1], p[2]);
      // A handle ring (radius 11, drawn 2.5 wide) whose distance to the box is under 13 meets it.
      const ringHits = rings.filter(
        ([cx, cy]) => Math.hypot(Math.max(b.x0 - cx, 0, cx - b.x1), Math.max(b.y0 - cy, 0, cy - b.y1)) < 13,
      ).length;
      // Covering text or a ring is worse than crossing a shaft, and a thick shaft worse than a ghost.
      const count =
        10 * ringHits +
        obstacles
          .filter((o) => hits(b, o))
          .reduce((sum, o) => sum + (o.kind === 'text' ? 10 : o.kind === 'line' && (o.width ?? 1) > 2 ? 2 : 1), 0);
      if (count < bestCount) {
        best = p;
        bestCount = count;
      }
      if (count === 0) break;
    }
    const label: Shape = { kind: 'text', x: px + best[0], y: py + best[1], text: `x${sub(i + 1)}`, fill, size: FONT, anchor: best[2] };
    shapes.push(label);
    obstacles.push(label);
  }
}

/** Attention as edges: each query on the left to each key on the right, width ∝ weight, with the percent and each value. */
export function routesScene(s: QueryKeyCanvasState, c: ResolvedColours): Scene {
  const fg = rgbText(c.fg),
    muted = rgbText(c.muted),
    pos = rgbText(c.pos),
    neg = rgbText(c.neg);
  const qx = 40,
    kx = 200,
    y0 = 48,
    dy = 84;
  const prime = basisApplied(s) ? '′' : '';
  const shapes: Shape[] = [
    { kind: 'text', x: qx, y: 16, text: 'queries', fill: muted, size: FONT - 1, anchor: 'middle' },
    { kind: 'text', x: kx, y: 16, text: 'keys', fill: muted, size: FONT - 1, anchor: 'middle' },
    { kind: 'text', x: kx + 52, y: 16, text: 'values', fill: muted, size: FONT - 1, anchor: 'middle' },
    {
      kind: 'text',
      x: 8,
      y: ROUTES_H - 34,
      text: `edge width = weight, at score scale s = ${formatNumber(s.score_scale, 2)}`,
      fill: muted,
      size: FONT - 1,
    },
  ];
  s.weights.forEach((row, i) =>
    row.forEach((w, j) => {
      const y1 = y0 + i * dy,
        y2 = y0 + j * dy;
      shapes.push({ kind: 'line', x1: qx + 16, y1, x2: kx - 16, y2, stroke: pos, width: Math.max(0.75, 18 * w) });
    }),
  );
  s.weights.forEach((row, i) =>
    row.forEach((w, j) => {
      // Percent near the query end of each edge (t = 0.18 along it): above the upper straight edge,
      // below the lower one, and on the inner side of each crossing edge, so no two collide.
      const y1 = y0 + i * dy,
        y2 = y0 + j * dy,
        t = 0.18;
      const x = qx + 16 + t * (kx - qx - 32) + 6,
        y = y1 + t * (y2 - y1) + (i === 0 ? 13 : -13) * (i === j ? -1 : 1);
      // On a panel-coloured chip, so the number reads over a thick edge.
      shapes.push({ kind: 'rect', x: x - 3, y: y - 9, w: 8 + 8.5 * pct(w).length, h: 18, fill: rgbText(c.panel), stroke: rgbText(c.rule) });
      shapes.push({ kind: 'text', x, y, text: pct(w), fill: fg, size: FONT, anchor: 'start', weight: 'bold' });
    }),
  );
  for (let i = 0; i < 2; i++) {
    shapes.push({
      kind: 'text',
      x: qx - 4,
      y: y0 + i * dy,
      text: `q${prime}${sub(i + 1)}`,
      fill: pos,
      size: FONT + 1,
      anchor: 'end',
      weight: 'bold',
    });
    shapes.push({ kind: 'text', x: kx + 4, y: y0 + i * dy, text: `k${prime}${sub(i + 1)}`, fill: neg, size: FONT + 1, weight: 'bold' });
    shapes.push({ kind: 'text', x: kx + 52, y: y0 + i * dy, text: vec(s.v[i]), fill: fg, size: FONT, anchor: 'middle' });
  }
  shapes.push({
    kind: 'text',
    x: 8,
    y: ROUTES_H - 12,
    text: `readings: q₁ → ${vec(s.reading[0])}, q₂ → ${vec(s.reading[1])}`,
    fill: fg,
    size: FONT - 0.5,
  });
  return { width: ROUTES_W, height: ROUTES_H, background: rgbText(c.panel), title: 'Attention weights as edges', shapes };
}

export interface HeadlabQueryKeyCanvas extends AttributeProperties<typeof HeadlabQueryKeyCanvas.attributes> {}
