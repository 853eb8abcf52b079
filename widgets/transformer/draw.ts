// Figures of the transformer widgets as Scenes (widgets/chart/scene.ts): heatmaps (attention
// patterns, patching, QK/OV circuits) and signed bars (direct logit attribution, ablation), drawn
// on the page, to SVG and to PNG from the same description. Colours are the theme's: a
// sequential panel → orange scale for attention mass (in [0, 1]) and the blue–orange diverging
// scale centred on zero for signed values (colour-blind safe, widgets/chart/palette.ts).
import { formatNumber } from '../chart/format.js';
import { divergingFill, mixRgb, rgbText, type ResolvedColours } from '../chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from '../chart/scene.js';
import { svgEl } from '../chart/svg.js';
import { shownIn } from '../base/dom.js';
import type { Matrix } from '../../web/headlab-core.js';
import { rowViews } from '../../web/matrix.js';

/**
 * Whether a cell's interval crosses 0: it includes 0 and has width (an interval of exactly [0, 0], a
 * cell no pair's patch changes, is drawn as no effect, unstroked).
 */
export function crossesZero(lower: number, upper: number): boolean {
  return lower <= 0 && upper >= 0 && lower < upper;
}

/** Masked cells (above a causal diagonal): the panel colour mixed this far towards the rule colour. */
export const MASK_MIX = 0.35;

/** Strongest mix of the sequential scale (as the diverging one's): numbers written on a cell stay legible. */
export const SEQUENTIAL_MAX_MIX = 0.85;

/** Fill for an attention weight a ∈ [0, 1] (clamped): the panel colour mixed towards orange. */
export function sequentialFill(c: ResolvedColours, a: number): string {
  const t = Number.isFinite(a) ? Math.min(1, Math.max(0, a)) : 0;
  return rgbText(mixRgb(c.panel, c.pos, t * SEQUENTIAL_MAX_MIX));
}

export interface HeatmapSpec {
  /** rows × cols values: a Matrix (the core's runs, web/transformer.js) or row-major rows. */
  values: Matrix | readonly (readonly number[] | Float64Array)[];
  x: number;
  y: number;
  cell: number;
  /** 'sequential': values in [0, 1] (attention); 'diverging': signed, |value| = limit at full colour. */
  scale: 'sequential' | 'diverging';
  limit?: number;
  /** Masked cells (e.g. above the causal diagonal): drawn in a muted colour, their value ignored. */
  masked?: (r: number, c: number) => boolean;
  /** Cells outlined in the focus colour (the hovered or focused token's row and column). */
  outlineRow?: number;
  outlineCol?: number;
  /** data-* of each cell, for the pointer readout. */
  data?: (r: number, c: number) => Record<string, string>;
  /** Write the value in each cell (only when cells are big enough to read). */
  numbers?: boolean;
}

/** The shapes of one heatmap: a rect per cell, optional numbers, the outlined row/column on top. */
export function heatmapShapes(c: ResolvedColours, spec: HeatmapSpec): Shape[] {
  const shapes: Shape[] = [];
  const { x, y, cell } = spec;
  const values = 'data' in spec.values ? rowViews(spec.values) : spec.values;
  const limit = spec.limit ?? 1;
  // Masked cells are not drawn one by one: one rect of the masked colour under the whole map shows
  // through where no cell is drawn (half the nodes of a causal pattern: fewer nodes to style and walk).
  const maskFill = rgbText(mixRgb(c.panel, c.rule, MASK_MIX));
  if (spec.masked) shapes.push({ kind: 'rect', x, y, w: (values[0]?.length ?? 0) * cell - 1, h: values.length * cell - 1, fill: maskFill });
  values.forEach((row, r) =>
    row.forEach((v, k) => {
      const masked = spec.masked?.(r, k) ?? false;
      if (masked) return;
      let fill: string,
        text = rgbText(c.fg);
      if (spec.scale === 'sequential') fill = sequentialFill(c, v);
      else {
        const d = divergingFill(c, v, limit);
        fill = rgbText(d.fill);
        text = rgbText(d.text);
      }
      shapes.push({
        kind: 'rect',
        x: x + k * cell,
        y: y + r * cell,
        w: cell - 1,
        h: cell - 1,
        fill,
        ...(spec.data ? { data: spec.data(r, k) } : {}),
      });
      if (spec.numbers) {
        shapes.push({
          kind: 'text',
          x: x + k * cell + cell / 2,
          y: y + r * cell + cell / 2,
          text: formatNumber(v, 2),
          fill: text,
          size: Math.min(10, cell / 3),
          anchor: 'middle',
        });
      }
    }),
  );
  shapes.push(...outlineShapes(c, x, y, cell, values.length, values[0]?.length ?? 0, spec.outlineRow, spec.outlineCol));
  return shapes;
}

/** The focus-coloured outlines of row `row` and column `col` of a rows × cols heatmap at (x, y) (either may be undefined). */
export function outlineShapes(
  c: ResolvedColours,
  x: number,
  y: number,
  cell: number,
  rows: number,
  cols: number,
  row?: number,
  col?: number,
): Shape[] {
  const shapes: Shape[] = [];
  const focus = rgbText(c.focus);
  if (row !== undefined && row >= 0 && row < rows) {
    const yy = y + row * cell - 0.5;
    shapes.push(boxOutline(x - 0.5, yy, x + cols * cell - 0.5, yy + cell, focus, 1.5));
  }
  if (col !== undefined && col >= 0 && col < cols) {
    const xx = x + col * cell - 0.5;
    shapes.push(boxOutline(xx, y - 0.5, xx + cell, y + rows * cell - 0.5, focus, 1.5));
  }
  return shapes;
}

/** The outline of the box from corner (x0, y0) to corner (x1, y1): a closed polyline, unfilled. */
export function boxOutline(x0: number, y0: number, x1: number, y1: number, stroke: string, width: number): Shape {
  return {
    kind: 'polyline',
    points: [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
      [x0, y0],
    ],
    stroke,
    width,
  };
}

/**
 * A figure in two layers: a base SVG (the heatmaps, built once per input and cached by the widget)
 * and an overlay SVG on top with the same viewBox (the outlined row, column or cell, redrawn as the
 * pointer or the arrow keys move: a few shapes, patched in place). The wrapper is what the reader
 * focuses and what screen readers read (role="img" with the figure's text); pointer events reach the
 * base's cells through the overlay.
 */
export class LayeredFigure {
  readonly element: HTMLDivElement;
  private readonly base: HTMLDivElement;
  private readonly overlay: SVGSVGElement;

  constructor(focusable: boolean) {
    this.element = document.createElement('div');
    this.element.className = 'layered';
    this.element.setAttribute('role', 'img');
    if (focusable) this.element.tabIndex = 0;
    this.base = document.createElement('div');
    this.base.className = 'base';
    this.overlay = svgEl('svg', { class: 'overlay', 'aria-hidden': 'true' });
    this.element.append(this.base, this.overlay);
  }

  /** Shows `drawing` (a cached base SVG, or a canvas) under the overlay. */
  setBase(drawing: SVGSVGElement | HTMLCanvasElement): void {
    if (this.base.firstChild !== drawing || this.base.childNodes.length !== 1) this.base.replaceChildren(drawing);
  }

  /** Redraws the overlay: `shapes` in the base's coordinates (width × height). */
  drawOverlay(width: number, height: number, shapes: Shape[]): void {
    drawSceneInto(this.overlay, { width, height, background: 'none', title: '', shapes }, { reuse: true });
  }

  /** The figure's text for screen readers (and the base drawing hidden from them: the text says it). */
  label(text: string): void {
    if (this.element.getAttribute('aria-label') !== text) this.element.setAttribute('aria-label', text);
  }
}

/** An SVG drawing of `scene` (no overlay), hidden from screen readers when a wrapper carries the text. */
export function drawnSvg(scene: Scene, hidden = true): SVGSVGElement {
  const svg = svgEl('svg', hidden ? { 'aria-hidden': 'true' } : { role: 'img' });
  drawSceneInto(svg, scene);
  return svg;
}

/**
 * Draws `scene` into the figure box `plot`: its SVG patched in place, or made the first time; with
 * `focusable`, the box is then a Tab stop (a figure whose arrow keys move through its marks).
 */
export function drawIntoPlot(plot: HTMLElement, scene: Scene, focusable: boolean): void {
  const svg = shownIn(plot, SVGSVGElement);
  if (svg) {
    drawSceneInto(svg, scene, { reuse: true });
    return;
  }
  if (focusable) plot.tabIndex = 0;
  plot.replaceChildren(drawnSvg(scene));
}

/** A horizontal legend ramp with its end labels, for a heatmap's scale. */
export function legendShapes(
  c: ResolvedColours,
  x: number,
  y: number,
  scale: 'sequential' | 'diverging',
  low: string,
  high: string,
  title: string,
): Shape[] {
  const stops =
    scale === 'sequential'
      ? [0, 0.25, 0.5, 0.75, 1].map((t) => sequentialFill(c, t))
      : [-1, -0.5, 0, 0.5, 1].map((t) => rgbText(divergingFill(c, t, 1).fill));
  return [
    { kind: 'text', x, y: y + 6, text: title, fill: rgbText(c.muted), size: 11 },
    { kind: 'text', x, y: y + 22, text: low, fill: rgbText(c.muted), size: 10 },
    { kind: 'ramp', x: x + 42, y: y + 16, w: 110, h: 11, stops, stroke: rgbText(c.rule) },
    { kind: 'text', x: x + 158, y: y + 22, text: high, fill: rgbText(c.muted), size: 10 },
  ];
}

export interface BarRow {
  label: string;
  value: number;
  data?: Record<string, string>;
  strong?: boolean;
}

/**
 * A signed-bar chart 460 units wide: `heading` over one 18-unit bar per row (labels `labelWidth`
 * units wide), on the panel colour; `title` names the exported picture.
 */
export function signedBarScene(c: ResolvedColours, heading: string, rows: BarRow[], labelWidth: number, title: string): Scene {
  const rowH = 18,
    width = 460;
  const shapes = signedBarShapes(c, rows, 8, 28, width - 16, rowH, labelWidth);
  shapes.unshift({ kind: 'text', x: 8, y: 12, text: heading, fill: rgbText(c.muted), size: 11 });
  return { width, height: 36 + rows.length * rowH, background: rgbText(c.panel), title, shapes };
}

/**
 * Signed horizontal bars from a zero line: one row per entry, labels on the left, the value at the
 * bar's end. Negative bars in blue, positive in orange (the diverging scale's ends).
 */
export function signedBarShapes(
  c: ResolvedColours,
  rows: BarRow[],
  x: number,
  y: number,
  width: number,
  rowH: number,
  labelW: number,
): Shape[] {
  const shapes: Shape[] = [];
  const limit = Math.max(1e-12, ...rows.map((r) => Math.abs(r.value)));
  const barArea = width - labelW - 96;
  const zero = x + labelW + 48 + barArea / 2;
  const half = barArea / 2;
  shapes.push({ kind: 'line', x1: zero, y1: y - 2, x2: zero, y2: y + rows.length * rowH, stroke: rgbText(c.muted) });
  rows.forEach((r, i) => {
    const top = y + i * rowH;
    const len = (Math.abs(r.value) / limit) * half;
    const bx = r.value < 0 ? zero - len : zero;
    shapes.push({
      kind: 'text',
      x: x + labelW,
      y: top + rowH / 2,
      text: r.label,
      fill: rgbText(c.fg),
      size: 11,
      anchor: 'end',
      weight: r.strong ? 'bold' : 'normal',
      ...(r.data ? { data: r.data } : {}),
    });
    shapes.push({
      kind: 'rect',
      x: bx,
      y: top + 3,
      w: Math.max(0.5, len),
      h: rowH - 6,
      fill: rgbText(r.value < 0 ? c.neg : c.pos),
      ...(r.data ? { data: r.data } : {}),
    });
    // The value beside the zero line on the side its bar leaves empty for a negative bar (left of
    // its end the label ran into the row labels when the bar reached the left margin), past the
    // bar's end for a positive one.
    const tx = r.value < 0 ? zero + 4 : bx + len + 4;
    shapes.push({
      kind: 'text',
      x: tx,
      y: top + rowH / 2,
      text: formatNumber(r.value, 3),
      fill: rgbText(c.fg),
      size: 10,
      anchor: 'start',
    });
  });
  return shapes;
}

/** One heatmap panel of a PixelHeatmaps: its top-left corner (SVG units), rows × cols cells of `cell` units (a 1-unit gap between cells). */
export interface PixelPanel {
  x: number;
  y: number;
  rows: number;
  cols: number;
  cell: number;
}

/**
 * Heatmap panels drawn as pixels on a canvas: for the attention patterns (about 2,000 cells for
 * 8 heads × 23 tokens), which a new prompt recolours all at once. As SVG every cell is a node: a
 * recolour sets 2,000 fill attributes, then the browser restyles 2,000 nodes (5–15 ms of script
 * and a long style pass on the loaded 2-core machine); here each cell is a few runs of a typed
 * array and one putImageData per panel, with no string or node made per cell. The canvas sits
 * under the same overlay SVG as a drawn base (LayeredFigure), which carries the text (labels
 * there keep their CSS size at any width); the figure's wrapper is role="img" with the figure's
 * text, and the exported figure still draws the scene. Colours are the SVG fill's, channel for
 * channel: the same mix, rounded as rgbText rounds.
 */
export class PixelHeatmaps {
  readonly canvas: HTMLCanvasElement;
  private key = '';
  private scale = 1;
  private width = 0;
  private panels: { panel: PixelPanel; image: ImageData; words: Uint32Array; x0: number; y0: number }[] = [];

  constructor() {
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('aria-hidden', 'true');
  }

  /**
   * Sizes the canvas for a width × height figure (SVG units = CSS px at full size) and its panels,
   * unless done for `key` (and this screen's pixel ratio); true when it did (the canvas is then blank).
   */
  layout(key: string, width: number, height: number, panels: PixelPanel[]): boolean {
    const scale = Math.max(1, Math.min(3, Math.round((globalThis.devicePixelRatio || 1) * 2) / 2));
    const fullKey = `${key}|${scale}|${width}×${height}`;
    if (fullKey === this.key) return false;
    this.key = fullKey;
    this.scale = scale;
    this.width = width;
    this.canvas.width = Math.round(width * scale);
    this.canvas.height = Math.round(height * scale);
    // The canvas's CSS width is the figure's (it shrinks with max-width: 100%, its height following the bitmap's ratio).
    this.canvas.style.width = `${width}px`;
    const ctx = this.canvas.getContext('2d')!;
    this.panels = panels.map((panel) => {
      const x0 = Math.round(panel.x * scale),
        y0 = Math.round(panel.y * scale);
      const w = Math.round((panel.x + panel.cols * panel.cell - 1) * scale) - x0;
      const h = Math.round((panel.y + panel.rows * panel.cell - 1) * scale) - y0;
      const image = ctx.createImageData(Math.max(1, w), Math.max(1, h));
      return { panel, image, words: new Uint32Array(image.data.buffer), x0, y0 };
    });
    return true;
  }

  /**
   * Paints every panel: `colour(p, r, c)` is cell (r, c) of panel p as packed RGBA (packRgb), or
   * −1 for a masked cell (left in `gap`, the colour between cells).
   */
  paint(gap: number, colour: (p: number, r: number, c: number) => number): void {
    const ctx = this.canvas.getContext('2d')!;
    const s = this.scale;
    this.panels.forEach(({ panel, image, words, x0, y0 }, p) => {
      const W = image.width;
      words.fill(gap);
      for (let r = 0; r < panel.rows; r++) {
        const top = Math.round((panel.y + r * panel.cell) * s) - y0;
        const bottom = Math.min(image.height, Math.round((panel.y + r * panel.cell + panel.cell - 1) * s) - y0);
        if (bottom <= top) continue;
        // The row's first pixel line, cell by cell (a few pixels each: a plain loop, no call per
        // run), then its other lines copied from it: every line of a row of cells is the same
        // (each cell spans the same columns on all of them). A fill per cell and line was 21,000
        // calls for 8 heads × 23 tokens, most of a new prompt's repaint.
        const line = top * W;
        for (let c = 0; c < panel.cols; c++) {
          const v = colour(p, r, c);
          if (v === -1) continue;
          const left = Math.round((panel.x + c * panel.cell) * s) - x0;
          const right = Math.min(W, Math.round((panel.x + c * panel.cell + panel.cell - 1) * s) - x0);
          for (let i = line + left; i < line + right; i++) words[i] = v;
        }
        for (let y = top + 1; y < bottom; y++) words.copyWithin(y * W, line, line + W);
      }
      ctx.putImageData(image, x0, y0);
    });
  }

  /** The figure's SVG units per CSS pixel of the canvas as shown (for a pointer's position). */
  unitsPerPixel(): number {
    const shown = this.canvas.clientWidth;
    return shown > 0 ? this.width / shown : 1;
  }

  /** Forgets the layout (the next layout() sizes the canvas again). */
  reset(): void {
    this.key = '';
  }
}

/** Where a heatmap's cells are: rows × cols cells of `cell` units from (left, top) in the figure's units. */
export interface GridPlace {
  rows: number;
  cols: number;
  cell: number;
  left: number;
  top: number;
}

/**
 * The outlined cell of a heatmap painted on a PixelHeatmaps canvas: the cell under the pointer, and
 * the arrow keys on the figure move it (kept inside the grid). `grid()` gives the grid drawn now
 * (null: none); `moved()` is called when the cell changes (the figure renders again).
 */
export class GridCursor {
  row = 0;
  col = 0;

  constructor(
    private readonly pixels: PixelHeatmaps,
    private readonly grid: () => GridPlace | null,
    private readonly moved: () => void,
  ) {}

  /** Follows the pointer over the canvas and the arrow keys on `figure`; `listen` is the element's (its listeners end with it). */
  follow(figure: HTMLElement, listen: (target: EventTarget, type: string, handler: (event: Event) => void) => void): void {
    const pick = (e: Event) => {
      const p = e as PointerEvent;
      const g = this.grid();
      if (p.target !== this.pixels.canvas || !g) return;
      const u = this.pixels.unitsPerPixel();
      const row = Math.floor((p.offsetY * u - g.top) / g.cell),
        col = Math.floor((p.offsetX * u - g.left) / g.cell);
      if (row < 0 || col < 0 || row >= g.rows || col >= g.cols || (row === this.row && col === this.col)) return;
      this.row = row;
      this.col = col;
      this.moved();
    };
    listen(figure, 'pointermove', pick);
    listen(figure, 'pointerdown', pick);
    listen(figure, 'keydown', (e) => {
      const k = (e as KeyboardEvent).key;
      const d = k === 'ArrowUp' ? [-1, 0] : k === 'ArrowDown' ? [1, 0] : k === 'ArrowLeft' ? [0, -1] : k === 'ArrowRight' ? [0, 1] : null;
      const g = this.grid();
      if (!d || !g) return;
      e.preventDefault();
      this.row = Math.min(g.rows - 1, Math.max(0, this.row + d[0]));
      this.col = Math.min(g.cols - 1, Math.max(0, this.col + d[1]));
      this.moved();
    });
  }

  /** Keeps the cell inside a rows × cols grid (a smaller grid drawn since). */
  clamp(rows: number, cols: number): void {
    this.row = Math.min(this.row, rows - 1);
    this.col = Math.min(this.col, cols - 1);
  }
}

/** An sRGB colour as ImageData's 32-bit word (little-endian RGBA, opaque), channels rounded as rgbText rounds them. */
export function packRgb([r, g, b]: readonly [number, number, number]): number {
  return ((255 << 24) | (Math.round(b) << 16) | (Math.round(g) << 8) | Math.round(r)) >>> 0;
}

/** packRgb of sequentialFill(c, a), with no string or array made (it runs for every cell of a repaint). */
export function sequentialWord(c: ResolvedColours, a: number): number {
  const t = (Number.isFinite(a) ? Math.min(1, Math.max(0, a)) : 0) * SEQUENTIAL_MAX_MIX;
  const p = c.panel,
    q = c.pos;
  const r = Math.round(p[0] + (q[0] - p[0]) * t),
    g = Math.round(p[1] + (q[1] - p[1]) * t),
    b = Math.round(p[2] + (q[2] - p[2]) * t);
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** Strongest tint of the diverging scale (widgets/chart/palette.ts: divergingFill's). */
const DIVERGING_MAX_MIX = 0.85;

/** packRgb of divergingFill(c, value, limit).fill, with no string or array made. */
export function divergingWord(c: ResolvedColours, value: number, limit: number): number {
  const t = (Number.isFinite(value) && limit > 0 ? Math.min(1, Math.abs(value) / limit) : 0) * DIVERGING_MAX_MIX;
  const p = c.panel,
    q = value < 0 ? c.neg : c.pos;
  const r = Math.round(p[0] + (q[0] - p[0]) * t),
    g = Math.round(p[1] + (q[1] - p[1]) * t),
    b = Math.round(p[2] + (q[2] - p[2]) * t);
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}
