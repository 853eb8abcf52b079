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
//
// Product features every widget gets from here (docs/embedding.md, "What a widget implements"):
//   - attributes declared once, in `static attributes` (attributes.ts: parsing, bounds, defaults,
//     docs), giving observedAttributes, the shared attributes and the property accessors;
//   - shareable state: with the `share-state` attribute, the table's `shared` attributes (or an
//     overridden `sharedState`) are written to the URL
//     hash on every `change` and restored from it on connect and on `hashchange`;
//   - exports: `figures()` lists the figures (as Scenes) → SVG and PNG; `exportData()`
//     (default: the state) → JSON; `exportControls()` builds the one "Download" menu
//     (a disclosure: one Tab stop while closed, Escape closes it);
//   - a hash naming the element's state also scrolls the element into view and rings it,
//     on load (after its first render) and on hashchange (prose state links);
//   - numbers bound into prose: `boundValue(name)` (none by default) for <headlab-value>,
//     which re-reads it on the `change` event and on `headlab-render` (sent after each render);
//   - typed fields: `bindField` validates as the reader types (debounced), shows a message
//     beside an invalid or empty field and keeps the last valid value;
//   - a text alternative: `summarize()` is written after every render into a
//     screen-reader paragraph (`el.summary`) and into exported SVGs as <desc>;
//   - the theme's colours, `themeColours()`, read again when the colour scheme changes
//     (`themeChanged()`), and a live status line, `statusRegion()` written by `announce()`.
//
// The concerns live in their own files beside this one; this file is the life cycle (shadow
// root, core loading, one render per frame, re-attach, errors shown in the widget) and the
// thin methods that tie the rest to it:
//   attributes.ts    attribute tables (integer, number, oneOf, text, flag, json, custom) and the readers
//                    behind them (one message form: attribute NAME="VALUE" must be …; length limit)
//   share-state.ts   the URL hash as "<key>.<name>=<value>" entries (bounded reading) and
//                    SharedStateLink, the element's debounced writes, reads and scroll-to
//   exports.ts       the one Download menu, the figures it lists and what its buttons download
//   fields.ts        typed fields validated as the reader types
//   dom.ts           el(), SVG text kept legible and overflowing scroll boxes (LayoutWatcher), ::part() names
//   errors.ts        WidgetInputError and the excerpting of quoted input in messages
//   theme.ts         colours, fonts and the base sheet (themeColours() here reads them once per scheme)
//   model-figure.ts  the base of figures that read a model loaded once per page (extends this class)

import { getCore } from '../../web/browser-core.js';
import type { HeadlabCore } from '../../web/headlab-core.js';
import type { BoundComputing, BoundValue } from '../chart/format.js';
import { resolveColours, type ResolvedColours } from '../chart/palette.js';
import { sceneToPng, sceneToSvg } from '../chart/scene.js';
import { setText } from '../chart/text.js';
import {
  accessor,
  attributeOnly,
  attributeTable,
  custom,
  defineAttributes,
  enumAttribute,
  flag,
  installAttributes,
  integer,
  integerAttribute,
  json,
  number,
  observedOf,
  oneOf,
  sharedOf,
  text,
  type AttributeProperties,
  type AttributeTable,
  jsonAttribute,
  MAX_ATTRIBUTE_LENGTH,
  MAX_ENTRY_MAGNITUDE,
  MAX_GRID_SIDE,
  MAX_SEED,
  numberAttribute,
  numberGrid,
  setNumberAttribute,
} from './attributes.js';
import { el, LayoutWatcher, markParts, shownIn } from './dom.js';
import { excerptQuotes, messageOf, WidgetInputError } from './errors.js';
import { downloadExport, exportMenu, figureNamed, type ExportFormat, type ExportMenuOptions, type WidgetFigure } from './exports.js';
import { bindField, type BoundField, type FieldOptions } from './fields.js';
import { LOCATION_ATTRIBUTES, MAX_HASH_LENGTH, SharedStateLink } from './share-state.js';
import { baseSheet, sheet } from './theme.js';

// Widgets import their helpers from here (one import line per widget).
export {
  accessor,
  attributeOnly,
  custom,
  defineAttributes,
  el,
  enumAttribute,
  flag,
  integer,
  json,
  number,
  oneOf,
  text,
  excerptQuotes,
  integerAttribute,
  jsonAttribute,
  MAX_ATTRIBUTE_LENGTH,
  MAX_ENTRY_MAGNITUDE,
  MAX_GRID_SIDE,
  MAX_HASH_LENGTH,
  MAX_SEED,
  numberAttribute,
  numberGrid,
  setNumberAttribute,
  shownIn,
  WidgetInputError,
};

export type { AttributeProperties, AttributeTable, ExportFormat, WidgetFigure };

// Outside a browser (Node, server rendering, build tools) there is no HTMLElement: the
// classes then extend a bare class, so importing a widget defines and throws nothing.
const ElementBase = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;

/**
 * Snapshots replaced in the current frame (its requestAnimationFrame timestamp): one per frame,
 * since each costs the style, layout and paint of a whole figure.
 */
const swapFrame = { time: -1 };

/**
 * The current animation frame's renders: its requestAnimationFrame timestamp and the clock time at
 * which their budget ends. A frame's callbacks are one task: on the own-model page, four figures
 * whose worker answers landed together drew 9–18 ms each in one 48–58 ms frame task. A render
 * asked for a frame that has already spent FRAME_RENDER_BUDGET_MS waits for the next frame, so a
 * frame task is at most the budget plus one render.
 */
const frameRenders = { time: -1, until: 0 };
const FRAME_RENDER_BUDGET_MS = 10;

/**
 * The page's renders waiting for a task of their own (requestRenderInTurn), in the order asked,
 * one per task: when a model shared by a dozen figures is replaced (a retraining), each figure's
 * first render of it (core calls for the new weights, every node redrawn) is 2–20 ms, and all of
 * them in one animation frame made one 70–140 ms task.
 */
const renderTurns: (() => void)[] = [];
let renderTurnTimer = 0;
function nextRenderTurn(): void {
  renderTurnTimer = 0;
  const turn = renderTurns.shift();
  if (renderTurns.length) renderTurnTimer = window.setTimeout(nextRenderTurn);
  turn?.();
}

/**
 * Whether a prerendered node is shown in this window: a snapshot holds one copy per range of window
 * widths, each top-level node classed hl-w-<from>-<to> and shown by the snapshot's stylesheet only
 * in its range (site/snapshots.mjs, site/ssr/snapshot-markup.js). Only the shown copy is kept: the
 * others are never seen before the live widget replaces them, and re-inserted into the new root
 * they were drawn while its stylesheet applied again, a copy drawn for a narrower window pushing
 * the page down for a frame (0.11 layout shift on a plain page at 1,280 px).
 */
function drawnForThisWindow(node: Node): boolean {
  if (node.nodeType !== Node.ELEMENT_NODE) return true;
  const range = /\bhl-w-(\d+)-(\d+|up)\b/.exec((node as Element).getAttribute('class') ?? '');
  if (!range) return true;
  const width = window.innerWidth;
  return width >= Number(range[1]) && (range[2] === 'up' || width < Number(range[2]));
}

/** Form controls a reader operates (the snapshot disables its copies of them). */
const CONTROLS = 'input, select, textarea, button';

/** The controls under `roots` that are rendered (not hidden, not in a collapsed box), in document order. */
function visibleControls(roots: readonly Node[]): Element[] {
  const out: Element[] = [];
  for (const r of roots)
    if (r instanceof Element) for (const c of r.querySelectorAll(CONTROLS)) if (c.getClientRects().length > 0) out.push(c);
  return out;
}

// `State` is what `state` and the `change` event carry; `Parts` is the typed view of the DOM that
// build() returns (its controls, tables and drawings), kept as `this.parts`: a widget reads its
// parts there, non-null, instead of holding `| null` fields filled in build() and read back with
// non-null assertions.
/**
 * Common to every headlab-* element.
 * Attributes on every element: `share-state` (boolean) — write the reader's state to the
 * URL hash as `<id>.<attribute>=<value>` entries (id, else `<tag>-<n>`) and restore it
 * from there on load and on hashchange.
 * Events: `change` (bubbling, composed) with `detail` = the element's state (not sent while `state` is null).
 * A bad attribute, bad content or a failed core load shows a message inside the element (role="alert").
 * Reading an element never throws: `state`, `error`, `summary`, `busy` (and `figureData`) answer
 * whatever the attributes or the URL hash hold. Attribute-mirroring properties (`el.angle`…) parse
 * their attribute and throw a WidgetInputError naming it when it is malformed.
 */
export abstract class HeadlabElement<State = unknown, Parts extends object = object> extends ElementBase {
  /** Whether the widget waits for the WASM core before build(). */
  protected static needsCore = true;
  /**
   * Whether, behind a prerendered snapshot, the widget goes live staggered (start and first
   * renders in tasks of their own, the snapshot swapped at a frame of its own) even when it does
   * not defer loading: a page of figures starting together then makes no long task. The seed
   * grid opts out (a small panel, swapped with the figures of its model).
   */
  protected static goesLiveStaggered = true;
  /**
   * Loads the WASM module the widget computes with, awaited before build(): headlab_core by
   * default (then in this.core). A model family's base names its own loader and takes the module
   * in moduleLoaded() (the feature-recovery and max-digit widgets), so this base knows no model,
   * and a page without a family's widgets downloads neither its JS nor its .wasm.
   */
  protected static loadModule: () => Promise<unknown> = getCore;
  /**
   * The element's attributes, declared once (widgets/base/attributes.ts): a subclass's table adds
   * to its base's. They give `observedAttributes`, `sharedAttributes` and the property accessors.
   */
  static attributes: AttributeTable = {};
  /** Every attribute the table declares (read by customElements.define; installs the accessors). */
  static get observedAttributes(): string[] {
    return observedOf(this);
  }
  /**
   * Attributes that make up the reader's state in the URL hash (share-state): the table's
   * `shared` ones. A file location (LOCATION_ATTRIBUTES: src, config, …) is never shared.
   */
  static get sharedAttributes(): string[] {
    return sharedOf(this);
  }
  /** The merged table of this class and its bases. */
  static get attributeTable(): AttributeTable {
    return attributeTable(this);
  }
  /** The widget's own CSS, adopted (as a constructed sheet) after the base sheet. */
  protected static css = '';
  /** Options for attachShadow, e.g. { slotAssignment: 'manual' }. */
  protected static shadowOptions: Partial<ShadowRootInit> = {};

  protected readonly root: ShadowRoot;
  /** The wrapped core once loaded (null before, or for widgets that compute with another module or none). */
  protected core: HeadlabCore | null = null;
  /** The module loadModule() gave (null before it has). */
  private module: unknown = null;
  /** Container for the widget's content; hidden while an error is shown. */
  protected readonly body: HTMLDivElement;
  private readonly alertBox: HTMLDivElement;
  private readonly placeholder: HTMLDivElement;
  private frame = 0;
  private built = false;
  /** What the last build() returned (null before the first build; kept while detached). */
  private builtParts: Parts | null = null;
  private listeners: AbortController | null = null;
  private renders = 0;
  /** The state in the URL hash (share-state). */
  private readonly hashLink = new SharedStateLink(this, { showError: (m) => this.showError(m), built: () => this.built });
  private readonly summaryBox: HTMLParagraphElement;
  private exportStatus: HTMLElement | null = null;
  /** Watches the widget's SVGs and scroll boxes for size changes (legible at every width). */
  private readonly layoutWatcher = new LayoutWatcher();
  private layoutQueued = false;
  private resolvedColours: ResolvedColours | null = null;
  private liveStatus: HTMLParagraphElement | null = null;
  /**
   * The elements added to the shadow root since markParts last walked it (it only acts on new
   * elements), or 'all' for a walk of the whole root (the first render, or after the element was
   * re-inserted). A render that rewrites text and attributes in place (a slider step over a
   * 16 × 16 table) adds none, so nothing is walked; one that replaces a few cells' text spans has
   * only those walked, not the widget's thousands of other nodes.
   */
  private partsAdded: Element[] | 'all' = 'all';
  /** Whether any element was added since the layout watcher last walked the root (true at first). */
  private layoutGrown = true;
  private structure: MutationObserver | null = null;

  constructor() {
    super();
    const ctor = this.constructor as typeof HeadlabElement;
    // A class registered without customElements.define reading observedAttributes (e.g. constructed in a test).
    installAttributes(ctor);
    // A prerendered snapshot arrives as a declarative shadow root (site/snapshots.mjs);
    // attachShadow empties it, so keep its nodes and show them until the first render.
    const snapshot = this.shadowRoot ? [...this.shadowRoot.childNodes].filter(drawnForThisWindow) : [];
    this.root = this.attachShadow({ mode: 'open', ...ctor.shadowOptions });
    this.root.adoptedStyleSheets = ctor.css ? [baseSheet(), sheet(ctor.css)] : [baseSheet()];
    this.placeholder = el('div', { class: 'placeholder', part: 'placeholder', role: 'status' }, 'Loading the interactive figure…');
    this.alertBox = el('div', { class: 'alert', part: 'alert', role: 'alert', hidden: '' });
    this.body = el('div', { class: 'body', part: 'body', hidden: '' });
    this.summaryBox = el('p', { class: 'summary sr-only' });
    this.root.append(this.placeholder, this.alertBox, this.body);
    if (snapshot.length) {
      this.placeholder.hidden = true;
      this.prerendered = snapshot;
      this.root.append(...snapshot);
      // The snapshot's controls are disabled copies: a press on one is kept and given to the
      // live control it stands for once the widget goes live (the reader's first click acts).
      this.root.addEventListener('pointerup', (e) => this.keepSnapshotPress(e as PointerEvent), { capture: true });
    }
  }

  /** Index among the visible controls of the snapshot control the reader pressed, until the live widget takes it. */
  private snapshotPress: number | null = null;

  private keepSnapshotPress(e: PointerEvent): void {
    if (!this.prerendered.length || (e.pointerType === 'mouse' && e.button !== 0)) return;
    const hit = this.root.elementsFromPoint(e.clientX, e.clientY).find((n) => n.matches(CONTROLS));
    if (!hit || !this.prerendered.some((n) => n.contains(hit))) return;
    const controls = visibleControls(this.prerendered);
    const i = controls.indexOf(hit);
    if (i >= 0) this.snapshotPress = i;
  }

  /** The kept press, given to the live control at the same place: a button or box is clicked, a field or menu focused. */
  private replaySnapshotPress(): void {
    const i = this.snapshotPress;
    this.snapshotPress = null;
    if (i === null) return;
    const control = visibleControls([this.body])[i] as HTMLElement | undefined;
    if (!control || (control as HTMLButtonElement).disabled) return;
    const clickable =
      control.localName === 'button' || (control instanceof HTMLInputElement && /^(checkbox|radio|button)$/.test(control.type));
    control.focus();
    if (clickable) control.click();
  }

  /** The prerendered snapshot's nodes, on screen until the first render replaces them in the same frame. */
  // Not named `snapshot`: a widget may use that name for its own state (the training replay does).
  private prerendered: Node[] = [];

  private dropSnapshot(): void {
    if (!this.prerendered.length) return;
    for (const node of this.prerendered) node.parentNode?.removeChild(node);
    this.prerendered = [];
    // After this frame's layout, when the live controls have their boxes.
    if (this.snapshotPress !== null) requestAnimationFrame(() => this.isConnected && this.guard(() => this.replaySnapshotPress()));
  }

  /** Number of completed render() calls (diagnostics and tests). */
  get renderCount(): number {
    return this.renders;
  }

  /**
   * Script time of the last render, ms (performance.now() around it, the `headlab-render` event's
   * listeners included): what the widget benchmark reads for a render it did not call itself, such
   * as the one that draws a result arriving from the worker (site/assets/bench-widgets.js).
   * @internal
   */
  get lastRenderMs(): number {
    return this.lastRenderTime;
  }
  private lastRenderTime = 0;

  /**
   * The widget's state from its attributes and results now (what `state` returns); throws
   * WidgetInputError naming the attribute when one is invalid. Every widget implements it.
   */
  protected abstract readState(): State;

  /**
   * The widget's state, as carried by its `change` event; null while it cannot be computed (an
   * attribute, set by the page or by the URL hash, is invalid: `error` says why) or, for an element
   * whose state the WASM core computes, before the core has loaded (`error` null then: await
   * `updateComplete`). Never throws and logs nothing, before or after the first render: a page
   * reading it while the reader edits a link or the author an attribute gets null, not an exception
   * (docs/embedding.md, "Reading an element").
   */
  get state(): State | null {
    try {
      return this.readState();
    } catch (err) {
      // Before its WASM module has loaded a widget whose state is computed cannot compute it:
      // null, as documented, and nothing logged (a page reading `state` before awaiting
      // updateComplete did nothing wrong).
      if (!isExpected(err) && !this.moduleMissing) console.error(err);
      return null;
    }
  }

  /** Whether the widget computes with a WASM module that has not loaded yet. */
  private get moduleMissing(): boolean {
    const ctor = this.constructor as typeof HeadlabElement;
    return ctor.needsCore && this.module === null;
  }

  /**
   * Why the widget shows no figure or no state now: the message its alert box shows (a bad
   * attribute, a model that could not be loaded) or, between an attribute change and the render
   * that will show it, why `state` is null; null when there is nothing wrong. Never throws.
   */
  get error(): string | null {
    if (!this.alertBox.hidden) return this.alertBox.textContent;
    const failure = this.failure;
    if (failure !== null) return excerptQuotes(failure);
    try {
      this.readState();
    } catch (err) {
      if (isExpected(err)) return excerptQuotes(messageOf(err));
      // Not an error of the page's: the module it computes with is still loading.
      return this.moduleMissing ? null : excerptQuotes(`Unexpected error: ${messageOf(err)}`);
    }
    return null;
  }

  /**
   * Whether a computation the widget will draw is under way (an analysis in its worker, a new model
   * waiting for its render): tests, benchmarks and the snapshot pass wait for false. None by
   * default; an override never throws (an invalid attribute computes nothing: false).
   */
  get busy(): boolean {
    return false;
  }

  /**
   * Resolves once the widget shows what its attributes and data ask for: it has rendered, no
   * render, snapshot swap or field check is scheduled (updatePending), no work is under way in its
   * worker (busy) and its data have arrived (settled: a figure's model has loaded) — or once it
   * shows an error instead. The value is true for a figure, false for an error (`error` says
   * why). Never rejects. Read again after a change (an attribute set, a model replaced) for a
   * promise of that change's render, as Lit's `updateComplete`. Before the element is connected
   * it waits for the connection; behind a prerendered snapshot, for the widget to go live.
   */
  get updateComplete(): Promise<boolean> {
    if (this.isComplete()) return Promise.resolve(this.alertBox.hidden && this.failure === null);
    if (!this.completion) {
      let resolve!: (ok: boolean) => void;
      const promise = new Promise<boolean>((r) => {
        resolve = r;
      });
      this.completion = { promise, resolve };
    }
    return this.completion.promise;
  }

  /** The pending updateComplete promise and its resolver (null when none is waiting). */
  private completion: { promise: Promise<boolean>; resolve: (ok: boolean) => void } | null = null;

  /** Whether the widget shows an error, or has rendered with nothing scheduled, under way or still loading. */
  private isComplete(): boolean {
    if (!this.alertBox.hidden) return true;
    if (!this.isConnected || !this.built || this.renders === 0 || this.prerendered.length > 0) return false;
    try {
      return !this.updatePending && !this.busy && this.settled;
    } catch {
      return false;
    }
  }

  /** Resolves a waiting updateComplete once the widget is complete (after a render, a swap, an error). */
  private settle(): void {
    if (!this.completion || !this.isComplete()) return;
    const { resolve } = this.completion;
    this.completion = null;
    resolve(this.alertBox.hidden && this.failure === null);
  }

  /**
   * A failure the widget shows in its own content rather than in the alert box (a model element
   * whose files could not be loaded keeps its "Try again" button): `error` returns it, and
   * updateComplete resolves to false. None by default.
   */
  protected get failure(): string | null {
    return null;
  }

  /**
   * Whether the data the widget draws have arrived (updateComplete waits for true; a render follows
   * their arrival). True by default; a figure reading a page's model answers false while it loads.
   */
  protected get settled(): boolean {
    return true;
  }

  /** The text alternative of what the widget shows now, as last rendered (empty before the first render). */
  get summary(): string {
    return this.summaryBox.textContent ?? '';
  }

  /**
   * One or two sentences saying what the figure shows now, in numbers (the chart's text
   * alternative). Called after every render; override in every widget that shows a figure.
   */
  protected summarize(): string {
    return '';
  }

  /**
   * A number computed from the model on the page, for <headlab-value source="<id>" name="…">
   * in the prose: undefined while not ready or for an unknown name; { computing: true } while a
   * new value is computed after one was shown (the value then says "computing…"). Widgets that
   * own a model override this and emit `change` whenever the values may have changed.
   */
  boundValue(name: string): BoundValue | BoundComputing | undefined {
    void name;
    return undefined;
  }

  // ---- exports ----

  /** The figures this widget exports as SVG and PNG (none by default). */
  figures(): WidgetFigure[] {
    return [];
  }

  /** What "JSON" exports: the state by default (an invalid attribute makes the download fail with its message). */
  exportData(): unknown {
    return this.readState();
  }

  /** The exported JSON text. */
  exportJson(): string {
    // Typed arrays (the transformer figures' rows, web/transformer.js) as JSON arrays of their numbers.
    return `${JSON.stringify(this.exportData(), (_key, v: unknown) => (ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v as Float64Array) : v), 2)}\n`;
  }

  /** The figure `name` (default: the first) as a standalone SVG document, the summary as its <desc>. */
  exportSvg(name?: string): string {
    return sceneToSvg(figureNamed(this.figures(), name).scene(), this.summarize());
  }

  /** The figure `name` (default: the first) as a PNG (2 device pixels per unit). */
  exportPng(name?: string): Promise<Blob> {
    return sceneToPng(figureNamed(this.figures(), name).scene());
  }

  /** File names start with this (default: the tag without "headlab-"). */
  protected fileStem(): string {
    return this.localName.replace(/^headlab-/, '');
  }

  /** Name of the JSON download (default "<stem>-data.json"). */
  protected jsonFileName(): string {
    return `${this.fileStem()}-data.json`;
  }

  /** Offers a figure (svg/png) or the data (json) as a download; a failure is reported beside the buttons. */
  async download(format: ExportFormat, name?: string): Promise<void> {
    try {
      await downloadExport(
        {
          figures: () => this.figures(),
          exportJson: () => this.exportJson(),
          exportSvg: (n) => this.exportSvg(n),
          exportPng: (n) => this.exportPng(n),
          stem: this.fileStem(),
          jsonFile: this.jsonFileName(),
        },
        format,
        name,
      );
      if (this.exportStatus) this.exportStatus.textContent = '';
    } catch (err) {
      if (this.exportStatus) this.exportStatus.textContent = `The download failed: ${messageOf(err)}`;
    }
  }

  /**
   * The widget's one export menu: a "Download" disclosure button (a single Tab stop while
   * closed) that opens a list of "<label>: SVG PNG" per figure (or only those named in
   * `only`) and "JSON" unless `json` is false. Buttons carry data-export="<name>.<format>".
   * Escape closes the menu and returns focus to its button; a failed download is reported
   * beside the menu (outside it, so it stays visible once the menu is closed).
   */
  protected exportControls(options: ExportMenuOptions = {}): HTMLDivElement {
    const { wrap, status } = exportMenu(
      {
        figures: () => this.figures(),
        download: (format, name) => {
          void this.download(format, name);
        },
        listen: (target, type, handler) => this.listen(target, type, handler),
      },
      options,
    );
    this.exportStatus = status;
    return wrap;
  }

  // ---- typed fields ----

  /**
   * Validates a text or number field as the reader types: after `delay` ms without typing
   * (and at once on Enter or leaving the field) the text is parsed; a valid value is
   * committed, an invalid or empty one marks the field aria-invalid and says why in a
   * message beside it, keeping the last valid value. `parse` throws WidgetInputError with
   * the reason ("must be an integer from 0 to 9"). `current()` names the kept value in the
   * message. Call the returned `show(text)` from render(): it writes the field unless the
   * reader is editing it or it holds an invalid entry.
   */
  protected bindField<T>(input: HTMLInputElement | HTMLTextAreaElement, options: FieldOptions<T>): BoundField {
    return bindField(input, options, {
      owner: this,
      listen: (target, type, handler) => this.listen(target, type, handler),
      guard: (fn) => this.guard(fn),
      signal: this.listeners?.signal,
      isEditing: () => this.root.activeElement === input,
      isConnected: () => this.isConnected,
      checkScheduled: (field, scheduled) => {
        if (scheduled) this.fieldsWaiting.add(field);
        else {
          this.fieldsWaiting.delete(field);
          // A check that committed nothing (an invalid entry) renders nothing: settle here.
          queueMicrotask(() => this.settle());
        }
      },
    });
  }

  /** The typed fields whose check is scheduled (the reader paused typing less than their delay ago). */
  private readonly fieldsWaiting = new Set<HTMLInputElement | HTMLTextAreaElement>();

  /**
   * Whether the widget has an update scheduled that will change what it shows: a render (at the
   * next frame, in a task, or in its turn), the swap of its prerendered snapshot, or a typed
   * field's check. Tests wait for false (with `busy` false, for work in a worker) rather than
   * for a number of frames or milliseconds.
   * @internal
   */
  get updatePending(): boolean {
    return this.frame !== 0 || this.offFrame !== 0 || this.waitingTurn || this.swapQueued || this.fieldsWaiting.size > 0;
  }

  // ---- shareable state (URL hash) ----

  /** The shareable state: the present attributes among `sharedAttributes`. Override for state kept outside attributes. */
  get sharedState(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of (this.constructor as typeof HeadlabElement).sharedAttributes) {
      if (LOCATION_ATTRIBUTES.has(name)) continue;
      const v = this.getAttribute(name);
      if (v !== null) out[name] = v;
    }
    return out;
  }

  /** Restores a shareable state: each shared attribute is set to its value, or removed when absent. */
  set sharedState(values: Record<string, string>) {
    for (const name of (this.constructor as typeof HeadlabElement).sharedAttributes) {
      if (LOCATION_ATTRIBUTES.has(name)) continue;
      const v = values[name];
      if (typeof v === 'string') {
        if (this.getAttribute(name) !== v) this.setAttribute(name, v);
      } else if (this.hasAttribute(name)) {
        this.removeAttribute(name);
      }
    }
  }

  /** Key of this element's entries in the URL hash: its id, else "<tag>-<n>" (n-th of its tag in the document). */
  get shareKey(): string {
    if (this.id) return this.id;
    return `${this.localName}-${Array.from(document.getElementsByTagName(this.localName)).indexOf(this) + 1}`;
  }

  /** Takes the module loadModule() gave: by default headlab_core, into this.core. */
  protected moduleLoaded(module: unknown): void {
    this.core = module as HeadlabCore;
  }

  /**
   * Creates the controls in this.body (core ready, element connected) and returns them, the
   * element's parts (this.parts); called again after a re-attach, which replaces them.
   */
  protected abstract build(): Parts;

  /**
   * The parts the last build() returned. Every reader of them (render, listeners, figures, the
   * state) runs after the first build; a read before it is a mistake in the widget, reported as one.
   */
  protected get parts(): Parts {
    if (this.builtParts === null) throw new Error(`<${this.localName}> read its parts before build() made them`);
    return this.builtParts;
  }

  /** Runs right after build(), its parts in place: for work at build time that reads them. */
  protected afterBuild(): void {}

  /** Whether build() has made the parts (for what may run before it: a property read, an export). */
  protected get hasParts(): boolean {
    return this.builtParts !== null;
  }

  /** Brings the shown numbers up to date with the state. Called at most once per frame. */
  protected abstract render(): void;

  connectedCallback(): void {
    this.listeners = new AbortController();
    if (typeof matchMedia === 'function') {
      this.listen(matchMedia('(prefers-color-scheme: dark)'), 'change', () => {
        this.resolvedColours = null;
        this.themeChanged();
      });
    }
    // A page that sets no color-scheme (neither <meta name="color-scheme"> nor CSS)
    // leaves the widget on "normal": then follow prefers-color-scheme; a page that
    // sets one is followed as is.
    const pageScheme = document.querySelector('meta[name="color-scheme"]') !== null;
    this.toggleAttribute('data-auto-scheme', !pageScheme && getComputedStyle(this).colorScheme === 'normal');
    if (this.hasAttribute('share-state')) {
      this.guard(() => this.hashLink.read('after-render'));
      this.listen(window, 'hashchange', () => this.hashLink.read('now'));
      this.listen(window, 'pagehide', () => this.hashLink.flush());
    }
    const ctor = this.constructor as typeof HeadlabElement;
    // Callbacks of an earlier connection (the element was moved meanwhile) do nothing.
    const connection = this.listeners;
    const current = () => this.isConnected && this.listeners === connection;
    if (!ctor.needsCore || this.module !== null) {
      // Behind a snapshot a widget that asks for it (goesLiveStaggered) goes live staggered even
      // though it needs no module to start: it builds and renders in tasks of its own and swaps its
      // snapshot at a frame of its own, so a page of such figures (the transformer widgets, all
      // reading one model) makes no long task.
      if (this.prerendered.length && ctor.goesLiveStaggered) {
        this.staggered = true;
        setTimeout(() => {
          if (current()) this.start();
        });
      } else this.start();
      return;
    }
    const load = () => {
      if (!current()) return;
      const loaded = ctor.loadModule().then((module) => {
        this.module = module;
        this.moduleLoaded(module);
      });
      loaded.then(
        () => {
          // Behind a snapshot nothing waits on screen: each widget builds in a task of its own,
          // so a page of figures starting together does not make one long task.
          if (!current()) return;
          if (this.staggered)
            setTimeout(() => {
              if (current()) this.start();
            });
          else this.start();
        },
        (err: unknown) => this.showError(`The interactive figure could not start: ${messageOf(err)}`),
      );
    };
    const deferred = this.prerendered.length ? this.deferLoading() : null;
    this.staggered = deferred !== null || (this.prerendered.length > 0 && ctor.goesLiveStaggered);
    if (deferred) void deferred.then(load);
    else load();
  }

  /**
   * While the prerendered snapshot is on screen, a widget may put off loading its WASM module:
   * it returns a promise that resolves when the module is wanted (the max-digit widgets: the
   * reader's first interaction, widgets/max-digit/loading.ts). Default: load at once.
   */
  protected deferLoading(): Promise<void> | null {
    return null;
  }

  /**
   * Whether the next render may replace the prerendered snapshot. A widget whose data is still
   * loading answers false, so the snapshot stays on screen (no "loading" note, no layout shift)
   * until the live widget can show the same figure; it asks for a render when it can.
   */
  protected snapshotReplaceable(): boolean {
    return true;
  }

  /** Whether the prerendered snapshot is still on screen. */
  protected get showingSnapshot(): boolean {
    return this.prerendered.length > 0;
  }

  disconnectedCallback(): void {
    this.hashLink.flush();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    clearTimeout(this.offFrame);
    this.offFrame = 0;
    this.listeners?.abort();
    this.listeners = null;
    this.layoutWatcher.disconnect();
    this.structure?.disconnect();
    this.structure = null;
    // The fields' listeners are aborted with `listeners`, which cancels their checks.
    this.fieldsWaiting.clear();
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

  /**
   * Schedules render() for the next animation frame; repeated calls in a frame coalesce. A widget
   * that deferred loading behind its snapshot (deferLoading) renders first in a task of its own
   * instead (into the still hidden body: script, no layout), and the snapshot is swapped for it at
   * a later frame (layout and paint, one figure per frame): a page of figures going live at once
   * (the max-digit article when its model arrives) never makes one long task of both.
   */
  /**
   * A render in a task of its own, after the renders the page's other widgets asked this way
   * (renderTurns): for a change that reaches many widgets at once (a replaced model). A render
   * that runs before the turn comes (an input's) takes the turn's place.
   */
  protected requestRenderInTurn(): void {
    if (!this.built || !this.isConnected || this.waitingTurn) return;
    this.waitingTurn = true;
    renderTurns.push(() => {
      if (!this.waitingTurn) return;
      cancelAnimationFrame(this.frame);
      clearTimeout(this.offFrame);
      this.frame = 0;
      this.offFrame = 0;
      this.runRender();
    });
    if (!renderTurnTimer) renderTurnTimer = window.setTimeout(nextRenderTurn);
  }

  /** Whether a render waits in renderTurns (requestRenderInTurn). */
  private waitingTurn = false;

  /** Whether a render asked with requestRenderInTurn has not run yet. */
  protected get renderTurnPending(): boolean {
    return this.waitingTurn;
  }

  protected requestRender(): void {
    if (!this.built || this.frame || this.offFrame || !this.isConnected) return;
    if (this.prerendered.length && this.staggered) {
      this.offFrame = window.setTimeout(() => {
        this.offFrame = 0;
        this.runRender();
      });
      return;
    }
    this.frame = requestAnimationFrame((time) => {
      this.frame = 0;
      const now = performance.now();
      if (frameRenders.time !== time) frameRenders.until = now + FRAME_RENDER_BUDGET_MS;
      else if (now > frameRenders.until) return this.requestRender();
      frameRenders.time = time;
      this.runRender();
    });
  }

  /**
   * Schedules render() in a task of its own (a timer) instead of at the next frame, replacing a
   * render scheduled for the frame. For a change that makes several widgets render at once (a
   * new model for every figure reading it): one task per widget rather than one long frame task
   * running them all; the frame after them lays out and paints the result.
   */
  protected requestRenderInTask(): void {
    if (!this.built || this.offFrame || !this.isConnected) return;
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.offFrame = window.setTimeout(() => {
      this.offFrame = 0;
      this.runRender();
    });
  }

  /** A render scheduled in a task of its own (behind a snapshot), or 0. */
  private offFrame = 0;
  /** Whether this widget deferred loading behind its snapshot (deferLoading), and so goes live staggered. */
  private staggered = false;
  private swapQueued = false;

  /** Replaces the snapshot by the rendered body at the next frame that has not replaced one yet. */
  private swapAtFrame(): void {
    if (this.swapQueued) return;
    this.swapQueued = true;
    requestAnimationFrame((time) => {
      this.swapQueued = false;
      if (!this.isConnected || !this.prerendered.length || !this.alertBox.hidden) return;
      if (swapFrame.time === time) {
        this.swapAtFrame();
        return;
      }
      swapFrame.time = time;
      this.clearError();
      this.settle();
    });
  }

  /** Runs a scheduled render now rather than at the next frame (tests and benchmarks drive many updates this way). */
  renderNow(): void {
    if (!this.frame && !this.offFrame) return;
    cancelAnimationFrame(this.frame);
    clearTimeout(this.offFrame);
    this.frame = 0;
    this.offFrame = 0;
    this.runRender();
  }

  private runRender(): void {
    this.waitingTurn = false;
    if (!this.isConnected) return;
    if (this.prerendered.length && !this.snapshotReplaceable()) return;
    const started = performance.now();
    this.guard(() => {
      this.render();
      const newParts = this.takePartsAdded();
      if (newParts === 'all') markParts(this.body);
      else if (newParts.length) markParts(this.body, newParts);
      this.renders++;
      if (this.hashLink.problem) {
        this.showError(this.hashLink.problem);
        return;
      }
      if (this.prerendered.length && this.staggered && this.alertBox.hidden) this.swapAtFrame();
      else this.clearError();
      setText(this.summaryBox, this.summarize());
      // Once per task however many renders it runs (tests and benchmarks render in tight loops).
      if (!this.layoutQueued) {
        this.layoutQueued = true;
        queueMicrotask(() => {
          this.layoutQueued = false;
          if (!this.isConnected) return;
          // The whole root (outside SVGs; the watcher only acts on elements it has not seen): a walk
          // of the added subtrees alone missed the own-model patching figure's SVG at 360 px, drawn
          // then at 0.6 of its size (7.5 px text, tests/browser/layout.test.mjs).
          if (this.takeLayoutGrown()) this.layoutWatcher.observe(this.root);
        });
      }
      if (this.hashLink.scrollOnRender) {
        this.hashLink.scrollOnRender = false;
        // After layout of this frame, so the element has its rendered height.
        requestAnimationFrame(() => {
          if (this.isConnected) this.hashLink.reveal(false);
        });
      }
    });
    // For <headlab-value> elements bound to this one (they listen on the document).
    this.dispatchEvent(new Event('headlab-render', { bubbles: true, composed: true }));
    this.lastRenderTime = performance.now() - started;
    this.settle();
  }

  /** Takes the structure records so far: the added elements for markParts, and that the root grew for the layout watcher. */
  private collectAdded(): void {
    const take = (records: MutationRecord[]) => {
      for (const r of records) {
        // Nodes added inside an SVG (a drawing's shapes coming and going) need neither walk: part
        // names and the layout watcher skip the inside of every SVG (widgets/base/dom.ts). Without
        // this, a scrub that changes a loss axis's tick count walked the whole shadow root.
        if (r.target instanceof SVGElement) continue;
        for (let i = 0; i < r.addedNodes.length; i++) {
          const n = r.addedNodes[i];
          if (n.nodeType !== Node.ELEMENT_NODE) continue;
          this.layoutGrown = true;
          if (this.partsAdded !== 'all') this.partsAdded.push(n as Element);
        }
      }
    };
    if (this.structure) take(this.structure.takeRecords());
    else {
      this.structure = new MutationObserver(take);
      this.structure.observe(this.root, { childList: true, subtree: true });
      this.partsAdded = 'all';
      this.layoutGrown = true;
    }
  }

  /** The elements added since the last call ('all': walk the whole root), then resets the list. */
  private takePartsAdded(): Element[] | 'all' {
    this.collectAdded();
    const added = this.partsAdded;
    this.partsAdded = [];
    return added;
  }

  /** Whether an element was added since the last call, then resets it. */
  private takeLayoutGrown(): boolean {
    this.collectAdded();
    const grown = this.layoutGrown;
    this.layoutGrown = false;
    return grown;
  }

  // ---- theme and live status ----

  /** The theme's colours as they compute now, read once per colour scheme (again after it changes). */
  protected themeColours(): ResolvedColours {
    this.resolvedColours ??= resolveColours(this.body);
    return this.resolvedColours;
  }

  /**
   * The content-box widths of `boxes` (elements of this widget's body) in CSS px, as a
   * ResizeObserver reports them: each border box less its borders and paddings, held in
   * Chromium's layout units of 1/64 px (13.6 px of padding is laid out as 13.59375). For the first
   * render of a widget that draws for the width of a box, so that its first drawing is at the
   * shown width (as its prerendered snapshot is) and no second drawing follows when the observer
   * first reports. Until that render shows it the body is hidden (display: none: every box in it
   * measures 0), so it is shown for this one read and hidden again in the same task (no frame
   * paints in between). The read lays the page out: call it once, at the first render, for every
   * box at once, and take later sizes from a ResizeObserver. 0 for a box not laid out (the element
   * not connected, or inside a hidden ancestor): the widget then draws at its default width.
   */
  protected measureOnce(boxes: readonly Element[]): number[] {
    if (!this.isConnected) return boxes.map(() => 0);
    const wasHidden = this.body.hidden;
    if (wasHidden) this.body.hidden = false;
    try {
      const unit = (v: string) => Math.trunc((Number.parseFloat(v) || 0) * 64) / 64;
      return boxes.map((box) => {
        const width = box.isConnected ? box.getBoundingClientRect().width : 0;
        if (width <= 0) return 0;
        const cs = getComputedStyle(box);
        const insets = [cs.borderLeftWidth, cs.borderRightWidth, cs.paddingLeft, cs.paddingRight].reduce((sum, v) => sum + unit(v), 0);
        return Math.max(0, width - insets);
      });
    } finally {
      if (wasHidden) this.body.hidden = true;
    }
  }

  /** The colour scheme changed (themeColours() reads the new colours): by default one render. */
  protected themeChanged(): void {
    this.requestRender();
  }

  /** A polite live region (role="status") that announce() writes; build() places it. */
  protected statusRegion(className = 'note'): HTMLParagraphElement {
    this.liveStatus = el('p', { class: className, role: 'status', 'aria-live': 'polite' });
    return this.liveStatus;
  }

  /** Says `text` in the widget's status region (statusRegion), for screen readers and on screen. */
  protected announce(text: string): void {
    if (this.liveStatus) this.liveStatus.textContent = text;
  }

  /**
   * Dispatches a bubbling, composed `change` event whose detail is the state (and updates the URL
   * hash under share-state). Not while the state is null (an invalid attribute, which the widget
   * shows): a `change` always carries a state.
   */
  protected emitChange(): void {
    if (this.hasAttribute('share-state')) this.hashLink.schedule();
    const state = this.state;
    if (state !== null) this.dispatchEvent(new CustomEvent('change', { bubbles: true, composed: true, detail: state }));
  }

  /** Shows `message` in the widget's alert box and hides its content. */
  protected showError(message: string): void {
    this.dropSnapshot();
    this.placeholder.hidden = true;
    this.alertBox.textContent = excerptQuotes(message);
    this.alertBox.hidden = false;
    this.body.hidden = true;
    this.settle();
  }

  /** Runs after every render, so it writes only what changes: a box made hidden again has its style recalculated. */
  private clearError(): void {
    this.dropSnapshot();
    if (!this.placeholder.hidden) this.placeholder.hidden = true;
    if (!this.alertBox.hidden) {
      this.alertBox.hidden = true;
      this.alertBox.textContent = '';
    }
    if (this.body.hidden) {
      this.body.hidden = false;
      // Its overflowing tables marked before the frame's layout, not by the layout watcher after it.
      this.layoutWatcher.markScrollBoxesNow(this.body);
    }
  }

  private start(): void {
    this.guard(() => {
      this.resolvedColours = null; // attached again, perhaps under another theme
      this.builtParts = this.build();
      this.afterBuild();
      this.body.append(this.summaryBox);
      this.built = true;
      this.placeholder.hidden = true;
      this.requestRender();
    });
  }

  /** Runs fn; an author error or a core error is shown in the widget, anything else is rethrown. */
  protected guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (isExpected(err)) {
        this.showError(err.message);
      } else {
        this.showError(`Unexpected error: ${messageOf(err)}`);
        throw err;
      }
    }
  }
}

// The `change` event typed by the element's state, for listeners (the class dispatches it; these
// overloads only type addEventListener, which HTMLElement implements).
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a merged declaration repeats the class's type parameters
export interface HeadlabElement<State = unknown, Parts extends object = object> {
  addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: this, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: 'change', listener: (ev: CustomEvent<State>) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** An author's or reader's mistake (WidgetInputError) or the core refusing an input (HeadlabError): shown in the widget. */
function isExpected(err: unknown): err is Error {
  return err instanceof WidgetInputError || (err instanceof Error && err.name === 'HeadlabError');
}
