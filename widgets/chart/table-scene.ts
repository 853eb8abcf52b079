// A shown <table> redrawn as a Scene, so a widget whose figure is a table exports it as
// SVG and PNG like any chart. The text taken is what a sighted reader sees: the rounded
// numbers (aria-hidden spans), not the 12-decimal screen-reader copies (.sr-only).
import type { ResolvedColours } from './palette.js';
import { rgbText } from './palette.js';
import type { Scene, Shape } from './scene.js';

const TEXT_SIZE = 12;
const ROW_HEIGHT = 22;
const CELL_PADDING = 8;
const MARGIN = 10;

/** Visible text of a node: text nodes joined, .sr-only subtrees skipped. */
export function visibleText(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
  if (node instanceof Element && node.classList.contains('sr-only')) return '';
  let out = '';
  node.childNodes.forEach((c) => {
    out += visibleText(c);
  });
  return out;
}

/**
 * Advance widths (1/1000 em) of the printable ASCII characters, U+0020 to U+007E, in DejaVu Sans
 * and DejaVu Sans Bold (from the fonts' hmtx tables): an exported table's columns are sized from
 * these, not from the exporting browser's canvas. The SVG names a font list (FONT_FAMILY) that the
 * program opening it resolves with its own fonts, so the exporting machine's metrics were no better
 * a guess for the reader's, and they made the same figure's width differ from one machine to the
 * next (and from the still written without a browser, which has no canvas). DejaVu Sans, Linux's
 * system-ui, is the widest of the usual ones (digits 0.636 em; Helvetica's, Segoe UI's and
 * Roboto's about 0.56): a column sized for it leaves a narrower font's text more room, never less.
 */
const REGULAR =
  '318 401 460 838 636 950 780 275 390 390 500 838 318 361 318 337 636 636 636 636 636 636 636 636 636 636 337 337 838 838 838 531 1000 684 686 698 770 632 575 775 752 295 295 656 557 863 748 787 603 787 695 635 611 732 684 989 685 611 685 390 337 390 838 500 500 613 635 550 635 615 352 635 634 278 278 579 278 974 634 612 635 635 411 521 392 634 592 818 592 592 525 636 337 636 838'
    .split(' ')
    .map(Number);
const BOLD =
  '348 456 521 838 696 1002 872 306 457 457 523 838 380 415 380 365 696 696 696 696 696 696 696 696 696 696 400 400 838 838 838 580 1000 774 762 734 830 683 683 821 837 372 372 775 637 995 837 850 733 850 770 720 682 812 774 1103 771 724 725 457 365 457 838 500 500 675 716 593 716 678 435 716 712 343 343 665 343 1042 712 687 716 716 493 595 478 712 652 924 645 652 582 712 365 712 838'
    .split(' ')
    .map(Number);
/** [regular, bold] widths of the characters outside ASCII the tables print; any other is taken as an `n` (634, bold 712). */
const OTHER: Record<string, [number, number]> = {
  '\u00a0': [318, 348], // no-break space
  '\u2009': [200, 200], // thin space
  '\u202f': [200, 200], // narrow no-break space
  '\u2212': [838, 838], // minus
  '\u00d7': [838, 838], // times
  '\u00b1': [838, 838], // plus-minus
  '\u2013': [500, 500], // en dash
  '\u2014': [1000, 1000], // em dash
  '\u2018': [318, 380], // left quote
  '\u2019': [318, 380], // apostrophe
  '\u201c': [518, 657], // left double quote
  '\u201d': [518, 657], // right double quote
  '\u00b7': [318, 380], // middle dot
  '\u22c5': [318, 380], // dot operator
  '\u2026': [1000, 1000], // ellipsis
  '\u00b0': [500, 500], // degree
  '\u2264': [838, 838], // ≤
  '\u2265': [838, 838], // ≥
  '\u2248': [838, 838], // ≈
  '\u2192': [838, 838], // arrow
};

/** Width of `text` in px at `size`, set in DejaVu Sans (Bold when `bold`). */
function textWidth(text: string, size: number, bold: boolean): number {
  const table = bold ? BOLD : REGULAR;
  let units = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    units += code >= 0x20 && code <= 0x7e ? table[code - 0x20] : (OTHER[ch]?.[bold ? 1 : 0] ?? (bold ? 712 : 634));
  }
  return (units / 1000) * size;
}

/**
 * The tables, stacked, as one Scene titled `title`: each table's caption, then a grid of
 * its rows (header cells bold), with rules between rows. Columns are as wide as their
 * widest cell.
 */
export function tablesScene(tables: HTMLTableElement[], colours: ResolvedColours, title: string): Scene {
  const fg = rgbText(colours.fg),
    muted = rgbText(colours.muted),
    rule = rgbText(colours.rule);
  const shapes: Shape[] = [{ kind: 'text', x: MARGIN, y: MARGIN + 8, text: title, fill: fg, size: 13, weight: 'bold' }];
  let y = MARGIN + 26;
  let width = MARGIN * 2 + textWidth(title, 13, true);
  for (const table of tables) {
    const caption = table.caption ? visibleText(table.caption).trim() : '';
    if (caption) {
      shapes.push({ kind: 'text', x: MARGIN, y: y + 8, text: caption, fill: muted, size: TEXT_SIZE });
      width = Math.max(width, MARGIN * 2 + textWidth(caption, TEXT_SIZE, false));
      y += 22;
    }
    const rows = Array.from(table.rows).map((tr) =>
      Array.from(tr.cells).map((c) => ({
        text: visibleText(c).replace(/\s+/g, ' ').trim(),
        header: c.tagName === 'TH',
      })),
    );
    const columns = Math.max(0, ...rows.map((r) => r.length));
    const widths = Array.from(
      { length: columns },
      (_, j) => Math.max(0, ...rows.map((r) => (r[j] ? textWidth(r[j].text, TEXT_SIZE, r[j].header) : 0))) + 2 * CELL_PADDING,
    );
    const tableWidth = widths.reduce((a, b) => a + b, 0);
    width = Math.max(width, MARGIN * 2 + tableWidth);
    for (const row of rows) {
      let x = MARGIN;
      row.forEach((cell, j) => {
        if (cell.text) {
          shapes.push({
            kind: 'text',
            x: j === 0 ? x + CELL_PADDING : x + widths[j] - CELL_PADDING,
            y: y + ROW_HEIGHT / 2,
            text: cell.text,
            fill: fg,
            size: TEXT_SIZE,
            anchor: j === 0 ? 'start' : 'end',
            ...(cell.header ? { weight: 'bold' as const } : {}),
          });
        }
        x += widths[j];
      });
      y += ROW_HEIGHT;
      shapes.push({ kind: 'line', x1: MARGIN, y1: y, x2: MARGIN + tableWidth, y2: y, stroke: rule });
    }
    y += 14;
  }
  return { width: Math.ceil(width), height: Math.ceil(y + MARGIN - 14), background: rgbText(colours.panel), title, shapes };
}
