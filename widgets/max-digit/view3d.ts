// A small 3-D view drawn in SVG, for <headlab-head-contributions> (loaded only by that element,
// through a dynamic import, so pages without it do not download this code). No 3-D library:
// an orthographic projection, painter's order by depth, drag (mouse, pen, touch) and arrow
// keys to rotate, Home to reset. Depth shows three ways: a mild perspective (nearer things
// larger and further from the centre), nearer points drawn larger, and further things fainter.
// Labels are placed greedily so that no two overlap (right of the mark, else left, above, below).
//
// Projection. A point p = (x, y, z) in the basis (PC1, PC2, PC3) is turned about the PC3 axis by
// the azimuth a, then tilted by the elevation e:
//   x' = x cos a − y sin a,   y' = x sin a + y cos a,
//   screen right = x',   screen up = z cos e − y' sin e,   depth (towards the reader) = y' cos e + z sin e,
// then the perspective factor f = VIEWER / (VIEWER − depth·scale) multiplies both screen offsets.
import type { Scene, Shape } from '../chart/scene.js';
import { svgEl } from '../chart/svg.js';

export type Vec3 = readonly [number, number, number];

export interface ViewPoint {
  at: Vec3;
  label: string;
  colour: string;
  strong?: boolean;
  id?: string;
}
export interface ViewArrow {
  from: Vec3;
  to: Vec3;
  colour: string;
  width?: number;
  dashed?: boolean;
  label?: string;
  id?: string;
}
export interface ViewContent {
  points: ViewPoint[];
  arrows: ViewArrow[];
  axisColour: string;
  textColour: string;
  /** Radius of the drawn space in data units; fixed per model so the scale does not change with the list (default: what the content reaches). */
  reach?: number;
  /** A polyline through these points in order (the digits 0→9), drawn thin behind the marks. */
  path?: { points: Vec3[]; colour: string };
}

export const DEFAULT_AZIMUTH = -60;
export const DEFAULT_ELEVATION = 25;
/** Degrees per arrow-key press, and per pixel of drag. */
const KEY_STEP = 10;
const DRAG_DEGREES_PER_PX = 0.5;
const SIZE = 420;
const MARGIN = 34;
/** A label character's width in px, for placing labels: chart text renders at 12 px (the base sheet's `svg text` rule), DejaVu Sans's digits and capitals 7.3–8.4 px wide. */
const CHAR_WIDTH = 8;
/** Viewer distance in viewBox units for the perspective (about three view widths: a mild cue). */
const VIEWER = 3 * SIZE;

export class View3D {
  readonly svg: SVGSVGElement;
  azimuth = DEFAULT_AZIMUTH;
  elevation = DEFAULT_ELEVATION;
  private content: ViewContent | null = null;
  private drag: { id: number; x: number; y: number } | null = null;
  /** Drawn nodes per content at the angles they were drawn for (a reader toggling between inputs redraws nothing). */
  private drawn = new Map<ViewContent, { azimuth: number; elevation: number; k: number; nodes: SVGElement[] }>();
  /** Factor on text sizes so labels keep their nominal pixel size on a narrow stage. */
  private textScale = 1;
  /**
   * The drawing's rendered width in CSS px (0 until first laid out): read once by the owner at its
   * first render (setShownWidth), then kept by the ResizeObserver: draw() runs right after the
   * widget wrote its DOM, where reading clientWidth would force a synchronous style and layout of
   * the page on every rotation step and every new list.
   */
  private shownWidth = 0;
  /** Whether the width is known: given by the owner (setShownWidth) or reported by the observer. */
  private widthKnown = false;

  /**
   * `focusTarget` receives the keys; `listen` registers listeners the owner removes on
   * disconnect; `onRotate` is told after every rotation (to announce the angles).
   */
  constructor(
    focusTarget: HTMLElement,
    listen: (t: EventTarget, type: string, h: (e: Event) => void) => void,
    private readonly onRotate: () => void,
  ) {
    this.svg = svgEl('svg', { viewBox: `0 0 ${SIZE} ${SIZE}`, width: SIZE, height: SIZE, role: 'img', class: 'view3d' });
    listen(focusTarget, 'keydown', (e) => this.onKey(e as KeyboardEvent));
    listen(this.svg, 'pointerdown', (e) => {
      const p = e as PointerEvent;
      this.drag = { id: p.pointerId, x: p.clientX, y: p.clientY };
      this.svg.setPointerCapture(p.pointerId);
      focusTarget.focus({ preventScroll: true });
    });
    listen(this.svg, 'pointermove', (e) => {
      const p = e as PointerEvent;
      if (!this.drag || p.pointerId !== this.drag.id) return;
      const dx = p.clientX - this.drag.x;
      const dy = p.clientY - this.drag.y;
      this.drag.x = p.clientX;
      this.drag.y = p.clientY;
      this.rotate(dx * DRAG_DEGREES_PER_PX, dy * DRAG_DEGREES_PER_PX);
    });
    const end = (e: Event) => {
      if (this.drag && (e as PointerEvent).pointerId === this.drag.id) this.drag = null;
    };
    if (typeof ResizeObserver === 'function') {
      const observer = new ResizeObserver((entries) => {
        const w = entries[entries.length - 1].contentRect.width;
        if (w <= 0) return; // not laid out (not on the page yet, or hidden): not a width
        this.shownWidth = w;
        this.widthKnown = true;
        const k = w > 0 && w < SIZE ? Math.round((SIZE / w) * 20) / 20 : 1;
        if (k !== this.textScale) this.draw();
      });
      observer.observe(this.svg);
      this.observer = observer;
    }
    listen(this.svg, 'pointerup', end);
    listen(this.svg, 'pointercancel', end);
  }

  private observer: ResizeObserver | null = null;

  /** Stops watching the stage's size (the owner calls it on disconnect). */
  dispose(): void {
    this.observer?.disconnect();
    this.observer = null;
  }

  /** Whether the drawing's width is known (its first draw() is then at its shown size). */
  get hasShownWidth(): boolean {
    return this.widthKnown;
  }

  /**
   * The drawing's width in CSS px as its owner read it at its first render (before the observer's
   * first report), so the first drawing has its text at its shown size; later widths come from
   * the observer.
   */
  setShownWidth(width: number): void {
    this.shownWidth = width;
    this.widthKnown = true;
  }

  set(content: ViewContent): void {
    this.content = content;
    this.draw();
  }

  rotate(dAzimuth: number, dElevation: number): void {
    this.azimuth = wrapDegrees(this.azimuth + dAzimuth);
    this.elevation = Math.max(-89, Math.min(89, this.elevation + dElevation));
    this.draw();
    this.onRotate();
  }

  reset(): void {
    this.azimuth = DEFAULT_AZIMUTH;
    this.elevation = DEFAULT_ELEVATION;
    this.draw();
    this.onRotate();
  }

  private onKey(e: KeyboardEvent): void {
    const step = e.shiftKey ? KEY_STEP / 5 : KEY_STEP;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, step],
      ArrowDown: [0, -step],
    };
    if (moves[e.key]) {
      e.preventDefault();
      this.rotate(...moves[e.key]);
    } else if (e.key === 'Home') {
      e.preventDefault();
      this.reset();
    }
  }

  /** Screen position (x right, y down, in viewBox units) and depth of p under the current view. */
  project(p: Vec3, scale: number): { x: number; y: number; depth: number } {
    const a = (this.azimuth * Math.PI) / 180;
    const el = (this.elevation * Math.PI) / 180;
    const x1 = p[0] * Math.cos(a) - p[1] * Math.sin(a);
    const y1 = p[0] * Math.sin(a) + p[1] * Math.cos(a);
    const up = p[2] * Math.cos(el) - y1 * Math.sin(el);
    const depth = y1 * Math.cos(el) + p[2] * Math.sin(el);
    const f = VIEWER / (VIEWER - depth * scale);
    return { x: SIZE / 2 + x1 * scale * f, y: SIZE / 2 - up * scale * f, depth };
  }

  private draw(): void {
    const c = this.content;
    if (!c) return;
    const hit = this.drawn.get(c);
    // Text scale: the drawing is SIZE units wide; on a narrower stage its text grows by SIZE / width so it renders at its nominal size.
    const shownWidth = this.shownWidth;
    const k = shownWidth > 0 && shownWidth < SIZE ? Math.round((SIZE / shownWidth) * 20) / 20 : 1;
    this.textScale = k;
    if (hit && hit.azimuth === this.azimuth && hit.elevation === this.elevation && hit.k === k) {
      if (this.svg.firstChild !== hit.nodes[0]) this.svg.replaceChildren(...hit.nodes);
      this.svg.dataset.azimuth = String(this.azimuth);
      this.svg.dataset.elevation = String(this.elevation);
      return;
    }
    const reach = contentReach(c);
    const scale = (SIZE / 2 - MARGIN) / reach;
    // Depth in [−reach, reach] → opacity 0.45 (far) … 1 (near), point size ×0.8 … ×1.25.
    const nearness = (depth: number) => Math.max(0, Math.min(1, (depth / reach + 1) / 2));
    const fade = (depth: number) => String(Math.round((0.45 + 0.55 * nearness(depth)) * 100) / 100);
    const labels = new LabelPlacer();
    // The points' dots first, as obstacles: no label (an axis name placed before them included)
    // is put over a dot. Dots are at most 5 × 1.25 px in radius.
    for (const p of c.points) {
      const s = this.project(p.at, scale);
      labels.block(s.x - 6.5, s.y - 6.5, s.x + 6.5, s.y + 6.5);
    }
    const items: { depth: number; node: SVGElement }[] = [];
    const defs = svgEl('g');
    // Axes PC1–PC3 through the origin, drawn first (behind everything).
    ['PC1', 'PC2', 'PC3'].forEach((name, i) => {
      const tip: [number, number, number] = [0, 0, 0];
      tip[i] = reach;
      const back: [number, number, number] = [0, 0, 0];
      back[i] = -reach;
      const s = this.project(tip, scale);
      const b = this.project(back, scale);
      defs.append(
        svgEl('line', { x1: b.x, y1: b.y, x2: s.x, y2: s.y, stroke: c.axisColour, 'stroke-width': 1, 'stroke-dasharray': '3 3' }),
      );
      const at = labels.place(s.x, s.y, name.length * CHAR_WIDTH * k, 13 * k, 3);
      const t = svgEl('text', {
        x: at.x,
        y: at.y,
        fill: c.axisColour,
        'font-size': 11 * k,
        'text-anchor': at.anchor,
        'dominant-baseline': 'central',
      });
      t.textContent = name;
      defs.append(t);
    });
    if (c.path && c.path.points.length > 1) {
      const pts = c.path.points.map((p) => this.project(p, scale));
      defs.append(
        svgEl('polyline', {
          points: pts.map((p) => `${r(p.x)},${r(p.y)}`).join(' '),
          fill: 'none',
          stroke: c.path.colour,
          'stroke-width': 1.2,
          'stroke-dasharray': '1 3',
          'stroke-linecap': 'round',
          class: 'digit-path',
        }),
      );
    }
    for (const p of c.points) {
      const s = this.project(p.at, scale);
      const digit: Record<string, string> = p.id?.startsWith('digit-') ? { 'data-digit': p.id.slice(6) } : {};
      const g = svgEl(
        'g',
        p.id
          ? { 'data-id': p.id, 'data-x': r(s.x), 'data-y': r(s.y), 'data-depth': r(s.depth), ...digit, opacity: fade(s.depth) }
          : { opacity: fade(s.depth) },
      );
      const size = (p.strong ? 5 : 3.5) * (0.8 + 0.45 * nearness(s.depth));
      g.append(svgEl('circle', { cx: s.x, cy: s.y, r: r(size), fill: p.colour, stroke: c.textColour, 'stroke-width': p.strong ? 1.5 : 0 }));
      const at = labels.place(s.x, s.y, p.label.length * 8 * k, (p.strong ? 15 : 13) * k, size + 3);
      const t = svgEl('text', {
        x: at.x,
        y: at.y,
        'text-anchor': at.anchor,
        fill: p.colour,
        'font-size': (p.strong ? 14 : 12) * k,
        'font-weight': p.strong ? 'bold' : 'normal',
        'dominant-baseline': 'central',
        stroke: 'var(--hl-panel)',
        'stroke-width': 3,
        'paint-order': 'stroke',
      });
      t.textContent = p.label;
      g.append(t);
      items.push({ depth: s.depth, node: g });
    }
    for (const a of c.arrows) {
      const f = this.project(a.from, scale);
      const t = this.project(a.to, scale);
      const g = svgEl('g', {
        ...(a.id ? { 'data-id': a.id } : {}),
        ...(a.id?.startsWith('head-') ? { 'data-head': a.id.slice(5) } : {}),
        opacity: fade((f.depth + t.depth) / 2),
      });
      const w = a.width ?? 2.5;
      const len = Math.hypot(t.x - f.x, t.y - f.y);
      const head = Math.min(10 + w, len * 0.5);
      const ux = len > 0 ? (t.x - f.x) / len : 0;
      const uy = len > 0 ? (t.y - f.y) / len : 0;
      g.append(
        svgEl('line', {
          x1: f.x,
          y1: f.y,
          x2: t.x - ux * head * 0.8,
          y2: t.y - uy * head * 0.8,
          stroke: a.colour,
          'stroke-width': w,
          'stroke-linecap': 'round',
          ...(a.dashed ? { 'stroke-dasharray': '6 4' } : {}),
        }),
      );
      if (len > 1) {
        const bx = t.x - ux * head;
        const by = t.y - uy * head;
        const px = -uy * head * 0.45;
        const py = ux * head * 0.45;
        g.append(
          svgEl('polygon', { points: `${r(t.x)},${r(t.y)} ${r(bx + px)},${r(by + py)} ${r(bx - px)},${r(by - py)}`, fill: a.colour }),
        );
      }
      if (a.label) {
        const at = labels.place(t.x, t.y, (a.label.length * CHAR_WIDTH + 4) * k, 13 * k, 6);
        const lbl = svgEl('text', {
          x: at.x,
          y: at.y,
          'text-anchor': at.anchor,
          'dominant-baseline': 'central',
          fill: a.colour,
          'font-size': 11 * k,
          'font-weight': 'bold',
          stroke: 'var(--hl-panel)',
          'stroke-width': 3,
          'paint-order': 'stroke',
        });
        lbl.textContent = a.label;
        g.append(lbl);
      }
      items.push({ depth: (f.depth + t.depth) / 2, node: g });
    }
    items.sort((a, b) => a.depth - b.depth);
    const nodes = [defs, ...items.map((i) => i.node)];
    if (this.drawn.size >= 8) this.drawn.clear();
    this.drawn.set(c, { azimuth: this.azimuth, elevation: this.elevation, k, nodes });
    this.svg.replaceChildren(...nodes);
    this.svg.dataset.azimuth = String(this.azimuth);
    this.svg.dataset.elevation = String(this.elevation);
  }
}

/**
 * The current projection as a flat Scene (for SVG and PNG export): axes and arrows as lines,
 * arrowheads as closed polylines, points as small squares, labels as text, back to front.
 */
export function viewScene(view: View3D, content: ViewContent, background: string, title: string): Scene {
  const reach = contentReach(content);
  const scale = (SIZE / 2 - MARGIN) / reach;
  const shapes: Shape[] = [];
  for (let i = 0; i < 3; i++) {
    const tip: [number, number, number] = [0, 0, 0];
    tip[i] = reach;
    const back: [number, number, number] = [0, 0, 0];
    back[i] = -reach;
    const s = view.project(tip, scale);
    const b = view.project(back, scale);
    shapes.push({ kind: 'line', x1: b.x, y1: b.y, x2: s.x, y2: s.y, stroke: content.axisColour, dash: [3, 3] });
    shapes.push({ kind: 'text', x: s.x, y: s.y, text: `PC${i + 1}`, fill: content.axisColour, size: 11, anchor: 'middle' });
  }
  const items: { depth: number; shapes: Shape[] }[] = [];
  for (const a of content.arrows) {
    const f = view.project(a.from, scale);
    const t = view.project(a.to, scale);
    const w = a.width ?? 2.5;
    const len = Math.hypot(t.x - f.x, t.y - f.y);
    const head = Math.min(10 + w, len * 0.5);
    const ux = len > 0 ? (t.x - f.x) / len : 0;
    const uy = len > 0 ? (t.y - f.y) / len : 0;
    const out: Shape[] = [
      {
        kind: 'line',
        x1: f.x,
        y1: f.y,
        x2: t.x - ux * head * 0.8,
        y2: t.y - uy * head * 0.8,
        stroke: a.colour,
        width: w,
        ...(a.dashed ? { dash: [6, 4] } : {}),
      },
    ];
    if (len > 1) {
      const bx = t.x - ux * head;
      const by = t.y - uy * head;
      const px = -uy * head * 0.45;
      const py = ux * head * 0.45;
      out.push({
        kind: 'polyline',
        points: [
          [t.x, t.y],
          [bx + px, by + py],
          [bx - px, by - py],
          [t.x, t.y],
        ],
        stroke: a.colour,
        width: 2,
      });
    }
    if (a.label) out.push({ kind: 'text', x: t.x + 6, y: t.y - 8, text: a.label, fill: a.colour, size: 11, weight: 'bold' });
    items.push({ depth: (f.depth + t.depth) / 2, shapes: out });
  }
  for (const p of content.points) {
    const s = view.project(p.at, scale);
    const r = p.strong ? 5 : 3.5;
    items.push({
      depth: s.depth,
      shapes: [
        { kind: 'rect', x: s.x - r, y: s.y - r, w: 2 * r, h: 2 * r, fill: p.colour },
        { kind: 'text', x: s.x + 7, y: s.y, text: p.label, fill: p.colour, size: p.strong ? 14 : 12, weight: p.strong ? 'bold' : 'normal' },
      ],
    });
  }
  items.sort((a, b) => a.depth - b.depth);
  for (const i of items) shapes.push(...i.shapes);
  return { width: SIZE, height: SIZE, background, title, shapes };
}

/** The content's fixed reach, or what its points and arrows reach. */
function contentReach(c: ViewContent): number {
  if (c.reach && c.reach > 0) return c.reach;
  const norm = (v: Vec3) => Math.hypot(v[0], v[1], v[2]);
  let reach = 0;
  for (const p of c.points) reach = Math.max(reach, norm(p.at));
  for (const a of c.arrows) reach = Math.max(reach, norm(a.from), norm(a.to));
  return reach || 1;
}

/**
 * Greedy label placement: each label goes right of its mark, else left, above or below, the
 * first spot whose box overlaps no label placed before (else the least-overlapping spot).
 */
class LabelPlacer {
  private boxes: { x0: number; y0: number; x1: number; y1: number }[] = [];

  /** A box no label may overlap (a mark), without a label of its own. */
  block(x0: number, y0: number, x1: number, y1: number): void {
    this.boxes.push({ x0, y0, x1, y1 });
  }

  place(x: number, y: number, w: number, h: number, gap: number): { x: number; y: number; anchor: 'start' | 'end' | 'middle' } {
    const options: { x: number; y: number; anchor: 'start' | 'end' | 'middle'; box: { x0: number; y0: number; x1: number; y1: number } }[] =
      [
        { x: x + gap, y, anchor: 'start', box: { x0: x + gap, y0: y - h / 2, x1: x + gap + w, y1: y + h / 2 } },
        { x: x - gap, y, anchor: 'end', box: { x0: x - gap - w, y0: y - h / 2, x1: x - gap, y1: y + h / 2 } },
        { x, y: y - gap - h / 2, anchor: 'middle', box: { x0: x - w / 2, y0: y - gap - h, x1: x + w / 2, y1: y - gap } },
        { x, y: y + gap + h / 2, anchor: 'middle', box: { x0: x - w / 2, y0: y + gap, x1: x + w / 2, y1: y + gap + h } },
      ];
    let best = options[0];
    let bestOverlap = Infinity;
    for (const o of options) {
      let overlap = 0;
      for (const b of this.boxes) {
        overlap +=
          Math.max(0, Math.min(o.box.x1, b.x1) - Math.max(o.box.x0, b.x0)) *
          Math.max(0, Math.min(o.box.y1, b.y1) - Math.max(o.box.y0, b.y0));
      }
      if (o.box.x0 < 0 || o.box.x1 > SIZE || o.box.y0 < 0 || o.box.y1 > SIZE) overlap += 1e6;
      if (overlap < bestOverlap) {
        best = o;
        bestOverlap = overlap;
      }
      if (overlap === 0) break;
    }
    this.boxes.push(best.box);
    return { x: best.x, y: best.y, anchor: best.anchor };
  }
}

function wrapDegrees(d: number): number {
  const w = ((((d + 180) % 360) + 360) % 360) - 180;
  return w === -180 ? 180 : w;
}

function r(x: number): number {
  return Math.round(x * 100) / 100;
}
