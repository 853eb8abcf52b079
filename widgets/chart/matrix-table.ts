// A matrix as a real <table>: row and column headers, each cell showing the rounded
// value (aria-hidden) and, for screen readers, the value to 12 decimals. Optionally
// tinted on the diverging scale. Built once; update() rewrites the cells' text.
import type { Matrix } from '../../web/headlab-core.js';
import { exactNumber, formatNumber, formatVector } from './format.js';
import { tintSigned } from './palette.js';
import { setText } from './text.js';

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
  /** The value each cell shows (row-major; null before the first update). */
  private shown: Float64Array | null = null;

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
    // A cell whose value is what it shows already is left alone (its tint depends on the value
    // only): a slider step that moves two columns of a 16 × 16 table rewrites those two.
    const first = this.shown === null;
    const shown = (this.shown ??= new Float64Array(rows * cols));
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const x = m.data[i * cols + j];
        if (!first && Object.is(shown[i * cols + j], x)) continue;
        shown[i * cols + j] = x;
        setNumberCell(this.cells[i][j], x, this.options.digits ?? 4);
        if (this.options.heatScale) tintSigned(this.cells[i][j], x, this.options.heatScale);
      }
    }
  }
}

/**
 * What a cell was last given by setNumberCell/setVectorCell and the nodes written for it: an
 * update with the same value (most cells of a slider step) writes nothing, and a changed value
 * rewrites the text of the same two spans instead of building new ones (docs/limits.md: a
 * 16 × 16 table per slider step within the 4 ms budget).
 */
interface CellMemo {
  key: number | string;
  digits: number;
  first: Node | null;
  visible: HTMLSpanElement | null;
  spoken: HTMLSpanElement | null;
}
const cellMemos = new WeakMap<HTMLElement, CellMemo>();

/** The memo of `cell` if its content is still what setNumberCell/setVectorCell last wrote. */
function memoOf(cell: HTMLElement): CellMemo | undefined {
  const memo = cellMemos.get(cell);
  return memo && cell.firstChild === memo.first ? memo : undefined;
}

/** Writes `shown` (aria-hidden) and `spoken` (screen readers) into the cell's two spans, made once. */
function writeSpans(cell: HTMLElement, memo: CellMemo | undefined, shown: string, spoken: string): CellMemo {
  if (memo?.visible && memo.spoken && cell.childNodes.length === 2) {
    setText(memo.visible, shown);
    setText(memo.spoken, spoken);
    if (memo.visible.getAttribute('aria-hidden') !== 'true') memo.visible.setAttribute('aria-hidden', 'true');
    return memo;
  }
  const visible = document.createElement('span');
  visible.setAttribute('aria-hidden', 'true');
  visible.textContent = shown;
  const hidden = document.createElement('span');
  hidden.className = 'sr-only';
  hidden.textContent = spoken;
  cell.replaceChildren(visible, hidden);
  return { key: 0, digits: 0, first: visible, visible, spoken: hidden };
}

/**
 * Writes a number into a cell: rounded text shown, the 12-decimal value for screen readers.
 * Returns false (and writes nothing) when the cell already shows exactly `x` at `digits`.
 */
export function setNumberCell(cell: HTMLElement, x: number, digits = 4): boolean {
  const last = memoOf(cell);
  if (last && Object.is(last.key, x) && last.digits === digits) return false;
  const shown = formatNumber(x, digits);
  const exact = exactNumber(x);
  cell.dataset.value = String(x);
  let memo: CellMemo;
  if (shown === exact && last?.visible && last.spoken && cell.childNodes.length === 2) {
    // A cell in the two-span form whose value is now shown exactly (at a large magnitude, a
    // multiple of 1/16 shows to 4 decimals): the shown span read aloud, the spoken one emptied, so
    // the cell reads and its text is as in the one-text form, and no element is made or removed
    // (each would make the render walk the whole shadow root for layout).
    setText(last.visible, shown);
    setText(last.spoken, '');
    if (last.visible.hasAttribute('aria-hidden')) last.visible.removeAttribute('aria-hidden');
    memo = last;
  } else if (shown === exact) {
    setText(cell, shown);
    memo = { key: x, digits, first: cell.firstChild, visible: null, spoken: null };
  } else {
    memo = writeSpans(cell, last, shown, exact);
  }
  cellMemos.set(cell, { ...memo, key: x, digits, first: cell.firstChild });
  return true;
}

/** A vector cell: "[a, b]" to 4 decimals shown, 12 decimals for screen readers, exact values in data-values. */
export function setVectorCell(cell: HTMLElement, values: number[], digits = 4): void {
  const key = JSON.stringify(values);
  const last = memoOf(cell);
  if (last && last.key === key && last.digits === digits) return;
  cell.dataset.values = key;
  const memo = writeSpans(cell, last, formatVector(values, digits), values.map(exactNumber).join(', '));
  cellMemos.set(cell, { ...memo, key, digits, first: cell.firstChild });
}
