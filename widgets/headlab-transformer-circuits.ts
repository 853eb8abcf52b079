// <headlab-transformer-circuits model="m">: a head's QK and OV circuits in token space, along the
// direct path from the embedding (positional embedding, LayerNorm and biases left out, as
// TransformerLens's FactoredMatrix circuits; core/transformer_analysis.hpp):
//   QK = W_E W_Q^h (W_E W_K^h)ᵀ  (query token × key token: how much a query token wants each key token)
//   OV = W_E W_V^h W_O^h W_U     (attended token × output token: what attending to a token writes to each logit)
// as V × V heatmaps on the diverging scale. An OV circuit with a bright diagonal copies the token
// it attends to (what an induction head needs). A V × V picture is legible only for small
// vocabularies: above LEGIBLE_VOCAB tokens the widget says so and offers the numbers as JSON.
//
// Attributes: model, layer (default the last), head (default 0), circuit ("qk" | "ov", default "ov").
// Events: `change` with { layer, head, circuit, diagonal_share } when the reader changes any of them.
import type { Matrix, TransformerAnalysis } from '../web/headlab-core.js';
import { asRows, at, rowViews } from '../web/matrix.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  integer,
  oneOf,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { labelledSelect } from './base/dom.js';
import { formatCount, formatNumber } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import {
  GridCursor,
  LayeredFigure,
  PixelHeatmaps,
  divergingWord,
  drawnSvg,
  heatmapShapes,
  legendShapes,
  outlineShapes,
} from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { TRANSFORMER_CSS, TransformerWidget, headName, tokenName } from './transformer/widget.js';

/** Largest vocabulary drawn as a heatmap: 64 × 64 cells of at least 5 px fit a 360 px screen. */
export const LEGIBLE_VOCAB = 64;

export type CircuitKind = 'qk' | 'ov';

export interface TransformerCircuitsState {
  layer: number;
  head: number;
  circuit: CircuitKind;
  /**
   * Fraction of rows whose largest entry is on the diagonal (OV: the attended token's own logit
   * rises most, i.e. the head copies; QK: a token attends most to itself). Null before loading.
   */
  diagonal_share: number | null;
}

/** The parts build() makes (this.parts). */
interface TransformerCircuitsParts {
  figure: LayeredFigure;
  layerSelect: HTMLSelectElement;
  headSelect: HTMLSelectElement;
  kindSelect: HTMLSelectElement;
  svgBox: HTMLDivElement;
  legendSlot: HTMLDivElement;
  readout: HTMLParagraphElement;
  captionLine: HTMLParagraphElement;
}

/** A head's QK and OV circuits in token space as a heatmap (vocabularies up to 64 tokens; larger ones: the numbers as JSON). Attributes: layer (default the last), head (default 0), circuit ("qk" | "ov", default "ov"), model. Shared: layer, head, circuit. */
export class HeadlabTransformerCircuits extends TransformerWidget<TransformerCircuitsState, TransformerCircuitsParts> {
  static attributes = defineAttributes({
    layer: integer({
      fallback: (host): number => ((host as HeadlabTransformerCircuits).currentModel?.config.n_layers ?? 4) - 1,
      min: 0,
      max: (host): number => ((host as HeadlabTransformerCircuits).currentModel?.config.n_layers ?? 4) - 1,
      shared: true,
      doc: 'The layer, 0 to L − 1 (default the last).',
    }),
    head: integer({
      fallback: 0,
      min: 0,
      max: (host): number => ((host as HeadlabTransformerCircuits).currentModel?.config.n_heads ?? 64) - 1,
      shared: true,
      doc: 'The head, 0 to H − 1 (default 0).',
    }),
    circuit: oneOf(['qk', 'ov'], { fallback: 'ov', shared: true, doc: 'The circuit shown: QK or OV.' }),
  });
  protected static css = TRANSFORMER_CSS;
  /** The heatmap as pixels (PixelHeatmaps): a head or circuit chosen repaints 1,024 cells (V = 32) instead of inserting a drawing of 1,024 nodes. */
  private readonly pixels = new PixelHeatmaps();
  private painted: { matrix: Matrix; colours: unknown } | null = null;
  private readonly cursor = new GridCursor(
    this.pixels,
    () => {
      const V = this.shown?.matrix?.rows ?? 0;
      return V === 0 ? null : { rows: V, cols: V, ...this.geometry(V) };
    },
    () => this.requestRender(),
  );
  private shown: {
    model: LoadedTransformer;
    matrix: Matrix | null;
    layer: number;
    head: number;
    circuit: CircuitKind;
    diagonal: number | null;
    text: string;
  } | null = null;
  private selectsFor = '';

  protected readState(): TransformerCircuitsState {
    return { layer: this.layer, head: this.head, circuit: this.circuit, diagonal_share: this.shown?.diagonal ?? null };
  }

  protected buildContent(content: HTMLDivElement): TransformerCircuitsParts {
    const controls = el('div', { class: 'controls' });
    const layerSelect = labelledSelect(controls, 'Layer', 'layer');
    const headSelect = labelledSelect(controls, 'Head', 'head');
    const kindSelect = labelledSelect(controls, 'Circuit', 'circuit', [
      ['ov', 'OV (what it writes)'],
      ['qk', 'QK (where it looks)'],
    ]);
    this.listen(layerSelect, 'change', () => {
      this.layer = Number(layerSelect.value);
      this.emitChange();
    });
    this.listen(headSelect, 'change', () => {
      this.head = Number(headSelect.value);
      this.emitChange();
    });
    this.listen(kindSelect, 'change', () => {
      this.circuit = kindSelect.value as CircuitKind;
      this.emitChange();
    });
    const figureBox = el('div', { class: 'figure' });
    const figure = new LayeredFigure(true);
    const readout = el('p', { class: 'readout', 'aria-live': 'polite' });
    const captionLine = el('p', { class: 'caption' });
    const svgBox = el('div');
    const legendSlot = el('div', { class: 'legend' });
    svgBox.append(figure.element, legendSlot, readout);
    figureBox.append(svgBox, captionLine);
    content.append(el('p', { class: 'title' }, 'A head’s circuits in token space'), controls, figureBox);
    this.cursor.follow(figure.element, (target, type, handler) => this.listen(target, type, handler));
    return { figure, layerSelect, headSelect, kindSelect, svgBox, legendSlot, readout, captionLine };
  }

  private fillSelects(model: LoadedTransformer): void {
    const key = `${model.version}`;
    if (this.selectsFor === key) return;
    this.selectsFor = key;
    this.parts.layerSelect.replaceChildren(
      ...Array.from({ length: model.config.n_layers }, (_, l) => el('option', { value: String(l) }, String(l))),
    );
    this.parts.headSelect.replaceChildren(
      ...Array.from({ length: model.config.n_heads }, (_, h) => el('option', { value: String(h) }, String(h))),
    );
  }

  protected renderContent(model: LoadedTransformer): void {
    this.fillSelects(model);
    const { layer, head, circuit } = this;
    this.parts.layerSelect.value = String(layer);
    this.parts.headSelect.value = String(head);
    this.parts.kindSelect.value = circuit;
    const V = model.config.d_vocab;
    const legible = V <= LEGIBLE_VOCAB;
    this.parts.svgBox.hidden = !legible;
    if (!legible) {
      const text =
        `This model's vocabulary has ${formatCount(V)} tokens: a ${V} × ${V} heatmap of ${headName(layer, head)}'s ${circuit.toUpperCase()} circuit would not be legible here (up to ${LEGIBLE_VOCAB} tokens are drawn).` +
        (V <= 512
          ? " A page script reads the numbers from the element's figureData."
          : ' The core computes circuits for vocabularies up to 512 tokens.');
      // Up to 512 tokens the worker computes the circuits for figureData (a page script's numbers).
      const matrix = V <= 512 ? (this.circuitsOf(model)?.circuits?.[circuit][layer][head] ?? null) : null;
      this.shown = { model, matrix, layer, head, circuit, diagonal: null, text };
      if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
      this.parts.captionLine.classList.add('unavailable');
      return;
    }
    this.parts.captionLine.classList.remove('unavailable');
    // Every head's circuits at once (L·H·2·V² numbers, computed once per model in the worker); the prompt does not enter.
    const analysis = this.circuitsOf(model);
    if (!analysis) {
      this.shown = null;
      this.parts.svgBox.hidden = true;
      if (this.parts.captionLine.textContent !== WAITING) this.parts.captionLine.textContent = WAITING;
      return;
    }
    this.parts.svgBox.hidden = false;
    const circuits = analysis.circuits!;
    const matrix = circuits[circuit][layer][head];
    const diagonal = rowViews(matrix).filter((row, r) => row.every((v, c) => v <= row[r] || c === r)).length / V;
    const name = (t: number) => tokenName(model.config, t);
    const text =
      circuit === 'ov'
        ? `${headName(layer, head)}'s OV circuit: for ${formatNumber(diagonal * 100, 0)}% of the ${V} tokens, attending to the token raises its own logit more than any other (${diagonal > 0.5 ? 'a copying head' : 'not a copying head'}).`
        : `${headName(layer, head)}'s QK circuit: for ${formatNumber(diagonal * 100, 0)}% of the ${V} query tokens, the key token they score highest is themselves.`;
    this.shown = { model, matrix, layer, head, circuit, diagonal, text };
    this.cursor.clamp(V, V);
    // The cells are pixels of one canvas, repainted when the head or circuit changes; the title,
    // the token labels and the outlined cell (following the pointer and the arrow keys) are the
    // overlay's SVG; the legend, whose ends name this matrix's largest |entry|, is drawn below.
    const g = this.geometry(V);
    const colours = this.themeColours();
    const limit = matrixLimit(matrix);
    const sized = this.pixels.layout(`${V}`, g.width, g.heatHeight, [{ x: g.left, y: g.top, rows: V, cols: V, cell: g.cell }]);
    if (sized || this.painted?.matrix !== matrix || this.painted.colours !== colours) {
      this.pixels.paint(0, (_, r, k) => divergingWord(colours, at(matrix, r, k), limit));
      this.painted = { matrix, colours };
    }
    this.parts.figure.setBase(this.pixels.canvas);
    this.parts.figure.drawOverlay(g.width, g.heatHeight, [
      ...this.labelShapes(model, layer, head, circuit),
      ...outlineShapes(colours, g.left, g.top, g.cell, V, V, this.cursor.row, this.cursor.col),
    ]);
    this.show(
      this.parts.legendSlot,
      this.fragment(model, `legend:${layer}.${head}.${circuit}`, () =>
        drawnSvg({
          width: g.width,
          height: LEGEND_HEIGHT,
          background: rgbText(colours.panel),
          title: 'Circuit scale',
          shapes: legendShapes(
            colours,
            g.left,
            0,
            'diverging',
            formatNumber(-limit, 2),
            formatNumber(limit, 2),
            circuit === 'ov' ? 'logit written' : 'score',
          ),
        }),
      ),
    );
    this.parts.figure.label(`${text} Arrow keys move through the cells.`);
    const v = at(matrix, this.cursor.row, this.cursor.col);
    const readout =
      circuit === 'ov'
        ? `Attending to ${name(this.cursor.row)} writes ${formatNumber(v, 4)} to the logit of ${name(this.cursor.col)}.`
        : `Query ${name(this.cursor.row)} scores key ${name(this.cursor.col)} at ${formatNumber(v, 4)} (before the 1/√d_head scale).`;
    if (this.parts.readout.textContent !== readout) this.parts.readout.textContent = readout;
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
  }

  /** Every head's circuits of `model` from the worker (null until they arrive; the figure then renders again). */
  private circuitsOf(model: LoadedTransformer): TransformerAnalysis | null {
    return this.analyzedInWorker(model, 'circuits', CIRCUITS_REQUEST);
  }

  /**
   * A prerendered snapshot stays until the circuits it shows are back from the worker (asked for
   * here: the render that replaces the snapshot follows their arrival), so the figure never
   * flashes empty while the worker starts.
   */
  protected snapshotReplaceable(): boolean {
    if (!super.snapshotReplaceable()) return false;
    const model = this.currentModel;
    return model === null || model.config.d_vocab > LEGIBLE_VOCAB || this.circuitsOf(model) !== null;
  }

  /** Where the V × V heatmap sits (heatHeight: the heatmap with its labels, above the legend). */
  private geometry(V: number): { cell: number; left: number; top: number; width: number; height: number; heatHeight: number } {
    // Up to 24 units a cell: a small named vocabulary (the max-digit model's 14 tokens, PAD to
    // ANS) gets a label on every row and column (labels need 16 units; at 14 every other one was
    // left out, ANS among them).
    const cell = Math.max(5, Math.min(24, Math.floor(420 / V)));
    const left = 30,
      top = this.columnLabelsTurned(V, cell) ? 60 : 30;
    const heatHeight = top + V * cell + 8;
    return { cell, left, top, width: Math.max(left + V * cell + 8, 300), height: heatHeight + LEGEND_HEIGHT, heatHeight };
  }

  /**
   * Whether the column labels are turned (−60°): every column labelled (cells of 16 units or more)
   * and some name longer than two characters (PAD, BOS, SEP, ANS ran together level).
   */
  private columnLabelsTurned(V: number, cell: number): boolean {
    const config = this.currentModel?.config;
    if (!config || cell < 16) return false;
    for (let t = 0; t < V; t++) if (tokenName(config, t).length > 2) return true;
    return false;
  }

  /** The title and the token labels (the text of scene(), drawn in the overlay). */
  private labelShapes(model: LoadedTransformer, layer: number, head: number, circuit: CircuitKind): Shape[] {
    return this.cachedThemed(model, `labels:${layer}.${head}.${circuit}`, () => {
      const V = model.config.d_vocab;
      return this.scene(model, { rows: V, cols: V, data: new Float64Array(V * V) }, layer, head, circuit, false).shapes.filter(
        (x) => x.kind === 'text' && x.y < this.geometry(V).heatHeight,
      );
    });
  }

  /** The heatmap (with the outlined cell: the exported figure). */
  private scene(model: LoadedTransformer, matrix: Matrix, layer: number, head: number, circuit: CircuitKind, cursor = true): Scene {
    const c = this.themeColours();
    const V = matrix.rows;
    const { cell, left, top, width } = this.geometry(V);
    const limit = matrixLimit(matrix);
    const shapes: Shape[] = [
      {
        kind: 'text',
        x: 4,
        y: 10,
        text: `${headName(layer, head)} ${circuit.toUpperCase()}: ${circuit === 'ov' ? 'attended token ↓ · output logit →' : 'query token ↓ · key token →'}`,
        fill: rgbText(c.muted),
        size: 11,
      },
      ...heatmapShapes(c, {
        values: matrix,
        x: left,
        y: top,
        cell,
        scale: 'diverging',
        limit,
        ...(cursor ? { outlineRow: this.cursor.row, outlineCol: this.cursor.col } : {}),
        data: (r, k) => ({ row: String(r), col: String(k) }),
      }),
    ];
    // A label every `step` tokens: two-digit ids need about 16 units.
    const step = cell >= 16 ? 1 : Math.ceil(16 / cell);
    const turned = this.columnLabelsTurned(V, cell);
    for (let t = 0; t < V; t += step) {
      shapes.push({
        kind: 'text',
        x: left - 3,
        y: top + t * cell + cell / 2,
        text: tokenName(model.config, t),
        fill: rgbText(c.muted),
        size: 8,
        anchor: 'end',
      });
      shapes.push({
        kind: 'text',
        x: left + t * cell + cell / 2,
        y: top - 6,
        text: tokenName(model.config, t),
        fill: rgbText(c.muted),
        size: 8,
        ...(turned ? { anchor: 'start' as const, rotate: -60 } : { anchor: 'middle' as const }),
      });
    }
    const height = top + V * cell + 8;
    shapes.push(
      ...legendShapes(
        c,
        left,
        height,
        'diverging',
        formatNumber(-limit, 2),
        formatNumber(limit, 2),
        circuit === 'ov' ? 'logit written' : 'score',
      ),
    );
    return { width, height: height + 36, background: rgbText(c.panel), title: `${circuit.toUpperCase()} circuit`, shapes };
  }

  protected describe(): string {
    return this.shown?.text ?? WAITING;
  }

  /** The state with the core's numbers behind the figure (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    if (!this.shown || state === null) return null;
    return { ...state, matrix: asRows(this.shown.matrix) };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'circuit',
        label: 'Circuit heatmap',
        scene: () => {
          const s = this.exportable(this.shown);
          if (!s.matrix || s.model.config.d_vocab > LEGIBLE_VOCAB)
            throw new WidgetInputError('this vocabulary is too large for a legible heatmap');
          return this.scene(s.model, s.matrix, s.layer, s.head, s.circuit);
        },
      },
    ];
  }
}

/** The core's circuits of every head (a one-token prompt: circuits do not depend on it; one repeated sequence for the parts not shown). */
const CIRCUITS_REQUEST = { prompt: [0], circuits: true, sequences: 1 };

/** Height of the legend under the heatmap (SVG units). */
const LEGEND_HEIGHT = 36;

/** The largest |entry| of `matrix` (at least 1e-12): the diverging scale's full colour. */
function matrixLimit(matrix: Matrix): number {
  let limit = 1e-12;
  for (const v of matrix.data) limit = Math.max(limit, Math.abs(v));
  return limit;
}

/** The caption while the circuits are in the worker. */
const WAITING = 'Computing every head’s QK and OV circuits…';

export interface HeadlabTransformerCircuits extends AttributeProperties<typeof HeadlabTransformerCircuits.attributes> {}
