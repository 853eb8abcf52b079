// A response map R·W (9 latent features × 3 coordinates) as a heatmap: an ARIA grid of
// tinted cells (diverging blue–orange scale centred on zero, legend below), grouped
// request / payload / noise. The exact value of a cell shows on hover (title) and on
// keyboard focus (a readout line and the cell's accessible name); arrow keys move a
// roving focus. The same picture is available as a Scene for SVG/PNG export.
import { exactNumber, formatNumber, subscripted } from './format.js';
import { divergingFill, rgbText, type ResolvedColours } from './palette.js';
import type { Scene, Shape } from './scene.js';
import { setText } from './text.js';

export const FEATURE_GROUPS = ['request', 'payload', 'noise'] as const;
/** Row k of a response map is latent feature k: request 0–2, payload 3–5, noise 6–8. */
export const FEATURE_LABELS = FEATURE_GROUPS.flatMap((g) => [1, 2, 3].map((i) => `${g} ${i}`));
/** |value| drawn at full colour: the ideal response maps hold identity blocks (entries 0 and 1). */
export const HEAT_LIMIT = 1;

const ROWS = 9,
  COLS = 3;

export const RESPONSE_HEATMAP_CSS = /* css */ `
  .heatmap table { border-collapse: separate; border-spacing: 2px; }
  .heatmap td.cell {
    min-width: 2.9rem; text-align: center; border: 0; border-radius: 3px; padding: 0.15rem 0.3rem;
    font-variant-numeric: tabular-nums; cursor: default;
  }
  .heatmap td.cell:focus-visible { outline: 3px solid var(--hl-focus); outline-offset: 1px; }
  .heatmap th[scope="rowgroup"] { text-align: left; vertical-align: middle; font-weight: 600; border: 0; padding-right: 0.4rem; }
  .heatmap th[scope="row"] { font-weight: 400; color: var(--hl-muted); border: 0; text-align: left; }
  .heatmap th[scope="col"] { text-align: center; border: 0; }
  .heatmap tbody + tbody tr:first-child > * { border-top: 0.35rem solid transparent; }
  .heatmap caption { font-weight: 600; color: var(--hl-fg); font-size: 1em; }
  .legend { display: flex; align-items: center; gap: 0.4rem; font-size: 0.85em; color: var(--hl-muted); margin-top: 0.3rem; }
  .legend .ramp {
    width: 9rem; height: 0.8rem; border: 1px solid var(--hl-rule); border-radius: 2px;
    background: linear-gradient(to right,
      color-mix(in srgb, var(--hl-neg) 85%, var(--hl-panel)), var(--hl-panel),
      color-mix(in srgb, var(--hl-pos) 85%, var(--hl-panel)));
  }
  .readout { min-height: 1.4em; font-size: 0.9em; margin: 0.2rem 0 0; font-variant-numeric: tabular-nums; }
`;

export class ResponseHeatmap {
  readonly element: HTMLDivElement;
  private readonly cells: HTMLTableCellElement[] = [];
  private readonly readout: HTMLParagraphElement;
  private values: number[] = new Array(ROWS * COLS).fill(0);
  private focusIndex = 0;
  private shown = -1;

  /**
   * @param name     the map's name, e.g. "R·W_q" ("_x" is a subscript: plain "R·Wq" in spoken text)
   * @param coord    the coordinate letter, e.g. "q" (columns q₁, q₂, q₃)
   * @param caption  the grid's caption
   */
  constructor(
    private readonly name: string,
    private readonly coord: string,
    caption: string,
  ) {
    this.element = document.createElement('div');
    this.element.className = 'heatmap';
    const scroll = document.createElement('div');
    scroll.className = 'scroll';
    const table = document.createElement('table');
    table.setAttribute('role', 'grid');
    table.createCaption().append(subscripted(caption));
    const head = table.createTHead().insertRow();
    const corner = document.createElement('td');
    corner.colSpan = 2;
    head.append(corner);
    for (let j = 0; j < COLS; j++) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = `${coord}${'₁₂₃'[j]}`;
      head.append(th);
    }
    FEATURE_GROUPS.forEach((group, g) => {
      const body = table.createTBody();
      for (let i = 0; i < 3; i++) {
        const k = 3 * g + i;
        const tr = body.insertRow();
        if (i === 0) {
          const th = document.createElement('th');
          th.scope = 'rowgroup';
          th.rowSpan = 3;
          th.textContent = group;
          tr.append(th);
        }
        const th = document.createElement('th');
        th.scope = 'row';
        th.textContent = String(i + 1);
        th.setAttribute('aria-label', `${group} ${i + 1}`);
        tr.append(th);
        for (let j = 0; j < COLS; j++) {
          const td = tr.insertCell();
          td.className = 'cell';
          td.tabIndex = k * COLS + j === 0 ? 0 : -1;
          td.dataset.row = String(k);
          td.dataset.col = String(j);
          this.cells.push(td);
        }
      }
    });
    scroll.append(table);
    const legend = document.createElement('div');
    legend.className = 'legend';
    legend.setAttribute('aria-hidden', 'true');
    const ramp = document.createElement('span');
    ramp.className = 'ramp';
    legend.append(`${formatNumber(-HEAT_LIMIT)}`, ramp, `+${HEAT_LIMIT}`);
    this.readout = document.createElement('p');
    this.readout.className = 'readout';
    this.readout.textContent = 'Hover over a cell or move through the grid with the arrow keys to read its exact value.';
    this.element.append(scroll, legend, this.readout);
  }

  /** Wires pointer and keyboard; `listen` is the owner's listener registration (removed on disconnect). */
  attach(listen: (target: EventTarget, type: string, handler: (event: Event) => void) => void): void {
    const table = this.element.querySelector('table')!;
    listen(table, 'keydown', (e) => this.onKey(e as KeyboardEvent));
    listen(table, 'focusin', (e) => {
      const index = this.cells.indexOf(e.target as HTMLTableCellElement);
      if (index >= 0) this.moveFocus(index, false);
    });
    listen(table, 'pointerover', (e) => {
      const cell = (e.target as Element).closest?.('td.cell');
      const index = cell ? this.cells.indexOf(cell as HTMLTableCellElement) : -1;
      if (index >= 0) this.showValue(index);
    });
  }

  /** The colours the cells were last drawn in (update skips unchanged cells only under the same colours). */
  private shownColours: ResolvedColours | null = null;

  /** The 27 values (row-major, 9 × 3) and the resolved colours of the current theme. */
  update(values: ArrayLike<number>, colours: ResolvedColours): void {
    // A cell showing the same value in the same colours is left alone: the owner renders on every
    // input (a typed setting, a progress message), and rewriting 27 cells' style, text, title and
    // label each time was most of such a render. A cell whose value moved (every cell, on each
    // progress message of a training) still writes only what differs: its colours and two-decimal
    // text stay the same over most steps, and a text or colour written again lays out or restyles
    // the cell (widgets/chart/text.ts); the exact value in its title and label changes every time.
    const same = colours === this.shownColours && this.values.length === this.cells.length;
    const before = this.values;
    this.values = Array.from(values);
    if (colours !== this.shownColours) this.written.fill('');
    this.shownColours = colours;
    this.cells.forEach((td, index) => {
      const x = this.values[index];
      if (same && Object.is(before[index], x)) return;
      const { fill, text } = divergingFill(colours, x, HEAT_LIMIT);
      const background = rgbText(fill),
        color = rgbText(text);
      if (this.written[2 * index] !== background) td.style.backgroundColor = this.written[2 * index] = background;
      if (this.written[2 * index + 1] !== color) td.style.color = this.written[2 * index + 1] = color;
      setText(td, formatNumber(x, 2));
      td.dataset.value = String(x);
      const label = this.describe(index);
      td.title = label;
      td.setAttribute('aria-label', label);
    });
    if (this.shown >= 0) this.showValue(this.shown);
  }

  /** Each cell's background and text colour as last written (2 per cell; '' before the first write or after a theme change). */
  private readonly written: string[] = new Array(2 * ROWS * COLS).fill('');

  /** "request 2 → q₁ = 0.999999999998" with the value to 12 decimals. */
  describe(index: number): string {
    const k = Math.floor(index / COLS),
      j = index % COLS;
    return `${this.name.replace('_', '')}: ${FEATURE_LABELS[k]} → ${this.coord}${'₁₂₃'[j]} = ${exactNumber(this.values[index])}`;
  }

  private showValue(index: number): void {
    this.shown = index;
    this.readout.textContent = this.describe(index);
  }

  private moveFocus(index: number, focus = true): void {
    this.cells[this.focusIndex].tabIndex = -1;
    this.focusIndex = index;
    this.cells[index].tabIndex = 0;
    if (focus) this.cells[index].focus();
    this.showValue(index);
  }

  private onKey(e: KeyboardEvent): void {
    const k = Math.floor(this.focusIndex / COLS),
      j = this.focusIndex % COLS;
    const to = (r: number, c: number) => Math.max(0, Math.min(ROWS - 1, r)) * COLS + Math.max(0, Math.min(COLS - 1, c));
    const moves: Record<string, number> = {
      ArrowUp: to(k - 1, j),
      ArrowDown: to(k + 1, j),
      ArrowLeft: to(k, j - 1),
      ArrowRight: to(k, j + 1),
      Home: e.ctrlKey ? 0 : to(k, 0),
      End: e.ctrlKey ? ROWS * COLS - 1 : to(k, COLS - 1),
      PageUp: to(0, j),
      PageDown: to(ROWS - 1, j),
    };
    if (!(e.key in moves)) return;
    e.preventDefault();
    this.moveFocus(moves[e.key]);
  }

  /** The heatmap as a figure: title, grouped row labels, tinted cells with values, legend. */
  scene(colours: ResolvedColours, title: string): Scene {
    return responseHeatmapScene(this.values, this.coord, colours, title);
  }
}

/** A 9 × 3 response map as a Scene (the export of ResponseHeatmap; also usable alone). */
export function responseHeatmapScene(values: ArrayLike<number>, coord: string, c: ResolvedColours, title: string): Scene {
  const cellW = 58,
    cellH = 22,
    gap = 2,
    groupGap = 8;
  const left = 132,
    top = 50;
  const fg = rgbText(c.fg),
    muted = rgbText(c.muted);
  const shapes: Shape[] = [{ kind: 'text', x: 10, y: 14, text: title, fill: fg, size: 13, weight: 'bold' }];
  for (let j = 0; j < COLS; j++) {
    shapes.push({
      kind: 'text',
      x: left + j * (cellW + gap) + cellW / 2,
      y: top - 11,
      text: `${coord}${'₁₂₃'[j]}`,
      fill: fg,
      size: 12,
      anchor: 'middle',
      weight: 'bold',
    });
  }
  const rowY = (k: number) => top + k * (cellH + gap) + Math.floor(k / 3) * groupGap;
  FEATURE_GROUPS.forEach((group, g) => {
    shapes.push({ kind: 'text', x: 10, y: rowY(3 * g + 1) + cellH / 2, text: group, fill: fg, size: 12, weight: 'bold' });
  });
  for (let k = 0; k < ROWS; k++) {
    const y = rowY(k);
    shapes.push({ kind: 'text', x: 72, y: y + cellH / 2, text: FEATURE_LABELS[k], fill: muted, size: 11 });
    for (let j = 0; j < COLS; j++) {
      const x = values[k * COLS + j];
      const { fill, text } = divergingFill(c, x, HEAT_LIMIT);
      const cx = left + j * (cellW + gap);
      shapes.push({ kind: 'rect', x: cx, y, w: cellW, h: cellH, fill: rgbText(fill) });
      shapes.push({
        kind: 'text',
        x: cx + cellW / 2,
        y: y + cellH / 2,
        text: formatNumber(x, 2),
        fill: rgbText(text),
        size: 12,
        anchor: 'middle',
      });
    }
  }
  const legendY = rowY(ROWS - 1) + cellH + 18;
  const rampW = 3 * cellW + 2 * gap;
  const end = (rgb: typeof c.pos) => rgbText(divergingFill(c, rgb === c.pos ? HEAT_LIMIT : -HEAT_LIMIT, HEAT_LIMIT).fill);
  shapes.push({
    kind: 'ramp',
    x: left,
    y: legendY,
    w: rampW,
    h: 10,
    stops: [end(c.neg), rgbText(c.panel), end(c.pos)],
    stroke: rgbText(c.rule),
  });
  shapes.push({ kind: 'text', x: left - 6, y: legendY + 5, text: formatNumber(-HEAT_LIMIT), fill: muted, size: 11, anchor: 'end' });
  shapes.push({ kind: 'text', x: left + rampW / 2, y: legendY + 20, text: '0', fill: muted, size: 11, anchor: 'middle' });
  shapes.push({ kind: 'text', x: left + rampW + 6, y: legendY + 5, text: `+${HEAT_LIMIT}`, fill: muted, size: 11 });
  return { width: left + rampW + 30, height: legendY + 32, background: rgbText(c.panel), title, shapes };
}
