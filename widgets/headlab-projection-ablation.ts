// <headlab-projection-ablation>: change one projection at a time in the two-token
// example x₁ = [1, 0], x₂ = [0, 1] and compare with the unablated head
// (W_Q = W_K = W_V = I): the query, the two dot products q·kⱼ, the softmax
// weights, the values and the reading of the chosen query row.
//
// Attributes (mirrored by properties): w-q, w-k, w-v — 2 × 2 JSON arrays of rows
// (default identity); query — 1 or 2 (default 1).
// Every number comes from core.attention; presets use core.swapProjectionCoordinates.
import type { AttentionResult, Matrix } from '../web/headlab-core.js';
import { identity, matrix, toRows } from '../web/matrix.js';
import { Memo } from './base/memo.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  HeadlabElement,
  integer,
  json,
  numberGrid,
  type WidgetFigure,
} from './base/headlab-element.js';
import { stackedTableCss } from './base/theme.js';
import { setVectorCell } from './chart/matrix-table.js';
import { formatVector, subscripted } from './chart/format.js';
import { tablesScene } from './chart/table-scene.js';
import { localId } from './base/ids.js';

/** Entries whose difference exceeds this are marked "changed": far above the ~1e-16 rounding of these 2 × 2 products. */
const CHANGE_TOLERANCE = 1e-12;

const PROJECTIONS = [
  { attr: 'w-q', key: 'w_q', label: 'W_Q', name: 'query projection' },
  { attr: 'w-k', key: 'w_k', label: 'W_K', name: 'key projection' },
  { attr: 'w-v', key: 'w_v', label: 'W_V', name: 'value projection' },
] as const;
type ProjectionKey = (typeof PROJECTIONS)[number]['key'];

export interface ProjectionAblationState {
  w_q: number[][];
  w_k: number[][];
  w_v: number[][];
  /** 1-based query row. */
  query: number;
  /** Dot products q_query · k_j (score × √d_k), j = 1, 2. */
  dot_products: number[];
  weights: number[];
  values: number[][];
  reading: number[];
}

interface Quantity {
  label: string;
  /** The quantity's numbers for the query row `i` (0-based). */
  pick: (r: AttentionResult, i: number) => number[];
}

const QUANTITIES: Quantity[] = [
  { label: 'query q', pick: (r, i) => rowOf(r.q, i) },
  { label: 'dot products q·k₁, q·k₂', pick: (r, i) => rowOf(r.dot_products, i) },
  { label: 'weights a₁, a₂', pick: (r, i) => rowOf(r.weights, i) },
  { label: 'value v₁', pick: (r) => rowOf(r.v, 0) },
  { label: 'value v₂', pick: (r) => rowOf(r.v, 1) },
  { label: 'reading a₁v₁ + a₂v₂', pick: (r, i) => rowOf(r.reading, i) },
];

function rowOf(m: Matrix, i: number): number[] {
  return Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));
}

/** The parts build() makes (this.parts). */
interface ProjectionAblationParts {
  baseline: AttentionResult;
  resultsTable: HTMLTableElement;
}

/** Attributes: w-q, w-k, w-v (2 × 2 JSON rows, default identity), query (1 or 2). Shared: all four. */
export class HeadlabProjectionAblation extends HeadlabElement<ProjectionAblationState, ProjectionAblationParts> {
  static attributes = defineAttributes({
    'w-q': json({
      type: 'number[][]',
      shared: true,
      doc: 'W_Q (2 × 2 JSON rows; default the identity).',
      fallback: (): number[][] => [
        [1, 0],
        [0, 1],
      ],
      check: (v, _host, name) => numberGrid(v, `attribute ${name}`, 2, 2),
    }),
    'w-k': json({
      type: 'number[][]',
      shared: true,
      doc: 'W_K (2 × 2 JSON rows; default the identity).',
      fallback: (): number[][] => [
        [1, 0],
        [0, 1],
      ],
      check: (v, _host, name) => numberGrid(v, `attribute ${name}`, 2, 2),
    }),
    'w-v': json({
      type: 'number[][]',
      shared: true,
      doc: 'W_V (2 × 2 JSON rows; default the identity).',
      fallback: (): number[][] => [
        [1, 0],
        [0, 1],
      ],
      check: (v, _host, name) => numberGrid(v, `attribute ${name}`, 2, 2),
    }),
    query: integer({ fallback: 1, min: 1, max: 2, shared: true, doc: 'The query row, 1 or 2.' }),
  });
  protected static css = /* css */ `
    .editors { display: flex; flex-wrap: wrap; gap: 0.75rem 1.25rem; }
    fieldset { border: 1px solid var(--hl-rule); border-radius: 4px; margin: 0; padding: 0.3rem 0.6rem 0.5rem; }
    legend { font-weight: 600; padding: 0 0.25rem; }
    .grid { display: grid; grid-template-columns: repeat(2, auto); gap: 0.25rem; }
    .queries label { margin-right: 1rem; white-space: nowrap; }
    .results td:nth-child(2), .results td:nth-child(3) { text-align: left; }
    .results td:last-child { text-align: left; }
    .results th[scope="row"] { font-weight: 500; }
    .editors input[type="number"] { width: 3.8em; }
    /* Narrow widgets: each quantity becomes a block with labelled values instead of a 4-column row. */
    ${stackedTableCss('.results', '34rem')}
  `;

  private inputs = new Map<ProjectionKey, HTMLInputElement[]>();
  private queryRadios: HTMLInputElement[] = [];
  private resultCells: { base: HTMLTableCellElement; current: HTMLTableCellElement; mark: HTMLTableCellElement }[] = [];
  private changedLabels: string[] = [];
  private readonly x = identity(2);
  private readonly heads = new Memo<AttentionResult>();

  protected readState(): ProjectionAblationState {
    const i = this.query - 1;
    const r = this.compute();
    return {
      w_q: this.wQ,
      w_k: this.wK,
      w_v: this.wV,
      query: this.query,
      dot_products: QUANTITIES[1].pick(r, i),
      weights: rowOf(r.weights, i),
      values: toRows(r.v),
      reading: rowOf(r.reading, i),
    };
  }

  /** The head of the current projections: one core call per change of them, shared by render(), state and the summary. */
  private compute(): AttentionResult {
    const core = this.core!;
    const inputs = [core, ...PROJECTIONS.map((p) => this.getAttribute(p.attr))];
    return this.heads.get(inputs, () => core.attention({ x: this.x, w_q: matrix(this.wQ), w_k: matrix(this.wK), w_v: matrix(this.wV) }));
  }

  protected build(): ProjectionAblationParts {
    this.inputs = new Map();
    this.queryRadios = [];
    this.resultCells = [];
    const core = this.core!;
    const I = identity(2);
    const baseline = core.attention({ x: this.x, w_q: I, w_k: I, w_v: I });
    const swapped = toRows(core.swapProjectionCoordinates(I, 0, 1));

    const title = el('p', { class: 'title' }, 'Ablate one projection');
    const intro = el(
      'p',
      { class: 'caption' },
      'Tokens x₁ = [1, 0] and x₂ = [0, 1]. Edit a matrix or pick a preset; the right-hand column is compared with the unablated head (all three projections the identity).',
    );

    const presets = el('div', { class: 'row', role: 'group', 'aria-label': 'Presets' });
    const preset = (label: string, apply: () => void) => {
      const b = el('button', { type: 'button' });
      b.append(subscripted(label));
      this.listen(b, 'click', () => {
        apply();
        this.emitChange();
      });
      presets.append(b);
    };
    const identityRows = [
      [1, 0],
      [0, 1],
    ];
    preset('Swap coordinates of W_Q', () => {
      this.wQ = swapped;
      this.wK = identityRows;
      this.wV = identityRows;
    });
    preset('Swap coordinates of W_K', () => {
      this.wQ = identityRows;
      this.wK = swapped;
      this.wV = identityRows;
    });
    preset('W_V = diag(2, −3)', () => {
      this.wQ = identityRows;
      this.wK = identityRows;
      this.wV = [
        [2, 0],
        [0, -3],
      ];
    });
    preset('Reset', () => {
      this.wQ = identityRows;
      this.wK = identityRows;
      this.wV = identityRows;
    });

    const editors = el('div', { class: 'editors' });
    for (const p of PROJECTIONS) {
      const fieldset = el('fieldset');
      const legend = el('legend');
      legend.append(subscripted(p.label));
      fieldset.append(legend);
      const grid = el('div', { class: 'grid' });
      const cells: HTMLInputElement[] = [];
      for (let r = 0; r < 2; r++) {
        for (let c = 0; c < 2; c++) {
          const input = el('input', {
            type: 'number',
            step: 'any',
            inputmode: 'decimal',
            'aria-label': `${p.label} (${p.name}) row ${r + 1}, column ${c + 1}`,
          });
          this.listen(input, 'input', () => this.editEntry(p.attr, r, c, input));
          grid.append(input);
          cells.push(input);
        }
      }
      fieldset.append(grid);
      editors.append(fieldset);
      this.inputs.set(p.key, cells);
    }

    const queries = el('fieldset', { class: 'queries' });
    queries.append(el('legend', {}, 'Query row'));
    const groupName = localId(this, 'query');
    ['x₁ = [1, 0]', 'x₂ = [0, 1]'].forEach((text, i) => {
      const radio = el('input', { type: 'radio', name: groupName, value: String(i + 1) });
      this.listen(radio, 'change', () => {
        if (radio.checked) {
          this.query = i + 1;
          this.emitChange();
        }
      });
      const label = el('label');
      label.append(radio, ` ${text}`);
      queries.append(label);
      this.queryRadios.push(radio);
    });

    const table = el('table', { class: 'results' });
    const caption = table.createCaption();
    caption.textContent = 'Query row against the unablated head';
    const head = table.createTHead().insertRow();
    for (const h of ['quantity', 'unablated', 'this setting', 'change']) head.append(el('th', { scope: 'col' }, h));
    const tbody = table.createTBody();
    for (const q of QUANTITIES) {
      const tr = tbody.insertRow();
      tr.append(el('th', { scope: 'row' }, q.label));
      const base = tr.insertCell(),
        current = tr.insertCell(),
        mark = tr.insertCell();
      base.className = current.className = 'num';
      base.dataset.label = 'unablated';
      current.dataset.label = 'this setting';
      this.resultCells.push({ base, current, mark });
    }
    const scroll = el('div', { class: 'scroll' });
    scroll.append(table);
    const note = el(
      'p',
      { class: 'note' },
      'Dot products are the core’s QKᵀ; the scores divide them by √d_k = √2 and the weights are the softmax of the scores.',
    );

    this.body.append(title, intro, presets, editors, queries, scroll, note, this.exportControls());
    return { baseline, resultsTable: table };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'results',
        label: 'Results table',
        scene: () =>
          tablesScene([this.parts.resultsTable], this.themeColours(), `Projection ablation, query x${this.query === 1 ? '₁' : '₂'}`),
      },
    ];
  }

  protected summarize(): string {
    const s = this.readState();
    const base = QUANTITIES[2].pick(this.parts.baseline, s.query - 1);
    const changed = this.changedLabels.length
      ? `Changed from the unablated head: ${this.changedLabels.join('; ')}.`
      : 'Nothing changed from the unablated head.';
    return `Query x${s.query === 1 ? '₁' : '₂'}: attention weights ${formatVector(s.weights, 4)} (unablated ${formatVector(base, 4)}), reading ${formatVector(s.reading, 4)}. ${changed}`;
  }

  /** Commits one typed entry when it is a finite number; otherwise marks the input invalid. */
  private editEntry(attr: (typeof PROJECTIONS)[number]['attr'], r: number, c: number, input: HTMLInputElement): void {
    const value = input.valueAsNumber;
    const ok = input.value.trim() !== '' && Number.isFinite(value);
    input.setAttribute('aria-invalid', String(!ok));
    if (!ok) return;
    const rows = this.projection(attr).map((row) => row.slice());
    rows[r][c] = value;
    this.setAttribute(attr, JSON.stringify(rows));
    this.emitChange();
  }

  /** The projection the attribute `attr` holds (its table entry parses it). */
  private projection(attr: (typeof PROJECTIONS)[number]['attr']): number[][] {
    return HeadlabProjectionAblation.attributes[attr].read(this, attr);
  }

  protected render(): void {
    const i = this.query - 1;
    for (const p of PROJECTIONS) {
      const rows = this.projection(p.attr);
      this.inputs.get(p.key)!.forEach((input, n) => {
        const v = rows[Math.floor(n / 2)][n % 2];
        if (input.valueAsNumber !== v) input.value = String(v);
        input.setAttribute('aria-invalid', 'false');
      });
    }
    this.queryRadios.forEach((radio, n) => {
      radio.checked = n === i;
    });

    const current = this.compute();
    this.changedLabels = [];
    QUANTITIES.forEach((q, n) => {
      const before = q.pick(this.parts.baseline, i);
      const after = q.pick(current, i);
      const cells = this.resultCells[n];
      setVectorCell(cells.base, before);
      setVectorCell(cells.current, after);
      const changed = before.some((b, j) => !(Math.abs(b - after[j]) <= CHANGE_TOLERANCE));
      if (changed) this.changedLabels.push(q.label);
      cells.mark.replaceChildren(el('span', { class: `tag ${changed ? 'changed' : 'same'}` }, changed ? 'changed' : 'same'));
    });
  }
}

/** A vector cell: 4 decimals shown, 12 for screen readers, exact values in data-values. */

export interface HeadlabProjectionAblation extends AttributeProperties<typeof HeadlabProjectionAblation.attributes> {}
