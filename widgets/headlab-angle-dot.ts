// <headlab-angle-dot>: angle or length? For each maximum digit m, the mean final vector r̄_m
// (the heads' summed output, no residual, averaged over the evaluation lists with maximum m, in
// the top-3 W_O basis) against each digit's unembedding in the same basis: the digit whose
// direction is closest (largest cosine) and the digit with the largest dot product (the one the
// readout picks). Rows where the two disagree are marked. A second table shows the full 10 × 10
// matrix of cosines or of dot products.
//
// Attributes: matrix ("cosine" | "dot", default "cosine"), model.
// Events: `change` with { matrix, disagreements }.
import { defineAttributes, el, oneOf, type AttributeProperties, type WidgetFigure } from './base/headlab-element.js';
import { tablesScene } from './chart/table-scene.js';
import { formatNumber } from './chart/format.js';
import { tintSigned } from './chart/palette.js';
import type { MaxDigitModel } from './max-digit/model.js';
import { MAX_DIGIT_CSS, MaxDigitWidget, scrollBox, HEAT_HEADROOM } from './max-digit/widget.js';

export interface AngleDotState {
  matrix: 'cosine' | 'dot';
  /** Maxima whose closest digit by angle differs from the digit with the largest dot product. */
  disagreements: number[];
}

/** The parts build() makes (this.parts). */
interface AngleDotParts {
  line: HTMLParagraphElement;
  table: HTMLTableElement;
  select: HTMLSelectElement;
  fullBox: HTMLDivElement;
}

/** Angle against dot product between head outputs and unembeddings. Attributes: matrix ("cosine" | "dot"), model. Shared: matrix. */
export class HeadlabAngleDot extends MaxDigitWidget<AngleDotState, AngleDotParts> {
  static attributes = defineAttributes({
    matrix: oneOf(['cosine', 'dot'], { fallback: 'cosine', shared: true, doc: 'The full matrix shown: cosines or dot products.' }),
  });
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    .matrix td { min-width: 3.3em; }
    .lead { font-size: 1.02em; }
  `;
  private disagreements: number[] = [];
  private tableVersion = -1;

  protected readState(): AngleDotState {
    return { matrix: this.matrix, disagreements: this.disagreements };
  }

  protected buildContent(content: HTMLDivElement): AngleDotParts {
    const line = el('p', { class: 'lead', role: 'status' });
    const a = scrollBox('Angle and dot product by maximum');
    const table = el('table', { class: 'angle compact' });
    a.append(table);
    const controls = el('div', { class: 'row' });
    const label = el('label', {}, 'Full matrix: ');
    const select = el('select', { name: 'matrix' });
    select.append(el('option', { value: 'cosine' }, 'cosine'), el('option', { value: 'dot' }, 'dot product'));
    label.append(select);
    this.listen(select, 'change', () => {
      this.matrix = select.value as 'cosine' | 'dot';
      this.emitChange();
    });
    controls.append(label);
    const b = scrollBox('Full matrix');
    content.append(el('p', { class: 'title' }, 'Closest direction or largest dot product?'), line, a, controls, b);
    return { line, table, select, fullBox: b };
  }

  protected renderContent(model: MaxDigitModel): void {
    const v = model.analysis.angle_vs_dot;
    this.disagreements = [];
    for (let m = 0; m < 10; m++) if (v.best_by_cosine[m] !== v.best_by_dot[m]) this.disagreements.push(m);
    this.parts.line.textContent =
      this.disagreements.length === 0
        ? 'For every maximum, the closest digit by angle is also the digit with the largest dot product: here angle and dot product agree.'
        : `Angle and dot product disagree for ${this.disagreements.map((m) => `maximum ${m} (closest by angle: ${v.best_by_cosine[m]}; largest dot product: ${v.best_by_dot[m]})`).join('; ')}. The readout takes the largest dot product, so length matters as well as angle.`;
    this.parts.line.dataset.disagreements = this.disagreements.join(',');
    if (this.tableVersion !== model.version) {
      this.tableVersion = model.version;
      this.renderTable(model);
    }
    this.parts.select.value = this.matrix;
    const which = this.matrix;
    const full = this.fragment(model, `full:${which}`, () => {
      const table = el('table', { class: 'matrix compact' });
      this.renderFull(table, model, which);
      return table;
    });
    this.show(this.parts.fullBox, full);
  }

  protected modelChanged(): void {
    this.tableVersion = -1;
  }

  protected describe(model: MaxDigitModel): string {
    const v = model.analysis.angle_vs_dot;
    const lead =
      this.disagreements.length === 0
        ? 'For every maximum digit, the digit closest in angle to the mean final vector is also the digit with the largest dot product'
        : `Angle and dot product pick different digits for maximum ${this.disagreements.join(', ')}`;
    return `${lead}; the dot product picks ${v.best_by_dot.join(', ')} for maxima 0 to 9 (cosine with the right digit from ${formatNumber(Math.min(...v.cosine.map((r, m) => r[m])), 3)} to ${formatNumber(Math.max(...v.cosine.map((r, m) => r[m])), 3)}).`;
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'table',
        label: 'Angle and dot table',
        scene: () => tablesScene([this.parts.table], this.themeColours(), 'Closest digit by angle and by dot product, for each maximum'),
      },
      {
        name: 'matrix',
        label: `Full ${this.matrix} matrix`,
        scene: () =>
          tablesScene(
            [this.shownFor(this.parts.fullBox, HTMLTableElement)],
            this.themeColours(),
            `${this.matrix === 'cosine' ? 'Cosine' : 'Dot product'} of the mean final vector with each digit`,
          ),
      },
    ];
  }

  private renderTable(model: MaxDigitModel): void {
    const v = model.analysis.angle_vs_dot;
    const table = this.parts.table;
    table.replaceChildren();
    table.createCaption().textContent =
      'Mean final vector for each maximum m against the digits’ unembeddings, top-3 W_O basis. Marked rows: angle and dot product pick different digits.';
    const head = table.createTHead().insertRow();
    for (const t of ['max m', 'cos with m', 'closest by angle', 'dot with m', 'largest dot']) head.append(el('th', { scope: 'col' }, t));
    const body = table.createTBody();
    for (let m = 0; m < 10; m++) {
      const tr = body.insertRow();
      const bc = v.best_by_cosine[m];
      const bd = v.best_by_dot[m];
      if (bc !== bd) tr.className = 'disagree';
      tr.append(el('th', { scope: 'row' }, String(m)));
      tr.append(
        el(
          'td',
          { class: 'num', 'data-m': String(m), 'data-figure': 'cos-m', 'data-value': String(v.cosine[m][m]) },
          formatNumber(v.cosine[m][m], 3),
        ),
      );
      tr.append(
        el(
          'td',
          {
            class: `num${bc !== bd ? ' disagree' : ''}`,
            'data-m': String(m),
            'data-figure': 'best-cos',
            'data-digit': String(bc),
            'data-value': String(v.cosine[m][bc]),
          },
          `${bc} (${formatNumber(v.cosine[m][bc], 3)})`,
        ),
      );
      tr.append(
        el(
          'td',
          { class: 'num', 'data-m': String(m), 'data-figure': 'dot-m', 'data-value': String(v.dot[m][m]) },
          formatNumber(v.dot[m][m], 2),
        ),
      );
      tr.append(
        el(
          'td',
          {
            class: `num${bc !== bd ? ' disagree' : ''}`,
            'data-m': String(m),
            'data-figure': 'best-dot',
            'data-digit': String(bd),
            'data-value': String(v.dot[m][bd]),
          },
          `${bd} (${formatNumber(v.dot[m][bd], 2)})`,
        ),
      );
    }
  }

  private renderFull(table: HTMLTableElement, model: MaxDigitModel, which: 'cosine' | 'dot'): void {
    const v = model.analysis.angle_vs_dot;
    const values = which === 'cosine' ? v.cosine : v.dot;
    const best = which === 'cosine' ? v.best_by_cosine : v.best_by_dot;
    const scale = Math.max(...values.flat().map(Math.abs));
    table.createCaption().textContent = `${which === 'cosine' ? 'Cosine' : 'Dot product'} of the mean final vector for maximum m (rows) with digit d’s unembedding (columns); bold: the largest in the row.`;
    const head = table.createTHead().insertRow();
    head.append(el('th', { scope: 'col', class: 'corner' }, 'm \\ d'));
    for (let d = 0; d < 10; d++) head.append(el('th', { scope: 'col' }, String(d)));
    const body = table.createTBody();
    for (let m = 0; m < 10; m++) {
      const tr = body.insertRow();
      tr.append(el('th', { scope: 'row' }, String(m)));
      for (let d = 0; d < 10; d++) {
        const x = values[m][d];
        const td = el(
          'td',
          { class: `num${d === best[m] ? ' best' : ''}`, 'data-m': String(m), 'data-d': String(d), 'data-value': String(x) },
          formatNumber(x, which === 'cosine' ? 2 : 1),
        );
        tintSigned(td, x, scale * HEAT_HEADROOM);
        tr.append(td);
      }
    }
  }
}

export interface HeadlabAngleDot extends AttributeProperties<typeof HeadlabAngleDot.attributes> {}
