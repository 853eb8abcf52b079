// <headlab-head-svd model="m">: what each head's matrices can do, from their singular value
// decompositions (core/head_svd.hpp). For head (l, h), with its layer's normalisation weight folded in,
//   W_OV = W_V W_O  (d × d, rank ≤ d_head): what the head writes for what it attends to,
//   W_QK = W_Q W_Kᵀ (d × d, rank ≤ d_head): which query and key directions make a high score;
// their d_head singular values σ_1 ≥ … ≥ σ_dhead, the top singular directions read in token space
// (OV: W_E u, the tokens the head reads along u, and v W_U, the logits its write raises; QK: W_E u
// at the query and W_E v at the key), and the OV copying score Σ max(Re λ, 0) / Σ |λ| over the
// eigenvalues λ of W_E W_OV W_U (1: attending to a token raises that token's own logit).
//
// Drawn as every head's copying score (bars by layer) over the chosen head's OV and QK singular
// values, as a share of the matrix's squared Frobenius norm σ_k² / Σ σ²; the table reads the top
// directions in tokens.
//
// Attributes: model, layer, head (default the head with the largest copying score).
// Events: `change` with HeadSvdState. Bound values (boundValue): copying, ov.share.<k>,
// qk.share.<k>, ov.value.<k>, qk.value.<k> (chosen head, k from 1), copying.max.{layer,head,score}.
import type { TransformerHeadSvd, TransformerTokenReading } from '../web/headlab-core.js';
import { type AttributeProperties, defineAttributes, el, integer, type WidgetFigure } from './base/headlab-element.js';
import { labelledSelect } from './base/dom.js';
import type { BoundValue } from './chart/format.js';
import { formatNumber, formatPercent } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import type { Scene, Shape } from './chart/scene.js';
import { drawnSvg } from './transformer/draw.js';
import type { LoadedTransformer } from './transformer/model.js';
import { TRANSFORMER_CSS, TransformerWidget, headName, tokenName } from './transformer/widget.js';

type HeadEntry = TransformerHeadSvd['heads'][number][number];

export interface HeadSvdState {
  layer: number;
  head: number;
  /** The chosen head's OV copying score in [0, 1] (null before computing). */
  copying: number | null;
  /** Its d_head OV and QK singular values, descending ([] before computing). */
  ov: number[];
  qk: number[];
}

/** Directions the figure reads in token space, and tokens per direction. */
const DIRECTIONS = 3;
const TOP = 4;

/** σ_k² / Σ σ², the share of the matrix's squared Frobenius norm along direction k. */
export function normShares(values: readonly number[]): number[] {
  const total = values.reduce((a, v) => a + v * v, 0);
  return values.map((v) => (total > 0 ? (v * v) / total : 0));
}

/** The (layer, head) with the largest copying score (ties: the first). */
export function mostCopying(svd: Pick<TransformerHeadSvd, 'heads'>): { layer: number; head: number; score: number } {
  let best = { layer: 0, head: 0, score: -Infinity };
  svd.heads.forEach((row, layer) =>
    row.forEach((e, head) => {
      if (e.copying > best.score) best = { layer, head, score: e.copying };
    }),
  );
  return best;
}

/** The parts build() makes (this.parts). */
interface HeadSvdParts {
  headSelect: HTMLSelectElement;
  graphSlot: HTMLDivElement;
  captionLine: HTMLParagraphElement;
  tableBox: HTMLDivElement;
}

/** Singular values of every head's OV and QK matrices, the chosen head's top directions read in tokens, and every head's OV copying score. Attributes: layer, head (default the head that copies most), model. Shared: layer, head. Bound values: copying, ov.share.<k>, qk.share.<k>, ov.value.<k>, qk.value.<k>, copying.max.{layer,head,score}. */
export class HeadlabHeadSvd extends TransformerWidget<HeadSvdState, HeadSvdParts> {
  static attributes = defineAttributes({
    layer: integer({
      fallback: 0,
      min: 0,
      max: (host): number => ((host as HeadlabHeadSvd).currentModel?.config.n_layers ?? 64) - 1,
      shared: true,
      doc: 'The layer (default the head that copies most).',
    }),
    head: integer({
      fallback: 0,
      min: 0,
      max: (host): number => ((host as HeadlabHeadSvd).currentModel?.config.n_heads ?? 64) - 1,
      shared: true,
      doc: 'The head (default the head that copies most).',
    }),
  });
  protected static css = /* css */ `${TRANSFORMER_CSS}
    table.directions td, table.directions th { font-size: 0.85em; padding: 0.15rem 0.4rem; white-space: nowrap; }
  `;
  private selectsFor = '';
  private shown: { model: LoadedTransformer; svd: TransformerHeadSvd; layer: number; head: number; text: string } | null = null;

  protected readState(): HeadSvdState {
    const s = this.shown;
    if (!s) return { layer: this.layer, head: this.head, copying: null, ov: [], qk: [] };
    const e = s.svd.heads[s.layer][s.head];
    return { layer: s.layer, head: s.head, copying: e.copying, ov: e.ov_singular_values, qk: e.qk_singular_values };
  }

  protected buildContent(content: HTMLDivElement): HeadSvdParts {
    const controls = el('div', { class: 'controls' });
    const headSelect = labelledSelect(controls, 'Head', 'head');
    this.listen(headSelect, 'change', () => {
      const [l, h] = headSelect.value.split('.').map(Number);
      this.layer = l;
      this.head = h;
      this.emitChange();
    });
    const figure = el('div', { class: 'figure' });
    const graphSlot = el('div');
    const captionLine = el('p', { class: 'caption', 'aria-live': 'polite' });
    figure.append(graphSlot, captionLine);
    const tableBox = el('div', {
      class: 'scroll',
      tabindex: '0',
      role: 'group',
      'aria-label': 'Top singular directions read in tokens',
      hidden: '',
    });
    content.append(el('p', { class: 'title' }, 'Head SVD: what each head’s OV and QK matrices can do'), controls, figure, tableBox);
    return { headSelect, graphSlot, captionLine, tableBox };
  }

  private fillSelect(model: LoadedTransformer): void {
    const key = `${model.version}`;
    if (this.selectsFor === key) return;
    this.selectsFor = key;
    const { n_layers: L, n_heads: H } = model.config;
    const options = [];
    for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) options.push(el('option', { value: `${l}.${h}` }, headName(l, h)));
    this.parts.headSelect.replaceChildren(...options);
  }

  protected renderContent(model: LoadedTransformer): void {
    this.fillSelect(model);
    const directions = Math.min(DIRECTIONS, model.config.d_head);
    const top = Math.min(TOP, model.config.d_vocab);
    const analysis = this.analyzedInWorker(model, `svd:${directions}|${top}`, {
      prompt: [0],
      // No repeated random sequences: the SVD does not read them (a large model's one sequence is beyond the core's bound).
      sequences: 0,
      head_svd: true,
      directions,
      top,
    });
    const svd = analysis?.head_svd;
    if (!svd) {
      const waiting = 'Computing the singular values of every head’s OV and QK matrices…';
      if (this.parts.captionLine.textContent !== waiting) this.parts.captionLine.textContent = waiting;
      if (this.shown?.model !== model) this.show(this.parts.graphSlot, el('p', { class: 'waiting' }, waiting));
      return;
    }
    // Without a layer and head attribute: the head that copies most.
    const best = mostCopying(svd);
    const layer = this.hasAttribute('layer') || this.hasAttribute('head') ? this.layer : best.layer;
    const head = this.hasAttribute('layer') || this.hasAttribute('head') ? this.head : best.head;
    this.parts.headSelect.value = `${layer}.${head}`;
    const text = this.summaryText(model, svd, layer, head);
    this.shown = { model, svd, layer, head, text };
    this.show(
      this.parts.graphSlot,
      this.fragment(model, `svd:${layer}.${head}|${this.themeKey()}`, () => {
        const svg = drawnSvg(this.scene(model, svd, layer, head), false);
        svg.setAttribute('aria-label', text);
        return svg;
      }),
    );
    if (this.parts.captionLine.textContent !== text) this.parts.captionLine.textContent = text;
    this.parts.tableBox.hidden = false;
    this.show(
      this.parts.tableBox,
      this.fragment(model, `directions:${layer}.${head}`, () => this.directionsTable(model, svd, layer, head)),
    );
  }

  private summaryText(model: LoadedTransformer, svd: TransformerHeadSvd, layer: number, head: number): string {
    const e = svd.heads[layer][head];
    const words = (reading: TransformerTokenReading, k: number) => reading.tokens[k].map((t) => tokenName(model.config, t)).join(', ');
    const ov = normShares(e.ov_singular_values),
      qk = normShares(e.qk_singular_values);
    const best = mostCopying(svd);
    const copies =
      e.copying >= 0.9
        ? 'it copies: attending to a token raises that token’s own logit'
        : e.copying <= 0.5
          ? 'it does not copy'
          : 'it copies in part';
    return (
      `${headName(layer, head)}: OV copying score ${formatNumber(e.copying, 2)} (${copies}). ` +
      `Its first OV direction carries ${formatPercent(ov[0])} of the OV matrix’s squared norm: along it the head reads ${words(e.ov_input, 0)} and raises the logits of ${words(e.ov_output, 0)}. ` +
      `Its first QK direction carries ${formatPercent(qk[0])} of the QK matrix’s: queries on ${words(e.qk_query, 0)} score high against keys on ${words(e.qk_key, 0)}. ` +
      `Of all heads, ${headName(best.layer, best.head)} copies most (${formatNumber(best.score, 2)}).`
    );
  }

  /** A key that changes with the theme, so a cached drawing is not reused across light and dark. */
  private themeKey(): string {
    return rgbText(this.themeColours().panel);
  }

  private scene(model: LoadedTransformer, svd: TransformerHeadSvd, layer: number, head: number): Scene {
    const c = this.themeColours();
    const { n_layers: L, n_heads: H, d_head: D } = model.config;
    const width = 400,
      left = 34,
      right = width - 8;
    const shapes: Shape[] = [];
    // Top panel: every head's copying score, grouped by layer.
    const top = 28,
      barH = 80;
    shapes.push({ kind: 'text', x: 4, y: 12, text: 'OV copying score of every head (0 to 1)', fill: rgbText(c.muted), size: 12 });
    const n = L * H,
      gap = 10;
    const slot = (right - left - gap * (L - 1)) / n;
    const barW = Math.max(3, Math.min(28, slot - 3));
    const xOf = (l: number, h: number) => left + (l * H + h) * slot + l * gap + (slot - barW) / 2;
    for (const v of [0, 0.5, 1]) {
      const y = top + barH * (1 - v);
      shapes.push({ kind: 'line', x1: left - 2, y1: y, x2: right, y2: y, stroke: rgbText(c.rule), width: 0.5 });
      shapes.push({ kind: 'text', x: left - 5, y, text: formatNumber(v, 1), fill: rgbText(c.muted), size: 10, anchor: 'end' });
    }
    svd.heads.forEach((row, l) =>
      row.forEach((e, h) => {
        const chosen = l === layer && h === head;
        const hgt = Math.max(0.5, barH * e.copying);
        shapes.push({
          kind: 'rect',
          x: xOf(l, h),
          y: top + barH - hgt,
          w: barW,
          h: hgt,
          fill: rgbText(chosen ? c.pos : c.muted),
          ...(chosen ? { stroke: rgbText(c.focus) } : {}),
          data: { head: `${l}.${h}` },
        });
      }),
    );
    for (let l = 0; l < L; l++)
      shapes.push({
        kind: 'text',
        x: (xOf(l, 0) + xOf(l, H - 1) + barW) / 2,
        y: top + barH + 12,
        text: `layer ${l}`,
        fill: rgbText(c.fg),
        size: 11,
        anchor: 'middle',
      });
    // Bottom panels: the chosen head's singular values as shares of the squared norm, OV and QK side by side.
    const y0 = top + barH + 62,
      h2 = 80,
      panelW = (right - left - 24) / 2;
    const e = svd.heads[layer][head];
    const panels: [string, number[], number][] = [
      [`${headName(layer, head)} OV: σ_k² / Σσ²`, normShares(e.ov_singular_values), left],
      [`${headName(layer, head)} QK: σ_k² / Σσ²`, normShares(e.qk_singular_values), left + panelW + 24],
    ];
    for (const [title, shares, x0] of panels) {
      // Each panel's bars scaled to its largest share (written over the first bar).
      const most = Math.max(1e-12, ...shares);
      shapes.push({ kind: 'text', x: x0, y: y0 - 22, text: title, fill: rgbText(c.fg), size: 11 });
      shapes.push({ kind: 'line', x1: x0, y1: y0 + h2, x2: x0 + panelW, y2: y0 + h2, stroke: rgbText(c.rule) });
      const w = panelW / D;
      shares.forEach((s, k) => {
        const hgt = Math.max(0.5, (h2 * s) / most);
        shapes.push({
          kind: 'rect',
          x: x0 + k * w + 1,
          y: y0 + h2 - hgt,
          w: Math.max(1, w - 2),
          h: hgt,
          fill: rgbText(k < DIRECTIONS ? c.pos : c.muted),
          data: { direction: String(k + 1) },
        });
      });
      shapes.push({
        kind: 'text',
        x: x0 + w / 2 + 1,
        y: y0 - 6,
        text: formatPercent(shares[0], 0),
        fill: rgbText(c.fg),
        size: 10,
        anchor: 'start',
      });
      shapes.push({ kind: 'text', x: x0, y: y0 + h2 + 12, text: `k = 1 … ${D}`, fill: rgbText(c.muted), size: 10 });
    }
    return { width, height: y0 + h2 + 22, background: rgbText(c.panel), title: 'Head SVD', shapes };
  }

  /** The chosen head's top directions, each read in tokens. */
  private directionsTable(model: LoadedTransformer, svd: TransformerHeadSvd, layer: number, head: number): HTMLTableElement {
    const e: HeadEntry = svd.heads[layer][head];
    const words = (reading: TransformerTokenReading, k: number) => reading.tokens[k].map((t) => tokenName(model.config, t)).join(' ');
    const table = el('table', { class: 'directions compact' });
    table.createCaption().textContent = `${headName(layer, head)}’s top ${svd.directions} singular directions read in tokens (the ${svd.top} largest each): the tokens the OV circuit reads and the logits it raises; the query and key tokens the QK circuit matches.`;
    const row = table.createTHead().insertRow();
    for (const t of ['k', 'OV σ', 'reads', 'raises', 'QK σ', 'query', 'key']) row.append(el('th', { scope: 'col' }, t));
    const body = table.createTBody();
    for (let k = 0; k < svd.directions; k++) {
      const tr = body.insertRow();
      tr.append(el('th', { scope: 'row' }, String(k + 1)));
      tr.append(el('td', { class: 'num' }, formatNumber(e.ov_singular_values[k], 3)));
      tr.append(el('td', {}, words(e.ov_input, k)));
      tr.append(el('td', {}, words(e.ov_output, k)));
      tr.append(el('td', { class: 'num' }, formatNumber(e.qk_singular_values[k], 3)));
      tr.append(el('td', {}, words(e.qk_query, k)));
      tr.append(el('td', {}, words(e.qk_key, k)));
    }
    return table;
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  /**
   * Numbers for <headlab-value source="<this id>">: `copying` (the chosen head's copying score),
   * `ov.share.<k>` / `qk.share.<k>` (σ_k² / Σσ², k from 1), `ov.value.<k>` / `qk.value.<k>` (σ_k),
   * `copying.max.{layer,head,score}` (the head that copies most).
   */
  boundValue(name: string): BoundValue | undefined {
    const s = this.shown;
    if (!s) return undefined;
    const e = s.svd.heads[s.layer][s.head];
    if (name === 'copying') return { value: e.copying, kind: 'number' };
    const max = /^copying\.max\.(layer|head|score)$/.exec(name);
    if (max) {
      const best = mostCopying(s.svd);
      return max[1] === 'score' ? { value: best.score, kind: 'number' } : { value: best[max[1] as 'layer' | 'head'], kind: 'count' };
    }
    const m = /^(ov|qk)\.(share|value)\.(\d+)$/.exec(name);
    if (!m) return undefined;
    const values = m[1] === 'ov' ? e.ov_singular_values : e.qk_singular_values;
    const k = Number(m[3]) - 1;
    if (k < 0 || k >= values.length) return undefined;
    return m[2] === 'share' ? { value: normShares(values)[k], kind: 'fraction' } : { value: values[k], kind: 'number' };
  }

  /** The state with the core's head SVD of every head (null before the model has loaded). */
  get figureData(): Record<string, unknown> | null {
    const state = this.state;
    if (!this.shown || state === null) return null;
    return { ...state, head_svd: this.shown.svd };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'head-svd',
        label: 'Copying scores and singular values',
        scene: () => {
          const s = this.exportable(this.shown);
          return this.scene(s.model, s.svd, s.layer, s.head);
        },
      },
    ];
  }
}

export interface HeadlabHeadSvd extends AttributeProperties<typeof HeadlabHeadSvd.attributes> {}
