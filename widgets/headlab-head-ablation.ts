// <headlab-head-ablation>: zero the output of any set of heads (the residual x_ANS is kept) and
// read the accuracy on the evaluation set, overall and for each maximum digit, against the full
// model; a table lists every one of the fifteen non-empty sets of heads.
//
// Attributes: ablated ("0 2": the heads removed), model.
// Events: `change` with { ablated, accuracy }.
import { type AttributeProperties, custom, defineAttributes, el, type WidgetFigure, WidgetInputError } from './base/headlab-element.js';
import { formatCount } from './chart/format.js';
import { rgbText } from './chart/palette.js';
import { drawSceneInto, type Scene, type Shape } from './chart/scene.js';
import { svgEl } from './chart/svg.js';
import { tablesScene } from './chart/table-scene.js';
import type { MaxDigitAccuracyRow, MaxDigitModel } from './max-digit/model.js';
import { CONTROL_HEADS, MAX_DIGIT_CSS, MaxDigitWidget, headSwatch, percent, scrollBox } from './max-digit/widget.js';

export interface HeadAblationState {
  ablated: number[];
  accuracy: number;
}

const WIDTH = 470;
const HEIGHT = 220;

/** The parts build() makes (this.parts). */
interface HeadAblationParts {
  line: HTMLParagraphElement;
  residualLine: HTMLParagraphElement;
  svgSlot: HTMLDivElement;
  table: HTMLTableElement;
}

/** Accuracy with heads ablated. Attributes: ablated (heads, e.g. "0 2"), model. Shared: ablated. */
export class HeadlabHeadAblation extends MaxDigitWidget<HeadAblationState, HeadAblationParts> {
  static attributes = defineAttributes({
    ablated: custom({
      type: 'number[]',
      shared: true,
      doc: 'The heads removed, e.g. "0 2" (each 0–3; sorted, each once).',
      parse: (raw) => {
        const text = (raw ?? '').trim();
        if (text === '') return [];
        const heads = text.split(/[\s,]+/).map((p) => {
          if (!/^[0-3]$/.test(p)) throw new WidgetInputError(`attribute ablated: "${p}" is not a head 0–3`);
          return Number(p);
        });
        return [...new Set(heads)].sort((a, b) => a - b);
      },
      format: (v: number[]) => [...new Set(v)].sort((a, b) => a - b).join(' '),
    }),
  });
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    .toggles button { display: inline-flex; align-items: center; }
    .toggles button[aria-pressed="true"] { text-decoration: line-through; }
    .figures { font-size: 1.05em; }
    tr.current th, tr.current td { background: color-mix(in srgb, var(--hl-focus) 16%, transparent); }
    .body { container-type: inline-size; }
    /* A narrow widget (360 px) puts "(max m)" under its percentage, so the table and its caption fit the box. */
    @container (max-width: 24rem) { table.subsets .at { display: block; } }
  `;

  private buttons: HTMLButtonElement[] = [];
  private lastAccuracy = 1;
  private shown: { full: MaxDigitAccuracyRow; cut: MaxDigitAccuracyRow; name: string; text: string } | null = null;
  private tableVersion = -1;

  protected readState(): HeadAblationState {
    return { ablated: this.ablated, accuracy: this.lastAccuracy };
  }

  protected buildContent(content: HTMLDivElement): HeadAblationParts {
    const toggles = el('div', { class: 'row toggles', role: 'group', 'aria-label': 'Heads to remove' });
    this.buttons = [];
    for (let h = 0; h < CONTROL_HEADS; h++) {
      const b = el('button', { type: 'button', 'aria-pressed': 'false', 'data-head': String(h) });
      b.append(headSwatch(h), `remove head ${h}`);
      this.listen(b, 'click', () => {
        const now = this.ablated;
        this.ablated = now.includes(h) ? now.filter((x) => x !== h) : [...now, h];
        this.emitChange();
      });
      toggles.append(b);
      this.buttons.push(b);
    }
    const line = el('p', { class: 'figures', role: 'status', 'aria-live': 'polite' });
    const figure = el('div', { class: 'figure' });
    const svgSlot = el('div');
    figure.append(svgSlot);
    const box = scrollBox('Accuracy for every set of heads removed');
    const table = el('table', { class: 'subsets' });
    box.append(table);
    const residualLine = el('p', { class: 'caption' });
    content.append(el('p', { class: 'title' }, 'Remove heads'), toggles, line, figure, residualLine, box);
    return { line, residualLine, svgSlot, table };
  }

  /** The analysis row for a set of heads (the full model for the empty set). */
  private row(model: MaxDigitModel, heads: number[]): MaxDigitAccuracyRow {
    if (heads.length === 0) {
      const a = model.analysis;
      const total = a.evaluation.lists;
      return { accuracy: a.accuracy, accuracy_by_max: a.accuracy_by_max, total, correct: Math.round(a.accuracy * total) };
    }
    const key = heads.join(',');
    const r = model.analysis.head_ablation.find((x) => x.heads.join(',') === key);
    if (!r) throw new WidgetInputError(`the analysis has no ablation row for heads ${key}`);
    return r;
  }

  protected renderContent(model: MaxDigitModel): void {
    const ablated = this.ablated;
    this.buttons.forEach((b, h) => b.setAttribute('aria-pressed', String(ablated.includes(h))));
    const full = this.row(model, []);
    const cut = this.row(model, ablated);
    this.lastAccuracy = cut.accuracy;
    const name = ablated.length ? `without head${ablated.length > 1 ? 's' : ''} ${ablated.join(', ')}` : 'all four heads';
    this.parts.line.replaceChildren(
      `Accuracy ${name}: `,
      el('strong', { 'data-value': String(cut.accuracy), 'data-figure': 'accuracy' }, percent(cut.accuracy, 2)),
      ` (${formatCount(cut.correct)} of ${formatCount(cut.total)} lists); full model `,
      el('span', { 'data-value': String(full.accuracy), 'data-figure': 'full' }, percent(full.accuracy, 2)),
      '.',
    );
    const worst = cut.accuracy_by_max.reduce((w, x, m) => (x < cut.accuracy_by_max[w] ? m : w), 0);
    const text = `Accuracy ${name}: ${percent(cut.accuracy, 2)} (full model ${percent(full.accuracy, 2)}); by maximum digit ${cut.accuracy_by_max.map((x, m) => `${m}: ${percent(x, 2)}`).join(', ')}, lowest for maximum ${worst}.`;
    this.shown = { full, cut, name, text };
    this.show(
      this.parts.svgSlot,
      this.fragment(model, `svg:${ablated.join('')}`, () => {
        const svg = svgEl('svg', { role: 'img', 'aria-label': text, 'data-by-max': JSON.stringify(cut.accuracy_by_max) });
        drawSceneInto(svg, this.scene(full, cut, name));
        return svg;
      }),
    );
    const a = model.analysis;
    this.parts.residualLine.replaceChildren(
      'Reading out the heads alone, without the residual x',
      el('sub', {}, 'ANS'),
      ': ',
      el(
        'strong',
        { 'data-figure': 'residual-free', 'data-value': String(a.residual_free_accuracy) },
        percent(a.residual_free_accuracy, 2),
      ),
      '. The residual alone (every head removed) answers the same digit for every list: ',
      el(
        'strong',
        { 'data-figure': 'residual-only', 'data-value': String(a.residual_only_accuracy) },
        percent(a.residual_only_accuracy, 2),
      ),
      '.',
    );
    this.renderTable(model, ablated);
  }

  private scene(full: MaxDigitAccuracyRow, cut: MaxDigitAccuracyRow, name: string): Scene {
    const c = this.themeColours();
    const shapes: Shape[] = [];
    const left = 44;
    // The legend in two rows: side by side, "full model" ran into the second swatch at 360 px,
    // where the text is drawn larger than the scaled-down viewBox (--hl-text-zoom).
    const top = 46;
    const bottom = HEIGHT - 24;
    const y = (v: number) => bottom - v * (bottom - top);
    const slot = (WIDTH - left - 8) / 10;
    shapes.push({ kind: 'rect', x: left, y: 4, w: 10, h: 10, fill: rgbText(c.muted) });
    shapes.push({ kind: 'text', x: left + 14, y: 9, text: 'full model', fill: rgbText(c.fg), size: 11 });
    shapes.push({ kind: 'rect', x: left, y: 22, w: 10, h: 10, fill: rgbText(c.pos) });
    shapes.push({ kind: 'text', x: left + 14, y: 27, text: name, fill: rgbText(c.fg), size: 11 });
    for (const v of [0, 0.5, 1]) {
      shapes.push({ kind: 'line', x1: left, y1: y(v), x2: WIDTH - 8, y2: y(v), stroke: rgbText(c.rule) });
      shapes.push({ kind: 'text', x: left - 4, y: y(v), text: `${v * 100}%`, fill: rgbText(c.muted), size: 10, anchor: 'end' });
    }
    for (let m = 0; m < 10; m++) {
      const x = left + m * slot;
      const bw = slot * 0.36;
      shapes.push({
        kind: 'rect',
        x: x + slot * 0.12,
        y: y(full.accuracy_by_max[m]),
        w: bw,
        h: bottom - y(full.accuracy_by_max[m]),
        fill: rgbText(c.muted),
      });
      shapes.push({
        kind: 'rect',
        x: x + slot * 0.5,
        y: y(cut.accuracy_by_max[m]),
        w: bw,
        h: bottom - y(cut.accuracy_by_max[m]),
        fill: rgbText(c.pos),
      });
      shapes.push({ kind: 'text', x: x + slot / 2, y: HEIGHT - 10, text: String(m), fill: rgbText(c.fg), size: 12, anchor: 'middle' });
    }
    return { width: WIDTH, height: HEIGHT, background: rgbText(c.panel), title: `Accuracy by maximum digit, ${name}`, shapes };
  }

  protected describe(): string {
    return this.shown?.text ?? '';
  }

  figures(): WidgetFigure[] {
    const shown = () => this.exportable(this.shown);
    return [
      {
        name: 'accuracy',
        label: 'Accuracy by maximum',
        scene: () => {
          const s = shown();
          return this.scene(s.full, s.cut, s.name);
        },
      },
      {
        name: 'subsets',
        label: 'Every set of heads',
        scene: () => {
          shown();
          return tablesScene([this.parts.table], this.themeColours(), 'Accuracy with every set of heads removed');
        },
      },
    ];
  }

  protected modelChanged(): void {
    this.tableVersion = -1;
  }

  private renderTable(model: MaxDigitModel, current: number[]): void {
    const table = this.parts.table;
    if (this.tableVersion === model.version) {
      for (const tr of table.tBodies[0].rows) tr.classList.toggle('current', tr.dataset.heads === current.join(','));
      return;
    }
    this.tableVersion = model.version;
    table.replaceChildren();
    table.createCaption().textContent = 'Every set of heads removed: accuracy overall and the lowest accuracy over the ten maxima.';
    const head = table.createTHead().insertRow();
    for (const t of ['heads removed', 'accuracy', 'lowest by maximum']) head.append(el('th', { scope: 'col' }, t));
    const body = table.createTBody();
    const rows = [...model.analysis.head_ablation].sort(
      (a, b) => a.heads.length - b.heads.length || a.heads.join().localeCompare(b.heads.join()),
    );
    for (const r of rows) {
      const tr = body.insertRow();
      tr.dataset.heads = r.heads.join(',');
      if (r.heads.join(',') === current.join(',')) tr.className = 'current';
      tr.append(el('th', { scope: 'row' }, r.heads.join(', ')));
      tr.append(el('td', { class: 'num', 'data-heads': r.heads.join(','), 'data-value': String(r.accuracy) }, percent(r.accuracy, 2)));
      const low = Math.min(...r.accuracy_by_max);
      const at = r.accuracy_by_max.indexOf(low);
      const lowest = el('td', { class: 'num' }, `${percent(low, 2)} `);
      lowest.append(el('span', { class: 'at' }, `(max ${at})`));
      tr.append(lowest);
    }
  }
}

export interface HeadlabHeadAblation extends AttributeProperties<typeof HeadlabHeadAblation.attributes> {}
