// A figure as a flat list of drawing primitives with resolved colours, drawn three
// ways from the same description: as SVG nodes in the widget, as a standalone SVG
// file, and onto a canvas for a PNG. The canvas path matters under the strict CSP:
// default-src 'self' forbids blob: and data: images, so a PNG cannot be made by
// loading the SVG into an <img>; it is drawn directly instead.
import { svgEl } from './svg.js';

export type Anchor = 'start' | 'middle' | 'end';

/** Any shape may carry `data`: data-* attributes on its on-page node (for linked highlighting; not exported). */
export type Shape = ShapeBody & { data?: Readonly<Record<string, string>> };

type ShapeBody =
  | { kind: 'rect'; x: number; y: number; w: number; h: number; fill: string; stroke?: string }
  | { kind: 'line'; x1: number; y1: number; x2: number; y2: number; stroke: string; width?: number; dash?: number[] }
  | { kind: 'polyline'; points: ReadonlyArray<readonly [number, number]>; stroke: string; width?: number }
  | {
    kind: 'text'; x: number; y: number; text: string; fill: string; size?: number;
    anchor?: Anchor; weight?: 'normal' | 'bold'; rotate?: number;
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

/** Replaces the children of `svg` with the scene (the on-page figure; no style attribute anywhere). */
export function drawSceneInto(svg: SVGSVGElement, scene: Scene): void {
  svg.setAttribute('viewBox', `0 0 ${scene.width} ${scene.height}`);
  svg.setAttribute('width', String(scene.width));
  svg.setAttribute('height', String(scene.height));
  let gradients = 0;
  const defs = svgEl('defs');
  const nodes: SVGElement[] = [defs];
  for (const s of scene.shapes) {
    const node = shapeNode(s, defs, () => `ramp-${++gradients}`);
    if (s.data) for (const [k, v] of Object.entries(s.data)) node.setAttribute(`data-${k}`, v);
    nodes.push(node);
  }
  svg.replaceChildren(...nodes);
}

function shapeNode(s: Shape, defs: SVGDefsElement, nextId: () => string): SVGElement {
  switch (s.kind) {
    case 'rect':
      return svgEl('rect', { x: s.x, y: s.y, width: s.w, height: s.h, fill: s.fill, ...(s.stroke ? { stroke: s.stroke } : {}) });
    case 'line':
      return svgEl('line', {
        x1: s.x1, y1: s.y1, x2: s.x2, y2: s.y2, stroke: s.stroke, 'stroke-width': s.width ?? 1,
        ...(s.dash ? { 'stroke-dasharray': s.dash.join(' ') } : {}),
      });
    case 'polyline':
      return svgEl('polyline', {
        points: s.points.map(([x, y]) => `${round(x)},${round(y)}`).join(' '), fill: 'none', stroke: s.stroke,
        'stroke-width': s.width ?? 1.5, 'stroke-linejoin': 'round',
      });
    case 'text': {
      const t = svgEl('text', {
        x: s.x, y: s.y, fill: s.fill, 'font-size': s.size ?? DEFAULT_TEXT_SIZE, 'text-anchor': s.anchor ?? 'start',
        'dominant-baseline': 'central', 'font-family': FONT_FAMILY,
        ...(s.weight === 'bold' ? { 'font-weight': 'bold' } : {}),
        ...(s.rotate ? { transform: `rotate(${s.rotate} ${s.x} ${s.y})` } : {}),
      });
      for (const [part, sub] of textRuns(s.text)) {
        if (!sub) { t.append(part); continue; }
        const span = svgEl('tspan', { 'baseline-shift': 'sub', 'font-size': subSize(s.size) });
        span.textContent = part;
        t.append(span);
      }
      return t;
    }
    case 'ramp': {
      const id = nextId();
      const gradient = svgEl('linearGradient', { id, x1: 0, x2: 1, y1: 0, y2: 0 });
      s.stops.forEach((colour, i) => gradient.append(svgEl('stop', { offset: i / (s.stops.length - 1), 'stop-color': colour })));
      defs.append(gradient);
      return svgEl('rect', { x: s.x, y: s.y, width: s.w, height: s.h, fill: `url(#${id})`, ...(s.stroke ? { stroke: s.stroke } : {}) });
    }
  }
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
        ctx.fillRect(s.x, s.y, s.w, s.h);
        if (s.stroke) { ctx.strokeStyle = s.stroke; ctx.lineWidth = 1; ctx.strokeRect(s.x, s.y, s.w, s.h); }
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
        s.points.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
        ctx.stroke();
        break;
      case 'text':
        drawCanvasText(ctx, s);
        break;
      case 'ramp': {
        const g = ctx.createLinearGradient(s.x, 0, s.x + s.w, 0);
        s.stops.forEach((colour, i) => g.addColorStop(i / (s.stops.length - 1), colour));
        ctx.fillStyle = g;
        ctx.fillRect(s.x, s.y, s.w, s.h);
        if (s.stroke) { ctx.strokeStyle = s.stroke; ctx.lineWidth = 1; ctx.strokeRect(s.x, s.y, s.w, s.h); }
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
  return text.split(/_([A-Za-z0-9])/).map((part, i) => [part, i % 2 === 1] as [string, boolean]).filter(([p]) => p !== '');
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

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
