// The browser the widgets expect, in Node: a happy-dom window whose globals (document,
// customElements, HTMLElement, CSSStyleSheet, requestAnimationFrame, MutationObserver, …) are
// installed on globalThis before the widget classes are evaluated (widgets/base/headlab-element.ts
// picks its base class, HTMLElement or a bare class, when its module loads), a fetch that reads
// file: URLs from disk (an element's data files, named relative to its page), and a Worker that
// runs web/worker-tasks.js in this thread (the same tasks, on the same WASM modules, in order).
//
// happy-dom lays nothing out: every box measures 0 × 0. The one place a widget's markup depends
// on its box is its width, given by the renderer through HeadlabElement.layoutWidth (the seam in
// widgets/base/headlab-element.ts); nothing here pretends to measure.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Window } from 'happy-dom';

/** Media type of a file read by the file: fetch, from its extension (the widgets check JSON and wasm). */
const TYPES = { '.json': 'application/json', '.wasm': 'application/wasm', '.safetensors': 'application/octet-stream' };

/** fetch for file: URLs (read from disk, 404 when missing); any other URL is refused: rendering has no network. */
async function fileFetch(input) {
  const url = new URL(typeof input === 'string' ? input : (input.url ?? String(input)));
  if (url.protocol !== 'file:') throw new TypeError(`headlab/ssr reads only local files, not ${url.href}`);
  const file = fileURLToPath(url);
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

let installed = null;

/**
 * Installs the window's globals once per process; returns the window. `runTask(message, port)`
 * runs one worker job (ssr/elements.js gives web/worker.js's handler).
 */
export function installEnvironment(runTask) {
  if (installed) return installed;
  const window = new Window({
    url: 'file:///',
    width: 1120,
    height: 800,
    settings: { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true },
  });
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
  // Element.part (the ::part() names widgets/base/dom.ts gives): happy-dom has the attribute only.
  if (!('part' in window.Element.prototype)) {
    Object.defineProperty(window.Element.prototype, 'part', {
      configurable: true,
      get() {
        const names = () => (this.getAttribute('part') ?? '').split(/\s+/).filter(Boolean);
        return {
          contains: (n) => names().includes(n),
          add: (...add) => this.setAttribute('part', [...new Set([...names(), ...add])].join(' ')),
          remove: (...drop) => this.setAttribute('part', names().filter((n) => !drop.includes(n)).join(' ')),
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
  window.getComputedStyle = (node, pseudo) => {
    const style = computed(node, pseudo);
    const own = node.style?.color ?? '';
    if (!/var\(/.test(own)) return style;
    const color = toRgb(resolve(node, own));
    return new Proxy(style, {
      get: (target, key) => (key === 'color' ? color : typeof target[key] === 'function' ? target[key].bind(target) : target[key]),
    });
  };
  globalThis.getComputedStyle = window.getComputedStyle;
  globalThis.fetch = fileFetch;
  window.fetch = fileFetch;
  globalThis.Worker = inProcessWorker(runTask);
  installed = window;
  return window;
}
