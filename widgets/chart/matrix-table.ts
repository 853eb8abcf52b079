// A matrix as a real <table>: row and column headers, each cell showing the rounded
// value (aria-hidden) and, for screen readers, the value to 12 decimals. Optionally
// tinted on the diverging scale. Built once; update() rewrites the cells' text.
import type { Matrix } from '../../web/headlab-core.js';
import { exactNumber, formatNumber, formatVector } from './format.js';
import { tintSigned } from './palette.js';

export interface MatrixTableOptions {
  caption: string;
  rowLabels: string[];
  colLabels: string[];
  /** Decimals shown (default 4). */
  digits?: number;
  /** |value| at full tint; 0 or absent = no tint. */
  heatScale?: number;
}

export class MatrixTable {
  readonly table: HTMLTableElement;
  private readonly cells: HTMLTableCellElement[][] = [];

  constructor(private readonly options: MatrixTableOptions) {
    const table = document.createElement('table');
    table.className = 'matrix';
    const caption = table.createCaption();
    caption.textContent = options.caption;
    const head = table.createTHead().insertRow();
    head.append(document.createElement('td'));
    for (const label of options.colLabels) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = label;
      head.append(th);
    }
    const body = table.createTBody();
    for (const label of options.rowLabels) {
      const tr = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = label;
      tr.append(th);
      const row: HTMLTableCellElement[] = [];
      for (let j = 0; j < options.colLabels.length; j++) {
        const td = tr.insertCell();
        td.className = 'num';
        row.push(td);
      }
      this.cells.push(row);
    }
    this.table = table;
  }

  update(m: Matrix): void {
    const { rows, cols } = { rows: this.cells.length, cols: this.options.colLabels.length };
    if (m.rows !== rows || m.cols !== cols) {
      throw new Error(`matrix table "${this.options.caption}" expects ${rows} × ${cols}, got ${m.rows} × ${m.cols}`);
    }
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const x = m.data[i * cols + j];
        setNumberCell(this.cells[i][j], x, this.options.digits ?? 4);
        if (this.options.heatScale) tintSigned(this.cells[i][j], x, this.options.heatScale);
      }
    }
  }
}

/** Writes a number into a cell: rounded text shown, the 12-decimal value for screen readers. */
export function setNumberCell(cell: HTMLElement, x: number, digits = 4): void {
  const shown = formatNumber(x, digits);
  const exact = exactNumber(x);
  cell.dataset.value = String(x);
  if (shown === exact) {
    cell.textContent = shown;
    return;
  }
  const visible = document.createElement('span');
  visible.setAttribute('aria-hidden', 'true');
  visible.textContent = shown;
  const spoken = document.createElement('span');
  spoken.className = 'sr-only';
  spoken.textContent = exact;
  cell.replaceChildren(visible, spoken);
}

/** A vector cell: "[a, b]" to 4 decimals shown, 12 decimals for screen readers, exact values in data-values. */
export function setVectorCell(cell: HTMLElement, values: number[], digits = 4): void {
  cell.dataset.values = JSON.stringify(values);
  const visible = document.createElement('span');
  visible.setAttribute('aria-hidden', 'true');
  visible.textContent = formatVector(values, digits);
  const spoken = document.createElement('span');
  spoken.className = 'sr-only';
  spoken.textContent = values.map(exactNumber).join(', ');
  cell.replaceChildren(visible, spoken);
}
