// <headlab-path-patching model="m" input="k">: which head talks to which, and through which input.
// Over a batch of prompt pairs (generated: pairs-task, count, pairs-seed; or a pairs file: pairs), path patching changes one
// sender head's output only on its path into one later receiver head's query, key or value input
// (every other path frozen at the clean run) and measures the effect on the logit difference,
//   effect = 1 − (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted)
// per pair (core/path_patching.hpp): 0 when the path carries nothing, 1 when it carries the whole
// difference. The figure is one grid for the input the reader chooses: a row per sender head, a
// column per receiver head, each cell the mean effect over the pairs on a diverging scale; a
// diagonal stroke marks a cell whose bootstrap 95 % interval crosses 0. A sender in the same layer
// as the receiver or after it has no path: its cell is masked.
//
// The document is computed once per batch in the worker (task
// 'transformer-path-patching', one call); choosing another input or cell only reads it.
//
// Attributes: model, input ("q" | "k" | "v"; default the input holding the largest mean effect),
// sender and receiver (the cell read out, as layer.head; default the input's largest effect),
// pairs-task ("induction" | "max-digit", default induction), count (1 to 1024, default 64),
// pairs-seed (default 0), or pairs (a prompt-pairs file, formats/prompt_pairs.hpp, instead of the
// three; never taken from the URL hash). Events: `change` with PathPatchingState when the reader moves or switches.
// Bound values (boundValue, for <headlab-value>): largest.{mean,lower,upper,p_value} and
// largest.{sender,receiver}.{layer,head}: the path of the largest mean effect over every input.
import type { TransformerPathPatchingFile } from '../web/headlab-core.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  oneOf,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import type { BoundComputing, BoundValue } from './chart/format.js';
import { formatNumber } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { crossesZero, drawIntoPlot, heatmapShapes, legendShapes } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { batchAttributes, fixed, pairsBatch, PairsFileReader, WorkerRefusals, type PairsBatch } from './transformer/batch.js';
import { TRANSFORMER_CSS, TransformerWidget, headName } from './transformer/widget.js';

/** The receiver's input an edge reaches: its queries, keys or values. */
export type PathPatchingInput = 'q' | 'k' | 'v';
const INPUTS: readonly PathPatchingInput[] = ['q', 'k', 'v'];
const INPUT_WORD: Record<PathPatchingInput, string> = { q: 'query', k: 'key', v: 'value' };

export interface PathPatchingState {
  /** The generated batch's task, pairs and seed (null with a pairs file). */
  pairs_task: 'induction' | 'max-digit' | null;
  count: number | null;
  pairs_seed: number | null;
  /** The pairs file as the attribute names it (null for generated pairs). */
  pairs: string | null;
  /** The receiver's input the grid shows. */
  input: PathPatchingInput;
  /** The cell read out: sender and receiver [layer, head] (null before the document arrives). */
  sender: [number, number] | null;
  receiver: [number, number] | null;
  /** That edge's mean effect with its bootstrap 95 % interval and p-value (null before the document arrives). */
  effect: { mean: number; lower: number; upper: number; p_value: number } | null;
}

/** A head from `layer.head` text, or null for text that is not one. */
function parseHead(text: string): [number, number] | null {
  const m = /^(\d{1,4})\.(\d{1,4})$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** The smallest of 0.05, 0.1, 0.2, 0.5, 1, 2, … at or above `v`: the colour scale's full-colour limit. */
function niceLimit(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].map((m) => m * p).find((s) => s >= v * (1 - 1e-12)) ?? 10 * p) as number;
}

/** The edges of a document indexed by "sl.sh>rl.rh" → e. */
function edgeIndex(doc: TransformerPathPatchingFile): Map<string, number> {
  return new Map(doc.edges.map(([sl, sh, rl, rh], e) => [`${sl}.${sh}>${rl}.${rh}`, e]));
}

// The grid's geometry (SVG units): labels left and above, square cells.
const LEFT = 52;
const TOP = 62;
const CELL = 30;
const RIGHT = 10;

/** The parts build() makes (this.parts). */
interface PathPatchingParts {
  inputBox: HTMLFieldSetElement;
  plot: HTMLDivElement;
  readout: HTMLParagraphElement;
  captionLine: HTMLParagraphElement;
}

/**
 * Path patching over a batch of prompt pairs: one grid per receiver input (q, k or v, chosen
 * by the reader), a row per sender head and a column per later receiver head, each cell the mean effect
 * of changing the sender's output only on that path; a diagonal stroke where the bootstrap 95 %
 * interval crosses 0. Attributes: input ("q" | "k" | "v"; default the input of the largest effect),
 * sender, receiver (the cell read out, layer.head; default the input's largest effect), pairs-task,
 * count, pairs-seed (or pairs: a prompt-pairs file's location), model. Shared: input, sender, receiver, pairs-task, count, pairs-seed.
 * figureData.path_patching is `headlab model analyze --path-patching`'s document. Bound values (of the
 * path with the largest mean effect over every input): largest.mean, largest.lower, largest.upper,
 * largest.p_value, largest.sender.layer, largest.sender.head, largest.receiver.layer, largest.receiver.head.
 */
export class HeadlabPathPatching extends TransformerWidget<PathPatchingState, PathPatchingParts> {
  static attributes = defineAttributes({
    input: oneOf(['q', 'k', 'v'], {
      property: false,
      fallback: 'q',
      shared: true,
      doc: 'The receiver’s input the edges reach (default the input of the largest effect).',
    }),
    sender: text({ property: false, shared: true, doc: 'The sender head, "layer.head".' }),
    receiver: text({ property: false, shared: true, doc: 'The receiver head, "layer.head".' }),
    ...batchAttributes(true),
  });
  protected static css = /* css */ `${TRANSFORMER_CSS}
    .inputs { display: flex; flex-wrap: wrap; gap: 0.2rem 1rem; border: 0; padding: 0; margin: 0.3rem 0; }
    .inputs legend { padding: 0; }
    .inputs label { display: inline-flex; gap: 0.35rem; align-items: center; min-height: 2.75rem; }
    .inputs input { width: 1.2rem; height: 1.2rem; accent-color: var(--hl-focus); }
    .grid { max-width: 420px; min-width: min(100%, 260px); touch-action: manipulation; }
    .grid svg { display: block; width: 100%; height: auto; }
    .grid:focus-visible { outline: 3px solid var(--hl-focus); outline-offset: 2px; }
  `;
  private shown: { doc: TransformerPathPatchingFile; model: LoadedTransformer; key: string; edges: Map<string, number> } | null = null;
  /** The core's message for each batch or request the worker refused. */
  private readonly refusals = new WorkerRefusals();
  private readonly pairsFile = new PairsFileReader(() => this.requestRender());

  /** The batch from the attributes (pairsBatch), keyed for the worker's cache. */
  private batch(): PairsBatch {
    const b = pairsBatch(this, this.pairsFile);
    return { ...b, key: `path:${b.key}` };
  }

  /** The input shown: the attribute, else (with a document) the input of the largest |mean|, else k. */
  private inputOf(doc: TransformerPathPatchingFile | null): PathPatchingInput {
    const raw = (this.getAttribute('input') ?? '').trim();
    if (raw !== '') {
      if ((INPUTS as readonly string[]).includes(raw)) return raw as PathPatchingInput;
      throw new WidgetInputError(`attribute input="${raw.length > 20 ? `${raw.slice(0, 20)}…` : raw}" must be q, k or v`);
    }
    if (!doc || doc.edges.length === 0) return 'k';
    let best: [number, number] = [0, 1];
    doc.mean.forEach((row, e) =>
      row.forEach((v, k) => {
        if (Math.abs(v) > Math.abs(doc.mean[best[0]][best[1]])) best = [e, k];
      }),
    );
    return INPUTS[best[1]];
  }

  /** A head attribute (sender or receiver), checked against the model; null without it. */
  private headAttribute(name: 'sender' | 'receiver', model: LoadedTransformer | null): [number, number] | null {
    const raw = this.getAttribute(name);
    if (raw === null || raw.trim() === '') return null;
    const head = parseHead(raw);
    const shown = raw.length > 20 ? `${raw.slice(0, 20)}…` : raw;
    if (!head) throw new WidgetInputError(`attribute ${name}="${shown}" is not a layer.head pair such as 0.1`);
    if (model && (head[0] >= model.config.n_layers || head[1] >= model.config.n_heads))
      throw new WidgetInputError(
        `attribute ${name}="${shown}": the model has no head ${raw.trim()} (${model.config.n_layers} layers × ${model.config.n_heads} heads, numbered from 0)`,
      );
    return head;
  }

  /** The edge read out: the attributes' (when a path joins them), else the shown input's largest |mean|. */
  private edgeOf(s: NonNullable<typeof this.shown>, input: PathPatchingInput): number {
    const k = INPUTS.indexOf(input);
    const sender = this.headAttribute('sender', s.model),
      receiver = this.headAttribute('receiver', s.model);
    if (sender && receiver) {
      const e = s.edges.get(`${sender[0]}.${sender[1]}>${receiver[0]}.${receiver[1]}`);
      if (e === undefined)
        throw new WidgetInputError(
          `no path from ${headName(sender[0], sender[1])} to ${headName(receiver[0], receiver[1])}: a sender's layer must come before its receiver's`,
        );
      return e;
    }
    let best = 0;
    s.doc.mean.forEach((row, e) => {
      if (Math.abs(row[k]) > Math.abs(s.doc.mean[best][k])) best = e;
    });
    return best;
  }

  /** Rows (senders: layers 0 … L−2) and columns (receivers: layers 1 … L−1) of the grid. */
  private axes(model: LoadedTransformer): { senders: [number, number][]; receivers: [number, number][] } {
    const { n_layers: L, n_heads: H } = model.config;
    const senders: [number, number][] = [],
      receivers: [number, number][] = [];
    for (let l = 0; l + 1 < L; l++) for (let h = 0; h < H; h++) senders.push([l, h]);
    for (let l = 1; l < L; l++) for (let h = 0; h < H; h++) receivers.push([l, h]);
    return { senders, receivers };
  }

  protected readState(): PathPatchingState {
    const b = this.batch();
    const model = this.currentModel;
    const s = model && this.shown?.model === model && this.shown.key === b.key ? this.shown : null;
    const input = this.inputOf(s?.doc ?? null);
    if (!s) {
      // Checked even before the document: a bad sender or receiver is named at once.
      this.headAttribute('sender', model);
      this.headAttribute('receiver', model);
      return { pairs_task: b.task, count: b.count, pairs_seed: b.seed, pairs: b.file, input, sender: null, receiver: null, effect: null };
    }
    const e = this.edgeOf(s, input);
    const k = INPUTS.indexOf(input);
    const [sl, sh, rl, rh] = s.doc.edges[e];
    return {
      pairs_task: b.task,
      count: b.count,
      pairs_seed: b.seed,
      pairs: b.file,
      input,
      sender: [sl, sh],
      receiver: [rl, rh],
      effect: { mean: s.doc.mean[e][k], lower: s.doc.lower[e][k], upper: s.doc.upper[e][k], p_value: s.doc.p_value[e][k] },
    };
  }

  protected buildContent(content: HTMLDivElement): PathPatchingParts {
    // A new plot (the figure built anew, e.g. attached again): its drawing is made anew too, not patched into the old one.
    const inputBox = el('fieldset', { class: 'inputs' });
    inputBox.append(el('legend', {}, 'Into the receiver’s'));
    for (const input of INPUTS) {
      const label = el('label');
      const radio = el('input', { type: 'radio', name: 'input', value: input });
      this.listen(radio, 'change', () => {
        this.setAttribute('input', input);
        // The cell read out follows the input's own largest effect.
        this.removeAttribute('sender');
        this.removeAttribute('receiver');
        this.emitChange();
      });
      label.append(radio, `${INPUT_WORD[input]} (${input})`);
      inputBox.append(label);
    }
    // Focusable once it holds a drawing (an empty box is no target for a finger or the Tab key).
    const plot = el('div', { class: 'grid', role: 'group' });
    const readout = el('p', { class: 'readout', 'aria-live': 'polite' });
    const captionLine = el('p', { class: 'caption' });
    const figure = el('div', { class: 'figure' });
    figure.append(plot, readout, captionLine);
    content.append(el('p', { class: 'title' }, 'Path patching: from each head into a later head’s input'), inputBox, figure);
    // Arrow keys move the cell read out (masked cells are skipped over).
    this.listen(plot, 'keydown', (e) => {
      const key = (e as KeyboardEvent).key;
      const d =
        key === 'ArrowUp' ? [-1, 0] : key === 'ArrowDown' ? [1, 0] : key === 'ArrowLeft' ? [0, -1] : key === 'ArrowRight' ? [0, 1] : null;
      const s = this.shown;
      if (!d || !s) return;
      e.preventDefault();
      const { senders, receivers } = this.axes(s.model);
      const [sl, sh, rl, rh] = s.doc.edges[this.edgeOf(s, this.inputOf(s.doc))];
      let r = senders.findIndex(([l, h]) => l === sl && h === sh),
        c = receivers.findIndex(([l, h]) => l === rl && h === rh);
      for (;;) {
        r += d[0];
        c += d[1];
        if (r < 0 || c < 0 || r >= senders.length || c >= receivers.length) return;
        if (senders[r][0] < receivers[c][0]) break;
      }
      this.choose(senders[r], receivers[c]);
    });
    // Pointer and touch: the cell under the pointer is read out.
    const pick = (e: Event) => {
      const cell = (e.target as Element | null)?.closest?.('[data-row]');
      const s = this.shown;
      if (!cell || !s) return;
      const { senders, receivers } = this.axes(s.model);
      const sender = senders[Number(cell.getAttribute('data-row'))],
        receiver = receivers[Number(cell.getAttribute('data-col'))];
      if (!sender || !receiver || sender[0] >= receiver[0]) return;
      const st = this.state;
      if (st?.sender?.join('.') === sender.join('.') && st.receiver?.join('.') === receiver.join('.')) return;
      this.choose(sender, receiver);
    };
    this.listen(plot, 'pointermove', pick);
    this.listen(plot, 'pointerdown', pick);
    return { inputBox, plot, readout, captionLine };
  }

  private choose(sender: [number, number], receiver: [number, number]): void {
    this.setAttribute('sender', sender.join('.'));
    this.setAttribute('receiver', receiver.join('.'));
    this.emitChange();
  }

  protected workerFailed(model: LoadedTransformer, key: string, err: Error): void {
    this.refusals.remember(model.version, key, err.message);
    this.requestRender();
  }

  protected renderContent(model: LoadedTransformer): void {
    const b = this.batch();
    const key = b.key;
    if (model.config.n_layers < 2)
      throw new WidgetInputError('path patching needs two layers or more: a one-layer model has no path between heads');
    this.headAttribute('sender', model);
    this.headAttribute('receiver', model);
    const failure = this.refusals.of(model.version, key);
    if (failure !== undefined) throw new WidgetInputError(`Path patching cannot be computed for these pairs: ${failure}`);
    const doc = b.request && this.pathPatchedInWorker(model, key, b.request);
    if (!doc) {
      if (this.shown?.model !== model || this.shown.key !== key) {
        this.shown = null;
        const waiting = b.request ? `Computing path patching over ${b.pending} in the worker…` : 'Reading the pairs file…';
        if (this.parts.captionLine.textContent !== waiting) this.parts.captionLine.textContent = waiting;
        if (this.parts.readout.textContent !== '') this.parts.readout.textContent = '';
        this.parts.plot.setAttribute('aria-label', waiting);
      }
      return;
    }
    if (this.shown?.doc !== doc) this.shown = { doc, model, key, edges: edgeIndex(doc) };
    const s = this.shown;
    const input = this.inputOf(doc);
    const e = this.edgeOf(s, input);
    for (const radio of this.parts.inputBox.querySelectorAll<HTMLInputElement>('input')) radio.checked = radio.value === input;
    const scene = this.scene(s, input, e);
    drawIntoPlot(this.parts.plot, scene, true);
    const readout = this.readoutOf(doc, input, e);
    if (this.parts.readout.textContent !== readout) this.parts.readout.textContent = readout;
    const text = this.summaryOf(doc, input, b);
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
    this.parts.plot.setAttribute('aria-label', `${text} Arrow keys move between the cells; the one read out: ${readout}`);
  }

  private readoutOf(doc: TransformerPathPatchingFile, input: PathPatchingInput, e: number): string {
    const k = INPUTS.indexOf(input);
    const [sl, sh, rl, rh] = doc.edges[e];
    const lo = doc.lower[e][k],
      hi = doc.upper[e][k];
    return (
      `${headName(sl, sh)} → ${headName(rl, rh)} via ${input}: mean effect ${fixed(doc.mean[e][k], 3)} ` +
      `(95 % interval ${fixed(lo, 3)} to ${fixed(hi, 3)}, p = ${doc.p_value[e][k].toPrecision(2)}${crossesZero(lo, hi) ? '; the interval crosses 0' : ''})`
    );
  }

  /** The summary: the batch, the shown input's three largest edges with intervals, how many cross 0, and the largest edge of any input. */
  private summaryOf(doc: TransformerPathPatchingFile, input: PathPatchingInput, batch: PairsBatch): string {
    const k = INPUTS.indexOf(input);
    const E = doc.edges.length;
    const name = (e: number) => `${headName(doc.edges[e][0], doc.edges[e][1])} → ${headName(doc.edges[e][2], doc.edges[e][3])}`;
    const order = doc.edges.map((_, e) => e).sort((a, b) => Math.abs(doc.mean[b][k]) - Math.abs(doc.mean[a][k]) || a - b);
    const top = order
      .slice(0, Math.min(3, E))
      .map((e) => `${name(e)} ${fixed(doc.mean[e][k], 3)} [${fixed(doc.lower[e][k], 3)}, ${fixed(doc.upper[e][k], 3)}]`);
    const crossing = doc.edges.filter((_, e) => crossesZero(doc.lower[e][k], doc.upper[e][k])).length;
    let best: [number, number] = [0, 0];
    doc.mean.forEach((row, e) =>
      row.forEach((v, j) => {
        if (Math.abs(v) > Math.abs(doc.mean[best[0]][best[1]])) best = [e, j];
      }),
    );
    return (
      `Over ${batch.words(doc.pairs)}, each head's output changed only on its path into a later head's ${INPUT_WORD[input]} (${input}): ` +
      `the largest mean effects ${top.join('; ')} (1: the path carries the whole logit difference, 0: nothing). ` +
      `${crossing} of ${E} paths have an interval that crosses 0 (a diagonal stroke). ` +
      `Across q, k and v the largest is ${name(best[0])} via ${INPUTS[best[1]]} (${fixed(doc.mean[best[0]][best[1]], 3)}).`
    );
  }

  /** The grid for `input`: senders down, receivers across, the cell `at` outlined, strokes where the interval crosses 0, legend. */
  private scene(s: NonNullable<typeof this.shown>, input: PathPatchingInput, at: number | null): Scene {
    const c = this.themeColours();
    const { doc, model } = s;
    const k = INPUTS.indexOf(input);
    const { senders, receivers } = this.axes(model);
    const limit = niceLimit(Math.max(...doc.mean.map((row) => Math.abs(row[k])), 1e-9));
    const cellOf = (r: number, col: number) => s.edges.get(`${senders[r].join('.')}>${receivers[col].join('.')}`);
    const values = senders.map((_, r) => receivers.map((_, col) => doc.mean[cellOf(r, col) ?? 0]?.[k] ?? 0));
    const width = Math.max(LEFT + receivers.length * CELL + RIGHT, 240);
    const bottom = TOP + senders.length * CELL;
    let outlineRow: number | undefined, outlineCol: number | undefined;
    if (at !== null) {
      const [sl, sh, rl, rh] = doc.edges[at];
      outlineRow = senders.findIndex(([l, h]) => l === sl && h === sh);
      outlineCol = receivers.findIndex(([l, h]) => l === rl && h === rh);
    }
    const fg = rgbText(c.fg);
    const shapes: Shape[] = [
      { kind: 'text', x: LEFT, y: 11, text: `receiving head’s ${input} →`, fill: rgbText(c.muted), size: 12 },
      { kind: 'text', x: 4, y: bottom + 16, text: 'sending head ↑', fill: rgbText(c.muted), size: 12 },
      ...heatmapShapes(c, {
        values,
        x: LEFT,
        y: TOP,
        cell: CELL,
        scale: 'diverging',
        limit,
        masked: (r, col) => cellOf(r, col) === undefined,
        outlineRow,
        outlineCol,
        data: (r, col) => ({ row: String(r), col: String(col) }),
      }),
    ];
    senders.forEach((_, r) =>
      receivers.forEach((_, col) => {
        const e = cellOf(r, col);
        if (e !== undefined && crossesZero(doc.lower[e][k], doc.upper[e][k])) {
          const x = LEFT + col * CELL,
            y = TOP + r * CELL;
          shapes.push({ kind: 'line', x1: x + 4, y1: y + CELL - 4, x2: x + CELL - 4, y2: y + 4, stroke: fg, width: 1.2 });
        }
      }),
    );
    senders.forEach(([l, h], r) =>
      shapes.push({ kind: 'text', x: LEFT - 5, y: TOP + r * CELL + CELL / 2, text: headName(l, h), fill: fg, size: 12, anchor: 'end' }),
    );
    // Column labels: each receiver layer once over its heads ("L1"), then the heads ("H0", "H1", …),
    // which fit a cell unrotated.
    receivers.forEach(([l, h], col) => {
      const x = LEFT + col * CELL;
      shapes.push({ kind: 'text', x: x + CELL / 2, y: TOP - 7, text: `H${h}`, fill: fg, size: 12, anchor: 'middle' });
      if (h === 0) {
        const span = model.config.n_heads * CELL;
        shapes.push(
          { kind: 'line', x1: x + 2, y1: TOP - 22, x2: x + span - 3, y2: TOP - 22, stroke: rgbText(c.rule), width: 1 },
          { kind: 'text', x: x + span / 2, y: TOP - 29, text: `L${l}`, fill: fg, size: 12, anchor: 'middle' },
        );
      }
    });
    const legendTop = bottom + 26;
    shapes.push(
      ...legendShapes(
        c,
        LEFT,
        legendTop,
        'diverging',
        `−${formatNumber(limit, 2)}`,
        `+${formatNumber(limit, 2)}`,
        'mean effect over the pairs',
      ),
    );
    return {
      width,
      height: legendTop + 44,
      background: rgbText(c.panel),
      title: `Path patching into the receiver’s ${INPUT_WORD[input]}`,
      shapes,
    };
  }

  protected describe(): string {
    const s = this.shown;
    if (!s) return 'Computing path patching in the worker…';
    try {
      return this.summaryOf(s.doc, this.inputOf(s.doc), this.batch());
    } catch {
      return 'Computing path patching in the worker…'; // a bad attribute: the figure names it
    }
  }

  /** The state with the core's document behind the figure (null before it arrives). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    const s = this.shown;
    if (!s || state === null || s.key !== this.batch().key) return null;
    return { ...state, path_patching: s.doc };
  }

  /**
   * Numbers for <headlab-value source="<this id>">, of the path with the largest |mean effect| over
   * every input: `largest.mean`, `largest.lower`, `largest.upper` (its bootstrap 95 % interval),
   * `largest.p_value`, `largest.sender.layer`, `largest.sender.head`, `largest.receiver.layer`,
   * `largest.receiver.head`. While another batch is computed after one was shown: computing.
   */
  boundValue(name: string): BoundValue | BoundComputing | undefined {
    let key: string;
    try {
      key = this.batch().key;
    } catch {
      return undefined; // a bad attribute: the figure names it; the prose keeps its own text
    }
    const s = this.shown;
    if (!s || s.key !== key || s.model !== this.currentModel) return s ? { computing: true } : undefined;
    const doc = s.doc;
    let best: [number, number] = [0, 0];
    doc.mean.forEach((row, e) =>
      row.forEach((v, k) => {
        if (Math.abs(v) > Math.abs(doc.mean[best[0]][best[1]])) best = [e, k];
      }),
    );
    const [e, k] = best;
    const [sl, sh, rl, rh] = doc.edges[e] ?? [];
    const fields: Record<string, number | undefined> = {
      'largest.mean': doc.mean[e]?.[k],
      'largest.lower': doc.lower[e]?.[k],
      'largest.upper': doc.upper[e]?.[k],
      'largest.p_value': doc.p_value[e]?.[k],
    };
    if (name in fields) return fields[name] === undefined ? undefined : { value: fields[name]!, kind: 'number' };
    const heads: Record<string, number | undefined> = {
      'largest.sender.layer': sl,
      'largest.sender.head': sh,
      'largest.receiver.layer': rl,
      'largest.receiver.head': rh,
    };
    return heads[name] === undefined ? undefined : { value: heads[name]!, kind: 'count' };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'grid',
        label: 'Path patching grid',
        scene: () => {
          const s = this.exportable(this.shown);
          const input = this.inputOf(s.doc);
          return this.scene(s, input, this.edgeOf(s, input));
        },
      },
    ];
  }
}

export interface HeadlabPathPatching extends AttributeProperties<typeof HeadlabPathPatching.attributes> {}
