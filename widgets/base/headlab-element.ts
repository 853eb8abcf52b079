// Base class of every headlab-* element.
//
// Life cycle: connectedCallback attaches an open shadow root (styles adopted as
// constructed sheets, which the strict CSP `style-src 'self'` allows, unlike a
// <style> element), shows a placeholder, awaits the page's single WASM core,
// then calls build() once and schedules render(). Renders are coalesced to at
// most one per animation frame. disconnectedCallback cancels the pending frame
// and removes every listener registered through `listen` (one AbortController).
// A WidgetInputError thrown from build/render (bad attribute, bad author data)
// or a failed core load is shown inside the widget in a role="alert" box.
import { getCore } from '../../web/browser-core.js';
import type { HeadlabCore } from '../../web/headlab-core.js';
import { baseSheet, sheet } from './theme.js';

/** An author-facing problem (bad attribute or content): shown in the widget, not thrown to the page. */
export class WidgetInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WidgetInputError';
  }
}

export abstract class HeadlabElement<State = unknown> extends HTMLElement {
  /** Whether the widget waits for the WASM core before build(). */
  protected static needsCore = true;
  /** The widget's own CSS, adopted (as a constructed sheet) after the base sheet. */
  protected static css = '';
  /** Options for attachShadow, e.g. { slotAssignment: 'manual' }. */
  protected static shadowOptions: Partial<ShadowRootInit> = {};

  protected readonly root: ShadowRoot;
  /** The wrapped core once loaded (null before, or for widgets that do not need it). */
  protected core: HeadlabCore | null = null;
  /** Container for the widget's content; hidden while an error is shown. */
  protected readonly body: HTMLDivElement;
  private readonly alertBox: HTMLDivElement;
  private readonly placeholder: HTMLDivElement;
  private frame = 0;
  private built = false;
  private listeners: AbortController | null = null;
  private renders = 0;

  constructor() {
    super();
    const ctor = this.constructor as typeof HeadlabElement;
    this.root = this.attachShadow({ mode: 'open', ...ctor.shadowOptions });
    this.root.adoptedStyleSheets = ctor.css ? [baseSheet(), sheet(ctor.css)] : [baseSheet()];
    this.placeholder = el('div', { class: 'placeholder', role: 'status' }, 'Loading the interactive figure…');
    this.alertBox = el('div', { class: 'alert', role: 'alert', hidden: '' });
    this.body = el('div', { class: 'body', hidden: '' });
    this.root.append(this.placeholder, this.alertBox, this.body);
  }

  /** Number of completed render() calls (diagnostics and tests). */
  get renderCount(): number {
    return this.renders;
  }

  /** The widget's state, as carried by its `change` event. */
  abstract get state(): State;

  /** Creates the controls in this.body (core ready, element connected); called again after a re-attach. */
  protected abstract build(): void;

  /** Brings the shown numbers up to date with the state. Called at most once per frame. */
  protected abstract render(): void;

  connectedCallback(): void {
    this.listeners = new AbortController();
    // A page that sets no color-scheme (neither <meta name="color-scheme"> nor CSS)
    // leaves the widget on "normal": then follow prefers-color-scheme; a page that
    // sets one is followed as is.
    const pageScheme = document.querySelector('meta[name="color-scheme"]') !== null;
    this.toggleAttribute('data-auto-scheme', !pageScheme && getComputedStyle(this).colorScheme === 'normal');
    const ctor = this.constructor as typeof HeadlabElement;
    if (!ctor.needsCore || this.core) {
      this.start();
      return;
    }
    getCore().then(
      (core) => {
        this.core = core;
        if (this.isConnected) this.start();
      },
      (err: unknown) => this.showError(`The interactive figure could not start: ${messageOf(err)}`),
    );
  }

  disconnectedCallback(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.listeners?.abort();
    this.listeners = null;
    // Controls are rebuilt (with fresh listeners) if the element is attached again.
    this.built = false;
    this.body.replaceChildren();
  }

  /** Attributes are read by render(), so a change only schedules one. */
  attributeChangedCallback(): void {
    this.requestRender();
  }

  /** Adds a listener that disconnectedCallback removes; an author error inside it is shown in the widget. */
  protected listen(target: EventTarget, type: string, handler: (event: Event) => void): void {
    if (!this.listeners) return;
    target.addEventListener(type, (event) => this.guard(() => handler(event)), { signal: this.listeners.signal });
  }

  /** Schedules render() for the next animation frame; repeated calls in a frame coalesce. */
  protected requestRender(): void {
    if (!this.built || this.frame || !this.isConnected) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (!this.isConnected) return;
      this.guard(() => {
        this.render();
        this.renders++;
        this.clearError();
      });
    });
  }

  /** Dispatches a bubbling, composed `change` event whose detail is the state. */
  protected emitChange(): void {
    this.dispatchEvent(new CustomEvent('change', { bubbles: true, composed: true, detail: this.state }));
  }

  /** Shows `message` in the widget's alert box and hides its content. */
  protected showError(message: string): void {
    this.placeholder.hidden = true;
    this.alertBox.textContent = message;
    this.alertBox.hidden = false;
    this.body.hidden = true;
  }

  private clearError(): void {
    this.placeholder.hidden = true;
    if (!this.alertBox.hidden) {
      this.alertBox.hidden = true;
      this.alertBox.textContent = '';
    }
    this.body.hidden = false;
  }

  private start(): void {
    this.guard(() => {
      this.build();
      this.built = true;
      this.placeholder.hidden = true;
      this.requestRender();
    });
  }

  /** Runs fn; an author error or a core error is shown in the widget, anything else is rethrown. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (err instanceof WidgetInputError || (err instanceof Error && err.name === 'HeadlabError')) {
        this.showError(err.message);
      } else {
        this.showError(`Unexpected error: ${messageOf(err)}`);
        throw err;
      }
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Creates an element with attributes and optional text (text, never markup). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// Attribute ↔ property mirroring. Getters parse the attribute (throwing
// WidgetInputError naming it when it is malformed); setters write the attribute,
// so attributeChangedCallback is the one path by which state changes.

/** A finite number attribute in [min, max], or `fallback` when absent. */
export function numberAttribute(host: Element, name: string, fallback: number, min = -Infinity, max = Infinity): number {
  const raw = host.getAttribute(name);
  if (raw === null || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) {
    throw new WidgetInputError(`attribute ${name}="${raw}" is not a finite number`);
  }
  if (value < min || value > max) {
    throw new WidgetInputError(`attribute ${name}="${raw}" must be between ${min} and ${max}`);
  }
  return value;
}

/** An integer attribute in [min, max], or `fallback` when absent. */
export function integerAttribute(host: Element, name: string, fallback: number, min: number, max: number): number {
  const value = numberAttribute(host, name, fallback, min, max);
  if (!Number.isInteger(value)) throw new WidgetInputError(`attribute ${name}="${host.getAttribute(name)}" must be an integer`);
  return value;
}

/** Writes a number attribute (the setter side of a mirrored property). */
export function setNumberAttribute(host: Element, name: string, value: number): void {
  host.setAttribute(name, String(value));
}

/** A JSON attribute parsed, or undefined when absent. */
export function jsonAttribute(host: Element, name: string): unknown {
  const raw = host.getAttribute(name);
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new WidgetInputError(`attribute ${name} is not valid JSON: ${messageOf(err)}`);
  }
}

/**
 * Checks that `value` is an array of `rows` arrays of `cols` finite numbers (a
 * dimension given as 0 accepts any length ≥ 1, equal across rows); `what` names it.
 */
export function numberGrid(value: unknown, what: string, rows = 0, cols = 0): number[][] {
  if (!Array.isArray(value) || value.length === 0) throw new WidgetInputError(`${what} must be a non-empty array of rows`);
  if (rows && value.length !== rows) throw new WidgetInputError(`${what} must have ${rows} rows, got ${value.length}`);
  const width = cols || (Array.isArray(value[0]) ? value[0].length : 0);
  value.forEach((row: unknown, i: number) => {
    if (!Array.isArray(row) || row.length === 0 || row.length !== width) {
      throw new WidgetInputError(`${what} row ${i + 1} must be an array of ${width || 'one or more'} numbers`);
    }
    row.forEach((x: unknown, j: number) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new WidgetInputError(`${what} row ${i + 1}, column ${j + 1} must be a finite number, got ${JSON.stringify(x)}`);
      }
    });
  });
  return value as number[][];
}
