// <headlab-transformer-patching model="m">: activation patching of every head at every position.
// The reader gives a clean prompt and a corrupted one of the same length, and two tokens: the
// answer (what the clean prompt should predict last) and the wrong one (what the corrupted prompt
// points to). For head h of layer l and position p, the clean run is repeated with that head's
// output at p taken from the corrupted run, and the logit difference LD = logit[answer] −
// logit[wrong] at the last position is normalised (LD_patched − LD_corrupted) / (LD_clean −
// LD_corrupted): 1 = the patch changed nothing, 0 = it moved LD all the way to the corrupted run's
// (core/transformer_analysis.hpp). Cells far from 1 are where the copy is carried.
//
// Attributes: model, prompt (clean), corrupted, answer, wrong (token names or ids). Defaults for a
// prompt given without the others: a repeated block with its last token cut (the answer), and the
// same prompt with the first occurrence of the answer replaced (the wrong token).
// Events: `change` with { prompt, corrupted, answer, wrong, clean_logit_difference, corrupted_logit_difference }.
//
// Over a batch: pairs-task="induction" | "max-digit" (with count, default 64, and pairs-seed,
// default 0) replaces the one pair by that many generated pairs, and pairs (a prompt-pairs file,
// formats/prompt_pairs.hpp; never taken from the URL hash) by the file's pairs (core/batch_patching.hpp,
// in the worker a few pairs per step, its progress in the caption). Each cell is then the mean effect
// 1 − normalised over the pairs, with its bootstrap 95 % interval and sign-flip p-value in the
// readout (pointer or arrow keys) and the figure data; a cell whose interval crosses 0 is crossed
// by a diagonal stroke (its effect is not distinguishable from none over these pairs).
import { needsBuild } from './base/dom.js';
import type { TransformerAnalysis, TransformerBatchPatchingFile, TransformerConfigFile } from '../web/headlab-core.js';
import { asRows, rowViews } from '../web/matrix.js';
import { type AttributeProperties, defineAttributes, el, text, type WidgetFigure, WidgetInputError } from './base/headlab-element.js';
import { labelledSelect } from './base/dom.js';
import { formatCount, formatNumber } from './chart/format.js';
import { rgbText, type ResolvedColours, type Rgb } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import {
  GridCursor,
  LayeredFigure,
  PixelHeatmaps,
  crossesZero,
  divergingWord,
  drawnSvg,
  heatmapShapes,
  legendShapes,
  outlineShapes,
} from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { TOKEN_COMBOBOX_CSS, TokenCombobox } from './transformer/token-combobox.js';
import { batchAttributes, pairsBatch, PairsFileReader, type PairsBatch } from './transformer/batch.js';
import {
  PromptField,
  TRANSFORMER_CSS,
  TransformerWidget,
  headName,
  modelDefaultPrompt,
  tokenName,
  tokenize,
} from './transformer/widget.js';

export interface TransformerPatchingState {
  prompt: number[];
  corrupted: number[];
  answer: number | null;
  wrong: number | null;
  /** logit[answer] − logit[wrong] at the last position (nats). */
  clean_logit_difference: number | null;
  corrupted_logit_difference: number | null;
}

/** The default clean prompt: the model's default prompt (a repeated block), whose next token copying predicts. */
export function defaultCleanPrompt(model: LoadedTransformer): number[] {
  return modelDefaultPrompt(model);
}

/**
 * The default corruption of `clean`: the answer is the token that followed the last token's
 * previous occurrence (what copying predicts); the wrong token is the smallest id not in the
 * prompt; the corrupted prompt has every occurrence of the answer replaced by it, so copying
 * then predicts the wrong token.
 */
export function defaultCorruption(config: TransformerConfigFile, clean: number[]): { corrupted: number[]; answer: number; wrong: number } {
  const T = clean.length;
  const last = clean[T - 1];
  const earlier = clean.lastIndexOf(last, T - 2);
  const answer = earlier >= 0 ? clean[earlier + 1] : clean[Math.min(1, T - 1)];
  let wrong = 0;
  while (wrong < config.d_vocab - 1 && clean.includes(wrong)) wrong++;
  const corrupted = clean.map((t) => (t === answer ? wrong : t));
  return { corrupted, answer, wrong };
}

/** The caption while the first patching runs of a model are in the worker. */
const WAITING = 'Computing the patched runs (every head at every position, clean and corrupted)…';

/** Height of the legend under the heatmap (SVG units; the exported scene's legend band). */
const LEGEND_HEIGHT = 44;

/**
 * The narrowest the heatmap is shown, in CSS px (a 320 px window's column less the card's
 * insets), and a label character's widest advance at the 12 px all chart text renders at
 * (DejaVu Sans Bold's digits 8.4 px, its arrow 10 px). Drawn narrower than its viewBox, the text
 * grows in SVG units by viewBox width / shown width (widgets/base/dom.ts fitSvgText), so the band
 * over the grid is sized for that zoom: the position labels, written upwards, never reach the
 * heading.
 */
const NARROWEST_SHOWN = 258;
const LABEL_CHAR = 9;

/** An attribute's value as a message quotes it: at most 40 characters. */
function excerpt(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** How far from "nothing changed" (1) a normalised value is drawn at full colour. */
const EFFECT_LIMIT = 1;

/** Most tokens a <select> of the answer or wrong token lists; a larger vocabulary gets the searchable field (TokenCombobox). */
const SELECT_VOCAB = 512;

/** The parts build() makes (this.parts). */
interface TransformerPatchingParts {
  clean: PromptField;
  corrupt: PromptField;
  figure: LayeredFigure;
  answerSelect: HTMLSelectElement;
  wrongSelect: HTMLSelectElement;
  /** For a vocabulary beyond SELECT_VOCAB: searchable fields instead of the two selects. */
  answerSearch: TokenCombobox;
  wrongSearch: TokenCombobox;
  readout: HTMLParagraphElement;
  problem: HTMLParagraphElement;
  captionLine: HTMLParagraphElement;
  legendSlot: HTMLDivElement;
  controls: HTMLDivElement;
}

/** Activation patching of every head at every position (normalised logit difference). Attributes: prompt (clean), corrupted (same length), answer, wrong, model; over a batch instead of one pair: pairs-task ("induction" | "max-digit"), count (pairs, default 64), pairs-seed (default 0), or pairs (a prompt-pairs file's location, never taken from the URL hash), each cell then the mean effect with its bootstrap 95% interval. Shared: prompt, corrupted, answer, wrong. */
export class HeadlabTransformerPatching extends TransformerWidget<TransformerPatchingState, TransformerPatchingParts> {
  static attributes = defineAttributes({
    prompt: text({ property: false, shared: true, doc: 'The clean prompt.' }),
    corrupted: text({ property: false, shared: true, doc: 'The corrupted prompt (as many tokens as the clean one).' }),
    answer: text({ property: false, shared: true, markup: 'Num', doc: 'The answer token (its logit against the wrong one’s).' }),
    wrong: text({ property: false, shared: true, markup: 'Num', doc: 'The wrong token.' }),
    ...batchAttributes(false),
  });
  protected static css = TRANSFORMER_CSS + TOKEN_COMBOBOX_CSS;
  /** The heatmap as pixels (PixelHeatmaps), repainted for each choice's analysis. */
  private readonly pixels = new PixelHeatmaps();
  private painted: { analysis: unknown; colours: unknown } | null = null;
  private readonly cursor = new GridCursor(
    this.pixels,
    () => {
      const grid = this.gridShown();
      return grid && { ...grid, ...this.geometryOf(grid.rows, grid.cols, grid.labelChars) };
    },
    () => this.requestRender(),
  );
  private shown: { analysis: TransformerAnalysis; model: LoadedTransformer; text: string } | null = null;
  /** The author's pairs file (attribute pairs), read once per location. */
  private readonly pairsFile = new PairsFileReader(() => this.requestRender());
  /** The batch shown (pairs-task or pairs): the document, its rows (L·H) × T flattened, and the summary. */
  private batchShown: { doc: TransformerBatchPatchingFile; model: LoadedTransformer; key: string; text: string } | null = null;
  /** The batch job's last step (batchProgressed): pairs done of total, for the key asked for. */
  private batchStep: { key: string; done: number; total: number } | null = null;

  protected readState(): TransformerPatchingState {
    const a = this.shown?.analysis;
    return {
      prompt: a?.tokens ?? [],
      corrupted: a?.patching?.corrupted ?? [],
      answer: a?.patching?.answer ?? null,
      wrong: a?.patching?.wrong ?? null,
      clean_logit_difference: a?.patching?.clean_logit_difference ?? null,
      corrupted_logit_difference: a?.patching?.corrupted_logit_difference ?? null,
    };
  }

  protected buildContent(content: HTMLDivElement): TransformerPatchingParts {
    // A clean prompt of another length than the corrupted one: the corruption, answer and wrong token
    // go back to their defaults for the new prompt (rather than leaving a pair patching cannot use).
    const clean = this.promptField(
      'Clean prompt:',
      () => {
        const m = this.currentModel;
        if (m && this.hasAttribute('corrupted') && corrupt.tokens(m).length !== clean.tokens(m).length) {
          for (const a of ['corrupted', 'answer', 'wrong']) this.removeAttribute(a);
        }
        this.emitChange();
      },
      'prompt',
      defaultCleanPrompt,
    );
    const corrupt = this.promptField(
      'Corrupted prompt (same length):',
      () => this.emitChange(),
      'corrupted',
      (model) => defaultCorruption(model.config, clean.tokens(model)).corrupted,
    );
    const controls = el('div', { class: 'controls' });
    const answerSelect = labelledSelect(controls, 'Answer', 'answer');
    const wrongSelect = labelledSelect(controls, 'Wrong token', 'wrong');
    const listen = (target: EventTarget, type: string, handler: (event: Event) => void) => this.listen(target, type, handler);
    const pickedAs = (name: 'answer' | 'wrong') => (token: number) => {
      this.setAttribute(name, String(token));
      this.emitChange();
    };
    const answerSearch = new TokenCombobox('Answer', 'answer-search', pickedAs('answer'), listen, this);
    const wrongSearch = new TokenCombobox('Wrong token', 'wrong-search', pickedAs('wrong'), listen, this);
    controls.append(answerSearch.element, wrongSearch.element);
    const problem = el('p', { class: 'input-problem', role: 'status' });
    controls.append(problem);
    this.listen(answerSelect, 'change', () => {
      this.setAttribute('answer', answerSelect.value);
      this.emitChange();
    });
    this.listen(wrongSelect, 'change', () => {
      this.setAttribute('wrong', wrongSelect.value);
      this.emitChange();
    });
    const figureBox = el('div', { class: 'figure' });
    const figure = new LayeredFigure(true);
    const readout = el('p', { class: 'readout', 'aria-live': 'polite' });
    const captionLine = el('p', { class: 'caption' });
    const legendSlot = el('div', { class: 'legend' });
    figureBox.append(figure.element, legendSlot, readout, captionLine);
    content.append(
      el('p', { class: 'title' }, 'Activation patching: which head, at which position, carries the answer'),
      clean.element,
      corrupt.element,
      controls,
      figureBox,
    );
    this.cursor.follow(figure.element, (target, type, handler) => this.listen(target, type, handler));
    return {
      clean,
      corrupt,
      figure,
      answerSelect,
      wrongSelect,
      answerSearch,
      wrongSearch,
      readout,
      problem,
      captionLine,
      legendSlot,
      controls,
    };
  }

  private token(model: LoadedTransformer, name: 'answer' | 'wrong', fallback: number): number {
    const raw = this.getAttribute(name);
    if (raw === null || raw.trim() === '') return fallback;
    const ids = tokenize(model, raw, `attribute ${name}`);
    if (ids.length !== 1) throw new WidgetInputError(`attribute ${name}="${raw}" must be one token`);
    return ids[0];
  }

  /** Rows and columns of the heatmap on show (one pair or a batch), null before one is drawn. */
  private gridShown(): { rows: number; cols: number; labelChars: number } | null {
    if (this.batchShown) {
      const T = this.batchShown.doc.prompt_length;
      return { rows: this.batchShown.doc.head_position.mean.flat().length, cols: T, labelChars: String(T - 1).length };
    }
    if (this.shown)
      return {
        rows: this.shown.model.config.n_layers * this.shown.model.config.n_heads,
        cols: this.shown.analysis.tokens.length,
        labelChars: longestLabel(patchColumns(this.shown.model, this.shown.analysis)),
      };
    return null;
  }

  /** An integer attribute in [low, high], else `fallback` when absent; a bad value names the attribute and the bound. */
  private integerAttribute(name: string, fallback: number, low: number, high: number): number {
    const raw = this.getAttribute(name);
    if (raw === null || raw.trim() === '') return fallback;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < low || v > high)
      throw new WidgetInputError(`attribute ${name}="${excerpt(raw)}" must be an integer from ${low} to ${high}`);
    return v;
  }

  protected batchProgressed(_model: LoadedTransformer, key: string, done: number, total: number): void {
    this.batchStep = { key, done, total };
    this.requestRender();
  }

  /** pairs-task or pairs: the batch's mean effects with their intervals (see the header). */
  private renderBatch(model: LoadedTransformer): void {
    const batch = pairsBatch(this, this.pairsFile);
    const key = `pairs:${batch.key}`;
    const failure = this.failures.get(`${model.version}|${key}`);
    if (failure !== undefined) throw new WidgetInputError(`Batch patching cannot be computed for these pairs: ${failure}`);
    const doc = batch.request && this.batchPatchedInWorker(model, key, batch.request);
    if (!doc) {
      if (this.batchShown?.model !== model || this.batchShown.key !== key) {
        this.batchShown = null;
        const step = this.batchStep?.key === key ? this.batchStep : null;
        const waiting = batch.request
          ? `Patching ${batch.pending} in the worker (every head at every position)… ${step ? `${step.done} of ${step.total} pairs done` : 'starting'}`
          : 'Reading the pairs file…';
        this.parts.figure.label(`Activation patching over a batch: ${waiting}`);
        if (this.parts.captionLine.textContent !== waiting) this.parts.captionLine.textContent = waiting;
      }
      return;
    }
    const H = model.config.n_heads;
    const name = (r: number) => headName(Math.floor(r / H), r % H);
    const grid = doc.head_position;
    const mean = grid.mean.flat(),
      lower = grid.lower.flat(),
      upper = grid.upper.flat(),
      pv = grid.p_value.flat();
    const T = doc.prompt_length;
    let best = { v: -Infinity, r: 0, c: 0 };
    let crossing = 0,
      zero = 0;
    mean.forEach((row, r) =>
      row.forEach((v, c) => {
        if (Math.abs(v) > best.v) best = { v: Math.abs(v), r, c };
        if (crossesZero(lower[r][c], upper[r][c])) crossing++;
        else if (lower[r][c] === 0 && upper[r][c] === 0) zero++;
      }),
    );
    const b = best;
    const text =
      `Over ${batch.words(doc.pairs)}, with ${formatCount(doc.resamples)} bootstrap resamples: the largest mean effect is ${name(b.r)} at position ${b.c}, ` +
      `${formatNumber(mean[b.r][b.c], 3)} (95 % interval ${formatNumber(lower[b.r][b.c], 3)} to ${formatNumber(upper[b.r][b.c], 3)}). ` +
      `${crossing} of ${mean.length * T} cells have an interval that crosses 0 (a diagonal stroke: no effect distinguishable over these pairs); ${zero} are exactly 0 for every pair.`;
    this.batchShown = { doc, model, key, text };
    this.cursor.clamp(mean.length, T);
    const g = this.geometryOf(mean.length, T, String(T - 1).length);
    const colours = this.themeColours();
    const sized = this.pixels.layout(`batch|${mean.length}|${T}`, g.width, g.heatHeight, [
      { x: g.left, y: g.top, rows: mean.length, cols: T, cell: g.cell },
    ]);
    if (sized || this.painted?.analysis !== doc || this.painted.colours !== colours) {
      this.pixels.paint(0, (_, r, k) => divergingWord(colours, mean[r][k], EFFECT_LIMIT));
      this.painted = { analysis: doc, colours };
    }
    this.parts.figure.setBase(this.pixels.canvas);
    const overlay = this.cachedThemed(model, `batch-overlay:${key}`, () =>
      this.batchScene(model, doc, false).shapes.filter((x) => (x.kind === 'text' && x.y < g.heatHeight) || x.kind === 'line'),
    );
    this.parts.figure.drawOverlay(g.width, g.heatHeight, [
      ...overlay,
      ...outlineShapes(colours, g.left, g.top, g.cell, mean.length, T, this.cursor.row, this.cursor.col),
    ]);
    this.show(
      this.parts.legendSlot,
      this.fragment(model, 'legend-batch', () =>
        drawnSvg({
          width: g.width,
          height: LEGEND_HEIGHT,
          background: rgbText(colours.panel),
          title: 'Patching scale',
          shapes: legendShapes(colours, g.left, 0, 'diverging', '−1', '+1', 'mean effect over the pairs'),
        }),
      ),
    );
    this.parts.figure.label(`${text} Arrow keys move through the cells.`);
    const { row: r, col: c } = this.cursor;
    const includes = crossesZero(lower[r][c], upper[r][c]);
    const readout =
      `${name(r)}, position ${c}: mean effect ${formatNumber(mean[r][c], 4)}, 95 % interval ${formatNumber(lower[r][c], 4)} to ${formatNumber(upper[r][c], 4)}, ` +
      `p = ${formatNumber(pv[r][c], 3)}${includes ? ' (the interval crosses 0)' : ''}`;
    if (this.parts.readout.textContent !== readout) this.parts.readout.textContent = readout;
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
  }

  /** The batch heatmap: mean effects, a diagonal stroke over each cell whose interval crosses 0, labels, legend. */
  private batchScene(model: LoadedTransformer, doc: TransformerBatchPatchingFile, cursor = true): Scene {
    const c = this.themeColours();
    const grid = doc.head_position;
    const mean = grid.mean.flat(),
      lower = grid.lower.flat(),
      upper = grid.upper.flat();
    const T = doc.prompt_length;
    return headPositionScene(c, {
      geometry: this.geometryOf(mean.length, T, String(T - 1).length),
      heading: `head ↓ · position → (mean over ${doc.pairs} pairs)`,
      values: mean,
      cursor: cursor ? this.cursor : null,
      // A diagonal stroke over each cell whose interval crosses 0.
      marks: (cell, left, top) =>
        mean.flatMap((row, r) =>
          row.flatMap((_, k): Shape[] => {
            if (!crossesZero(lower[r][k], upper[r][k])) return [];
            const x = left + k * cell,
              y = top + r * cell;
            return [{ kind: 'line', x1: x + 3, y1: y + cell - 3, x2: x + cell - 3, y2: y + 3, stroke: rgbText(c.fg), width: 1 }];
          }),
        ),
      H: model.config.n_heads,
      columns: Array.from({ length: T }, (_, k) => ({ text: String(k) })),
      legend: 'mean effect over the pairs',
      title: 'Activation patching over a batch',
    });
  }

  protected renderContent(model: LoadedTransformer): void {
    const batch = this.hasAttribute('pairs-task') || this.hasAttribute('pairs');
    this.parts.clean.element.hidden = batch;
    this.parts.corrupt.element.hidden = batch;
    this.parts.controls.hidden = batch;
    if (batch) {
      this.shown = null;
      this.renderBatch(model);
      return;
    }
    this.batchShown = null;
    this.parts.clean.sync(model);
    this.parts.corrupt.sync(model);
    const clean = this.parts.clean.tokens(model);
    const corrupted = this.parts.corrupt.tokens(model);
    if (corrupted.length !== clean.length) {
      throw new WidgetInputError(
        `the corrupted prompt has ${corrupted.length} tokens and the clean one ${clean.length}: patching needs the same length`,
      );
    }
    const guess = defaultCorruption(model.config, clean);
    const answer = this.token(model, 'answer', guess.answer);
    const wrong = this.token(model, 'wrong', guess.wrong);
    this.fillChoice(this.parts.answerSelect, this.parts.answerSearch, model, answer);
    this.fillChoice(this.parts.wrongSelect, this.parts.wrongSearch, model, wrong);
    // The patching runs (2 × layers × heads × positions forward passes) are computed in the worker,
    // once per choice: the figure keeps the last choice's heatmap until the new one arrives.
    const key = `${clean.join(',')}|${corrupted.join(',')}|${answer}|${wrong}`;
    const failure = this.failures.get(`${model.version}|${key}`);
    if (failure !== undefined) {
      // The core's message (e.g. the clean and corrupted logit differences are equal: nothing to
      // normalise by) is the reader's to fix with the controls, which stay; the last figure stays too.
      this.parts.problem.textContent = `Patching cannot be computed for this choice: ${failure}`;
      if (this.shown?.model !== model) this.shown = null;
      return;
    }
    const analysis = this.analyzedInWorker(model, `patch:${key}`, { prompt: clean, corrupted, answer, wrong, sequences: 0 });
    if (!analysis) {
      if (this.shown?.model !== model) {
        // Nothing of this model drawn yet: the figure says what it waits for.
        this.shown = null;
        this.parts.figure.label('Activation patching heatmap: computing the patched runs…');
        if (this.parts.captionLine.textContent !== WAITING) this.parts.captionLine.textContent = WAITING;
      }
      return;
    }
    this.parts.problem.textContent = '';
    const p = analysis.patching!;
    const rows = p.normalised.flatMap(rowViews);
    const T = clean.length;
    this.cursor.clamp(rows.length, T);
    let worst = { v: Infinity, r: 0, c: 0 };
    rows.forEach((row, r) =>
      row.forEach((v, c) => {
        if (v < worst.v) worst = { v, r, c };
      }),
    );
    const H = model.config.n_heads;
    const name = (r: number) => headName(Math.floor(r / H), r % H);
    const text =
      `Logit difference ${tokenName(model.config, answer)} − ${tokenName(model.config, wrong)}: clean ${formatNumber(p.clean_logit_difference, 3)}, corrupted ${formatNumber(p.corrupted_logit_difference, 3)}. ` +
      `Patching ${name(worst.r)} at position ${worst.c} (${tokenName(model.config, clean[worst.c])}) moves it furthest: normalised ${formatNumber(worst.v, 3)} (1 = unchanged, 0 = the corrupted run's).`;
    this.shown = { analysis, model, text };
    // The cells are pixels of one canvas, repainted for each choice; the labels and the outlined
    // cell (following the pointer and the arrow keys) are the overlay's SVG; the legend is below.
    const g = this.geometry(model, analysis);
    const colours = this.themeColours();
    const sized = this.pixels.layout(`${rows.length}|${T}`, g.width, g.heatHeight, [
      { x: g.left, y: g.top, rows: rows.length, cols: T, cell: g.cell },
    ]);
    if (sized || this.painted?.analysis !== analysis || this.painted.colours !== colours) {
      this.pixels.paint(0, (_, r, k) => divergingWord(colours, 1 - rows[r][k], EFFECT_LIMIT));
      this.painted = { analysis, colours };
    }
    this.parts.figure.setBase(this.pixels.canvas);
    const labels = this.cachedThemed(model, `labels:${key}`, () =>
      this.scene(model, analysis, false).shapes.filter((x) => x.kind === 'text' && x.y < g.heatHeight),
    );
    this.parts.figure.drawOverlay(g.width, g.heatHeight, [
      ...labels,
      ...outlineShapes(colours, g.left, g.top, g.cell, rows.length, T, this.cursor.row, this.cursor.col),
    ]);
    this.show(
      this.parts.legendSlot,
      this.fragment(model, 'legend', () =>
        drawnSvg({
          width: g.width,
          height: LEGEND_HEIGHT,
          background: rgbText(colours.panel),
          title: 'Patching scale',
          shapes: legendShapes(colours, g.left, 0, 'diverging', '−1', '+1', 'effect: 1 − normalised'),
        }),
      ),
    );
    this.parts.figure.label(`${text} Arrow keys move through the cells.`);
    const v = rows[this.cursor.row][this.cursor.col];
    const readout = `${name(this.cursor.row)}, position ${this.cursor.col} (${tokenName(model.config, clean[this.cursor.col])} → ${tokenName(model.config, corrupted[this.cursor.col])}): ${formatNumber(v, 4)}`;
    if (this.parts.readout.textContent !== readout) this.parts.readout.textContent = readout;
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
  }

  /** The core's message for a choice it refused in the worker (model version | choice → message). */
  private readonly failures = new Map<string, string>();

  /** Shown beside the controls (which stay), not as the widget's alert: another choice may well work. */
  protected workerFailed(model: LoadedTransformer, key: string, err: Error): void {
    if (this.failures.size > 64) this.failures.clear();
    this.failures.set(`${model.version}|${key.replace(/^patch:/, '')}`, err.message);
    this.requestRender();
  }

  /**
   * A token choice: a <select> of every token up to SELECT_VOCAB of them; beyond, the searchable
   * field (a select of 50,278 options is a list no reader scrolls, and building it is a long task).
   */
  private fillChoice(select: HTMLSelectElement, search: TokenCombobox, model: LoadedTransformer, value: number): void {
    const V = model.config.d_vocab;
    const large = V > SELECT_VOCAB;
    select.parentElement!.hidden = large;
    search.element.hidden = !large;
    if (large) search.set(model.config.token_names ?? null, V, value);
    else this.fillSelect(select, model, value);
  }

  private fillSelect(select: HTMLSelectElement, model: LoadedTransformer, value: number): void {
    const V = model.config.d_vocab;
    const key = `${model.version}`;
    if (needsBuild(select, key)) {
      const ids = Array.from({ length: V }, (_, t) => t);
      select.replaceChildren(...ids.map((t) => el('option', { value: String(t) }, tokenName(model.config, t))));
    }
    if (![...select.options].some((o) => o.value === String(value)))
      select.append(el('option', { value: String(value) }, tokenName(model.config, value)));
    select.value = String(value);
  }

  /** Where the heatmap sits: cell size, origin and the figure's size. */
  private geometry(
    model: LoadedTransformer,
    a: TransformerAnalysis,
  ): { cell: number; left: number; top: number; width: number; height: number; heatHeight: number } {
    return this.geometryOf(
      a.patching!.normalised.reduce((n, m) => n + m.rows, 0),
      a.tokens.length,
      longestLabel(patchColumns(model, a)),
    );
  }

  /** The same for `rows` heads × T positions whose longest label has `labelChars` characters. */
  private geometryOf(
    rows: number,
    T: number,
    labelChars: number,
  ): { cell: number; left: number; top: number; width: number; height: number; heatHeight: number } {
    const cell = Math.max(12, Math.min(30, Math.floor(420 / T)));
    const left = 58;
    const width = Math.max(left + T * cell + 8, 280);
    // The band over the grid, in SVG units at the largest text zoom z: the heading (centred at
    // 10, half a line 6z below), a 2-unit gap, the longest label upwards, its 5-unit gap to the grid.
    const z = Math.max(1, width / NARROWEST_SHOWN);
    const top = Math.max(74, Math.ceil(10 + 6 * z + 2 + labelChars * LABEL_CHAR * z + 5));
    const heatHeight = top + rows * cell + 6;
    return { cell, left, top, width, height: heatHeight + LEGEND_HEIGHT, heatHeight };
  }

  /** The heatmap (with the outlined cell: the exported figure). */
  private scene(model: LoadedTransformer, a: TransformerAnalysis, cursor = true): Scene {
    const c = this.themeColours();
    const p = a.patching!;
    const rows = p.normalised.flatMap(rowViews);
    return headPositionScene(c, {
      geometry: this.geometry(model, a),
      heading: 'head ↓ · position → (clean→corrupted token)',
      // The colour shows the effect 1 − normalised (0: no change, the panel colour), the number the core's value.
      values: rows.map((row) => row.map((v) => 1 - v)),
      cursor: cursor ? this.cursor : null,
      marks: () => [],
      H: model.config.n_heads,
      columns: patchColumns(model, a).map(({ text, changed }) => ({
        text,
        fill: changed ? c.pos : c.fg,
        weight: changed ? 'bold' : 'normal',
      })),
      legend: 'effect: 1 − normalised',
      title: 'Activation patching',
    });
  }

  protected describe(): string {
    return this.batchShown?.text ?? this.shown?.text ?? WAITING;
  }

  /** The state with the core's numbers behind the figure (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    const b = this.batchShown;
    if (b && state !== null) {
      let batch: PairsBatch;
      try {
        batch = pairsBatch(this, this.pairsFile);
      } catch {
        return null; // a bad attribute: the figure names it
      }
      if (`pairs:${batch.key}` !== b.key) return null; // another batch is being computed
      return {
        pairs_task: batch.task,
        count: batch.count,
        pairs_seed: batch.seed,
        pairs: batch.file,
        batch_patching: b.doc,
      };
    }
    if (!this.shown || state === null) return null;
    const s = this.shown;
    return { ...state, patching: asRows(s.analysis.patching) };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'patching',
        label: 'Patching heatmap',
        scene: () => {
          if (this.batchShown) return this.batchScene(this.batchShown.model, this.batchShown.doc);
          const s = this.exportable(this.shown);
          return this.scene(s.model, s.analysis);
        },
      },
    ];
  }
}

export interface HeadlabTransformerPatching extends AttributeProperties<typeof HeadlabTransformerPatching.attributes> {}

/** The position labels of one patch: the clean token, and "clean→corrupted" where they differ. */
function patchColumns(model: LoadedTransformer, a: TransformerAnalysis): { text: string; changed: boolean }[] {
  const corrupted = a.patching!.corrupted;
  return a.tokens.map((t, k) => {
    const changed = t !== corrupted[k];
    return {
      text: changed ? `${tokenName(model.config, t)}→${tokenName(model.config, corrupted[k])}` : tokenName(model.config, t),
      changed,
    };
  });
}

/** The characters of the longest label. */
function longestLabel(columns: { text: string }[]): number {
  return columns.reduce((n, c) => Math.max(n, [...c.text].length), 0);
}

/** What headPositionScene draws: a heads × positions grid of effects (row r: head r / H, r mod H). */
interface HeadPositionGrid {
  geometry: { cell: number; left: number; top: number; width: number };
  /** The line over the grid (what its axes are). */
  heading: string;
  /** Effects, one row per head, one column per position; 0 is no change (the panel colour). */
  values: readonly (readonly number[] | Float64Array)[];
  cursor: { row: number; col: number } | null;
  /** Shapes over the cells, given the cell size and the grid's corner. */
  marks: (cell: number, left: number, top: number) => Shape[];
  H: number;
  /** One label per position, written upwards (legible at any width); fill and weight default to the text colour, normal. */
  columns: { text: string; fill?: Rgb; weight?: 'normal' | 'bold' }[];
  legend: string;
  title: string;
}

/** The patching heatmap, one patch or a batch: heading, cells, marks, head labels, position labels, legend. */
function headPositionScene(c: ResolvedColours, g: HeadPositionGrid): Scene {
  const { cell, left, top, width } = g.geometry;
  const shapes: Shape[] = [
    { kind: 'text', x: 4, y: 10, text: g.heading, fill: rgbText(c.muted), size: 11 },
    ...heatmapShapes(c, {
      values: g.values,
      x: left,
      y: top,
      cell,
      scale: 'diverging',
      limit: EFFECT_LIMIT,
      ...(g.cursor ? { outlineRow: g.cursor.row, outlineCol: g.cursor.col } : {}),
      data: (r, k) => ({ row: String(r), col: String(k) }),
    }),
    ...g.marks(cell, left, top),
  ];
  g.values.forEach((_, r) =>
    shapes.push({
      kind: 'text',
      x: left - 4,
      y: top + r * cell + cell / 2,
      text: headName(Math.floor(r / g.H), r % g.H),
      fill: rgbText(c.fg),
      size: 10,
      anchor: 'end',
    }),
  );
  g.columns.forEach((label, k) =>
    shapes.push({
      kind: 'text',
      x: left + k * cell + cell / 2,
      y: top - 5,
      text: label.text,
      fill: rgbText(label.fill ?? c.fg),
      size: 10,
      anchor: 'start',
      rotate: -90,
      ...(label.weight ? { weight: label.weight } : {}),
    }),
  );
  const height = top + g.values.length * cell + 6;
  shapes.push(...legendShapes(c, left, height + 4, 'diverging', '−1', '+1', g.legend));
  return { width, height: height + 44, background: rgbText(c.panel), title: g.title, shapes };
}
