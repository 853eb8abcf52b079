// A shown <table> redrawn as a Scene, so a widget whose figure is a table exports it as
// SVG and PNG like any chart. The text taken is what a sighted reader sees: the rounded
// numbers (aria-hidden spans), not the 12-decimal screen-reader copies (.sr-only).
import type { ResolvedColours } from './palette.js';
import { rgbText } from './palette.js';
import { FONT_FAMILY, type Scene, type Shape } from './scene.js';

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

let measureContext: CanvasRenderingContext2D | null = null;

/** Width of `text` in px at `size` (canvas metrics, the same font as the scene's text). */
function textWidth(text: string, size: number, bold: boolean): number {
  measureContext ??= document.createElement('canvas').getContext('2d');
  if (!measureContext) return text.length * size * 0.6;
  measureContext.font = `${bold ? 'bold ' : ''}${size}px ${FONT_FAMILY}`;
  return measureContext.measureText(text).width;
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
