// <headlab-transformer-attention model="m">: every head's attention pattern on the reader's
// prompt. A layer × head grid of T × T patterns (row = query position, column = key position,
// causal: nothing above the diagonal), from the core's forward pass (TransformerModel.run, the
// patterns `headlab model run` writes). Hovering, touching or focusing a token (the row of token
// buttons, arrow keys move between them) outlines its row (where it looks from) and its column
// (what looks at it) in every head, and the table below says, head by head, where that token looks
// most and which later token looks at it most.
//
// Clicking a cell of a head's pattern selects it: its query becomes the pinned token and the cell
// (layer, head, key) is outlined and carried by `change`, for a <headlab-qk-attribution
// attention="this id"> to split that cell's score.
//
// Attributes: model (id of a <headlab-transformer-model>; default the enclosing one), prompt
// (token names or ids; default a repeated block of tokens), position (the token pinned, default the
// last), cell (the selected cell as "layer.head.key", its query being `position`; default none).
// Events: `change` with { prompt, position, cell } when the reader edits the prompt, pins a token or clicks a cell.
import {
  accessor,
  type AttributeProperties,
  defineAttributes,
  el,
  integerAttribute,
  setNumberAttribute,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { formatNumber } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { tablesScene } from './chart/table-scene.js';
import type { TransformerRun } from '../web/headlab-core.js';
import { asRows, at, rowView } from '../web/matrix.js';
import { mixRgb } from './chart/palette.js';
import {
  LayeredFigure,
  boxOutline,
  MASK_MIX,
  PixelHeatmaps,
  drawnSvg,
  heatmapShapes,
  legendShapes,
  outlineShapes,
  packRgb,
  sequentialWord,
  type PixelPanel,
} from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { PromptField, TRANSFORMER_CSS, TokensPending, TransformerWidget, headName, tokenName } from './transformer/widget.js';

export interface TransformerAttentionState {
  prompt: number[];
  position: number;
  /** The clicked cell: head (layer, head), query `position`, key `key`; null when none is selected. */
  cell: { layer: number; head: number; key: number } | null;
}

/** Narrowest a head's pattern is drawn before the figure takes fewer columns (CSS px: the stripes stay visible). */
const MIN_PANEL = 110;
/** Most columns of heads in a row. */
const MAX_COLUMNS = 4;
/** The card's padding and border on both sides (the base sheet's .body), between the element's width and the figure's. */
const CARD_INSET = 34;
/** Height of the legend under the patterns (SVG units). */
const LEGEND_HEIGHT = 36;

/** The parts build() makes (this.parts). */
interface TransformerAttentionParts {
  field: PromptField;
  figure: LayeredFigure;
  tokenRow: HTMLDivElement;
  lookBox: HTMLDivElement;
  readout: HTMLParagraphElement;
  legendSlot: HTMLDivElement;
}

/** Every head's attention pattern on the reader's prompt; a token's row and column outlined; a clicked cell selected. Attributes: prompt, position (pinned token, default the last), cell ("layer.head.key", the selected cell), model. Shared: prompt, position, cell. */
export class HeadlabTransformerAttention extends TransformerWidget<TransformerAttentionState, TransformerAttentionParts> {
  static attributes = defineAttributes({
    prompt: text({ shared: true, doc: 'The prompt, as text the model’s tokenizer reads (default the model’s example).' }),
    position: accessor<number>({ type: 'number', markup: 'Num', shared: true, doc: 'The pinned token’s position (default the last).' }),
    cell: accessor<{ layer: number; head: number; key: number } | null>({
      type: '{ layer: number; head: number; key: number } | null',
      readonly: true,
      shared: true,
      doc: 'The selected cell, "layer.head.key" (held to the model and the pinned query).',
    }),
  });
  protected static css = /* css */ `${TRANSFORMER_CSS}
    .tokens button[aria-pressed="true"] { font-weight: 700; }
    .tokens button.active { outline: 2px solid var(--hl-focus); outline-offset: 1px; }
    table.looks td, table.looks th { font-size: 0.88em; text-align: left; }
    table.looks td, table.looks th { padding: 0.2rem; }
    table.looks th[scope=row], table.looks td { white-space: nowrap; }
  `;
  /** The token under the pointer or focus (null: the pinned one). */
  private active: number | null = null;
  private shown: { run: TransformerRun; model: LoadedTransformer; position: number; text: string } | null = null;
  private buttonsFor = '';
  /** The patterns as pixels: the canvas sized once per shape (layers, heads, prompt length), repainted for each run. */
  private readonly patterns = new PixelHeatmaps();
  /** The run and theme colours the patterns were last coloured for (a switch to dark mode recolours them). */
  private paintedRun: TransformerRun | null = null;
  private patternsColours: unknown = null;
  /** The element's width in CSS px (a ResizeObserver keeps it; read once before the first observation). */
  private hostWidth = 0;
  private resizes: ResizeObserver | null = null;

  get position(): number {
    const m = this.currentModel;
    const last = m && this.hasParts ? this.parts.field.tokens(m).length - 1 : 0;
    return this.hasAttribute('position') ? Math.min(integerAttribute(this, 'position', last, 0, 4095), last) : last;
  }
  set position(v: number) {
    setNumberAttribute(this, 'position', v);
  }

  /** The selected cell from attribute `cell` ("layer.head.key"), held to the model and the pinned query; null when absent. */
  get cell(): { layer: number; head: number; key: number } | null {
    const raw = this.getAttribute('cell');
    if (raw === null || raw.trim() === '') return null;
    const m = /^\s*(\d+)\.(\d+)\.(\d+)\s*$/.exec(raw);
    const c = this.currentModel?.config;
    const [layer, head, key] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [NaN, NaN, NaN];
    if (!m || (c && (layer >= c.n_layers || head >= c.n_heads)))
      throw new WidgetInputError(`attribute cell="${raw}" must be layer.head.key, such as 1.1.11, with a head of the model`);
    return { layer, head, key: Math.min(key, this.position) };
  }

  protected readState(): TransformerAttentionState {
    const m = this.currentModel;
    return { prompt: m && this.hasParts ? this.parts.field.tokens(m) : [], position: this.position, cell: this.cell };
  }

  protected buildContent(content: HTMLDivElement): TransformerAttentionParts {
    const field = this.promptField('Prompt (tokens separated by spaces):', () => {
      this.active = null;
      this.removeAttribute('cell');
      this.emitChange();
    });
    const tokenRow = el('div', {
      class: 'tokens',
      role: 'toolbar',
      'aria-label': 'Tokens of the prompt: pick one to see where each head looks from it and to it',
    });
    // The patterns are laid out for the element's width (columns and cell size), so they fill the
    // box at every width and are drawn at their own size (their labels and legend unscaled). A new
    // width that changes the layout is drawn in the observer's callback, before the frame paints.
    this.resizes?.disconnect();
    this.resizes =
      typeof ResizeObserver === 'function'
        ? new ResizeObserver((entries) => {
            const w = entries[entries.length - 1].contentRect.width;
            if (w <= 0 || w === this.hostWidth) return;
            const before = this.shown ? this.layout(this.shown.model, this.shown.run) : null;
            this.hostWidth = w;
            const after = this.shown ? this.layout(this.shown.model, this.shown.run) : null;
            if (before && after && (before.cols !== after.cols || before.cell !== after.cell || before.width !== after.width)) {
              this.requestRender();
              this.renderNow();
            }
          })
        : null;
    this.resizes?.observe(this);
    const figureBox = el('div', { class: 'figure' });
    const figure = new LayeredFigure(false);
    const legendSlot = el('div', { class: 'legend' });
    figureBox.append(figure.element, legendSlot);
    const readout = el('p', { class: 'readout', 'aria-live': 'polite' });
    const box = el('div', {
      class: 'scroll',
      tabindex: '0',
      role: 'group',
      'aria-label': 'Where each head looks from and to the chosen token',
    });
    content.append(
      el('p', { class: 'title' }, 'Attention patterns, layer by layer and head by head'),
      field.element,
      tokenRow,
      figureBox,
      readout,
      box,
    );
    // Pointer over (or a finger on) a cell: its query token becomes the active one (the cell found
    // from the pointer's position on the canvas).
    const pick = (e: Event) => {
      const p = e as PointerEvent;
      if (p.target !== this.patterns.canvas) return;
      const q = this.queryAt(p.offsetX, p.offsetY);
      if (q !== null && q !== this.active) {
        this.active = q;
        this.requestRender();
      }
    };
    this.listen(figure.element, 'pointermove', pick);
    this.listen(figure.element, 'pointerdown', pick);
    // A click (or tap) on a cell selects it: its query is pinned, the cell outlined and announced.
    this.listen(figure.element, 'click', (e) => {
      const p = e as MouseEvent;
      if (p.target !== this.patterns.canvas) return;
      const at = this.cellAt(p.offsetX, p.offsetY);
      if (!at) return;
      this.position = at.query;
      this.setAttribute('cell', `${at.layer}.${at.head}.${at.key}`);
      this.emitChange();
    });
    this.listen(figure.element, 'pointerleave', () => {
      this.active = null;
      this.requestRender();
    });
    this.listen(tokenRow, 'keydown', (e) => this.onTokenKey(e as KeyboardEvent));
    // One listener per kind for every token button (delegation): hover or focus makes a token the
    // active one, a click (or Enter, Space) pins it.
    const positionOf = (e: Event): number | null => {
      const b = (e.target as Element).closest?.('button[data-position]');
      return b ? Number(b.getAttribute('data-position')) : null;
    };
    const activate = (e: Event) => {
      const p = positionOf(e);
      if (p !== null && p !== this.active) {
        this.active = p;
        this.requestRender();
      }
    };
    const release = () => {
      if (this.active !== null) {
        this.active = null;
        this.requestRender();
      }
    };
    this.listen(tokenRow, 'pointerover', activate);
    this.listen(tokenRow, 'focusin', activate);
    this.listen(tokenRow, 'pointerleave', release);
    this.listen(tokenRow, 'focusout', release);
    this.listen(tokenRow, 'click', (e) => {
      const p = positionOf(e);
      if (p !== null) {
        this.position = p;
        this.removeAttribute('cell');
        this.emitChange();
      }
    });
    return { field, figure, tokenRow, lookBox: box, readout, legendSlot };
  }

  private onTokenKey(e: KeyboardEvent): void {
    const buttons = [...this.parts.tokenRow.querySelectorAll('button')];
    const i = buttons.indexOf(e.target as HTMLButtonElement);
    if (i < 0) return;
    const next =
      e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : -1;
    if (next < 0 || next >= buttons.length) return;
    e.preventDefault();
    buttons[next].focus();
  }

  private tokenButtons(model: LoadedTransformer, tokens: number[]): void {
    const key = `${model.version}|${tokens.join(',')}`;
    if (key === this.buttonsFor) return;
    this.buttonsFor = key;
    // Plain buttons (the row listens for them all), built once per prompt.
    const buttons = this.cached(model, `buttons:${tokens.join(',')}`, () =>
      tokens.map((t, p) =>
        el(
          'button',
          { type: 'button', 'data-position': String(p), 'aria-label': `token ${tokenName(model.config, t)} at position ${p}` },
          tokenName(model.config, t),
        ),
      ),
    );
    this.parts.tokenRow.replaceChildren(...buttons);
  }

  /**
   * The run behind the figure for `tokens`, in the source's worker (the page holds no model): null
   * until it arrives; the figure keeps the last run shown meanwhile (or, for a new model, what it
   * shows: its prerendered snapshot or the waiting note).
   */
  private runFor(model: LoadedTransformer, tokens: number[]): TransformerRun | null {
    return this.ranInWorker(model, tokens.join(','), tokens);
  }

  /**
   * A prerendered snapshot stays until the run it shows is back from the worker (asked for here:
   * the render that replaces the snapshot follows its arrival), so the figure never flashes its
   * waiting note while the worker reads the model.
   */
  protected snapshotReplaceable(): boolean {
    if (!super.snapshotReplaceable()) return false;
    const model = this.currentModel;
    if (model === null || !this.hasParts) return true;
    try {
      return this.runFor(model, this.parts.field.tokens(model)) !== null;
    } catch (err) {
      // A prompt the model refuses is the live figure's to say; one being read waits for its ids.
      return !(err instanceof TokensPending);
    }
  }

  protected renderContent(model: LoadedTransformer): void {
    this.parts.field.sync(model);
    const asked = this.parts.field.tokens(model);
    const fresh = this.runFor(model, asked);
    // A new model's first run is in the worker: the figure says so (nothing of another model stays).
    const parts = [this.parts.tokenRow, this.parts.figure.element, this.parts.legendSlot, this.parts.lookBox];
    if (fresh === null && this.shown?.model !== model) {
      this.shown = null;
      for (const part of parts) part.hidden = true;
      const waiting = `Computing the attention patterns of the prompt (${asked.length} tokens)…`;
      if (this.parts.readout.textContent !== waiting) this.parts.readout.textContent = waiting;
      return;
    }
    for (const part of parts) if (part.hidden) part.hidden = false;
    // While a new prompt's run is in the worker the figure shows the last run, and says so.
    const run = fresh ?? this.shown!.run;
    const tokens = run.tokens;
    this.tokenButtons(model, tokens);
    const pinned = Math.min(this.position, tokens.length - 1);
    const position = this.active !== null && this.active < tokens.length ? this.active : pinned;
    const buttons = this.parts.tokenRow.children;
    for (let p = 0; p < buttons.length; p++) {
      const b = buttons[p] as HTMLButtonElement;
      const pressed = String(p === pinned);
      if (b.getAttribute('aria-pressed') !== pressed) b.setAttribute('aria-pressed', pressed);
      b.classList.toggle('active', p === position);
      b.tabIndex = p === pinned ? 0 : -1;
    }
    const name = (p: number) => `${tokenName(model.config, tokens[p])} (position ${p})`;
    const selected = this.cell;
    const looks = this.looksAt(model, run, position);
    const text =
      `Attention of ${model.config.n_layers * model.config.n_heads} heads on the prompt ${tokens.map((t) => tokenName(model.config, t)).join(' ')}. From ${name(position)}: ` +
      looks.map((k) => `${headName(k.l, k.h)} looks most at ${name(k.to)} with weight ${formatNumber(k.weight, 2)}`).join('; ') +
      '.';
    this.shown = { run, model, position, text };
    // The patterns are pixels of one canvas, sized once per shape and repainted for each run
    // (about 2,000 cells for 8 heads × 23 tokens: PixelHeatmaps); the head labels and the outlines
    // following the token are the overlay's SVG; the legend is drawn once, below.
    const layout = this.layout(model, run);
    const colours = this.themeColours();
    if (this.patternsColours !== colours) {
      this.patterns.reset();
      this.paintedRun = null;
      this.patternsColours = colours;
    }
    const { n_layers: L, n_heads: H } = model.config;
    const T = tokens.length;
    const sized = this.patterns.layout(`${L}|${H}|${T}`, layout.width, layout.height - LEGEND_HEIGHT, this.panels(model, run));
    if (sized || this.paintedRun !== run) {
      const gap = packRgb(mixRgb(colours.panel, colours.rule, MASK_MIX));
      this.patterns.paint(gap, (p, q, k) => (k > q ? -1 : sequentialWord(colours, at(run.patterns[Math.floor(p / H)][p % H], q, k))));
      this.paintedRun = run;
    }
    this.parts.figure.setBase(this.patterns.canvas);
    this.parts.figure.drawOverlay(layout.width, layout.height - LEGEND_HEIGHT, [
      ...this.labelShapes(model, run),
      ...this.outlines(model, run, position),
      ...this.cellOutline(model, run, pinned),
    ]);
    this.show(
      this.parts.legendSlot,
      this.fragment(model, `legend|${layout.width}`, () => drawnSvg(this.legendScene(layout.width))),
    );
    this.parts.figure.label(text);
    const readout =
      fresh === null
        ? `Computing the patterns of the prompt ${asked.map((t) => tokenName(model.config, t)).join(' ')}…`
        : `Token ${name(position)}${this.active === null ? ' (pinned)' : ''}: outlined row = where it looks, outlined column = what looks at it.` +
          (selected
            ? ` Selected cell: ${headName(selected.layer, selected.head)} from ${name(pinned)} to ${name(selected.key)}.`
            : ' Click a cell to select it.');
    if (this.parts.readout.textContent !== readout) this.parts.readout.textContent = readout;
    this.show(
      this.parts.lookBox,
      this.fragment(model, `looks:${tokens.join(',')}|${position}`, () => this.lookTable(model, tokens, looks, position)),
    );
  }

  /** looks() of `run` at `position`, computed once per run and position. */
  private looksAt(model: LoadedTransformer, run: TransformerRun, position: number): ReturnType<HeadlabTransformerAttention['looks']> {
    return this.cached(model, `looks:${run.tokens.join(',')}|${position}`, () => this.looks(run, position));
  }

  /** The head labels above the patterns (in the overlay, whose text keeps its CSS size). */
  private labelShapes(model: LoadedTransformer, run: TransformerRun): Shape[] {
    // Placed by the layout, which follows the figure's width (its columns and cell size).
    const { cols, cell } = this.layout(model, run);
    return this.cachedThemed(model, `labels:${run.tokens.length}|${model.config.n_heads}|${cols}|${cell}`, () => {
      const c = this.themeColours();
      const { origin } = this.layout(model, run);
      const shapes: Shape[] = [];
      for (let l = 0; l < model.config.n_layers; l++) {
        for (let h = 0; h < model.config.n_heads; h++) {
          const [x, y] = origin(l, h);
          shapes.push({ kind: 'text', x, y: y - 8, text: headName(l, h), fill: rgbText(c.fg), size: 11, weight: 'bold' });
        }
      }
      return shapes;
    });
  }

  /** Every head's T × T panel, layer by layer, head by head. */
  private panels(model: LoadedTransformer, run: TransformerRun): PixelPanel[] {
    const { cell, origin } = this.layout(model, run);
    const T = run.tokens.length;
    const out: PixelPanel[] = [];
    for (let l = 0; l < model.config.n_layers; l++) {
      for (let h = 0; h < model.config.n_heads; h++) {
        const [x, y] = origin(l, h);
        out.push({ x, y, rows: T, cols: T, cell });
      }
    }
    return out;
  }

  /** The query position under a pointer at (x, y) CSS px from the canvas's corner (null outside every cell drawn). */
  private queryAt(x: number, y: number): number | null {
    return this.cellAt(x, y)?.query ?? null;
  }

  /** The cell (head, query, key ≤ query) under a pointer at (x, y) CSS px from the canvas's corner; null outside every cell drawn. */
  private cellAt(x: number, y: number): { layer: number; head: number; query: number; key: number } | null {
    const s = this.shown;
    if (!s) return null;
    const u = this.patterns.unitsPerPixel();
    const { cell, size, origin } = this.layout(s.model, s.run);
    for (let l = 0; l < s.model.config.n_layers; l++) {
      for (let h = 0; h < s.model.config.n_heads; h++) {
        const [ox, oy] = origin(l, h);
        const dx = x * u - ox,
          dy = y * u - oy;
        if (dx < 0 || dy < 0 || dx >= size || dy >= size) continue;
        const q = Math.floor(dy / cell),
          k = Math.floor(dx / cell);
        return k <= q ? { layer: l, head: h, query: q, key: k } : null;
      }
    }
    return null;
  }

  /** For each head: the key position the query `position` attends to most, and the later query that attends most to `position`. */
  private looks(
    run: TransformerRun,
    position: number,
  ): { l: number; h: number; to: number; weight: number; from: number; fromWeight: number }[] {
    const out = [];
    for (let l = 0; l < run.patterns.length; l++) {
      for (let h = 0; h < run.patterns[l].length; h++) {
        const pat = run.patterns[l][h];
        const row = rowView(pat, position);
        let to = 0;
        for (let k = 1; k <= position; k++) if (row[k] > row[to]) to = k;
        let from = position;
        for (let q = position + 1; q < pat.rows; q++) if (at(pat, q, position) > at(pat, from, position)) from = q;
        out.push({ l, h, to, weight: row[to], from, fromWeight: at(pat, from, position) });
      }
    }
    return out;
  }

  private lookTable(
    model: LoadedTransformer,
    tokens: number[],
    looks: ReturnType<HeadlabTransformerAttention['looks']>,
    position: number,
  ): HTMLTableElement {
    const table = el('table', { class: 'looks compact' });
    table.createCaption().textContent = `Token ${tokenName(model.config, tokens[position])} at position ${position}, head by head: the token it looks at most and the later token looking at it most (positions in parentheses), with their attention weights.`;
    const head = table.createTHead().insertRow();
    // Positions in parentheses after the token, named once in the caption: five narrow columns
    // (a head name, a token and a short number, a weight) that fit a 360 px page.
    for (const t of ['head', 'looks at', 'weight', 'looked at by', 'weight']) head.append(el('th', { scope: 'col' }, t));
    const body = table.createTBody();
    for (const k of looks) {
      const tr = body.insertRow();
      tr.append(el('th', { scope: 'row' }, headName(k.l, k.h)));
      tr.append(el('td', {}, `${tokenName(model.config, tokens[k.to])} (${k.to})`));
      tr.append(el('td', { class: 'num', 'data-value': String(k.weight) }, formatNumber(k.weight, 3)));
      tr.append(el('td', {}, `${tokenName(model.config, tokens[k.from])} (${k.from})`));
      tr.append(el('td', { class: 'num', 'data-value': String(k.fromWeight) }, formatNumber(k.fromWeight, 3)));
    }
    return table;
  }

  /** Where each head's pattern sits in the figure. */
  private layout(
    model: LoadedTransformer,
    run: TransformerRun,
  ): {
    cell: number;
    size: number;
    cols: number;
    rowsPerLayer: number;
    width: number;
    height: number;
    origin: (l: number, h: number) => [number, number];
  } {
    const { n_layers: L, n_heads: H } = model.config;
    const T = run.tokens.length;
    const gap = 18,
      top = 20,
      left = 8;
    // Columns: as many (up to MAX_COLUMNS) as leave each pattern MIN_PANEL wide; cells then as
    // large as the width allows, from 4 to 16 units.
    const available = Math.max(240, this.figureWidth() - left);
    let cols = Math.min(H, MAX_COLUMNS);
    while (cols > 1 && available / cols - gap < MIN_PANEL) cols = Math.ceil(cols / 2);
    const cell = Math.max(4, Math.min(16, Math.floor((available / cols - gap) / T)));
    const size = cell * T;
    const rowsPerLayer = Math.ceil(H / cols);
    const height = top + L * rowsPerLayer * (size + gap + 16);
    const origin = (l: number, h: number): [number, number] => [
      left + (h % cols) * (size + gap),
      top + (l * rowsPerLayer + Math.floor(h / cols)) * (size + gap + 16),
    ];
    return { cell, size, cols, rowsPerLayer, width: Math.max(left + cols * (size + gap), 240), height: height + LEGEND_HEIGHT, origin };
  }

  /** Width in CSS px the figure has inside the card (1,000 before the element has been laid out). */
  private figureWidth(): number {
    // Read once, before the observer's first report (the first render runs before it): the
    // page is laid out by then, so this costs no layout of its own.
    if (this.hostWidth <= 0 && this.isConnected) this.hostWidth = this.getBoundingClientRect().width;
    return this.hostWidth > 0 ? this.hostWidth - CARD_INSET : 1000;
  }

  disconnectedCallback(): void {
    this.resizes?.disconnect();
    this.resizes = null;
    super.disconnectedCallback();
  }

  /** The selected cell (attribute `cell`, query = the pinned token) ringed in its head's pattern. */
  private cellOutline(model: LoadedTransformer, run: TransformerRun, pinned: number): Shape[] {
    const selected = this.cell;
    if (!selected) return [];
    const { cell, origin } = this.layout(model, run);
    const [ox, oy] = origin(selected.layer, selected.head);
    const x = ox + Math.min(selected.key, pinned) * cell - 1.5,
      y = oy + pinned * cell - 1.5,
      w = cell + 2;
    const stroke = rgbText(this.themeColours().fg);
    return [boxOutline(x, y, x + w, y + w, stroke, 2)];
  }

  /** The chosen token's row and column outlined in every head. */
  private outlines(model: LoadedTransformer, run: TransformerRun, position: number): Shape[] {
    const c = this.themeColours();
    const { cell, origin } = this.layout(model, run);
    const T = run.tokens.length;
    const shapes: Shape[] = [];
    for (let l = 0; l < model.config.n_layers; l++) {
      for (let h = 0; h < model.config.n_heads; h++) shapes.push(...outlineShapes(c, ...origin(l, h), cell, T, T, position, position));
    }
    return shapes;
  }

  /** The legend below the patterns (on the page a figure of its own, drawn once per model and theme). */
  private legendScene(width: number): Scene {
    const c = this.themeColours();
    return {
      width,
      height: LEGEND_HEIGHT,
      background: rgbText(c.panel),
      title: 'Attention weight scale',
      shapes: legendShapes(c, 8, 0, 'sequential', '0', '1', 'attention weight (row: query, column: key)'),
    };
  }

  /** The patterns (and, for a position, its outlines: the exported figure, with the legend). */
  private scene(model: LoadedTransformer, run: TransformerRun, position: number | null, legend = true): Scene {
    const c = this.themeColours();
    const { n_layers: L, n_heads: H } = model.config;
    const { cell, width, height, origin } = this.layout(model, run);
    const shapes: Shape[] = [];
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const [x, y] = origin(l, h);
        shapes.push({ kind: 'text', x, y: y - 8, text: headName(l, h), fill: rgbText(c.fg), size: 11, weight: 'bold' });
        shapes.push(
          ...heatmapShapes(c, {
            values: run.patterns[l][h],
            x,
            y,
            cell,
            scale: 'sequential',
            masked: (q, k) => k > q,
            data: (q) => ({ query: String(q) }),
          }),
        );
      }
    }
    if (legend)
      shapes.push(...legendShapes(c, 8, height - LEGEND_HEIGHT, 'sequential', '0', '1', 'attention weight (row: query, column: key)'));
    if (position !== null) shapes.push(...this.outlines(model, run, position));
    return { width, height: legend ? height : height - LEGEND_HEIGHT, background: rgbText(c.panel), title: 'Attention patterns', shapes };
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  /** The state with the core's numbers behind the figure (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    if (!this.shown || state === null) return null;
    const shown = this.shown;
    return { ...state, run: asRows(shown.run) };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'patterns',
        label: 'Attention patterns',
        scene: () => {
          const s = this.exportable(this.shown);
          return this.scene(s.model, s.run, s.position);
        },
      },
      {
        name: 'table',
        label: 'Where each head looks',
        scene: () => tablesScene([this.parts.lookBox.querySelector('table')!], this.themeColours(), 'Where each head looks'),
      },
    ];
  }
}

export interface HeadlabTransformerAttention extends AttributeProperties<typeof HeadlabTransformerAttention.attributes> {}
