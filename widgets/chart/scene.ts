// A figure as a flat list of drawing primitives with resolved colours, drawn three
// ways from the same description: as SVG nodes in the widget, as a standalone SVG
// file, and onto a canvas for a PNG. The canvas path matters under the strict CSP:
// default-src 'self' forbids blob: and data: images, so a PNG cannot be made by
// loading the SVG into an <img>; it is drawn directly instead.
import { svgEl } from './svg.js';
import { setAttributeIfChanged, setSoleText } from './text.js';

export type Anchor = 'start' | 'middle' | 'end';

/** Any shape may carry `data`: data-* attributes on its on-page node (for linked highlighting; not exported). */
export type Shape = ShapeBody & { data?: Readonly<Record<string, string>> };

type ShapeBody =
  | { kind: 'rect'; x: number; y: number; w: number; h: number; fill: string; stroke?: string }
  | { kind: 'line'; x1: number; y1: number; x2: number; y2: number; stroke: string; width?: number; dash?: number[] }
  | { kind: 'polyline'; points: ReadonlyArray<readonly [number, number]>; stroke: string; width?: number; dash?: number[] }
  | {
      kind: 'text';
      x: number;
      y: number;
      text: string;
      fill: string;
      size?: number;
      anchor?: Anchor;
      weight?: 'normal' | 'bold';
      rotate?: number;
    }
  /** A horizontal colour ramp: stops at evenly spaced offsets from x to x + w. */
  | { kind: 'ramp'; x: number; y: number; w: number; h: number; stops: string[]; stroke?: string };

export interface Scene {
  width: number;
  height: number;
  background: string;
  /** Accessible title of the exported SVG file. */
  title: string;
  shapes: Shape[];
}

export const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", sans-serif';
const DEFAULT_TEXT_SIZE = 12;
// Text is placed by its vertical middle: SVG's dominant-baseline="central" and canvas's textBaseline="middle".

/**
 * Replaces the children of `svg` with the scene (the on-page figure; no style attribute anywhere).
 *
 * `reuse: true` (for figures redrawn on every frame of a drag or a scrub) patches the nodes of
 * the previous draw instead: a shape whose tag and attribute names match the node drawn at the
 * same index last time keeps that node, and only attributes whose text changed are set, so a
 * redraw creates no DOM nodes (no allocation for the garbage collector, no style work for nodes
 * that did not change). The result is the same markup as a fresh draw. It assumes nothing else
 * edits the drawn nodes; any other change to the svg's children is detected and answered with a
 * fresh draw. Scenes with colour ramps are always drawn fresh. `size: false` leaves the svg without
 * width and height (it then scales with its box through the viewBox).
 *
 * `kept: true` (with reuse) is the caller's promise that this scene object never changes after it
 * is drawn (a widget that keeps its scenes, e.g. one per replay snapshot): the node specs are
 * computed once and kept with the scene, and drawing it again into the svg it was last drawn
 * into does nothing, so a scrub over kept scenes allocates almost nothing per frame.
 */
export function drawSceneInto(
  svg: SVGSVGElement,
  scene: Scene,
  { reuse = false, size = true, kept = false }: { reuse?: boolean; size?: boolean; kept?: boolean } = {},
): void {
  setAttributeIfChanged(svg, 'viewBox', `0 0 ${scene.width} ${scene.height}`);
  if (size) {
    setAttributeIfChanged(svg, 'width', String(scene.width));
    setAttributeIfChanged(svg, 'height', String(scene.height));
  } else {
    svg.removeAttribute('width');
    svg.removeAttribute('height');
  }
  if (!reuse || scene.shapes.some((s) => s.kind === 'ramp')) {
    drawn.delete(svg);
    let gradients = 0;
    const defs = svgEl('defs');
    const nodes: SVGElement[] = [defs];
    for (const s of scene.shapes) nodes.push(shapeNode(s, defs, () => `ramp-${++gradients}`));
    svg.replaceChildren(...nodes);
    return;
  }
  let d = drawn.get(svg);
  if (!d || svg.firstChild !== d.defs || svg.childNodes.length !== d.nodes.length + 1 || d.defs.firstChild !== null) {
    d = { defs: svgEl('defs'), nodes: [], specs: [], scene: null };
    svg.replaceChildren(d.defs);
    drawn.set(svg, d);
  }
  if (kept && d.scene === scene) return;
  const keptSpecs = kept ? keptSpecsOf(scene) : null;
  // A greedy diff of the shape list against the previous draw: a shape that matches the next
  // unused node (same tag and attribute names) patches it; one that matches a node a few places
  // on drops the nodes in between (shapes that disappeared, e.g. a mark beside a heat cell);
  // otherwise a node is created in place. Node order stays the shape order (the z-order).
  const old = d.nodes,
    oldSpecs = d.specs;
  const nodes: SVGElement[] = [],
    specs: NodeSpec[] = keptSpecs ?? [];
  let o = 0;
  const matches = (a: NodeSpec | undefined, b: NodeSpec) => a !== undefined && a.tag === b.tag && a.names === b.names;
  for (let n = 0; n < scene.shapes.length; n++) {
    const shape = scene.shapes[n];
    const spec = keptSpecs ? keptSpecs[n] : specOf(shape);
    let j = o;
    while (j < old.length && j < o + LOOKAHEAD && !matches(oldSpecs[j], spec)) j++;
    if (j < old.length && matches(oldSpecs[j], spec)) {
      for (let k = o; k < j; k++) old[k].remove();
      const node = old[j],
        was = oldSpecs[j];
      for (let v = 0; v < spec.values.length; v++) {
        if (was.values[v] !== spec.values[v]) node.setAttribute(spec.list[v], spec.values[v]);
      }
      if (spec.runs !== was.runs) setTextRuns(node, shape as Extract<ShapeBody, { kind: 'text' }>);
      nodes.push(node);
      o = j + 1;
    } else {
      const node = svgEl(spec.tag, {});
      for (let v = 0; v < spec.values.length; v++) node.setAttribute(spec.list[v], spec.values[v]);
      if (spec.tag === 'text') appendTextRuns(node, shape as Extract<ShapeBody, { kind: 'text' }>);
      svg.insertBefore(node, o < old.length ? old[o] : null);
      nodes.push(node);
    }
    if (!keptSpecs) specs.push(spec);
  }
  for (let k = o; k < old.length; k++) old[k].remove();
  d.nodes = nodes;
  d.specs = specs;
  d.scene = kept ? scene : null;
}

/** How far ahead the diff looks for a matching node before it creates one. */
const LOOKAHEAD = 8;

/** A node as drawn: tag, attribute names (joined, for a quick match, and listed) and values as text. */
interface NodeSpec {
  tag: 'rect' | 'line' | 'polyline' | 'text';
  names: string;
  list: string[];
  values: string[];
  runs?: string;
}
/** What drawSceneInto(…, { reuse: true }) last drew into an on-page svg. */
const drawn = new WeakMap<SVGSVGElement, { defs: SVGDefsElement; nodes: SVGElement[]; specs: NodeSpec[]; scene: Scene | null }>();
/** The node specs of scenes drawn with `kept: true` (scenes that never change once drawn). */
const specsOfKeptScenes = new WeakMap<Scene, NodeSpec[]>();

function keptSpecsOf(scene: Scene): NodeSpec[] {
  let specs = specsOfKeptScenes.get(scene);
  if (!specs) {
    specs = scene.shapes.map(specOf);
    specsOfKeptScenes.set(scene, specs);
  }
  return specs;
}

/** The attributes of a shape's node, in the order a fresh draw sets them (data-* last). */
function shapeAttributes(s: Shape): Record<string, string | number> {
  let a: Record<string, string | number>;
  switch (s.kind) {
    case 'rect':
      a = { x: s.x, y: s.y, width: s.w, height: s.h, fill: s.fill, ...(s.stroke ? { stroke: s.stroke } : {}) };
      break;
    case 'line':
      a = {
        x1: s.x1,
        y1: s.y1,
        x2: s.x2,
        y2: s.y2,
        stroke: s.stroke,
        'stroke-width': s.width ?? 1,
        ...(s.dash ? { 'stroke-dasharray': s.dash.join(' ') } : {}),
      };
      break;
    case 'polyline':
      a = {
        points: s.points.map(pointText).join(' '),
        fill: 'none',
        stroke: s.stroke,
        'stroke-width': s.width ?? 1.5,
        'stroke-linejoin': 'round',
        ...(s.dash ? { 'stroke-dasharray': s.dash.join(' ') } : {}),
      };
      break;
    case 'text':
      a = {
        x: s.x,
        y: s.y,
        fill: s.fill,
        'font-size': s.size ?? DEFAULT_TEXT_SIZE,
        'text-anchor': s.anchor ?? 'start',
        'dominant-baseline': 'central',
        'font-family': FONT_FAMILY,
        ...(s.weight === 'bold' ? { 'font-weight': 'bold' } : {}),
        ...(s.rotate ? { transform: `rotate(${s.rotate} ${s.x} ${s.y})` } : {}),
      };
      break;
    default:
      throw new Error(`no single node for a ${s.kind} shape`);
  }
  if (s.data) for (const [k, v] of Object.entries(s.data)) a[`data-${k}`] = v;
  return a;
}

function specOf(s: Shape): NodeSpec {
  const a = shapeAttributes(s);
  const list = Object.keys(a);
  return {
    tag: s.kind as NodeSpec['tag'],
    names: list.join(' '),
    list,
    values: list.map((k) => String(a[k])),
    ...(s.kind === 'text' ? { runs: `${s.size ?? ''}|${s.text}` } : {}),
  };
}

/**
 * Replaces a drawn text's runs: a plain text (no subscript) over a node holding one Text node
 * changes that node's data in place (setSoleText), so a heat map's value labels changing with a
 * scrub make and drop no nodes; otherwise the runs are built again.
 */
function setTextRuns(t: SVGElement, s: Extract<ShapeBody, { kind: 'text' }>): void {
  const runs = textRuns(s.text);
  if (runs.length === 1 && !runs[0][1] && setSoleText(t, runs[0][0])) return;
  t.replaceChildren();
  appendTextRuns(t, s, runs);
}

/** The text of a text shape, with subscripts as smaller lowered tspans (runs: textRuns(s.text), when already split). */
function appendTextRuns(t: SVGElement, s: Extract<ShapeBody, { kind: 'text' }>, runs = textRuns(s.text)): void {
  for (const [part, sub] of runs) {
    if (!sub) {
      t.append(part);
      continue;
    }
    const span = svgEl('tspan', { 'baseline-shift': 'sub', 'font-size': subSize(s.size) });
    span.textContent = part;
    t.append(span);
  }
}

function shapeNode(s: Shape, defs: SVGDefsElement, nextId: () => string): SVGElement {
  if (s.kind === 'ramp') {
    const id = nextId();
    const gradient = svgEl('linearGradient', { id, x1: 0, x2: 1, y1: 0, y2: 0 });
    s.stops.forEach((colour, i) => gradient.append(svgEl('stop', { offset: i / (s.stops.length - 1), 'stop-color': colour })));
    defs.append(gradient);
    const node = svgEl('rect', { x: s.x, y: s.y, width: s.w, height: s.h, fill: `url(#${id})`, ...(s.stroke ? { stroke: s.stroke } : {}) });
    if (s.data) for (const [k, v] of Object.entries(s.data)) node.setAttribute(`data-${k}`, v);
    return node;
  }
  const node = svgEl(s.kind, shapeAttributes(s));
  if (s.kind === 'text') appendTextRuns(node, s);
  return node;
}

/** The scene as a standalone SVG document (what the "SVG" download contains); `description` becomes its <desc>. */
export function sceneToSvg(scene: Scene, description = ''): string {
  const svg = svgEl('svg', { xmlns: 'http://www.w3.org/2000/svg', role: 'img' });
  drawSceneInto(svg, scene);
  const title = svgEl('title');
  title.textContent = scene.title;
  svg.prepend(title);
  let after: Element = title;
  if (description) {
    const desc = svgEl('desc');
    desc.textContent = description;
    title.after(desc);
    after = desc;
  }
  svg.insertBefore(svgEl('rect', { x: 0, y: 0, width: scene.width, height: scene.height, fill: scene.background }), after.nextSibling);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(svg)}\n`;
}

/** Fills the box (x, y, w, h) in the context's fill style and, with a stroke, outlines it 1 unit wide. */
function fillBox(ctx: CanvasRenderingContext2D, s: { x: number; y: number; w: number; h: number; stroke?: string }): void {
  ctx.fillRect(s.x, s.y, s.w, s.h);
  if (s.stroke) {
    ctx.strokeStyle = s.stroke;
    ctx.lineWidth = 1;
    ctx.strokeRect(s.x, s.y, s.w, s.h);
  }
}

/** Draws the scene on a 2D context at `scale` device pixels per unit (background included). */
export function drawSceneOnCanvas(ctx: CanvasRenderingContext2D, scene: Scene, scale: number): void {
  ctx.save();
  ctx.scale(scale, scale);
  ctx.fillStyle = scene.background;
  ctx.fillRect(0, 0, scene.width, scene.height);
  for (const s of scene.shapes) {
    switch (s.kind) {
      case 'rect':
        ctx.fillStyle = s.fill;
        fillBox(ctx, s);
        break;
      case 'line':
        ctx.beginPath();
        ctx.strokeStyle = s.stroke;
        ctx.lineWidth = s.width ?? 1;
        ctx.setLineDash(s.dash ?? []);
        ctx.moveTo(s.x1, s.y1);
        ctx.lineTo(s.x2, s.y2);
        ctx.stroke();
        ctx.setLineDash([]);
        break;
      case 'polyline':
        if (s.points.length === 0) break;
        ctx.beginPath();
        ctx.strokeStyle = s.stroke;
        ctx.lineWidth = s.width ?? 1.5;
        ctx.lineJoin = 'round';
        ctx.setLineDash(s.dash ?? []);
        s.points.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
        ctx.stroke();
        ctx.setLineDash([]);
        break;
      case 'text':
        drawCanvasText(ctx, s);
        break;
      case 'ramp': {
        const g = ctx.createLinearGradient(s.x, 0, s.x + s.w, 0);
        s.stops.forEach((colour, i) => g.addColorStop(i / (s.stops.length - 1), colour));
        ctx.fillStyle = g;
        fillBox(ctx, s);
        break;
      }
    }
  }
  ctx.restore();
}

/** The scene as a PNG (2 device pixels per unit). */
export function sceneToPng(scene: Scene, scale = 2): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(scene.width * scale);
  canvas.height = Math.ceil(scene.height * scale);
  const ctx = canvas.getContext('2d');
  if (!ctx) return Promise.reject(new Error('this browser gives no 2D canvas to draw the PNG'));
  drawSceneOnCanvas(ctx, scene, scale);
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the PNG could not be encoded'))), 'image/png');
  });
}

/** Offers `blob` as a download named `name` (an <a download> click; blob: URLs are not images, so CSP allows it). */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has started from the click; free the URL once the event loop has moved on.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Splits "R·W_q after" into runs [["R·W", false], ["q", true], [" after", false]]: "_" + one letter or digit is a subscript. */
export function textRuns(text: string): [string, boolean][] {
  return text
    .split(/_([A-Za-z0-9])/)
    .map((part, i) => [part, i % 2 === 1] as [string, boolean])
    .filter(([p]) => p !== '');
}

function subSize(size = DEFAULT_TEXT_SIZE): number {
  return Math.round(size * 0.75 * 10) / 10;
}

function drawCanvasText(ctx: CanvasRenderingContext2D, s: Extract<Shape, { kind: 'text' }>): void {
  const size = s.size ?? DEFAULT_TEXT_SIZE;
  const font = (px: number) => `${s.weight === 'bold' ? 'bold ' : ''}${px}px ${FONT_FAMILY}`;
  const runs = textRuns(s.text).map(([part, sub]) => {
    ctx.font = font(sub ? subSize(size) : size);
    return { part, sub, width: ctx.measureText(part).width };
  });
  const total = runs.reduce((w, r) => w + r.width, 0);
  ctx.save();
  ctx.fillStyle = s.fill;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  ctx.translate(s.x, s.y);
  if (s.rotate) ctx.rotate((s.rotate * Math.PI) / 180);
  let x = s.anchor === 'middle' ? -total / 2 : s.anchor === 'end' ? -total : 0;
  for (const r of runs) {
    ctx.font = font(r.sub ? subSize(size) : size);
    ctx.fillText(r.part, x, r.sub ? size * 0.3 : 0);
    x += r.width;
  }
  ctx.restore();
}

/**
 * The text of each polyline point drawn, kept per point: a training's loss curve is drawn again on
 * every progress message with the points of its earlier steps (widgets/chart/loss-curve.ts), and
 * writing 1,200 points' numbers as text each time was most of that redraw.
 */
const pointTexts = new WeakMap<readonly [number, number], string>();

function pointText(p: readonly [number, number]): string {
  let text = pointTexts.get(p);
  if (text === undefined) {
    text = `${round(p[0])},${round(p[1])}`;
    pointTexts.set(p, text);
  }
  return text;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
