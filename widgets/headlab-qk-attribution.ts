// <headlab-qk-attribution model="m">: why a head attends where it does. For head (layer, head),
// query position i and key position j ≤ i, the score s_ij (q_i·k_j/√d_head, before the mask and
// the softmax) split exactly into parts, one per pair (query-side source, key-side source), the
// sources being the residual stream's components entering the layer: the token embedding, the
// positions, every earlier head's output and the biases (core/qk_attribution.hpp; LayerNorm's scale
// frozen at its value on this prompt, so the parts sum to the score). Drawn as a query-source ×
// key-source grid on the diverging scale, the largest part named in words.
//
// The head's whole T × T table is computed once per (prompt, head) in the worker (task
// 'transformer-qk-attribution'); choosing another query or key only reads it.
//
// Attributes: model, prompt, layer (default the last), head (default 0), position (the query,
// default the last), key (default the key the head attends to most from the query), attention
// (id of a <headlab-transformer-attention> whose clicked cell this figure follows).
// Events: `change` with QkAttributionState when the reader changes any of them.
import { needsBuild } from './base/dom.js';
import type { TransformerQkAttributionTable } from '../web/headlab-core.js';
import { at, rowViews } from '../web/matrix.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  integer,
  integerAttribute,
  setNumberAttribute,
  text,
  type WidgetFigure,
  shownIn,
} from './base/headlab-element.js';
import { labelledSelect } from './base/dom.js';
import type { BoundComputing, BoundValue } from './chart/format.js';
import { formatNumber, formatPercent } from './chart/format.js';
import { divergingFill, rgbText } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { drawSceneInto } from './chart/scene.js';
import { setAttributeIfChanged, setText } from './chart/text.js';
import { drawnSvg, heatmapShapes, legendShapes } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { PromptField, TRANSFORMER_CSS, TransformerWidget, headName, promptText, tokenName } from './transformer/widget.js';

export interface QkAttributionState {
  prompt: number[];
  layer: number;
  head: number;
  /** The query position i. */
  position: number;
  /** The key position j ≤ i. */
  key: number;
  /** s_ij, the scaled score the parts sum to (null until computed). */
  score: number | null;
  /** The largest part by size: its sources (query side, key side), value and share of the score (part / s_ij). */
  dominant: { query: string; key: string; part: number; share: number } | null;
}

/** One cell's split, read from the table. */
interface Split {
  sources: string[];
  /** S rows of S parts: parts[a][b], query-side source a, key-side source b. */
  parts: Float64Array[];
  score: number;
  dominant: { a: number; b: number };
}

/** Rows of the table of largest parts. */
const PARTS_ROWS = 5;

/** Height of the legend under the grid (SVG units). */
const LEGEND_HEIGHT = 36;

/** The largest |part| of a split (at least 1e-12): the diverging scale's full colour. */
function partsLimit(split: Split): number {
  let limit = 1e-12;
  for (const row of split.parts) for (const v of row) limit = Math.max(limit, Math.abs(v));
  return limit;
}

/** A source in words, on one side of the score: "the token", "the position", "L0 H3's output", "the biases". */
export function sourceWords(source: string): string {
  if (source === 'embed') return 'the token';
  if (source === 'pos') return 'the position';
  if (source === 'bias') return 'the biases';
  const m = /^L(\d+)H(\d+)$/.exec(source);
  return m ? `${headName(Number(m[1]), Number(m[2]))}’s output` : source;
}

/** A source as a grid label: "token", "position", "L0 H3", "biases". */
function sourceLabel(source: string): string {
  if (source === 'embed') return 'token';
  if (source === 'pos') return 'position';
  if (source === 'bias') return 'biases';
  const m = /^L(\d+)H(\d+)$/.exec(source);
  return m ? headName(Number(m[1]), Number(m[2])) : source;
}

/** The parts build() makes (this.parts). */
interface QkAttributionParts {
  field: PromptField;
  headSelect: HTMLSelectElement;
  querySelect: HTMLSelectElement;
  keySelect: HTMLSelectElement;
  gridSlot: HTMLDivElement;
  captionLine: HTMLParagraphElement;
  tableBox: HTMLDivElement;
}

/**
 * Why a head attends where it does: the score from a query to a key split exactly into parts, one per
 * pair (query-side source, key-side source) of the residual stream (token, position, each earlier head,
 * biases; LayerNorm scale frozen), as a grid with the largest part named in words. Attributes: prompt,
 * layer (default the last), head (default 0), position (the query, default the last), key (default the
 * key with the largest score), attention (id of a headlab-transformer-attention whose clicked cell it
 * follows), model. Shared: prompt, layer, head, position, key. Bound values: score, share,
 * share.<query source>.<key source>, part.<query source>.<key source>.
 */
export class HeadlabQkAttribution extends TransformerWidget<QkAttributionState, QkAttributionParts> {
  static attributes = defineAttributes({
    prompt: text({ shared: true, doc: 'The prompt, as text the model’s tokenizer reads (default the model’s example).' }),
    layer: integer({
      fallback: (host): number => ((host as HeadlabQkAttribution).currentModel?.config.n_layers ?? 4) - 1,
      min: 0,
      max: (host): number => ((host as HeadlabQkAttribution).currentModel?.config.n_layers ?? 4) - 1,
      shared: true,
      doc: 'The layer, 0 to L − 1 (default the last).',
    }),
    head: integer({
      fallback: 0,
      min: 0,
      max: (host): number => ((host as HeadlabQkAttribution).currentModel?.config.n_heads ?? 64) - 1,
      shared: true,
      doc: 'The head, 0 to H − 1 (default 0).',
    }),
    position: text({ property: false, shared: true, markup: 'Num', doc: 'The query position (default the last).' }),
    key: text({ property: false, shared: true, markup: 'Num', doc: 'The key position, at most the query’s (default the most attended).' }),
    attention: text({ property: false, doc: 'Id of a <headlab-transformer-attention> whose selected cell the figure follows.' }),
  });
  protected static css = /* css */ `${TRANSFORMER_CSS}
    table.parts td, table.parts th { font-size: 0.85em; padding: 0.15rem 0.3rem; white-space: nowrap; }
    table.parts { min-width: min(100%, 20em); }
  `;
  private shown: {
    model: LoadedTransformer;
    tokens: number[];
    layer: number;
    head: number;
    position: number;
    key: number;
    split: Split;
    text: string;
    /** The inputs it answers (requestKey): a split shown for other inputs is not the figure's answer. */
    request: string;
  } | null = null;
  private following: AbortController | null = null;
  private followed: string | null = null;

  /** The query position: the attribute, at most the prompt's last (default the last). */
  private queryOf(T: number): number {
    return this.hasAttribute('position') ? Math.min(integerAttribute(this, 'position', T - 1, 0, 4095), T - 1) : T - 1;
  }

  /**
   * The inputs a split answers: the model shown and the attributes that choose the cell (the prompt
   * as written, layer, head, query and key). Read from the attributes, so it changes the moment one
   * is set (a followed click sets them and announces the change before the figure renders).
   */
  private requestKey(): string {
    const a = (name: string) => this.getAttribute(name) ?? '';
    return `${this.currentModel?.version ?? ''}|${a('prompt')}|${this.layer}.${this.head}|${a('position')}|${a('key')}`;
  }

  /**
   * The split shown, when it answers the current inputs; null while the worker computes the table
   * of a new prompt or head, or before the render that reads a new cell: the figure keeps drawing
   * the previous split under its "Computing…" caption, but its state and bound values say nothing
   * of it (a <headlab-value> bound to the figure shows "computing…", not the previous number).
   */
  private get answered(): NonNullable<HeadlabQkAttribution['shown']> | null {
    const s = this.shown;
    if (!s || this.computing) return null;
    try {
      return s.request === this.requestKey() ? s : null;
    } catch {
      // An invalid layer or head attribute (the figure shows why): no split answers it.
      return null;
    }
  }

  /** Whether the last render waited for the worker's table (the split shown is an earlier one). */
  private computing = false;

  protected readState(): QkAttributionState {
    const s = this.answered;
    const d = s ? s.split.dominant : null;
    return {
      prompt: s?.tokens ?? [],
      layer: this.layer,
      head: this.head,
      position: s?.position ?? -1,
      key: s?.key ?? -1,
      score: s?.split.score ?? null,
      dominant:
        s && d
          ? {
              query: s.split.sources[d.a],
              key: s.split.sources[d.b],
              part: s.split.parts[d.a][d.b],
              share: s.split.parts[d.a][d.b] / s.split.score,
            }
          : null,
    };
  }

  connectedCallback(): void {
    super.connectedCallback();
    this.follow();
  }

  disconnectedCallback(): void {
    this.following?.abort();
    this.following = null;
    super.disconnectedCallback();
  }

  /**
   * Follows the <headlab-transformer-attention> named by `attention`: a cell the reader clicks
   * there (its `change` carrying `cell`) becomes this figure's prompt, head, query and key.
   */
  private follow(): void {
    this.following?.abort();
    this.following = null;
    const id = this.getAttribute('attention');
    this.followed = id;
    if (!id) return;
    this.following = new AbortController();
    document.addEventListener(
      'change',
      (event) => {
        if ((event.target as Element | null)?.id !== id) return;
        const detail = (event as CustomEvent).detail as {
          prompt?: number[];
          position?: number;
          cell?: { layer: number; head: number; key: number } | null;
        };
        const model = this.currentModel;
        if (!detail?.cell || !model || !detail.prompt) return;
        // With a tokenizer the prompt is the attention figure's text (its encoding is the tokens;
        // the tokens' texts run together may encode otherwise), or the same default prompt.
        const typed = (event.target as Element).getAttribute('prompt');
        if (!model.tokenizer) this.setAttribute('prompt', promptText(model.config, detail.prompt));
        else if (typed !== null && typed.trim() !== '') this.setAttribute('prompt', typed);
        else this.removeAttribute('prompt');
        this.layer = detail.cell.layer;
        this.head = detail.cell.head;
        setNumberAttribute(this, 'position', detail.position ?? detail.prompt.length - 1);
        setNumberAttribute(this, 'key', detail.cell.key);
        this.emitChange();
      },
      { signal: this.following.signal },
    );
  }

  protected buildContent(content: HTMLDivElement): QkAttributionParts {
    const field = this.promptField('Prompt:');
    const controls = el('div', { class: 'controls' });
    const headSelect = labelledSelect(controls, 'Head', 'head');
    const querySelect = labelledSelect(controls, 'Query', 'position');
    const keySelect = labelledSelect(controls, 'Key', 'key');
    this.listen(headSelect, 'change', () => {
      const [l, h] = headSelect.value.split('.').map(Number);
      this.layer = l;
      this.head = h;
      this.removeAttribute('key');
      this.emitChange();
    });
    this.listen(querySelect, 'change', () => {
      this.setAttribute('position', querySelect.value);
      this.removeAttribute('key');
      this.emitChange();
    });
    this.listen(keySelect, 'change', () => {
      this.setAttribute('key', keySelect.value);
      this.emitChange();
    });
    const figure = el('div', { class: 'figure' });
    const gridSlot = el('div');
    const captionLine = el('p', { class: 'caption', 'aria-live': 'polite' });
    figure.append(gridSlot, captionLine);
    // Hidden until it holds a table: an empty scroll region would be a Tab stop (and a touch
    // target) of no size.
    const tableBox = el('div', {
      class: 'scroll',
      tabindex: '0',
      role: 'group',
      'aria-label': 'The largest parts of the score',
      hidden: '',
    });
    content.append(
      el('p', { class: 'title' }, 'Why a head attends there: its score split into query-side × key-side parts'),
      field.element,
      controls,
      figure,
      tableBox,
    );
    return { field, headSelect, querySelect, keySelect, gridSlot, captionLine, tableBox };
  }

  protected renderContent(model: LoadedTransformer): void {
    if (this.getAttribute('attention') !== this.followed) this.follow();
    this.parts.field.sync(model);
    const tokens = this.parts.field.tokens(model);
    const T = tokens.length;
    const { layer, head } = this;
    const position = this.queryOf(T);
    const table = this.qkTableInWorker(model, `${tokens.join(',')}|${layer}.${head}`, tokens, layer, head);
    this.fillSelects(model, tokens, position);
    this.computing = !table;
    if (!table) {
      const waiting = `Computing ${headName(layer, head)}’s score split on this prompt…`;
      if (this.parts.captionLine.textContent !== waiting) this.parts.captionLine.textContent = waiting;
      if (this.shown?.model !== model) this.show(this.parts.gridSlot, el('p', { class: 'waiting' }, waiting));
      return;
    }
    const key = this.keyOf(table, position);
    this.parts.keySelect.value = String(key);
    const split = this.splitOf(model, table, position, key);
    const name = (p: number) => `${tokenName(model.config, tokens[p])} (position ${p})`;
    const { a, b } = split.dominant;
    const part = split.parts[a][b];
    const text =
      `${headName(layer, head)}’s score from ${name(position)} to ${name(key)} is ${formatNumber(split.score, 3)}. ` +
      `${formatPercent(part / split.score)} of this score is ${sourceWords(split.sources[a])} at the query against ${sourceWords(split.sources[b])} at the key (${formatNumber(part, 3)}).`;
    this.shown = { model, tokens, layer, head, position, key, split, text, request: this.requestKey() };
    // One SVG for the grid, patched in place from one cell to the next (drawSceneInto's reuse: no new
    // nodes for a grid of the same sources).
    const grid = this.scene(split, false);
    const { gridSlot } = this.parts;
    const shownGrid = gridSlot.firstChild;
    const gridSvg = shownGrid instanceof SVGSVGElement ? shownGrid : drawnSvg(grid, false);
    if (gridSvg === shownGrid) drawSceneInto(gridSvg, grid, { reuse: true });
    if (gridSvg.getAttribute('aria-label') !== text) gridSvg.setAttribute('aria-label', text);
    // The legend, whose ends name this split's largest part: drawn once per width (and model and
    // colours: fragment()), then only its two end labels rewritten (a new ramp per cell cost as
    // much as the grid).
    const limit = partsLimit(split);
    const { left, width } = this.geometry(split.sources.length);
    const legend = this.fragment(model, `legend:${width}`, () => {
      const colours = this.themeColours();
      return drawnSvg({
        width,
        height: LEGEND_HEIGHT,
        background: rgbText(colours.panel),
        title: 'Scale of the parts',
        shapes: legendShapes(colours, left, 0, 'diverging', '−', '+', 'part of the score'),
      });
    });
    // legendShapes draws its texts in the order title, low end, high end.
    const [, low, high] = legend.querySelectorAll('text');
    setText(low, formatNumber(-limit, 2));
    setText(high, formatNumber(limit, 2));
    if (gridSlot.firstChild !== gridSvg || gridSlot.lastChild !== legend) gridSlot.replaceChildren(gridSvg, legend);
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
    this.parts.tableBox.hidden = false;
    this.fillPartsTable(split);
  }

  /** The key: the attribute (at most the query), else the key the head attends to most from the query (largest score). */
  private keyOf(table: TransformerQkAttributionTable, position: number): number {
    if (this.hasAttribute('key')) return Math.min(integerAttribute(this, 'key', 0, 0, 4095), position);
    let best = 0;
    for (let j = 1; j <= position; j++) if (at(table.scores, position, j) > at(table.scores, position, best)) best = j;
    return best;
  }

  /** The S × S parts of score (position, key), views of the table (no copy), and the largest by size. */
  private splitOf(model: LoadedTransformer, table: TransformerQkAttributionTable, position: number, key: number): Split {
    return this.cached(model, `split:${table.layer}.${table.head}|${position}|${key}|${table.positions}`, () => {
      const S = table.sources.length;
      const parts = rowViews(table.parts[position][key]);
      let dominant = { a: 0, b: 0 };
      for (let r = 0; r < S; r++)
        for (let c = 0; c < S; c++) if (Math.abs(parts[r][c]) > Math.abs(parts[dominant.a][dominant.b])) dominant = { a: r, b: c };
      return { sources: table.sources, parts, score: at(table.scores, position, key), dominant };
    });
  }

  private fillSelects(model: LoadedTransformer, tokens: number[], position: number): void {
    const { n_layers: L, n_heads: H } = model.config;
    const hKey = `${model.version}`;
    if (needsBuild(this.parts.headSelect, hKey)) {
      const options = [];
      for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) options.push(el('option', { value: `${l}.${h}` }, headName(l, h)));
      this.parts.headSelect.replaceChildren(...options);
    }
    this.parts.headSelect.value = `${this.layer}.${this.head}`;
    const pKey = `${model.version}|${tokens.join(',')}`;
    if (needsBuild(this.parts.querySelect, pKey)) {
      const options = () => tokens.map((t, p) => el('option', { value: String(p) }, `${p}: ${tokenName(model.config, t)}`));
      this.parts.querySelect.replaceChildren(...options());
      this.parts.keySelect.replaceChildren(...options());
    }
    this.parts.querySelect.value = String(position);
    // The keys of query i are positions 0..i (the causal mask): the later ones are disabled and
    // hidden, toggled rather than rebuilt as the query moves (a new list of options per query made
    // the page walk and style them anew on every step).
    const keys = this.parts.keySelect.options;
    for (let p = 0; p < keys.length; p++) {
      const off = p > position;
      if (keys[p].disabled !== off) {
        keys[p].disabled = off;
        keys[p].hidden = off;
      }
    }
  }

  /**
   * The five largest parts by size, with their share of the score: one table, its texts rewritten
   * in place from one cell to the next (a new table per cell made the page walk and style it anew).
   */
  private fillPartsTable(split: Split): void {
    const S = split.sources.length;
    const cells: { a: number; b: number; v: number }[] = [];
    for (let a = 0; a < S; a++) for (let b = 0; b < S; b++) cells.push({ a, b, v: split.parts[a][b] });
    cells.sort((x, y) => Math.abs(y.v) - Math.abs(x.v));
    const shown = cells.slice(0, PARTS_ROWS);
    let table = shownIn(this.parts.tableBox, HTMLTableElement);
    if (!table || table.tBodies[0].rows.length !== shown.length) {
      table = el('table', { class: 'parts compact' });
      table.createCaption();
      const head = table.createTHead().insertRow();
      for (const t of ['query', 'key', 'part', 'share']) head.append(el('th', { scope: 'col' }, t));
      const body = table.createTBody();
      for (let r = 0; r < shown.length; r++)
        body.insertRow().append(el('th', { scope: 'row' }), el('td'), el('td', { class: 'num' }), el('td', { class: 'num' }));
      this.show(this.parts.tableBox, table);
    }
    // Short: the caption is as wide as the table's four narrow columns, which say the rest.
    setText(table.caption!, `Largest parts of the score ${formatNumber(split.score, 3)} (all ${S * S} sum to it)`);
    shown.forEach((c, r) => {
      const row = table.tBodies[0].rows[r].cells;
      setText(row[0], sourceLabel(split.sources[c.a]));
      setText(row[1], sourceLabel(split.sources[c.b]));
      setText(row[2], formatNumber(c.v, 3));
      setAttributeIfChanged(row[2], 'data-value', String(c.v));
      setText(row[3], formatPercent(c.v / split.score));
    });
  }

  /** Where the S × S grid sits. */
  private geometry(S: number): { cell: number; left: number; top: number; width: number; gridHeight: number } {
    const cell = Math.max(14, Math.min(40, Math.floor(260 / S)));
    const left = 70,
      top = 78;
    return { cell, left, top, width: Math.max(left + S * cell + 8, 300), gridHeight: top + S * cell + 8 };
  }

  /** The grid: rows = query-side source, columns = key-side source, each cell its part (and the legend below: the exported figure). */
  private scene(split: Split, legend = true): Scene {
    const c = this.themeColours();
    const S = split.sources.length;
    const { cell, left, top, width, gridHeight } = this.geometry(S);
    const limit = partsLimit(split);
    const shapes: Shape[] = [
      { kind: 'text', x: 4, y: 12, text: 'row: read at the query · column: at the key', fill: rgbText(c.muted), size: 11 },
      ...heatmapShapes(c, {
        values: split.parts,
        x: left,
        y: top,
        cell,
        scale: 'diverging',
        limit,
        outlineRow: split.dominant.a,
        outlineCol: split.dominant.b,
        data: (r, k) => ({ query: split.sources[r], key: split.sources[k] }),
      }),
    ];
    // Each part's value in its cell, one decimal (two would touch their neighbours in a 37-unit cell).
    if (cell >= 28) {
      split.parts.forEach((row, r) =>
        row.forEach((v, k) => {
          const fill = rgbText(divergingFill(c, v, limit).text);
          shapes.push({
            kind: 'text',
            x: left + k * cell + cell / 2,
            y: top + r * cell + cell / 2,
            text: formatNumber(v, 1),
            fill,
            size: 10,
            anchor: 'middle',
          });
        }),
      );
    }
    split.sources.forEach((s, i) => {
      shapes.push({
        kind: 'text',
        x: left - 4,
        y: top + i * cell + cell / 2,
        text: sourceLabel(s),
        fill: rgbText(c.fg),
        size: 10,
        anchor: 'end',
      });
      shapes.push({
        kind: 'text',
        x: left + i * cell + cell / 2,
        y: top - 6,
        text: sourceLabel(s),
        fill: rgbText(c.fg),
        size: 10,
        anchor: 'start',
        rotate: -60,
      });
    });
    if (!legend) return { width, height: gridHeight, background: rgbText(c.panel), title: 'QK attribution', shapes };
    shapes.push(...legendShapes(c, left, gridHeight, 'diverging', formatNumber(-limit, 2), formatNumber(limit, 2), 'part of the score'));
    return { width, height: gridHeight + LEGEND_HEIGHT, background: rgbText(c.panel), title: 'QK attribution', shapes };
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  /**
   * Numbers for <headlab-value source="<this id>">: `score` (s_ij), `share` (the largest part / s_ij),
   * `share.<query source>.<key source>` (that pair's part / s_ij, sources as the core names them:
   * embed, pos, L0H3, bias), `part.<query source>.<key source>`, `dominant.{query,key}.{layer,head}`
   * (the head on that side of the largest part; none when that source is not a head).
   */
  boundValue(name: string): BoundValue | BoundComputing | undefined {
    const s = this.answered;
    // A split shown for other inputs: the new one is being computed (the prose says so, not the old number).
    if (!s) return this.shown ? { computing: true } : undefined;
    const { sources, parts, score, dominant } = s.split;
    if (name === 'score') return { value: score, kind: 'number' };
    if (name === 'share') return { value: parts[dominant.a][dominant.b] / score, kind: 'fraction' };
    const side = /^dominant\.(query|key)\.(layer|head)$/.exec(name);
    if (side) {
      const head = /^L(\d+)H(\d+)$/.exec(sources[side[1] === 'query' ? dominant.a : dominant.b]);
      return head ? { value: Number(head[side[2] === 'layer' ? 1 : 2]), kind: 'count' } : undefined;
    }
    const m = /^(share|part)\.(\w+)\.(\w+)$/.exec(name);
    if (!m) return undefined;
    const a = sources.indexOf(m[2]),
      b = sources.indexOf(m[3]);
    if (a < 0 || b < 0) return undefined;
    return m[1] === 'share' ? { value: parts[a][b] / score, kind: 'fraction' } : { value: parts[a][b], kind: 'number' };
  }

  /** The state with the core's numbers behind the figure (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    if (state === null) return null;
    const s = this.answered;
    if (!s) return null;
    return { ...state, sources: s.split.sources, parts: s.split.parts };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'parts',
        label: 'Score split into parts',
        scene: () => this.scene(this.exportable(this.shown).split),
      },
    ];
  }
}

export interface HeadlabQkAttribution extends AttributeProperties<typeof HeadlabQkAttribution.attributes> {}
