// The browser the widgets expect, in Node: a happy-dom window whose globals (document,
// customElements, HTMLElement, CSSStyleSheet, requestAnimationFrame, MutationObserver, …) are
// installed on globalThis before the widget classes are evaluated (widgets/base/headlab-element.ts
// picks its base class, HTMLElement or a bare class, when its module loads), a fetch that reads
// file: URLs from disk (an element's data files, named relative to its page), and a Worker that
// runs web/worker-tasks.js in this thread (the same tasks, on the same WASM modules, in order).
//
// happy-dom lays nothing out: every box measures 0 × 0. The one thing of its box a widget's markup
// depends on is its width: the renderer sets each element's (setLayoutWidth) and the boxes inside
// it are given theirs by block layout (installBoxWidths), measured as a browser's widgets measure
// them (clientWidth, getBoundingClientRect, ResizeObserver).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { Window } from 'happy-dom';

/** Media type of a file read by the file: fetch, from its extension (the widgets check JSON and wasm). */
const TYPES = { '.json': 'application/json', '.wasm': 'application/wasm', '.safetensors': 'application/octet-stream' };

/**
 * The origin of a page rendered by its place in a site (render.js's `root`): its URLs name files
 * under the site's root folder, `/data/m.json` as the built site serves it. A reserved name
 * (.invalid): nothing is ever fetched from it.
 */
export const SITE_ORIGIN = 'http://headlab.invalid';
/** The site's root folder while such a page renders (null: pages are file: URLs). */
let siteRoot = null;
export function setSiteRoot(dir) {
  siteRoot = dir;
}

/**
 * fetch for file: URLs and, while a site's page renders, SITE_ORIGIN's (read from disk, 404 when
 * missing); any other URL is refused: rendering has no network.
 */
async function fileFetch(input) {
  const url = new URL(typeof input === 'string' ? input : (input.url ?? String(input)));
  const inSite = siteRoot !== null && url.origin === SITE_ORIGIN;
  if (url.protocol !== 'file:' && !inSite) throw new TypeError(`headlab/ssr reads only local files, not ${url.href}`);
  // A URL's path is normalised (no "..": it cannot leave the root folder).
  const file = inSite ? path.join(siteRoot, decodeURIComponent(url.pathname)) : fileURLToPath(url);
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return new Response(`not found: ${file}`, { status: 404, statusText: 'Not Found' });
  }
  const ext = /\.[a-z]+$/i.exec(file)?.[0] ?? '';
  return new Response(bytes, { status: 200, headers: { 'content-type': TYPES[ext] ?? 'application/octet-stream' } });
}

/**
 * A Worker running the worker's tasks (web/worker-tasks.js through `runTask`) in this thread.
 * The protocol is web/worker.js's: a job arrives with a MessagePort; progress and then one result
 * or error go back on it. Node's MessageChannel carries the messages, as a browser's would.
 */
function inProcessWorker(runTask) {
  return class InProcessWorker extends EventTarget {
    postMessage(message, transfer = []) {
      const port = transfer.find((t) => t && typeof t.postMessage === 'function');
      if (!port) return;
      void runTask(message, port);
    }
    terminate() {}
  };
}

/**
 * The width, in CSS px, the renderer gives each headlab-* element: a function of the element (the
 * page column it sits in at the window width drawn for), or null (every box measures 0, as
 * happy-dom has it). Set by site/ssr/render.js.
 */
let layoutWidth = null;
/** Size reports scheduled and not yet delivered (the renderer waits for none). */
let reports = 0;
export const layoutPending = () => reports > 0;
/** The ResizeObserver stand-ins observing something: told when the width changes. */
const observers = new Set();
/**
 * Sets the width of every headlab-* element: `width(element)` in px (null: no width, boxes
 * measure 0), and reports the new sizes to every observer, as a browser does after a resize.
 */
export function setLayoutWidth(width) {
  layoutWidth = width;
  for (const o of observers) for (const t of o.targets) o.report(t);
}

/**
 * A length in px as a browser's layout holds it: Chromium lays out in LayoutUnits of 1/64 px, a
 * length in CSS px truncated to one (0.85rem = 13.6 px is 870/64 = 13.59375 px). The widths a
 * widget reads (a chart's viewBox, its text zoom `(viewBox width / box width).toFixed(3)`) come
 * out of the same sums only if every term is held as Chromium holds it: at 360 px the page's text
 * column, 360 − 2 × 13.6 = 332.8 px, is 332.796875 px there, and a zoom computed from 332.8 px
 * was one thousandth off.
 */
export const layoutUnit = (x) => Math.trunc(x * 64) / 64;

/** A length of a computed style in px, in layout units (rem and em as 16 px, the default font size; anything else 0). */
function px(value) {
  const m = /^(-?[\d.]+)(px|rem|em)?$/.exec(String(value ?? '').trim());
  if (!m) return 0;
  return layoutUnit(Number(m[1]) * (m[2] === 'rem' || m[2] === 'em' ? 16 : 1));
}

/**
 * Widths without a layout engine, for the widgets that draw for the width of a box (a chart as wide
 * as its figure, a grid with as many columns as fit): every headlab-* element is `layoutWidth`
 * wide, and a box inside it is as wide as its parent's content box less its own margins, borders
 * and paddings (CSS's block layout, which is how the widgets' boxes are laid out down to their
 * charts); a grid of auto-fitted equal columns (gridTrack) gives each box its column's width.
 * Boxes side by side in a flex row are taken as filling the row each (the renderer does not lay
 * out flex rows). Reported as browsers do: clientWidth (content + padding),
 * getBoundingClientRect (border box), and ResizeObserver entries (content box) once after
 * observe(), as a browser reports a box's first size.
 */
function installBoxWidths(window) {
  const hostOf = (el) => el.localName?.startsWith('headlab-') && el.shadowRoot;
  const parentOf = (el) => el.parentElement ?? el.parentNode?.host ?? null;
  // One measurement (a box's width: clientWidth, getBoundingClientRect, a size report) reads each
  // ancestor's computed style once: the walk up from a box asked for its parent's insets, its own
  // and its parent's grid, three computed styles per level (happy-dom computes each anew), about
  // a tenth of the site build's snapshot pass. Nothing changes the page during one measurement.
  let memo = null;
  const measured = (fn) => (el) => {
    if (memo) return fn(el);
    memo = new Map();
    try {
      return fn(el);
    } finally {
      memo = null;
    }
  };
  const style = (el) => {
    if (!memo) return window.getComputedStyle(el);
    let m = memo.get(el);
    if (!m) memo.set(el, (m = {}));
    return (m.style ??= window.getComputedStyle(el));
  };
  const insets = (el) => {
    const m = memo?.get(el);
    if (m?.insets) return m.insets;
    const cs = style(el);
    const out = {
      margin: px(cs.marginLeft) + px(cs.marginRight),
      border: px(cs.borderLeftWidth) + px(cs.borderRightWidth),
      padding: px(cs.paddingLeft) + px(cs.paddingRight),
    };
    if (memo) memo.get(el).insets = out;
    return out;
  };
  /** The border-box width of `el`, or null outside a headlab-* element or before a width is set. */
  const borderBox = (el) => {
    if (!layoutWidth) return null;
    if (hostOf(el)) return layoutUnit(layoutWidth(el));
    const parent = parentOf(el);
    if (!parent) return null;
    const outer = borderBox(parent);
    if (outer === null) return null;
    const p = insets(parent);
    const own = insets(el);
    const inner = outer - p.border - p.padding;
    const flexed = flexItem(parent, el, inner);
    if (flexed !== null) return flexed;
    const fill = Math.max(0, (gridTrack(parent, inner) ?? inner) - own.margin);
    return el.localName === 'svg' ? svgWidth(el, fill) : fill;
  };
  /**
   * An outer <svg>'s width where it is its own: a width attribute and no CSS width is that many
   * px, at most `fill` under `max-width: 100%` (the widgets' `svg { max-width: 100%; height:
   * auto }`: a 336 px legend in a 298 px box is 298 px wide, in a 654 px box 336 px).
   */
  const svgWidth = (svg, fill) => {
    const attr = Number(svg.getAttribute('width'));
    const cs = style(svg);
    if (!svg.hasAttribute('width') || !(attr >= 0) || (cs.width && cs.width !== 'auto')) return fill;
    return cs.maxWidth === '100%' ? Math.min(attr, fill) : attr;
  };
  /**
   * The content-box height of an outer <svg> `width` px wide with `height: auto`: its viewBox's
   * ratio (or its width and height attributes'), held in layout units as Chromium holds it
   * (truncated: 298.8125 × 217 / 310 = 209.16875 → 209.15625 px). A widget's text zoom is the
   * smaller of the width's and the height's scales (fitSvgText), so the truncated height decides
   * it. Null for anything else (no height is known).
   */
  const svgHeight = (svg, width) => {
    if (svg.localName !== 'svg') return null;
    const cs = style(svg);
    if (cs.height && cs.height !== 'auto') return /px$/.test(cs.height) ? px(cs.height) : null;
    const box = (svg.getAttribute('viewBox') ?? '')
      .trim()
      .split(/[\s,]+/)
      .map(Number);
    const [w, h] =
      box.length === 4 && box[2] > 0 && box[3] > 0
        ? [box[2], box[3]]
        : [Number(svg.getAttribute('width')), Number(svg.getAttribute('height'))];
    return w > 0 && h > 0 ? layoutUnit((width * h) / w) : null;
  };
  /**
   * The border-box width of `el` when it is an item of a wrapping flex row (`display: flex;
   * flex-wrap: wrap`, the widgets' rows of figures side by side) whose every item has a definite
   * flex basis (a length, a percentage, or a length width under `flex-basis: auto`) and an
   * explicit min-width (an automatic minimum is the item's min-content width, which needs text
   * laid out): the items are put on lines by their hypothetical sizes and the gap, and `el`'s line
   * resolves its flexible lengths (CSS Flexbox §9.3 and §9.7, growing or shrinking with freezing
   * at min-width and max-width). Null for anything else: the box then fills the row.
   */
  const flexItem = (row, el, inner) => {
    const cs = style(row);
    if (!cs.display.endsWith('flex')) return null;
    const flow = `${cs.flexDirection ?? ''} ${cs.flexFlow ?? ''}`;
    if (!/(^|\s)wrap\b/.test(`${cs.flexWrap ?? ''} ${cs.flexFlow ?? ''}`) || /column|reverse/.test(flow)) return null;
    const gaps = (cs.gap ?? '').trim().split(/\s+/);
    const gap = px(cs.columnGap && cs.columnGap !== 'normal' ? cs.columnGap : (gaps[1] ?? gaps[0]));
    const length = (v, auto) => {
      const t = String(v ?? '').trim();
      if (t === '' || t === 'auto' || t === 'none') return auto;
      if (/%$/.test(t)) return layoutUnit((inner * Number.parseFloat(t)) / 100);
      return /^-?[\d.]+(px|rem|em)?$/.test(t) ? px(t) : undefined;
    };
    const items = [];
    for (const child of row.children) {
      const c = style(child);
      if (child.hidden || c.display === 'none' || c.position === 'absolute' || c.position === 'fixed') continue;
      const basis = length(c.flexBasis, length(c.width, undefined));
      const min = length(c.minWidth, undefined);
      const max = length(c.maxWidth, Infinity);
      if (basis === undefined || min === undefined || max === undefined) return null;
      // Lengths size the border box under `box-sizing: border-box` (the widgets' base sheet), else the content box.
      const own = insets(child);
      const box = c.boxSizing === 'border-box' ? 0 : own.border + own.padding;
      const grow = Number(c.flexGrow || 0);
      const shrink = c.flexShrink === '' ? 1 : Number(c.flexShrink);
      const clamp = (x) => Math.max(min, Math.min(max, x));
      items.push({
        child,
        base: basis,
        hypo: clamp(basis),
        clamp,
        grow,
        shrink,
        extra: own.margin + box,
        box,
      });
    }
    // Lines: an item goes on the current line if its outer hypothetical size and a gap fit.
    let line = [];
    let used = 0;
    for (const item of items) {
      const outer = item.hypo + item.extra;
      if (line.length && used + gap + outer > inner) {
        if (line.some((i) => i.child === el)) break;
        line = [];
        used = 0;
      }
      used += (line.length ? gap : 0) + outer;
      line.push(item);
    }
    const mine = line.find((i) => i.child === el);
    if (!mine) return null;
    // §9.7: resolving the flexible lengths of the line.
    const gapsTotal = gap * (line.length - 1);
    const growing = line.reduce((sum, i) => sum + i.hypo + i.extra, gapsTotal) < inner;
    for (const i of line) {
      i.frozen = (growing ? i.grow === 0 : i.shrink === 0) || (growing ? i.base > i.hypo : i.base < i.hypo);
      i.target = i.frozen ? i.hypo : i.base;
    }
    const initialFree = inner - line.reduce((sum, i) => sum + (i.frozen ? i.target : i.base) + i.extra, gapsTotal);
    for (let guard = 0; guard <= line.length && line.some((i) => !i.frozen); guard++) {
      const open = line.filter((i) => !i.frozen);
      let free = inner - line.reduce((sum, i) => sum + (i.frozen ? i.target : i.base) + i.extra, gapsTotal);
      const factors = open.reduce((sum, i) => sum + (growing ? i.grow : i.shrink), 0);
      if (factors < 1 && Math.abs(initialFree * factors) < Math.abs(free)) free = initialFree * factors;
      if (growing) for (const i of open) i.target = i.base + (factors > 0 ? (free * i.grow) / factors : 0);
      else {
        const scaled = open.reduce((sum, i) => sum + i.shrink * i.base, 0);
        for (const i of open) i.target = i.base + (scaled > 0 ? (free * i.shrink * i.base) / scaled : 0);
      }
      let violation = 0;
      for (const i of open) {
        i.clamped = i.clamp(i.target);
        violation += i.clamped - i.target;
      }
      for (const i of open) {
        if (violation === 0 || (violation > 0 && i.clamped > i.target) || (violation < 0 && i.clamped < i.target)) i.frozen = true;
        i.target = i.clamped;
      }
    }
    return layoutUnit(Math.max(0, mine.target) + mine.box);
  };
  /**
   * The width of one column of `grid` (content box `inner` px wide) when its columns are
   * `repeat(auto-fit | auto-fill, minmax(MIN, 1fr))` (MIN: a length or min(100%, length)), the
   * widgets' rows of charts: as many columns as fit at MIN with the column gap between them
   * (auto-fit: no more than the grid has items), sharing the width equally. Null for anything
   * else (the box fills the row).
   */
  const gridTrack = (grid, inner) => {
    const cs = style(grid);
    if (!cs.display.endsWith('grid')) return null;
    const m = /^repeat\(\s*(auto-fit|auto-fill)\s*,\s*minmax\(\s*(min\(\s*100%\s*,\s*([^)]+)\)|[^,()]+)\s*,\s*1fr\s*\)\s*\)$/.exec(
      cs.gridTemplateColumns.trim(),
    );
    if (!m) return null;
    const least = m[3] !== undefined ? Math.min(inner, px(m[3])) : px(m[2]);
    const gaps = (cs.gap ?? '').trim().split(/\s+/);
    const gap = px(cs.columnGap && cs.columnGap !== 'normal' ? cs.columnGap : (gaps[1] ?? gaps[0]));
    let columns = least > 0 ? Math.max(1, Math.floor((inner + gap) / (least + gap))) : 1;
    if (m[1] === 'auto-fit') columns = Math.min(columns, Math.max(1, [...grid.children].filter((c) => !c.hidden).length));
    return layoutUnit((inner - (columns - 1) * gap) / columns);
  };
  const contentBox = measured((el) => {
    const b = borderBox(el);
    if (b === null) return null;
    const own = insets(el);
    return Math.max(0, b - own.border - own.padding);
  });
  const outerBox = measured(borderBox);
  const clientWidthOf = measured((el) => {
    const c = contentBox(el);
    return c === null ? clientWidth.get.call(el) : Math.round(c + insets(el).padding);
  });
  const proto = window.HTMLElement.prototype;
  const clientWidth = Object.getOwnPropertyDescriptor(proto, 'clientWidth');
  Object.defineProperty(proto, 'clientWidth', {
    configurable: true,
    get() {
      return clientWidthOf(this);
    },
  });
  for (const cls of [window.Element, window.SVGElement]) {
    const original = cls.prototype.getBoundingClientRect;
    if (!original) continue;
    cls.prototype.getBoundingClientRect = function () {
      const rect = original.call(this);
      const b = outerBox(this);
      if (b === null) return rect;
      return new window.DOMRect(0, 0, b, rect.height);
    };
  }
  if (window.SVGElement && !Object.getOwnPropertyDescriptor(window.SVGElement.prototype, 'clientWidth')) {
    Object.defineProperty(window.SVGElement.prototype, 'clientWidth', {
      configurable: true,
      get() {
        return Math.round(contentBox(this) ?? 0);
      },
    });
  }
  /** The attributes of an SVG that change its box (its height follows its viewBox's ratio). */
  const SIZE_ATTRIBUTES = new Set(['viewBox', 'width', 'height']);
  const ResizeObserverStandIn = class ResizeObserver {
    constructor(callback) {
      this.callback = callback;
      this.targets = new Set();
      // A drawing redrawn at another size (its width, height or viewBox changed: a chart drawn
      // again for its box's new width) is reported again, as a browser reports the box whose
      // height follows its viewBox (height: auto). Without it, the text zoom of an SVG stayed the
      // one reckoned from its previous viewBox: a chart first drawn 654 units wide and redrawn at
      // 299 for a 360 px window kept a zoom of 2.19 (654 / 299), its text drawn at 26 px.
      // (All attributes observed, the sizes picked here: happy-dom's attributeFilter misses `viewBox`.)
      this.redrawn = new window.MutationObserver((records) => {
        const resized = records.filter((r) => SIZE_ATTRIBUTES.has(r.attributeName)).map((r) => r.target);
        for (const t of new Set(resized)) if (this.targets.has(t)) this.report(t);
      });
    }
    observe(target) {
      this.targets.add(target);
      observers.add(this);
      if (target.localName === 'svg') this.redrawn.observe(target, { attributes: true });
      this.report(target);
    }
    report(target) {
      reports++;
      setTimeout(() => {
        reports--;
        const width = contentBox(target);
        if (!this.targets.has(target) || width === null) return;
        const height = svgHeight(target, width) ?? 0;
        // An error thrown here is the widget's (already shown in it by its guard): as a browser
        // reports an error in an observer's callback, to the window's console, not the process.
        try {
          this.callback([{ target, contentRect: new window.DOMRect(0, 0, width, height) }], this);
        } catch (err) {
          window.console.error(err);
        }
      });
    }
    unobserve(target) {
      this.targets.delete(target);
    }
    disconnect() {
      this.targets.clear();
      this.redrawn.disconnect();
      observers.delete(this);
    }
  };
  window.ResizeObserver = ResizeObserverStandIn;
  globalThis.ResizeObserver = ResizeObserverStandIn;
}

/**
 * A canvas's pixels without a graphics library: the widgets that draw on a canvas (the transformer
 * figures' heatmaps, widgets/transformer/draw.ts PixelHeatmaps) compute every pixel themselves and
 * write them with putImageData, which a browser copies as given (no blending, no colour
 * conversion), so a plain RGBA buffer per canvas holds what Chromium's canvas holds. Any other
 * drawing call is refused with its name. Setting a canvas's width or height clears it, as in a
 * browser. toDataURL('image/png') encodes the buffer (8-bit RGBA, no filter, deflate).
 */
function canvasAdapter(window) {
  const buffers = new WeakMap();
  const pixels = (canvas) => {
    const { width, height } = canvas;
    let b = buffers.get(canvas);
    if (!b || b.width !== width || b.height !== height)
      buffers.set(canvas, (b = { width, height, data: new Uint8ClampedArray(width * height * 4) }));
    return b;
  };
  for (const name of ['width', 'height']) {
    const d = Object.getOwnPropertyDescriptor(window.HTMLCanvasElement.prototype, name);
    Object.defineProperty(window.HTMLCanvasElement.prototype, name, {
      configurable: true,
      get: d.get,
      set(v) {
        d.set.call(this, v);
        buffers.delete(this);
      },
    });
  }
  const imageData = (width, height, data = new Uint8ClampedArray(width * height * 4)) => ({ width, height, data, colorSpace: 'srgb' });
  const context = (canvas) => {
    const ctx = {
      canvas,
      createImageData: (w, h) => imageData(Math.abs(Math.trunc(w)), Math.abs(Math.trunc(h))),
      getImageData(x, y, w, h) {
        const b = pixels(canvas);
        const out = imageData(w, h);
        // Row by row, the part of each row inside the canvas (outside: transparent black). A
        // copy per pixel made a view object per pixel: the snapshot pass's largest garbage.
        const from = Math.max(0, -x),
          to = Math.min(w, b.width - x);
        if (to > from)
          for (let r = 0; r < h; r++) {
            const sy = y + r;
            if (sy < 0 || sy >= b.height) continue;
            out.data.set(b.data.subarray((sy * b.width + x + from) * 4, (sy * b.width + x + to) * 4), (r * w + from) * 4);
          }
        return out;
      },
      putImageData(image, dx, dy) {
        const b = pixels(canvas);
        dx = Math.trunc(dx);
        dy = Math.trunc(dy);
        for (let r = 0; r < image.height; r++) {
          const y = dy + r;
          if (y < 0 || y >= b.height) continue;
          const from = Math.max(0, -dx),
            to = Math.min(image.width, b.width - dx);
          if (to <= from) continue;
          b.data.set(image.data.subarray((r * image.width + from) * 4, (r * image.width + to) * 4), (y * b.width + dx + from) * 4);
        }
      },
    };
    return new Proxy(ctx, {
      get(target, key) {
        if (key in target || typeof key === 'symbol') return target[key];
        throw new Error(`headlab/ssr draws a canvas only with putImageData; the widget called ${String(key)}`);
      },
      set(target, key, value) {
        target[key] = value;
        return true;
      },
    });
  };
  const contexts = new WeakMap();
  const png = (canvas) => {
    const { width, height, data } = pixels(canvas);
    const rows = Buffer.alloc((width * 4 + 1) * height);
    for (let y = 0; y < height; y++) Buffer.from(data.buffer, y * width * 4, width * 4).copy(rows, y * (width * 4 + 1) + 1);
    const chunk = (type, body) => {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(body.length, 0);
      head.write(type, 4, 'latin1');
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), body])) >>> 0, 0);
      return Buffer.concat([head, body, crc]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width, 0);
    ihdr.writeUInt32BE(height, 4);
    ihdr[8] = 8; // bits per channel
    ihdr[9] = 6; // RGBA
    return Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
      chunk('IEND', Buffer.alloc(0)),
    ]);
  };
  return {
    getContext({ canvas }, type) {
      if (type !== '2d') return null;
      if (!contexts.has(canvas)) contexts.set(canvas, context(canvas));
      return contexts.get(canvas);
    },
    toDataURL({ canvas }, type = 'image/png') {
      if (type !== 'image/png') throw new Error(`headlab/ssr writes a canvas as image/png only, not ${type}`);
      return `data:image/png;base64,${png(canvas).toString('base64')}`;
    },
    toBlob({ canvas }, callback) {
      setTimeout(() => callback(new window.Blob([png(canvas)], { type: 'image/png' })));
    },
  };
}

let installed = null;

/**
 * Installs the window's globals once per process; returns the window. `runTask(message, port)`
 * runs one worker job (site/ssr/elements.js gives web/worker.js's handler).
 */
export function installEnvironment(runTask) {
  if (installed) return installed;
  const window = new Window({
    url: 'file:///',
    width: 1120,
    height: 800,
    settings: { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true },
  });
  window.happyDOM.settings.canvasAdapter = canvasAdapter(window);
  // What Node has of its own stays (its JavaScript builtins — a Float64Array from the WASM glue
  // must be the one `instanceof` checks see —, timers, URL, Response, TextDecoder, WebAssembly,
  // MessageChannel); the DOM comes from the window.
  for (const name of Object.getOwnPropertyNames(window)) {
    if (name in globalThis || name === 'window' || name === 'self') continue;
    const value = window[name];
    if (value === undefined) continue;
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  // happy-dom's Event classes are the ones its elements dispatch and accept.
  for (const name of ['Event', 'CustomEvent', 'EventTarget', 'AbortController', 'AbortSignal'])
    Object.defineProperty(globalThis, name, { value: window[name], configurable: true, writable: true });
  // `window` is the happy-dom window (an event target: hashchange, pagehide listeners).
  globalThis.window = window;
  globalThis.self = window;
  // A constructed sheet keeps the text it was made from (`headlabSource`): the snapshot's sheet is
  // written from it (site/ssr/snapshot-markup.js), since happy-dom's CSSOM serialises a shorthand with
  // var() as broken longhands (`border: 1px solid var(--hl-rule)` → `border-width: var(--hl-rule)`)
  // and drops what it does not parse (backgrounds of gradients, color-mix()).
  const sheetProto = window.CSSStyleSheet.prototype;
  for (const name of ['replaceSync', 'replace']) {
    const original = sheetProto[name];
    sheetProto[name] = function (text) {
      Object.defineProperty(this, 'headlabSource', { value: String(text), configurable: true });
      return original.call(this, text);
    };
  }
  // A table section's rows (happy-dom gives the table's and a row's cells, not a section's).
  const section = window.HTMLTableSectionElement?.prototype;
  if (section && !('rows' in section)) {
    Object.defineProperty(section, 'rows', {
      configurable: true,
      get() {
        return [...this.children].filter((c) => c.localName === 'tr');
      },
    });
  }
  // Element.part (the ::part() names widgets/base/dom.ts gives): happy-dom has the attribute only.
  if (!('part' in window.Element.prototype)) {
    Object.defineProperty(window.Element.prototype, 'part', {
      configurable: true,
      get() {
        const names = () => (this.getAttribute('part') ?? '').split(/\s+/).filter(Boolean);
        return {
          contains: (n) => names().includes(n),
          add: (...add) => this.setAttribute('part', [...new Set([...names(), ...add])].join(' ')),
          remove: (...drop) =>
            this.setAttribute(
              'part',
              names()
                .filter((n) => !drop.includes(n))
                .join(' '),
            ),
          get length() {
            return names().length;
          },
          toString: () => names().join(' '),
        };
      },
    });
  }
  // A range input's value is never empty in a browser: without one it is the middle of its range
  // (HTML's value sanitization: min + (max − min) / 2, on the step). happy-dom answers '' and NaN,
  // and a widget that compares valueAsNumber before writing its value never writes it.
  const input = window.HTMLInputElement.prototype;
  const valueOf = Object.getOwnPropertyDescriptor(input, 'value');
  const rangeDefault = (el) => {
    const min = el.min === '' ? 0 : Number(el.min);
    const max = el.max === '' ? 100 : Number(el.max);
    if (max < min) return String(min);
    const step = el.step === '' || el.step === 'any' ? 1 : Number(el.step);
    const mid = min + (max - min) / 2;
    return String(el.step === 'any' ? mid : Number((min + Math.round((mid - min) / step) * step).toPrecision(15)));
  };
  Object.defineProperty(input, 'value', {
    configurable: true,
    get() {
      const v = valueOf.get.call(this);
      return this.type === 'range' && v === '' ? rangeDefault(this) : v;
    },
    set(v) {
      // A browser keeps a range's value on its step from min, within [min, max], in decimal.
      if (this.type === 'range' && v !== '' && Number.isFinite(Number(v))) {
        const min = this.min === '' ? 0 : Number(this.min);
        const max = this.max === '' ? 100 : Number(this.max);
        const step = this.step === '' ? 1 : Number(this.step);
        let x = Math.min(Math.max(Number(v), min), Math.max(min, max));
        if (this.step !== 'any' && step > 0) x = min + Math.round((x - min) / step) * step;
        v = String(Number(x.toPrecision(12)));
      }
      valueOf.set.call(this, v);
    },
  });
  Object.defineProperty(input, 'valueAsNumber', {
    configurable: true,
    get() {
      return this.type === 'range' || this.type === 'number' ? (this.value === '' ? NaN : Number(this.value)) : NaN;
    },
    set(n) {
      this.value = String(n);
    },
  });
  // The theme's colours (widgets/chart/palette.ts reads each --hl-* colour as a probe's computed
  // `color`): happy-dom computes no var() and no light-dark(), so a colour written as var(…) is
  // resolved here through the custom properties in scope (the light scheme's value of a
  // light-dark() pair: snapshots are drawn light; a page in dark mode shows the live widget's
  // colours once it runs, and the snapshot sheet's own rules follow the scheme meanwhile).
  const computed = window.getComputedStyle.bind(window);
  const resolve = (node, value, depth = 0) => {
    let v = value.trim();
    for (let guard = 0; guard < 16 && /var\(|light-dark\(/.test(v); guard++) {
      v = v.replace(/var\(\s*(--[\w-]+)\s*(?:,\s*((?:[^()]|\([^()]*(?:\([^()]*\)[^()]*)*\))*))?\)/, (_, name, fallback) => {
        const own = customProperty(node, name);
        return own !== '' ? own : (fallback ?? '');
      });
      v = v.replace(/light-dark\(\s*([^,()]+(?:\([^()]*\))?)\s*,[^()]*(?:\([^()]*\)[^()]*)*\)/, (_, light) => light.trim());
    }
    void depth;
    return v;
  };
  const customProperty = (node, name) => {
    for (let n = node; n; n = n.parentNode ?? n.host) {
      if (n.nodeType !== 1) continue;
      const v = computed(n).getPropertyValue(name);
      if (v && v.trim()) return v.trim();
    }
    return '';
  };
  const toRgb = (colour) => {
    const hex = /^#([0-9a-f]{6})$/i.exec(colour);
    if (!hex) return colour;
    const n = parseInt(hex[1], 16);
    return `rgb(${n >> 16}, ${(n >> 8) & 255}, ${n & 255})`;
  };
  // A browser's computed margins, borders and paddings are in px; happy-dom keeps rem and em as
  // written (a widget measuring a box's content width subtracts them: 0.85rem is 13.6px; rem
  // and em as 16 px, the default font size, as px() reads them).
  const boxLength = /^(?:(?:padding|margin)(?:Left|Right|Top|Bottom)|border(?:Left|Right|Top|Bottom)Width)$/;
  const inPx = (v) => {
    const m = /^(-?[\d.]+)(rem|em)$/.exec(String(v ?? '').trim());
    return m ? `${Number(m[1]) * 16}px` : v;
  };
  window.getComputedStyle = (node, pseudo) => {
    const style = computed(node, pseudo);
    const own = node.style?.color ?? '';
    const color = /var\(/.test(own) ? toRgb(resolve(node, own)) : null;
    return new Proxy(style, {
      get: (target, key) => {
        if (key === 'color' && color !== null) return color;
        if (typeof key === 'string' && boxLength.test(key)) return inPx(target[key]);
        return typeof target[key] === 'function' ? target[key].bind(target) : target[key];
      },
    });
  };
  globalThis.getComputedStyle = window.getComputedStyle;
  installBoxWidths(window);
  globalThis.fetch = fileFetch;
  window.fetch = fileFetch;
  globalThis.Worker = inProcessWorker(runTask);
  installed = window;
  return window;
}
