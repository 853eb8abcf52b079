// <headlab-attention-bars>: where the ANS token looks. For the reader's list of digits, a 4 × 9
// grid of bar charts shows each head's attention row at ANS (after the softmax) over the nine
// prompt tokens; beside it, the scores s_h(t) = (E[ANS] W_Q^h)·(E[t] W_K^h)/4 of ANS against
// each prompt token, with the maximum digit and ANS marked (the notes' comparison); below, the
// mass each head puts on the maximum, averaged over the evaluation lists with each maximum.
//
// Attributes: digits ("2 3 4 5 6"), model (id of a <headlab-max-digit-model>).
// Events: `change` with { digits, max_digit } when the reader edits the list.
import { type AttributeProperties, defineAttributes, el, type WidgetFigure } from './base/headlab-element.js';
import { formatCount, formatNumber } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import { tablesScene } from './chart/table-scene.js';
import type { MaxDigitModel } from './max-digit/model.js';
import {
  ANS,
  DigitsField,
  HEAD_COLOURS,
  MAX_DIGIT_CSS,
  MaxDigitWidget,
  POSITIONS,
  headLabel,
  promptTokens,
  scrollBox,
  digitsAttribute,
} from './max-digit/widget.js';

export interface AttentionBarsState {
  digits: number[];
  max_digit: number;
}

const PANEL_H = 96;
const WIDTH = 470;
const LEFT = 62;

/** The parts build() makes (this.parts). */
interface AttentionBarsParts {
  field: DigitsField;
  svgSlot: HTMLDivElement;
  scoreBox: HTMLDivElement;
  byMaxTable: HTMLTableElement;
  captionLine: HTMLParagraphElement;
}

/** Each head's attention from ANS over the prompt. Attributes: digits ("2 3 4 5 6 1"), model. Shared: digits. */
export class HeadlabAttentionBars extends MaxDigitWidget<AttentionBarsState, AttentionBarsParts> {
  static attributes = defineAttributes({
    digits: digitsAttribute,
  });
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    .scores td.max-col { background: color-mix(in srgb, var(--hl-pos) 18%, transparent); }
    .scores td.ans-col { background: color-mix(in srgb, var(--hl-neg) 18%, transparent); }
    .by-max td { min-width: 3.2em; }
  `;
  private shown: { attention: number[]; tokens: number[]; maxDigit: number; text: string } | null = null;
  private byMaxVersion = -1;

  protected readState(): AttentionBarsState {
    const digits = this.digits;
    return { digits, max_digit: Math.max(...digits) };
  }

  protected buildContent(content: HTMLDivElement): AttentionBarsParts {
    const field = this.digitsField();
    const figure = el('div', { class: 'figure' });
    const svgSlot = el('div');
    const captionLine = el('p', { class: 'caption' });
    figure.append(svgSlot, captionLine);
    const scoreBox = scrollBox('Scores of ANS against each token');
    const byMaxBox = scrollBox('Attention mass by maximum');
    const byMaxTable = el('table', { class: 'by-max compact' });
    byMaxBox.append(byMaxTable);
    content.append(el('p', { class: 'title' }, 'Attention of the ANS token, head by head'), field.element, figure, scoreBox, byMaxBox);
    return { field, svgSlot, scoreBox, byMaxTable, captionLine };
  }

  protected renderContent(model: MaxDigitModel): void {
    const digits = this.parts.field.digits();
    this.parts.field.sync(this.root.activeElement);
    const tokens = promptTokens(digits);
    const maxDigit = Math.max(...digits);
    const attention = this.cached(model, `att:${digits.join('')}`, () =>
      Array.from(this.maxDigit!.maxDigitAnsAttention(this.held(model), digits).data),
    );
    const mass = (h: number) => tokens.reduce((s, t, p) => s + (t === maxDigit ? attention[h * POSITIONS + p] : 0), 0);
    const masses = Array.from({ length: this.heads }, (_, h) => mass(h));
    const text = `ANS attention for the list ${digits.join(', ')} (maximum ${maxDigit}): mass on the maximum ${masses.map((m, h) => `head ${h} ${formatNumber(m, 3)}`).join(', ')}; mass on ANS itself ${Array.from({ length: this.heads }, (_, h) => `head ${h} ${formatNumber(attention[h * POSITIONS + 8], 3)}`).join(', ')}.`;
    this.shown = { attention, tokens, maxDigit, text };
    this.show(
      this.parts.svgSlot,
      this.fragment(model, `svg:${digits.join('')}`, () => {
        const svg = svgEl('svg', { role: 'img', 'aria-label': text });
        drawSceneInto(svg, this.scene(attention, tokens, maxDigit));
        return svg;
      }),
    );
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
    const scoreTable = this.fragment(model, `scores:${tokens.join(',')}`, () => {
      const table = el('table', { class: 'scores compact' });
      this.renderScores(table, model, tokens, maxDigit);
      return table;
    });
    this.show(this.parts.scoreBox, scoreTable);
    if (this.byMaxVersion !== model.version) {
      this.byMaxVersion = model.version;
      this.renderByMax(model);
    }
  }

  protected modelChanged(): void {
    this.byMaxVersion = -1;
  }

  private shownOrThrow(): [number[], number[], number] {
    const shown = this.exportable(this.shown);
    return [shown.attention, shown.tokens, shown.maxDigit];
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  figures(): WidgetFigure[] {
    return [
      { name: 'attention', label: 'ANS attention', scene: () => this.scene(...this.shownOrThrow()) },
      {
        name: 'tables',
        label: 'Score tables',
        scene: () =>
          tablesScene(
            [this.shownFor(this.parts.scoreBox, HTMLTableElement), this.parts.byMaxTable],
            this.themeColours(),
            'Scores of ANS and attention mass by maximum',
          ),
      },
    ];
  }

  private scene(att: ArrayLike<number>, tokens: number[], maxDigit: number): Scene {
    const c = this.themeColours();
    const shapes: Shape[] = [];
    const slot = (WIDTH - LEFT - 8) / POSITIONS;
    const barW = slot * 0.7;
    for (let h = 0; h < this.heads; h++) {
      const top = h * PANEL_H + 14;
      const base = top + PANEL_H - 34;
      const span = base - top - 12;
      shapes.push({
        kind: 'text',
        x: 4,
        y: top + span / 2 + 10,
        text: `head ${h}`,
        fill: rgbText(c.fg),
        size: 12,
        weight: 'bold',
        data: { head: String(h) },
      });
      shapes.push({ kind: 'line', x1: LEFT, y1: base, x2: WIDTH - 8, y2: base, stroke: rgbText(c.muted) });
      for (let p = 0; p < POSITIONS; p++) {
        const a = att[h * POSITIONS + p];
        const x = LEFT + p * slot + (slot - barW) / 2;
        const hgt = Math.max(0, a) * span;
        const tag = { head: String(h), position: String(p), ...(tokens[p] < 10 ? { digit: String(tokens[p]) } : {}) };
        shapes.push({ kind: 'rect', x, y: base - hgt, w: barW, h: hgt, fill: HEAD_COLOURS[h], data: tag });
        shapes.push({
          kind: 'text',
          x: x + barW / 2,
          y: base - hgt - 7,
          text: formatNumber(a, 2),
          fill: rgbText(c.fg),
          size: 10,
          anchor: 'middle',
        });
        const t = tokens[p];
        shapes.push({
          kind: 'text',
          x: x + barW / 2,
          y: base + 10,
          text: this.tokenNames[t],
          size: t >= 10 ? 9 : 12,
          anchor: 'middle',
          fill: rgbText(t === maxDigit ? c.fg : c.muted),
          weight: t === maxDigit || t === ANS ? 'bold' : 'normal',
        });
      }
    }
    return { width: WIDTH, height: this.heads * PANEL_H + 6, background: rgbText(c.panel), title: 'ANS attention per head', shapes };
  }

  private renderScores(table: HTMLTableElement, model: MaxDigitModel, tokens: number[], maxDigit: number): void {
    table.createCaption().textContent =
      'Scores of ANS against each prompt token before the softmax. Tinted columns: the maximum digit (in the positive colour) and ANS (in the negative colour).';
    const head = table.createTHead().insertRow();
    head.append(el('th', { scope: 'col' }, 'head'));
    tokens.forEach((t, p) => head.append(el('th', { scope: 'col', title: `position ${p}` }, this.tokenNames[t])));
    head.append(el('th', { scope: 'col', title: `score of ${maxDigit} minus score of ANS` }, 'max − ANS'));
    const body = table.createTBody();
    for (let h = 0; h < this.heads; h++) {
      const tr = body.insertRow();
      const th = el('th', { scope: 'row', class: 'head-name', 'data-head': String(h) });
      th.append(headLabel(h));
      tr.append(th);
      tokens.forEach((t) => {
        const s = model.analysis.scores[h][t];
        const td = el(
          'td',
          {
            class: `num${t === maxDigit ? ' max-col' : ''}${t === ANS ? ' ans-col' : ''}`,
            'data-value': String(s),
            'data-token': String(t),
            ...(t < 10 ? { 'data-digit': String(t) } : {}),
          },
          formatNumber(s, 2),
        );
        tr.append(td);
      });
      const gap = model.analysis.scores[h][maxDigit] - model.analysis.scores[h][ANS];
      tr.append(el('td', { class: 'num', 'data-value': String(gap), 'data-gap': '' }, formatNumber(gap, 2)));
    }
  }

  private renderByMax(model: MaxDigitModel): void {
    const table = this.parts.byMaxTable;
    table.replaceChildren();
    table.createCaption().textContent = `Averaged over the ${formatCount(model.analysis.evaluation.lists)} evaluation lists: the mass each head's ANS row puts on the maximum digit (upper number) and on ANS itself (lower), by maximum.`;
    const head = table.createTHead().insertRow();
    head.append(el('th', { scope: 'col' }, 'maximum'));
    for (let m = 0; m < 10; m++) head.append(el('th', { scope: 'col' }, String(m)));
    const body = table.createTBody();
    for (let h = 0; h < this.heads; h++) {
      const tr = body.insertRow();
      const th = el('th', { scope: 'row', class: 'head-name' });
      th.append(headLabel(h));
      tr.append(th);
      for (let m = 0; m < 10; m++) {
        const onMax = model.analysis.attention_by_max[h][m][m];
        const onAns = model.analysis.attention_by_max[h][m][ANS];
        const td = el('td', {
          class: 'num',
          'data-value': String(onMax),
          'data-ans': String(onAns),
          'data-max': String(m),
          'data-head': String(h),
          'data-digit': String(m),
        });
        td.append(formatNumber(onMax, 2), el('br'), el('span', { class: 'note' }, formatNumber(onAns, 2)));
        td.title = `head ${h}, maximum ${m}: ${formatNumber(onMax, 4)} on ${m}, ${formatNumber(onAns, 4)} on ANS`;
        tr.append(td);
      }
    }
  }
}

export interface HeadlabAttentionBars extends AttributeProperties<typeof HeadlabAttentionBars.attributes> {}
