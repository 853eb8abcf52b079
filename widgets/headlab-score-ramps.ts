// <headlab-score-ramps>: how each head chooses where to look. Left, every head's score
// s_h(t) = (E[ANS] W_Q^h)·(E[t] W_K^h)/4 over all 14 tokens: the digits 0–9 joined by a line
// (the ramp, with its least-squares slope per digit), the four markers beside them. Right, the
// runner-up control: for the list (r, m), the attention each head puts on the maximum m as the
// runner-up r moves towards m and the score gap s_h(m) − s_h(r) shrinks, against σ(gap), the
// share m would get if only the two digits shared the softmax (the markers take the rest).
// Every number comes from the core (analysis.json "scores", "mechanism", maxDigitRunnerUp).
//
// Attributes: maximum (1–9, default 9), runner-up (0 … maximum − 1, default maximum − 1), model.
// Events: `change` with { maximum, runner_up, on_maximum, two_token_share } (arrays over heads).
import type { MaxDigitRunnerUp } from '../web/headlab-core.js';
import { type AttributeProperties, custom, defineAttributes, el, type WidgetFigure, WidgetInputError } from './base/headlab-element.js';
import { formatNumber } from './chart/format.js';
import { mixRgb, rgbText } from './chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import type { MaxDigitModel } from './max-digit/model.js';
import { HEAD_COLOURS, MAX_DIGIT_CSS, MaxDigitWidget, headSwatch } from './max-digit/widget.js';

export interface ScoreRampsState {
  maximum: number;
  runner_up: number;
  on_maximum: number[];
  two_token_share: number[];
}

/** Head h's line dash (with its colour, so heads differ without colour too). */
const HEAD_DASH: (number[] | undefined)[] = [undefined, [7, 3], [2, 3], [9, 3, 2, 3]];
/** Widest drawing; a narrower panel gets a drawing of its own width, so 11 px text stays 11 px. */
const MAX_W = 460;
const MIN_W = 280;
const RAMP_H = 300;
/**
 * Narrowest panel beside the other: the two panels stand side by side only when each has nearly
 * the widest drawing's room (a drawing made for a stacked panel, as the prerendered snapshot of a
 * narrower window is, then never shrinks more than MAX_W / SIDE_BY_SIDE_MIN, keeping its 12 px
 * text above 11 px; with a 20rem basis the panels went side by side at 320 px each and a 460 px
 * drawing drew its text at 8.7 px).
 */
const SIDE_BY_SIDE_MIN = 440;
const SPLIT_H = 250;
/** The drawings' width for a panel `w` px wide: its own, in steps of 20 px, MIN_W … MAX_W. */
const rampWidth = (w: number): number => Math.max(MIN_W, Math.min(MAX_W, Math.floor(w / 20) * 20));

/** The parts build() makes (this.parts). */
interface ScoreRampsParts {
  rampSlot: HTMLDivElement;
  splitSlot: HTMLDivElement;
  slopes: HTMLUListElement;
  maxSelect: HTMLSelectElement;
  runnerInput: HTMLInputElement;
  runnerText: HTMLOutputElement;
  splitLine: HTMLParagraphElement;
}

/** Every head's score over the 14 tokens, and the runner-up split against σ(gap). Attributes: maximum (1–9), runner-up (below it), model. Shared: maximum, runner-up. */
export class HeadlabScoreRamps extends MaxDigitWidget<ScoreRampsState, ScoreRampsParts> {
  static attributes = defineAttributes({
    maximum: custom({
      type: 'number',
      markup: 'Num',
      shared: true,
      doc: 'The maximum digit of the list, 1–9 (default 9).',
      parse: (raw) => {
        if (raw === null || raw === '') return 9;
        if (!/^[1-9]$/.test(raw.trim())) throw new WidgetInputError(`attribute maximum="${raw}" must be a digit from 1 to 9`);
        return Number(raw);
      },
      format: String,
    }),
    'runner-up': custom({
      type: 'number',
      markup: 'Num',
      shared: true,
      doc: 'The runner-up digit, below the maximum (default the maximum − 1).',
      parse: (raw, host): number => {
        const m = (host as HeadlabScoreRamps).maximum;
        if (raw === null || raw === '') return m - 1;
        if (!/^[0-9]$/.test(raw.trim()) || Number(raw) >= m) {
          throw new WidgetInputError(`attribute runner-up="${raw}" must be a digit below the maximum ${m}`);
        }
        return Number(raw);
      },
      format: String,
    }),
  });
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    .panels { display: flex; flex-wrap: wrap; gap: 0.75rem 1.5rem; align-items: flex-start; }
    .panels > div { flex: 1 1 ${SIDE_BY_SIDE_MIN}px; min-width: 0; }
    .controls-row { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; margin: 0.3rem 0; }
    .controls-row label { display: inline-flex; gap: 0.4rem; align-items: center; }
    .controls-row select { font: inherit; min-height: 2.75rem; min-width: 2.75rem; padding: 0 0.3rem; color: var(--hl-fg); background: var(--hl-control); border: 1px solid var(--hl-rule); border-radius: 4px; }
    .controls-row input[type="range"] { min-height: 2.75rem; width: 11rem; }
    .slopes { display: flex; flex-wrap: wrap; gap: 0.2rem 1rem; font-size: 0.9em; margin: 0.3rem 0; padding: 0; list-style: none; }
  `;
  /**
   * The drawings' width in CSS px: the ramp panel's (rampWidth; MAX_W when not laid out), read
   * once at the first render (widthMeasured) so the first drawing is at the shown width, then
   * kept by a ResizeObserver, so no later redraw forces a layout.
   */
  private width = MAX_W;
  private widthMeasured = false;
  private shown: { model: MaxDigitModel; splits: MaxDigitRunnerUp[]; maximum: number; runnerUp: number; text: string } | null = null;

  protected readState(): ScoreRampsState {
    const s = this.shown;
    const split = s?.splits[s.runnerUp];
    return {
      maximum: this.maximum,
      runner_up: this.runnerUp,
      on_maximum: split ? [...split.on_maximum] : [],
      two_token_share: split ? [...split.two_token_share] : [],
    };
  }

  protected buildContent(content: HTMLDivElement): ScoreRampsParts {
    const rampSlot = el('div', { class: 'figure' });
    const splitSlot = el('div', { class: 'figure' });
    const slopes = el('ul', { class: 'slopes', 'aria-label': 'Slope of each head’s score per digit' });
    const controls = el('div', { class: 'controls-row' });
    const maxLabel = el('label', {}, 'Maximum m');
    const maxSelect = el('select', { name: 'maximum' });
    for (let m = 1; m <= 9; m++) maxSelect.append(el('option', { value: String(m) }, String(m)));
    maxLabel.append(maxSelect);
    const runnerLabel = el('label', {}, 'Runner-up r');
    const runnerInput = el('input', { type: 'range', min: '0', max: '8', step: '1', name: 'runner-up' });
    const runnerText = el('output', {});
    runnerLabel.append(runnerInput, runnerText);
    controls.append(maxLabel, runnerLabel);
    this.listen(maxSelect, 'change', () => {
      const m = Number(maxSelect.value);
      this.setAttribute('maximum', String(m));
      if (this.hasAttribute('runner-up') && Number(this.getAttribute('runner-up')) >= m) this.runnerUp = m - 1;
      this.emitChange();
    });
    this.listen(runnerInput, 'input', () => {
      this.runnerUp = Number(runnerInput.value);
      this.emitChange();
    });
    const splitLine = el('p', { class: 'caption', role: 'status', 'aria-live': 'polite' });
    const left = el('div');
    left.append(el('p', { class: 'title' }, 'Each head’s score for all 14 tokens'), rampSlot, slopes);
    const right = el('div');
    right.append(
      el('p', { class: 'title' }, 'The softmax splits attention between the maximum and the runner-up'),
      controls,
      splitSlot,
      splitLine,
    );
    const panels = el('div', { class: 'panels' });
    panels.append(left, right);
    content.append(panels);
    this.widthMeasured = false;
    if (typeof ResizeObserver === 'function') {
      const observer = new ResizeObserver((entries) => {
        const w = entries[0].contentRect.width;
        if (w > 0 && rampWidth(w) !== this.width) {
          this.width = rampWidth(w);
          this.requestRender();
        }
      });
      observer.observe(rampSlot);
      this.resizeObserver = observer;
    }
    return { rampSlot, splitSlot, slopes, maxSelect, runnerInput, runnerText, splitLine };
  }

  private resizeObserver: ResizeObserver | null = null;

  disconnectedCallback(): void {
    this.resizeObserver?.disconnect();
    this.resizeObserver = null;
    super.disconnectedCallback();
  }

  protected renderContent(model: MaxDigitModel): void {
    if (!this.widthMeasured) {
      this.widthMeasured = true;
      const [w] = this.measureOnce([this.parts.rampSlot]);
      if (w > 0) this.width = rampWidth(w);
    }
    const maximum = this.maximum;
    const runnerUp = this.runnerUp;
    const splits = this.cached(model, `splits:${maximum}`, () =>
      Array.from({ length: maximum }, (_, r) => this.maxDigit!.maxDigitRunnerUp(this.held(model), maximum, r)),
    );
    const split = splits[runnerUp];
    this.parts.maxSelect.value = String(maximum);
    this.parts.runnerInput.max = String(maximum - 1);
    this.parts.runnerInput.value = String(runnerUp);
    this.parts.runnerInput.setAttribute('aria-valuetext', `runner-up ${runnerUp}`);
    this.parts.runnerText.textContent = String(runnerUp);
    const slopes = model.analysis.mechanism.score_slope;
    this.parts.slopes.replaceChildren(
      ...slopes.map((b, h) => {
        const li = el('li', { 'data-head': String(h) });
        li.append(headSwatch(h), `head ${h}: ${b >= 0 ? '+' : ''}${formatNumber(b, 2)} per digit`);
        return li;
      }),
    );
    const perHead = split.on_maximum
      .map(
        (a, h) =>
          `head ${h} ${formatNumber(a, 3)} (σ(gap) ${formatNumber(split.two_token_share[h], 3)}, gap ${formatNumber(split.gap[h], 2)})`,
      )
      .join('; ');
    const text = `For the list ${runnerUp}, ${maximum}: attention on the maximum ${maximum}: ${perHead}.`;
    this.parts.splitLine.textContent = text;
    this.shown = { model, splits, maximum, runnerUp, text };
    this.show(
      this.parts.rampSlot,
      this.fragment(model, `ramps:${this.width}`, () => {
        const svg = svgEl('svg', { role: 'img', 'aria-label': this.rampText(model) });
        drawSceneInto(svg, this.rampScene(model));
        return svg;
      }),
    );
    this.show(
      this.parts.splitSlot,
      this.fragment(model, `split:${maximum}:${runnerUp}:${this.width}`, () => {
        const svg = svgEl('svg', { role: 'img', 'aria-label': text });
        drawSceneInto(svg, this.splitScene(splits, maximum, runnerUp));
        return svg;
      }),
    );
  }

  private rampText(model: MaxDigitModel): string {
    const s = model.analysis.scores;
    return `Scores of ANS against every token, per head: ${s.map((row, h) => `head ${h}: digits 0 to 9 from ${formatNumber(row[0], 1)} to ${formatNumber(row[9], 1)}, markers PAD ${formatNumber(row[10], 1)}, BOS ${formatNumber(row[11], 1)}, SEP ${formatNumber(row[12], 1)}, ANS ${formatNumber(row[13], 1)}`).join('; ')}.`;
  }

  protected describe(model: MaxDigitModel): string {
    return `${this.rampText(model)} ${this.shown?.text ?? ''}`;
  }

  figures(): WidgetFigure[] {
    const shown = () => this.exportable(this.shown);
    return [
      { name: 'ramps', label: 'Score ramps', scene: () => this.rampScene(shown().model) },
      {
        name: 'split',
        label: 'Runner-up split',
        scene: () => {
          const s = shown();
          return this.splitScene(s.splits, s.maximum, s.runnerUp);
        },
      },
    ];
  }

  /** x position of token t: digits 0–9 evenly, a gap, then PAD, BOS, SEP, ANS. */
  private static tokenX(t: number, left: number, width: number): number {
    const slot = width / 15;
    return left + (t < 10 ? t : t + 1) * slot + slot / 2;
  }

  private rampScene(model: MaxDigitModel): Scene {
    const c = this.themeColours();
    const scores = model.analysis.scores;
    const RAMP_W = this.width;
    const left = 44,
      right = 8,
      top = 14,
      bottom = 40;
    const plotW = RAMP_W - left - right;
    let lo = Infinity,
      hi = -Infinity;
    for (const row of scores)
      for (const v of row) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    const pad = (hi - lo) * 0.06 || 1;
    lo -= pad;
    hi += pad;
    const y = (v: number) => top + ((hi - v) / (hi - lo)) * (RAMP_H - top - bottom);
    const x = (t: number) => HeadlabScoreRamps.tokenX(t, left, plotW);
    const shapes: Shape[] = [];
    const fg = rgbText(c.fg),
      muted = rgbText(c.muted);
    for (const v of niceTicks(lo, hi)) {
      shapes.push({ kind: 'line', x1: left, y1: y(v), x2: RAMP_W - right, y2: y(v), stroke: rgbText(c.rule), dash: [2, 3] });
      shapes.push({ kind: 'text', x: left - 4, y: y(v), text: formatNumber(v, 0), fill: muted, size: 11, anchor: 'end' });
    }
    shapes.push({ kind: 'text', x: 4, y: top - 4, text: 'score', fill: muted, size: 11 });
    for (let t = 0; t < 14; t++) {
      const name = t >= 10 && plotW / 15 < 26 ? this.tokenNames[t][0] : this.tokenNames[t];
      shapes.push({
        kind: 'text',
        x: x(t),
        y: RAMP_H - bottom + 12,
        text: name,
        fill: t < 10 ? fg : muted,
        size: t < 10 ? 12 : 11,
        anchor: 'middle',
        data: t < 10 ? { digit: String(t) } : {},
      });
    }
    shapes.push({ kind: 'text', x: left + (plotW * 10) / 30, y: RAMP_H - 8, text: 'digits', fill: muted, size: 11, anchor: 'middle' });
    shapes.push({ kind: 'text', x: x(12) - plotW / 30, y: RAMP_H - 8, text: 'markers', fill: muted, size: 11, anchor: 'middle' });
    for (let h = 0; h < this.heads; h++) {
      const points = Array.from({ length: 10 }, (_, d) => [x(d), y(scores[h][d])] as const);
      shapes.push({ kind: 'polyline', points, stroke: HEAD_COLOURS[h], width: 2.5, data: { head: String(h) } });
      if (HEAD_DASH[h]) {
        // The dash pattern as a thin overlay in the panel colour, so the exported file keeps it too.
        for (let d = 0; d < 9; d++) {
          shapes.push({
            kind: 'line',
            x1: points[d][0],
            y1: points[d][1],
            x2: points[d + 1][0],
            y2: points[d + 1][1],
            stroke: rgbText(c.panel),
            width: 1,
            dash: HEAD_DASH[h],
            data: { head: String(h) },
          });
        }
      }
      for (let t = 0; t < 14; t++) {
        const size = t < 10 ? 6 : 8;
        shapes.push({
          kind: 'rect',
          x: x(t) - size / 2 + (t < 10 ? 0 : (h - 1.5) * 4),
          y: y(scores[h][t]) - size / 2,
          w: size,
          h: size,
          fill: HEAD_COLOURS[h],
          stroke: rgbText(c.panel),
          data: { head: String(h), token: String(t), value: String(scores[h][t]), ...(t < 10 ? { digit: String(t) } : {}) },
        });
      }
    }
    return { width: RAMP_W, height: RAMP_H, background: rgbText(c.panel), title: 'Score of ANS against each token, per head', shapes };
  }

  private splitScene(splits: MaxDigitRunnerUp[], maximum: number, runnerUp: number): Scene {
    const c = this.themeColours();
    const SPLIT_W = this.width;
    const left = 44,
      right = 10,
      top = SPLIT_W < 400 ? 38 : 30,
      bottom = 40;
    const plotW = SPLIT_W - left - right;
    const slot = plotW / 9;
    const x = (r: number) => left + r * slot + slot / 2;
    // The y axis runs from a round value below the lowest share up to 1, so the split is visible.
    let low = 1;
    for (const s of splits) for (let h = 0; h < this.heads; h++) low = Math.min(low, s.on_maximum[h], s.two_token_share[h]);
    const step = 1 - low > 0.4 ? 0.25 : 1 - low > 0.15 ? 0.1 : 0.05;
    const floor = Math.max(0, Math.floor((low - step / 4) / step) * step);
    const y = (v: number) => top + ((1 - v) / (1 - floor)) * (SPLIT_H - top - bottom);
    const ticks: number[] = [];
    for (let v = 1; v >= floor - 1e-9; v -= step) ticks.push(Math.round(v * 100) / 100);
    const shapes: Shape[] = [];
    const fg = rgbText(c.fg),
      muted = rgbText(c.muted);
    shapes.push({
      kind: 'rect',
      x: x(runnerUp) - slot / 2,
      y: top,
      w: slot,
      h: SPLIT_H - top - bottom,
      fill: rgbText(mixRgb(c.panel, c.muted, 0.18)),
      data: { digit: String(runnerUp) },
    });
    for (const v of ticks) {
      shapes.push({ kind: 'line', x1: left, y1: y(v), x2: SPLIT_W - right, y2: y(v), stroke: rgbText(c.rule), dash: [2, 3] });
      shapes.push({ kind: 'text', x: left - 4, y: y(v), text: v.toFixed(2), fill: muted, size: 11, anchor: 'end' });
    }
    for (let r = 0; r < 9; r++) {
      shapes.push({
        kind: 'text',
        x: x(r),
        y: SPLIT_H - bottom + 12,
        text: r < maximum ? String(r) : '',
        fill: r === runnerUp ? fg : muted,
        size: 12,
        weight: r === runnerUp ? 'bold' : 'normal',
        anchor: 'middle',
        data: r < maximum ? { digit: String(r) } : {},
      });
    }
    shapes.push({
      kind: 'text',
      x: left + plotW / 2,
      y: SPLIT_H - 8,
      text: `runner-up r (the list is r, ${maximum})`,
      fill: muted,
      size: 11,
      anchor: 'middle',
    });
    shapes.push({ kind: 'text', x: 4, y: 10, text: `attention on ${maximum}`, fill: muted, size: 11 });
    for (let h = 0; h < this.heads; h++) {
      // σ(gap): the line; the measured mass: squares.
      const line = splits.map((s, r) => [x(r), y(s.two_token_share[h])] as const);
      shapes.push({ kind: 'polyline', points: line, stroke: HEAD_COLOURS[h], width: 1.5, data: { head: String(h) } });
      splits.forEach((s, r) => {
        const size = r === runnerUp ? 9 : 6;
        shapes.push({
          kind: 'rect',
          x: x(r) - size / 2 + (h - 1.5) * 2,
          y: y(s.on_maximum[h]) - size / 2,
          w: size,
          h: size,
          fill: HEAD_COLOURS[h],
          stroke: fg,
          data: { head: String(h), digit: String(r) },
        });
      });
    }
    shapes.push({
      kind: 'text',
      x: SPLIT_W - right,
      y: SPLIT_W < 400 ? 22 : 10,
      text: 'line: σ(gap) · squares: measured',
      fill: muted,
      size: 11,
      anchor: 'end',
    });
    return {
      width: SPLIT_W,
      height: SPLIT_H,
      background: rgbText(c.panel),
      title: `Attention on the maximum ${maximum} against the runner-up`,
      shapes,
    };
  }
}

/** About five round ticks between lo and hi. */
function niceTicks(lo: number, hi: number): number[] {
  const span = hi - lo;
  const raw = span / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => span / s <= 6) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(Math.round(v / step) * step);
  return out;
}

export interface HeadlabScoreRamps extends AttributeProperties<typeof HeadlabScoreRamps.attributes> {}
