// <headlab-max-digit-mechanism>: the mechanism at a glance for the reader's list, in four
// panels read left to right, one row per head:
//   1. scores s_h(t_p) of ANS against the nine prompt tokens (analysis.json "scores");
//   2. the softmax of those scores, the ANS attention row a_h(p) (maxDigitAnsAttention);
//   3. what each head writes, read through the unembedding: head_h W_U over the ten digits
//      (maxDigitHeadLogits rows 0–3);
//   4. the readout: the logits of the ten digits (maxDigitLogits), the largest one the answer.
// Every bar carries data-head / data-position / data-digit, so hovering it lights the same head,
// position or digit in every max-digit figure of the page.
//
// Attributes: digits ("2 3 4 5 6"), model.
// Events: `change` with { digits, answer } when the reader edits the list.
import { type AttributeProperties, defineAttributes, el, type WidgetFigure } from './base/headlab-element.js';
import { formatNumber } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import type { MaxDigitModel } from './max-digit/model.js';
import {
  ANS,
  DigitsField,
  HEAD_COLOURS,
  MAX_DIGIT_CSS,
  MaxDigitWidget,
  POSITIONS,
  argmax,
  promptTokens,
  digitsAttribute,
} from './max-digit/widget.js';

export interface MaxDigitMechanismState {
  digits: number[];
  answer: number;
}

interface Shown {
  digits: number[];
  tokens: number[];
  scores: number[][];
  attention: number[][];
  writes: number[][];
  logits: number[];
  answer: number;
  text: string;
}

/**
 * Width of each of the four panels (SVG units = CSS px at full size) and the basis of its box: a
 * box never narrower than its drawing (the strip wraps instead), so the prerendered snapshot's
 * 12 px text is never drawn smaller (four 236-unit panels in 213 px boxes drew it at 10.6 px).
 */
const PANEL_W = 208;
const ROW_H = 62;
const TOP = 44;

/** The parts build() makes (this.parts). */
interface MaxDigitMechanismParts {
  field: DigitsField;
  answerLine: HTMLParagraphElement;
}

/** The mechanism at a glance for one list: scores, softmax, what each head writes, the logits. Attributes: digits, model. Shared: digits. */
export class HeadlabMaxDigitMechanism extends MaxDigitWidget<MaxDigitMechanismState, MaxDigitMechanismParts> {
  static attributes = defineAttributes({
    digits: digitsAttribute,
  });
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    .strip { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: flex-start; }
    .strip > figure { margin: 0; flex: 1 1 ${PANEL_W}px; max-width: 22rem; min-width: 0; }
    .strip figcaption { font-size: 0.85em; color: var(--hl-muted); margin-top: 0.2rem; }
    .arrow { align-self: center; color: var(--hl-muted); font-size: 1.3em; }
    @media (max-width: 40rem) { .arrow { display: none; } }
  `;
  private slots: HTMLDivElement[] = [];
  private shown: Shown | null = null;

  protected readState(): MaxDigitMechanismState {
    return { digits: this.digits, answer: this.shown?.answer ?? -1 };
  }

  protected buildContent(content: HTMLDivElement): MaxDigitMechanismParts {
    const field = this.digitsField();
    const strip = el('div', { class: 'strip' });
    const captions = [
      '1 · Scores: each head scores the nine tokens; the largest digit scores highest.',
      '2 · Softmax: the attention of ANS over the nine positions.',
      '3 · What each head writes, read as the ten digits’ logits.',
      '4 · Readout: the sum of the heads and the residual; the tallest bar is the answer.',
    ];
    this.slots = captions.map((caption, i) => {
      const figure = el('figure');
      const slot = el('div', { class: 'figure' });
      figure.append(slot, el('figcaption', {}, caption));
      if (i > 0) strip.append(el('span', { class: 'arrow', 'aria-hidden': 'true' }, '→'));
      strip.append(figure);
      return slot;
    });
    const answerLine = el('p', { class: 'caption', role: 'status', 'aria-live': 'polite' });
    content.append(el('p', { class: 'title' }, 'The mechanism at a glance'), field.element, strip, answerLine);
    return { field, answerLine };
  }

  protected renderContent(model: MaxDigitModel): void {
    const digits = this.parts.field.digits();
    this.parts.field.sync();
    const key = digits.join('');
    const tokens = promptTokens(digits);
    const shown = this.cached(model, `mech:${key}`, (): Shown => {
      const att = this.maxDigit!.maxDigitAnsAttention(this.held(model), digits).data;
      const rows = this.maxDigit!.maxDigitHeadLogits(this.held(model), digits).data;
      const out = this.maxDigit!.maxDigitLogits(this.held(model), digits);
      const logits = Array.from(out.logits as ArrayLike<number>).slice(0, 10);
      const scores = Array.from({ length: this.heads }, (_, h) => tokens.map((t) => model.analysis.scores[h][t]));
      const attention = Array.from({ length: this.heads }, (_, h) => Array.from(att.slice(h * POSITIONS, (h + 1) * POSITIONS)));
      const vocab = this.tokenNames.length; // rows: heads × vocabulary; the digits come first
      const writes = Array.from({ length: this.heads }, (_, h) => Array.from(rows.slice(h * vocab, h * vocab + 10)));
      const answer = out.answer as number;
      const maxDigit = Math.max(...digits);
      const text = `For the list ${digits.join(', ')}: ${attention
        .map(
          (a, h) =>
            `head ${h} puts ${formatNumber(
              tokens.reduce((s, t, p) => s + (t === maxDigit ? a[p] : 0), 0),
              2,
            )} of its attention on ${maxDigit} and writes most for digit ${argmax(writes[h])}`,
        )
        .join('; ')}; the logits pick ${answer}.`;
      return { digits, tokens, scores, attention, writes, logits, answer, text };
    });
    this.shown = shown;
    const scenes = [
      () => this.scoreScene(shown),
      () => this.attentionScene(shown),
      () => this.writeScene(shown),
      () => this.readoutScene(shown),
    ];
    const labels = ['Scores per head', 'Attention per head', 'What each head writes', 'Logits'];
    this.slots.forEach((slot, i) =>
      this.show(
        slot,
        this.fragment(model, `panel${i}:${key}`, () => {
          const svg = svgEl('svg', { role: 'img', 'aria-label': `${labels[i]} for the list ${digits.join(', ')}` });
          drawSceneInto(svg, scenes[i]());
          return svg;
        }),
      ),
    );
    const text = `${shown.text}`;
    if (this.parts.answerLine.textContent !== text) this.parts.answerLine.textContent = text;
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  figures(): WidgetFigure[] {
    const s = () => this.exportable(this.shown);
    return [
      { name: 'scores', label: 'Scores', scene: () => this.scoreScene(s()) },
      { name: 'attention', label: 'Attention', scene: () => this.attentionScene(s()) },
      { name: 'writes', label: 'What each head writes', scene: () => this.writeScene(s()) },
      { name: 'readout', label: 'Readout', scene: () => this.readoutScene(s()) },
    ];
  }

  /** One panel: a row of bars per head over `labels`, signed around a zero line. */
  private rows(
    title: string,
    labels: { text: string; data: Record<string, string>; bold?: boolean }[],
    values: number[][],
    unsigned: boolean,
  ): Scene {
    const c = this.themeColours();
    const shapes: Shape[] = [];
    const fg = rgbText(c.fg),
      muted = rgbText(c.muted);
    const { left, right, slot, barW } = barColumns(labels.length);
    const limit = largestMagnitude(values.flat());
    shapes.push({ kind: 'text', x: 2, y: 10, text: title, fill: muted, size: 11 });
    labels.forEach((l, i) =>
      shapes.push({
        kind: 'text',
        x: left + i * slot + slot / 2,
        y: TOP - 12,
        text: l.text,
        fill: l.bold ? fg : muted,
        size: 11,
        weight: l.bold ? 'bold' : 'normal',
        anchor: 'middle',
        data: l.data,
      }),
    );
    values.forEach((row, h) => {
      const top = TOP + h * ROW_H;
      const zero = unsigned ? top + ROW_H - 8 : top + (ROW_H - 8) / 2;
      const span = unsigned ? ROW_H - 14 : (ROW_H - 14) / 2;
      shapes.push({
        kind: 'text',
        x: 2,
        y: top + (ROW_H - 8) / 2,
        text: `h${h}`,
        fill: fg,
        size: 11,
        weight: 'bold',
        data: { head: String(h) },
      });
      shapes.push({ kind: 'line', x1: left, y1: zero, x2: PANEL_W - right, y2: zero, stroke: muted });
      row.forEach((v, i) => {
        const hgt = (Math.abs(v) / limit) * span;
        const data = { head: String(h), ...labels[i].data, value: String(v) };
        shapes.push({
          kind: 'rect',
          x: left + i * slot + (slot - barW) / 2,
          y: v >= 0 ? zero - hgt : zero,
          w: barW,
          h: Math.max(hgt, 0.5),
          fill: HEAD_COLOURS[h],
          data,
        });
      });
    });
    return { width: PANEL_W, height: TOP + this.heads * ROW_H, background: rgbText(c.panel), title, shapes };
  }

  private tokenLabels(s: Shown): { text: string; data: Record<string, string>; bold?: boolean }[] {
    const maxDigit = Math.max(...s.digits);
    return s.tokens.map((t, p) => ({
      text: t < 10 ? String(t) : this.tokenNames[t][0],
      data: { position: String(p), ...(t < 10 ? { digit: String(t) } : {}) },
      bold: t === maxDigit || t === ANS,
    }));
  }

  private scoreScene(s: Shown): Scene {
    return this.rows('score s_h(t) of each prompt token', this.tokenLabels(s), s.scores, false);
  }

  private attentionScene(s: Shown): Scene {
    return this.rows('attention a_h(p), 0 to 1', this.tokenLabels(s), s.attention, true);
  }

  private writeScene(s: Shown): Scene {
    const labels = Array.from({ length: 10 }, (_, d) => ({ text: String(d), data: { digit: String(d) }, bold: d === s.answer }));
    return this.rows('head_h W_U: logit of each digit', labels, s.writes, false);
  }

  private readoutScene(s: Shown): Scene {
    const c = this.themeColours();
    const shapes: Shape[] = [];
    const fg = rgbText(c.fg),
      muted = rgbText(c.muted);
    const { left, right, slot, barW } = barColumns(10);
    const height = TOP + this.heads * ROW_H;
    const limit = largestMagnitude(s.logits);
    const zero = TOP + (height - TOP - 10) / 2;
    const span = (height - TOP - 20) / 2;
    shapes.push({ kind: 'text', x: 2, y: 10, text: 'logits of the ten digits', fill: muted, size: 11 });
    shapes.push({ kind: 'line', x1: left, y1: zero, x2: PANEL_W - right, y2: zero, stroke: muted });
    s.logits.forEach((v, d) => {
      const hgt = (Math.abs(v) / limit) * span;
      const best = d === s.answer;
      shapes.push({
        kind: 'text',
        x: left + d * slot + slot / 2,
        y: TOP - 12,
        text: String(d),
        fill: best ? fg : muted,
        size: best ? 13 : 11,
        weight: best ? 'bold' : 'normal',
        anchor: 'middle',
        data: { digit: String(d) },
      });
      shapes.push({
        kind: 'rect',
        x: left + d * slot + (slot - barW) / 2,
        y: v >= 0 ? zero - hgt : zero,
        w: barW,
        h: Math.max(hgt, 0.5),
        fill: best ? fg : muted,
        data: { digit: String(d), value: String(v) },
      });
    });
    shapes.push({
      kind: 'text',
      x: PANEL_W / 2,
      y: height - 6,
      text: `answer: ${s.answer}`,
      fill: fg,
      size: 13,
      weight: 'bold',
      anchor: 'middle',
    });
    return { width: PANEL_W, height, background: rgbText(c.panel), title: 'Logits at ANS', shapes };
  }
}

export interface HeadlabMaxDigitMechanism extends AttributeProperties<typeof HeadlabMaxDigitMechanism.attributes> {}

/** A panel's bar columns for `n` bars: the margins, each column's width and its bar's (72 % of it). */
function barColumns(n: number): { left: number; right: number; slot: number; barW: number } {
  const left = 22,
    right = 4;
  const slot = (PANEL_W - left - right) / n;
  return { left, right, slot, barW: slot * 0.72 };
}

/** The largest |v| of `values` (1 when every value is 0): a full-height bar. */
function largestMagnitude(values: readonly number[]): number {
  let limit = 0;
  for (const v of values) limit = Math.max(limit, Math.abs(v));
  return limit || 1;
}
