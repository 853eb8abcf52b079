// <headlab-logit-lens model="m">: what the model would predict if it stopped after each layer. The
// residual stream after the embedding (stage 0) and after each layer l (stage l + 1), at every
// position i, read through the final normalisation (its scale σ recomputed from that stream) and the
// unembedding, softmax over the vocabulary (core/logit_lens.hpp):
//   p_s(i) = softmax(LN_final(resid_s[i]) W_U + b_U),   s = 0 … L;  stage L is the model's output.
// Drawn as a stages × positions grid coloured by the probability of the answer — the next prompt
// token, and at the last position the model's own top prediction — with each cell's top token written
// in it; for the chosen position a table of every stage's top tokens, the answer's probability and
// its rank.
//
// Attributes: model, prompt, position (default the last). Events: `change` with LogitLensState.
// Bound values (boundValue): answer.probability.<s>, answer.rank.<s> (stage s at the chosen
// position), answer.first_top (the first stage at which the answer is the top token; undefined if
// none), top.probability.<s>.
import { needsBuild } from './base/dom.js';
import type { TransformerLogitLens } from '../web/headlab-core.js';
import {
  accessor,
  type AttributeProperties,
  defineAttributes,
  el,
  integerAttribute,
  setNumberAttribute,
  text,
  type WidgetFigure,
} from './base/headlab-element.js';
import { labelledSelect } from './base/dom.js';
import type { BoundValue } from './chart/format.js';
import { formatNumber, formatPercent } from './chart/format.js';
import { contrast, mixRgb, rgbText, type ResolvedColours, type Rgb } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { boxOutline, drawnSvg, legendShapes, SEQUENTIAL_MAX_MIX, sequentialFill } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { PromptField, TRANSFORMER_CSS, TransformerWidget, tokenName } from './transformer/widget.js';

export interface LogitLensState {
  prompt: number[];
  /** The chosen position i. */
  position: number;
  /** The token tracked at i: the next prompt token, at the last position the model's top prediction (−1 before computing). */
  answer: number;
  /** L + 1 probabilities of the answer at i, stage 0 (the embedding) to L (the output); [] before computing. */
  probability: number[];
  /** The first stage at which the answer is the top token at i (null if none, or before computing). */
  firstTop: number | null;
}

/** Tokens per stage and position the figure asks for (the table shows them all). */
const TOP = 3;
/** Height of the legend under the grid (SVG units). */
const LEGEND_HEIGHT = 36;

/** "embedding" for stage 0, "after L{s−1}" for the others. */
export function stageName(s: number): string {
  return s === 0 ? 'embedding' : `after L${s - 1}`;
}

/** The parts build() makes (this.parts). */
interface LogitLensParts {
  field: PromptField;
  positionSelect: HTMLSelectElement;
  gridSlot: HTMLDivElement;
  captionLine: HTMLParagraphElement;
  tableBox: HTMLDivElement;
}

/** The logit lens: the residual stream after the embedding and after each layer read through the final normalisation and W_U, the answer's probability per stage and position, each cell's top token. Attributes: prompt, position, model. Shared: prompt, position. Bound values: answer.probability.<s>, answer.rank.<s>, answer.first_top, top.probability.<s>. */
export class HeadlabLogitLens extends TransformerWidget<LogitLensState, LogitLensParts> {
  static attributes = defineAttributes({
    prompt: text({ shared: true, doc: 'The prompt, as text the model’s tokenizer reads (default the model’s example).' }),
    position: accessor<number>({ type: 'number', markup: 'Num', shared: true, doc: 'The chosen position (default the last).' }),
  });
  protected static css = /* css */ `${TRANSFORMER_CSS}
    table.stages td, table.stages th { font-size: 0.85em; padding: 0.15rem 0.4rem; white-space: nowrap; }
  `;
  private shown: {
    model: LoadedTransformer;
    tokens: number[];
    position: number;
    lens: TransformerLogitLens;
    text: string;
  } | null = null;

  /** The chosen position: the attribute, else the one shown (the last; 0 before the model has loaded). */
  get position(): number {
    return this.hasAttribute('position') ? integerAttribute(this, 'position', 0, 0, 4095) : (this.shown?.position ?? 0);
  }
  set position(v: number) {
    setNumberAttribute(this, 'position', v);
  }

  /** The chosen position: the attribute, at most the prompt's last (default the last). */
  private positionOf(T: number): number {
    return this.hasAttribute('position') ? Math.min(integerAttribute(this, 'position', T - 1, 0, 4095), T - 1) : T - 1;
  }

  protected readState(): LogitLensState {
    const s = this.shown;
    if (!s) return { prompt: [], position: -1, answer: -1, probability: [], firstTop: null };
    const i = s.position;
    return {
      prompt: s.tokens,
      position: i,
      answer: s.lens.answers[i],
      probability: s.lens.answer_probability.map((row) => row[i]),
      firstTop: firstTopStage(s.lens, i),
    };
  }

  protected buildContent(content: HTMLDivElement): LogitLensParts {
    const field = this.promptField('Prompt:');
    const controls = el('div', { class: 'controls' });
    const positionSelect = labelledSelect(controls, 'Position', 'position');
    this.listen(positionSelect, 'change', () => {
      this.setAttribute('position', positionSelect.value);
      this.emitChange();
    });
    const figure = el('div', { class: 'figure' });
    const gridSlot = el('div');
    const captionLine = el('p', { class: 'caption', 'aria-live': 'polite' });
    figure.append(gridSlot, captionLine);
    const tableBox = el('div', { class: 'scroll', tabindex: '0', role: 'group', 'aria-label': 'Top tokens at each stage', hidden: '' });
    content.append(
      el('p', { class: 'title' }, 'Logit lens: what the model would predict after each layer'),
      field.element,
      controls,
      figure,
      tableBox,
    );
    return { field, positionSelect, gridSlot, captionLine, tableBox };
  }

  protected renderContent(model: LoadedTransformer): void {
    this.parts.field.sync(model);
    const tokens = this.parts.field.tokens(model);
    const T = tokens.length;
    const position = this.positionOf(T);
    const pKey = `${model.version}|${tokens.join(',')}`;
    if (needsBuild(this.parts.positionSelect, pKey)) {
      this.parts.positionSelect.replaceChildren(
        ...tokens.map((t, p) => el('option', { value: String(p) }, `${p}: ${tokenName(model.config, t)}`)),
      );
    }
    this.parts.positionSelect.value = String(position);
    const analysis = this.analyzedInWorker(
      model,
      `lens:${tokens.join(',')}`,
      {
        prompt: tokens,
        // No repeated random sequences (sequences 0): the lens does not read them, and for a large
        // model (the ARENA induction shape) even one is beyond the core's bound on their work.
        sequences: 0,
        logit_lens: true,
        top: lensTop(model),
      },
      // Every stage's logits at every position, (L + 1)·T·d_model·d_vocab multiply-adds (7.4·10⁹ for
      // the ARENA induction shape, about 10 s in WASM): beyond 2³⁰ the lens waits behind the other
      // figures' first answers, as a batch does.
      { background: (model.config.n_layers + 1) * T * model.config.d_model * model.config.d_vocab > 2 ** 30 },
    );
    const lens = analysis?.logit_lens;
    if (!lens) {
      const waiting = 'Reading the residual stream after each layer through the unembedding…';
      if (this.parts.captionLine.textContent !== waiting) this.parts.captionLine.textContent = waiting;
      if (this.shown?.model !== model) this.show(this.parts.gridSlot, el('p', { class: 'waiting' }, waiting));
      return;
    }
    const text = this.summaryText(model, tokens, lens, position);
    this.shown = { model, tokens, position, lens, text };
    this.show(
      this.parts.gridSlot,
      this.fragment(model, `lens:${tokens.join(',')}|${position}|${this.themeKey()}`, () => {
        const svg = drawnSvg(this.scene(model, tokens, lens, position), false);
        svg.setAttribute('aria-label', text);
        return svg;
      }),
    );
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
    this.parts.tableBox.hidden = false;
    this.show(
      this.parts.tableBox,
      this.fragment(model, `stages:${tokens.join(',')}|${position}`, () => this.stagesTable(model, lens, position)),
    );
  }

  private summaryText(model: LoadedTransformer, tokens: number[], lens: TransformerLogitLens, i: number): string {
    const L = lens.answer_probability.length - 1;
    const name = (t: number) => tokenName(model.config, t);
    const answer = lens.answers[i];
    const what = i === tokens.length - 1 ? 'the model’s prediction' : 'the next token';
    const trail = lens.answer_probability.map(
      (row, s) => `${formatPercent(row[i])} ${s === 0 ? 'after the embedding' : s === L ? 'at the output' : `after layer ${s - 1}`}`,
    );
    const first = firstTopStage(lens, i);
    const firstText =
      first === null
        ? 'It is the top token at no stage.'
        : first === 0
          ? 'It is the top token already after the embedding.'
          : `It is first the top token after layer ${first - 1}${first === L ? ' (the output)' : ''}.`;
    // Over the prompt: at how many positions the answer is already the top token one stage before the output.
    const T = tokens.length;
    const topAt = (s: number) => lens.answer_rank[s].filter((r) => r === 0).length;
    const overall =
      L >= 1
        ? ` Over the prompt, the answer is the top token at ${topAt(L)} of ${T} positions at the output and at ${topAt(L - 1)} ${L - 1 === 0 ? 'after the embedding' : `after layer ${L - 2}`}.`
        : '';
    return `At position ${i} (${name(tokens[i])}), ${what}, ${name(answer)}, has probability ${trail.join(', ')}. ${firstText}${overall}`;
  }

  /** A key that changes with the theme, so a cached drawing is not reused across light and dark. */
  private themeKey(): string {
    return rgbText(this.themeColours().panel);
  }

  /**
   * Rows: positions (a reader scrolls down a long prompt, never sideways); columns: stages, the
   * embedding on the left, the output on the right; fill: the answer's probability; text: each
   * cell's top token, bold when it is the answer. Wide cells keep two-digit token names legible at
   * 360 px, where the drawing is shown at its own size.
   */
  private scene(model: LoadedTransformer, tokens: number[], lens: TransformerLogitLens, position: number): Scene {
    const c = this.themeColours();
    const T = tokens.length,
      stages = lens.answer_probability.length;
    const cellW = 64,
      cellH = 20,
      left = 78,
      top = 58;
    const width = Math.max(300, left + stages * cellW + 8);
    const gridBottom = top + T * cellH;
    const shapes: Shape[] = [
      { kind: 'text', x: 4, y: 10, text: 'colour: probability of the answer', fill: rgbText(c.muted), size: 11 },
      { kind: 'text', x: 4, y: 25, text: 'text: top token, bold when it is the answer', fill: rgbText(c.muted), size: 11 },
    ];
    for (let s = 0; s < stages; s++)
      shapes.push({
        kind: 'text',
        x: left + s * cellW + cellW / 2,
        y: top - 10,
        text: stageName(s),
        fill: rgbText(c.fg),
        size: 11,
        anchor: 'middle',
      });
    for (let i = 0; i < T; i++) {
      const y = top + i * cellH;
      shapes.push({
        kind: 'text',
        x: left - 6,
        y: y + cellH / 2,
        text: `${i}: ${tokenName(model.config, tokens[i])}`,
        fill: rgbText(i === position ? c.focus : c.fg),
        size: 11,
        anchor: 'end',
        weight: i === position ? 'bold' : 'normal',
      });
      for (let s = 0; s < stages; s++) {
        const p = lens.answer_probability[s][i];
        const best = lens.top_tokens[s][i][0];
        shapes.push({
          kind: 'rect',
          x: left + s * cellW,
          y,
          w: cellW - 1,
          h: cellH - 1,
          fill: sequentialFill(c, p),
          data: { stage: String(s), position: String(i) },
        });
        shapes.push({
          kind: 'text',
          x: left + s * cellW + cellW / 2,
          y: y + cellH / 2,
          text: tokenName(model.config, best),
          // Legible on the fill: of the text and panel colours, the one farther from the cell's.
          fill: rgbText(legibleOn(c, p)),
          size: 11,
          anchor: 'middle',
          weight: best === lens.answers[i] ? 'bold' : 'normal',
        });
      }
    }
    // The chosen position's row, outlined across every stage.
    const yy = top + position * cellH - 0.5;
    shapes.push(boxOutline(left - 0.5, yy, left + stages * cellW - 0.5, yy + cellH, rgbText(c.focus), 1.5));
    shapes.push(...legendShapes(c, left, gridBottom + 8, 'sequential', '0', '1', 'probability of the answer'));
    return { width, height: gridBottom + 8 + LEGEND_HEIGHT, background: rgbText(c.panel), title: 'Logit lens', shapes };
  }

  /** Every stage at the chosen position: its top tokens with their probabilities, the answer's probability and rank. */
  private stagesTable(model: LoadedTransformer, lens: TransformerLogitLens, i: number): HTMLTableElement {
    const name = (t: number) => tokenName(model.config, t);
    const table = el('table', { class: 'stages compact' });
    table.createCaption().textContent = `Position ${i}: the ${lens.top} most probable tokens at each stage, and the answer ${name(lens.answers[i])}’s probability and rank (0 = the top token).`;
    const head = table.createTHead().insertRow();
    for (const t of ['stage', 'top tokens', 'answer', 'rank']) head.append(el('th', { scope: 'col' }, t));
    const body = table.createTBody();
    lens.top_tokens.forEach((stage, s) => {
      const tr = body.insertRow();
      tr.append(el('th', { scope: 'row' }, stageName(s)));
      tr.append(el('td', {}, stage[i].map((t, r) => `${name(t)} ${formatPercent(lens.top_probability[s][i][r])}`).join(', ')));
      tr.append(
        el('td', { class: 'num', 'data-value': String(lens.answer_probability[s][i]) }, formatPercent(lens.answer_probability[s][i])),
      );
      tr.append(el('td', { class: 'num' }, formatNumber(lens.answer_rank[s][i], 0)));
    });
    return table;
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  /**
   * Numbers for <headlab-value source="<this id>">, at the chosen position: `answer.probability.<s>`
   * and `answer.rank.<s>` (stage s: 0 the embedding, L the output), `answer.first_top` (the first
   * stage whose top token is the answer; undefined if none), `top.probability.<s>`.
   */
  boundValue(name: string): BoundValue | undefined {
    const s = this.shown;
    if (!s) return undefined;
    const i = s.position;
    if (name === 'answer.first_top') {
      const first = firstTopStage(s.lens, i);
      return first === null ? undefined : { value: first, kind: 'count' };
    }
    const m = /^(answer\.probability|answer\.rank|top\.probability)\.(\d+)$/.exec(name);
    const stage = m ? Number(m[2]) : -1;
    if (!m || stage >= s.lens.answer_probability.length) return undefined;
    if (m[1] === 'answer.probability') return { value: s.lens.answer_probability[stage][i], kind: 'fraction' };
    if (m[1] === 'answer.rank') return { value: s.lens.answer_rank[stage][i], kind: 'count' };
    return { value: s.lens.top_probability[stage][i][0], kind: 'fraction' };
  }

  /** The state with the core's logit lens (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    if (!this.shown || state === null) return null;
    return { ...state, logit_lens: this.shown.lens };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'logit-lens',
        label: 'Logit lens',
        scene: () => {
          const s = this.exportable(this.shown);
          return this.scene(s.model, s.tokens, s.lens, s.position);
        },
      },
    ];
  }
}

/** Tokens per stage the figure asks the core for: TOP, at most the vocabulary. */
function lensTop(model: LoadedTransformer): number {
  return Math.min(TOP, model.config.d_vocab);
}

/** The first stage whose top token at position i is the answer (null if none). */
export function firstTopStage(lens: Pick<TransformerLogitLens, 'answer_rank'>, i: number): number | null {
  const s = lens.answer_rank.findIndex((row) => row[i] === 0);
  return s < 0 ? null : s;
}

/** The text colour for a cell of the sequential scale at value p: fg or panel, whichever contrasts more with the fill. */
function legibleOn(c: ResolvedColours, p: number): Rgb {
  const fill = mixRgb(c.panel, c.pos, Math.min(1, Math.max(0, p)) * SEQUENTIAL_MAX_MIX);
  return contrast(c.fg, fill) >= contrast(c.panel, fill) ? c.fg : c.panel;
}

export interface HeadlabLogitLens extends AttributeProperties<typeof HeadlabLogitLens.attributes> {}
