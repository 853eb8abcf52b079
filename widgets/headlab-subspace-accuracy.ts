// <headlab-subspace-accuracy>: how many directions the computation needs. Every head's output is
// projected on the top-k principal directions of one basis (the rows of the stacked W_O, or the
// columns of W_U; centred PCA, docs/max-digit-analysis.md) and read out without the residual:
// logits = (Σ_h head_h P_k) W_U. Shows that accuracy (overall and by maximum), the variance each
// direction explains, the table for k = 1, 2, 3 in both bases, and the 3 × 3 |cosine| between
// the two bases' top three directions.
//
// Attributes: k (1–8, default 3), basis ("w_o" | "w_u", default "w_o"), model.
// Events: `change` with { k, basis, accuracy }.
import { type AttributeProperties, defineAttributes, el, integer, oneOf, type WidgetFigure } from './base/headlab-element.js';
import { formatNumber, subscripted } from './chart/format.js';
import { rgbText, tintSigned } from './chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import { tablesScene } from './chart/table-scene.js';
import type { MaxDigitBasis } from '../web/headlab-core.js';
import type { MaxDigitModel } from './max-digit/model.js';
import { MAX_DIGIT_CSS, MaxDigitWidget, percent, scrollBox, HEAT_HEADROOM } from './max-digit/widget.js';

export interface SubspaceAccuracyState {
  k: number;
  basis: MaxDigitBasis;
  accuracy: number;
}

const BASIS_NAME: Record<MaxDigitBasis, string> = { w_o: 'W_O', w_u: 'W_U' };
const WIDTH = 470;
const HEIGHT = 170;
const SHOWN = 8;

/** The parts build() makes (this.parts). */
interface SubspaceAccuracyParts {
  slider: HTMLInputElement;
  kText: HTMLOutputElement;
  select: HTMLSelectElement;
  line: HTMLParagraphElement;
  byMax: HTMLParagraphElement;
  svgSlot: HTMLDivElement;
  kBox: HTMLDivElement;
  cosTable: HTMLTableElement;
}

/** Accuracy with each head's output projected on its top-k principal subspace. Attributes: k (1–8, default 3), basis ("w_o" | "w_u"), model. Shared: k, basis. */
export class HeadlabSubspaceAccuracy extends MaxDigitWidget<SubspaceAccuracyState, SubspaceAccuracyParts> {
  static attributes = defineAttributes({
    k: integer({ fallback: 3, min: 1, max: 8, shared: true, doc: 'Dimensions of each head’s principal subspace kept.' }),
    basis: oneOf(['w_o', 'w_u'], {
      fallback: 'w_o',
      shared: true,
      doc: 'The basis the subspace is taken in: the heads’ W_O or the unembedding W_U.',
    }),
  });
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    .controls label { display: inline-flex; gap: 0.4rem; align-items: center; flex-wrap: wrap; max-width: 100%; }
    .controls select { max-width: 100%; }
    .controls input[type="range"] { width: 10rem; }
    .k-value { font-variant-numeric: tabular-nums; min-width: 1.2em; font-weight: 600; }
    .figures { font-size: 1.05em; margin: 0.4rem 0; }
    .tables { display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; align-items: flex-start; }
    td.heat { min-width: 3.5em; }
    tr.current th, tr.current td.plain { background: color-mix(in srgb, var(--hl-focus) 16%, transparent); }
  `;
  private byMaxCache = new Map<string, number[]>();
  private lastAccuracy = NaN;
  private shown: { variance: number[]; k: number; basis: MaxDigitBasis; text: string } | null = null;
  private cosVersion = -1;

  protected readState(): SubspaceAccuracyState {
    return { k: this.k, basis: this.basis, accuracy: this.lastAccuracy };
  }

  protected modelChanged(): void {
    this.byMaxCache.clear();
    this.cosVersion = -1;
  }

  protected buildContent(content: HTMLDivElement): SubspaceAccuracyParts {
    const controls = el('div', { class: 'row controls' });
    const kLabel = el('label', {}, 'Directions kept, k:');
    const slider = el('input', { type: 'range', min: '1', max: '8', step: '1', name: 'k' });
    const kText = el('output', { class: 'k-value' });
    kLabel.append(slider, kText);
    this.listen(slider, 'input', () => {
      this.k = Number(slider.value);
      this.emitChange();
    });
    const bLabel = el('label', {}, 'Principal directions of');
    const select = el('select', { name: 'basis' });
    for (const b of ['w_o', 'w_u'] as const) {
      const o = el('option', { value: b }, b === 'w_o' ? 'W_O (head outputs)' : 'W_U (unembedding)');
      select.append(o);
    }
    bLabel.append(select);
    this.listen(select, 'change', () => {
      this.basis = select.value as MaxDigitBasis;
      this.emitChange();
    });
    controls.append(kLabel, bLabel);
    const line = el('p', { class: 'figures', role: 'status', 'aria-live': 'polite' });
    const byMax = el('p', { class: 'caption' });
    const figure = el('div', { class: 'figure' });
    const svgSlot = el('div');
    figure.append(svgSlot);
    const tables = el('div', { class: 'tables' });
    const a = scrollBox('Accuracy for k = 1, 2, 3');
    const b = scrollBox('Cosines between the two bases');
    const cosTable = el('table', { class: 'cosine' });
    b.append(cosTable);
    tables.append(a, b);
    content.append(el('p', { class: 'title' }, 'How many directions does the readout need?'), controls, line, byMax, figure, tables);
    return { slider, kText, select, line, byMax, svgSlot, kBox: a, cosTable };
  }

  protected renderContent(model: MaxDigitModel): void {
    const k = this.k;
    const basis = this.basis;
    const a = model.analysis;
    if (this.root.activeElement !== this.parts.slider) this.parts.slider.value = String(k);
    this.parts.slider.setAttribute('aria-valuetext', `${k} direction${k > 1 ? 's' : ''}`);
    this.parts.kText.value = String(k);
    this.parts.select.value = basis;
    const accuracy = a.subspace_accuracy[basis][k - 1];
    this.lastAccuracy = accuracy;
    const variance = a.variance_explained[basis];
    const kept = variance.slice(0, k).reduce((s, x) => s + x, 0);
    this.parts.line.replaceChildren(
      ...nodes(`Top ${k} direction${k > 1 ? 's' : ''} of ${BASIS_NAME[basis]}: accuracy `),
      el('strong', { 'data-figure': 'accuracy', 'data-value': String(accuracy) }, percent(accuracy, 2)),
      ...nodes(` without the residual; they carry `),
      el('strong', { 'data-figure': 'kept-variance', 'data-value': String(kept) }, percent(kept, 1)),
      ...nodes(` of the variance of ${BASIS_NAME[basis]}.`),
    );
    const key = `${basis}:${k}`;
    let byMax = this.byMaxCache.get(key);
    if (!byMax) {
      byMax = this.maxDigit!.maxDigitSubspaceAccuracy(this.held(model), basis, k).accuracy_by_max;
      this.byMaxCache.set(key, byMax);
    }
    this.parts.byMax.textContent = `By maximum digit: ${byMax.map((x, m) => `${m}: ${percent(x, 1)}`).join(' · ')}`;
    this.parts.byMax.dataset.value = JSON.stringify(byMax);
    const name = basis === 'w_o' ? 'W_O' : 'W_U';
    const text = `With every head projected on the top ${k} principal direction${k > 1 ? 's' : ''} of ${name}, the readout without the residual is ${percent(accuracy, 2)} accurate; those directions carry ${percent(kept, 1)} of the variance of ${name} (first ${SHOWN}: ${variance
      .slice(0, SHOWN)
      .map((v) => percent(v, 1))
      .join(', ')}).`;
    this.shown = { variance, k, basis, text };
    this.show(
      this.parts.svgSlot,
      this.fragment(model, `svg:${basis}${k}`, () => {
        const svg = svgEl('svg', { role: 'img', 'aria-label': text });
        drawSceneInto(svg, this.scene(variance, k, basis));
        return svg;
      }),
    );
    const kTable = this.fragment(model, `k:${k}`, () => {
      const table = el('table', { class: 'k-table' });
      this.renderKTable(table, model, k);
      return table;
    });
    this.show(this.parts.kBox, kTable);
    if (this.cosVersion !== model.version) {
      this.cosVersion = model.version;
      this.renderCosine(model);
    }
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  figures(): WidgetFigure[] {
    const shown = () => this.exportable(this.shown);
    return [
      {
        name: 'variance',
        label: 'Variance explained',
        scene: () => {
          const s = shown();
          return this.scene(s.variance, s.k, s.basis);
        },
      },
      {
        name: 'tables',
        label: 'Accuracy and cosine tables',
        scene: () => {
          shown();
          return tablesScene(
            [this.shownFor(this.parts.kBox, HTMLTableElement), this.parts.cosTable],
            this.themeColours(),
            'Accuracy for k = 1, 2, 3 and cosines between the bases',
          );
        },
      },
    ];
  }

  private scene(variance: number[], k: number, basis: MaxDigitBasis): Scene {
    const c = this.themeColours();
    const shapes: Shape[] = [];
    const left = 44;
    const top = 22;
    const bottom = HEIGHT - 26;
    const hi = Math.max(0.5, ...variance.slice(0, SHOWN));
    const y = (v: number) => bottom - (v / hi) * (bottom - top);
    const slot = (WIDTH - left - 8) / SHOWN;
    shapes.push({
      kind: 'text',
      x: 4,
      y: 9,
      text: `variance explained, directions of ${BASIS_NAME[basis]} (kept: first ${k})`,
      fill: rgbText(c.fg),
      size: 11,
    });
    for (const v of [0, 0.25, 0.5]) {
      shapes.push({ kind: 'line', x1: left, y1: y(v), x2: WIDTH - 8, y2: y(v), stroke: rgbText(c.rule) });
      shapes.push({ kind: 'text', x: left - 4, y: y(v), text: `${v * 100}%`, fill: rgbText(c.muted), size: 10, anchor: 'end' });
    }
    for (let i = 0; i < SHOWN; i++) {
      const x = left + i * slot + slot * 0.2;
      const w = slot * 0.6;
      const v = variance[i];
      shapes.push({ kind: 'rect', x, y: y(v), w, h: bottom - y(v), fill: rgbText(i < k ? c.pos : c.rule) });
      shapes.push({ kind: 'text', x: x + w / 2, y: y(v) - 7, text: percent(v, 1), fill: rgbText(c.fg), size: 10, anchor: 'middle' });
      shapes.push({ kind: 'text', x: x + w / 2, y: HEIGHT - 12, text: `PC${i + 1}`, fill: rgbText(c.fg), size: 11, anchor: 'middle' });
    }
    return { width: WIDTH, height: HEIGHT, background: rgbText(c.panel), title: `Variance explained, ${BASIS_NAME[basis]}`, shapes };
  }

  private renderKTable(table: HTMLTableElement, model: MaxDigitModel, current: number): void {
    const a = model.analysis;
    table.createCaption().append(subscripted('Accuracy without the residual, heads projected on the top k directions'));
    const head = table.createTHead().insertRow();
    head.append(el('th', { scope: 'col' }, 'k'));
    for (const b of ['w_o', 'w_u'] as const) {
      const th = el('th', { scope: 'col' });
      th.append(subscripted(`basis of ${BASIS_NAME[b]}`));
      head.append(th);
    }
    const body = table.createTBody();
    for (const k of [1, 2, 3]) {
      const tr = body.insertRow();
      if (k === current) tr.className = 'current';
      tr.append(el('th', { scope: 'row' }, String(k)));
      for (const b of ['w_o', 'w_u'] as const) {
        tr.append(
          el(
            'td',
            { class: 'num plain', 'data-basis': b, 'data-k': String(k), 'data-value': String(a.subspace_accuracy[b][k - 1]) },
            percent(a.subspace_accuracy[b][k - 1], 2),
          ),
        );
      }
    }
    const tr = body.insertRow();
    tr.append(el('th', { scope: 'row' }, 'variance in top 3'));
    for (const b of ['w_o', 'w_u'] as const) {
      const v = a.variance_explained[b].slice(0, 3).reduce((s, x) => s + x, 0);
      tr.append(el('td', { class: 'num plain', 'data-top3': b, 'data-value': String(v) }, percent(v, 1)));
    }
  }

  private renderCosine(model: MaxDigitModel): void {
    const table = this.parts.cosTable;
    table.replaceChildren();
    table.createCaption().append(subscripted('|cosine| between the top three directions of W_O (rows) and of W_U (columns)'));
    const head = table.createTHead().insertRow();
    head.append(el('td'));
    for (let j = 0; j < 3; j++) {
      const th = el('th', { scope: 'col' });
      th.append(subscripted(`W_U PC${j + 1}`));
      head.append(th);
    }
    const body = table.createTBody();
    for (let i = 0; i < 3; i++) {
      const tr = body.insertRow();
      const th = el('th', { scope: 'row' });
      th.append(subscripted(`W_O PC${i + 1}`));
      tr.append(th);
      for (let j = 0; j < 3; j++) {
        const v = model.analysis.cosine_top3[i][j];
        const td = el('td', { class: 'num', 'data-i': String(i), 'data-j': String(j), 'data-value': String(v) }, formatNumber(v, 3));
        tintSigned(td, v, HEAT_HEADROOM);
        tr.append(td);
      }
    }
  }
}

function nodes(text: string): Node[] {
  return Array.from(subscripted(text).childNodes);
}

export interface HeadlabSubspaceAccuracy extends AttributeProperties<typeof HeadlabSubspaceAccuracy.attributes> {}
