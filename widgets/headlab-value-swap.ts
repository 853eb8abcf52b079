// <headlab-value-swap>: one attention row over n records and their value vectors;
// the reader swaps two output columns of W_V. The attention row stays fixed and the
// reading's coordinates permute.
//
// The core computes both readings: X is the n × n identity (one-hot rows, one per
// record), W_V the n × d value rows (so V = X W_V), and the author's weights are the
// weights_override of every row (the query and key projections are then unused; they
// are n × 1 zeros). The swapped reading uses core.swapProjectionCoordinates(W_V, a, b).
//
// Data, attribute first, then a child <script type="application/json"> with
// { "records": [...], "weights": [...], "values": [[...], ...] }, then the defaults:
//   weights   n numbers separated by spaces or commas, each ≥ 0, summing to 1 within 1e-9
//   values    JSON n × d array of rows (d ≥ 2), finite numbers
//   records   JSON array of n labels (text, shown as text), default "record 1" … "record n"
//   column-a, column-b   1-based output columns to swap (default 1 and 2; mirrored as columnA, columnB)
import type { AttentionResult } from '../web/headlab-core.js';
import { identity, matrix } from '../web/matrix.js';
import {
  type AttributeProperties,
  defineAttributes,
  el,
  HeadlabElement,
  integer,
  jsonAttribute,
  MAX_ATTRIBUTE_LENGTH,
  MAX_GRID_SIDE,
  numberGrid,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { stackedTableCss } from './base/theme.js';
import { Memo } from './base/memo.js';
import { MatrixTable, setNumberCell, setVectorCell } from './chart/matrix-table.js';
import { Bar } from './chart/svg.js';
import { formatCount, formatNumber, formatVector, subscripted } from './chart/format.js';
import { tablesScene } from './chart/table-scene.js';

/** |Σ weights − 1| allowed: room for decimals typed by an author (a few ulps each), far below a typo. */
export const WEIGHT_SUM_TOLERANCE = 1e-9;

const DEFAULT_DATA = {
  weights: [0.1, 0.2, 0.3, 0.4],
  values: [
    [1, 0, 0],
    [0, 2, 0],
    [0, 0, 3],
    [1, 1, 1],
  ],
};

export interface ValueSwapData {
  records: string[];
  weights: number[];
  values: number[][];
}

export interface ValueSwapState extends ValueSwapData {
  /** 1-based swapped columns. */
  column_a: number;
  column_b: number;
  reading: number[];
  swapped_reading: number[];
}

/** The attributes the data is read from (the JSON content is the other source). */
const DATA_ATTRIBUTES = ['weights', 'values', 'records'] as const;

interface ValueSwapView {
  data: ValueSwapData;
  a: number;
  b: number;
  original: AttentionResult;
  swapped: AttentionResult;
  reading: number[];
  swappedReading: number[];
}

/** The parts build() makes (this.parts). */
interface ValueSwapParts {
  recordBody: HTMLTableSectionElement;
  recordTable: HTMLTableElement;
  sameRow: HTMLParagraphElement;
}

/**
 * Attributes: weights (n numbers ≥ 0 summing to 1), values (n × d JSON rows, d ≥ 2), records (JSON labels),
 * column-a, column-b (1-based). Or a child <script type="application/json">{records, weights, values}</script>.
 * Shared: column-a, column-b.
 */
export class HeadlabValueSwap extends HeadlabElement<ValueSwapState, ValueSwapParts> {
  // Shared: the reader's choice only; the data is the author's and stays in the page.
  static attributes = defineAttributes({
    weights: text({ property: false, doc: 'The n attention weights (JSON numbers ≥ 0 summing to 1).' }),
    values: text({ property: false, doc: 'The n value vectors (n × d JSON rows, d ≥ 2).' }),
    records: text({ property: false, doc: 'The n records’ labels (JSON text).' }),
    'column-a': integer({
      fallback: 1,
      min: 1,
      max: (host): number => (host as HeadlabValueSwap).data().values[0].length,
      shared: true,
      doc: 'The first swapped column, 1-based.',
    }),
    'column-b': integer({
      fallback: 2,
      min: 1,
      max: (host): number => (host as HeadlabValueSwap).data().values[0].length,
      shared: true,
      doc: 'The second swapped column, 1-based.',
    }),
  });
  protected static css = /* css */ `
    .records td, .records th { vertical-align: middle; }
    .records td.vec { text-align: left; }
    .weight { display: flex; align-items: center; gap: 0.4rem; justify-content: flex-end; }
    label { white-space: nowrap; }
    .same-row { font-size: 0.9em; }
    /* Narrow widgets: each record becomes a block of labelled values instead of a 4-column row. */
    ${stackedTableCss('.records', '30rem', '.weight { justify-content: flex-start; } .weight::before { content: "weight: "; color: var(--hl-muted); }')}
  `;

  private selects: HTMLSelectElement[] = [];
  private recordRows: { weight: HTMLElement; bar: Bar; value: HTMLElement; swapped: HTMLElement; label: HTMLElement }[] = [];
  private readings: MatrixTable | null = null;
  private lastShape = '';
  private readonly parsed = new Memo<ValueSwapData>();
  private readonly views = new Memo<ValueSwapView>();

  /** The records, weights and values in use, validated (throws WidgetInputError naming the problem); parsed once per change of the data. */
  data(): ValueSwapData {
    const script = this.querySelector(':scope > script[type="application/json"]');
    const inputs = [...DATA_ATTRIBUTES.map((name) => this.getAttribute(name)), script, script?.textContent];
    return this.parsed.get(inputs, () => this.parseData(script));
  }

  private parseData(script: Element | null): ValueSwapData {
    let json: Record<string, unknown> = {};
    if (script) {
      // The content is bounded as an attribute is (MAX_ATTRIBUTE_LENGTH), before it is parsed: a
      // 500,000-row JSON content took one 95–600 ms task to parse before its row count was refused.
      const text = script.textContent ?? '';
      if (text.length > MAX_ATTRIBUTE_LENGTH) {
        throw new WidgetInputError(
          `the JSON content is ${formatCount(text.length)} characters long; the limit is ${formatCount(MAX_ATTRIBUTE_LENGTH)}`,
        );
      }
      try {
        json = JSON.parse(text);
      } catch (err) {
        throw new WidgetInputError(`the JSON content is not valid JSON: ${(err as Error).message}`);
      }
      if (typeof json !== 'object' || json === null || Array.isArray(json)) {
        throw new WidgetInputError('the JSON content must be an object { records, weights, values }');
      }
    }
    const weightsAttr = this.getAttribute('weights');
    const weights = weightsAttr !== null ? parseWeights(weightsAttr) : checkWeights(json.weights ?? DEFAULT_DATA.weights, 'weights');
    const valuesRaw = jsonAttribute(this, 'values') ?? json.values ?? DEFAULT_DATA.values;
    const values = numberGrid(valuesRaw, 'values', weights.length);
    if (values[0].length < 2) throw new WidgetInputError(`values need at least 2 columns to swap, got ${values[0].length}`);
    const recordsRaw = jsonAttribute(this, 'records') ?? json.records;
    const records = recordsRaw === undefined ? weights.map((_, i) => `record ${i + 1}`) : checkRecords(recordsRaw, weights.length);
    return { records, weights, values };
  }

  protected readState(): ValueSwapState {
    const { data, a, b, reading, swappedReading } = this.view();
    return { ...data, column_a: a, column_b: b, reading, swapped_reading: swappedReading };
  }

  /**
   * Everything render(), summarize(), state and figures() show, from one parse of the data and
   * two core calls (the original and the swapped head), kept until the data or a column changes.
   */
  private view(): ValueSwapView {
    const data = this.data();
    const a = this.columnA,
      b = this.columnB;
    return this.views.get([data, a, b, this.core], () => {
      const core = this.core!;
      const n = data.weights.length,
        d = data.values[0].length;
      const x = identity(n);
      const zeros = matrix(Array.from({ length: n }, () => [0]));
      const w_v = matrix(data.values, 'values');
      const weights_override = matrix(
        Array.from({ length: n }, () => data.weights),
        'weights',
      );
      const original = core.attention({ x, w_q: zeros, w_k: zeros, w_v, weights_override });
      const swappedWv = core.swapProjectionCoordinates(w_v, a - 1, b - 1);
      const swapped = core.attention({ x, w_q: zeros, w_k: zeros, w_v: swappedWv, weights_override });
      return {
        data,
        a,
        b,
        original,
        swapped,
        reading: Array.from(original.reading.data.subarray(0, d)),
        swappedReading: Array.from(swapped.reading.data.subarray(0, d)),
      };
    });
  }

  protected build(): ValueSwapParts {
    this.selects = [];
    this.recordRows = [];
    this.lastShape = '';
    const title = el('p', { class: 'title' });
    title.append(subscripted('Swap two output columns of W_V'));
    const intro = el(
      'p',
      { class: 'caption' },
      'The attention row is held fixed. Swapping two output columns of the value projection swaps those coordinates in every value vector, so the reading permutes while the weights stay the same.',
    );
    const controls = el('div', { class: 'row' });
    for (const [n, text] of [
      [0, 'Swap output column'],
      [1, 'with column'],
    ] as const) {
      const select = el('select');
      const label = el('label');
      label.append(`${text} `, select);
      this.listen(select, 'change', () => {
        const v = Number(select.value);
        if (n === 0) this.columnA = v;
        else this.columnB = v;
        this.emitChange();
      });
      controls.append(label);
      this.selects.push(select);
    }
    const table = el('table', { class: 'records' });
    table.createCaption().textContent = 'Records, attention weights and value vectors';
    const head = table.createTHead().insertRow();
    for (const h of ['record', 'weight', 'value', 'value after swap']) head.append(el('th', { scope: 'col' }, h));
    const recordBody = table.createTBody();
    const scroll = el('div', { class: 'scroll' });
    scroll.append(table);
    const sameRow = el('p', { class: 'note same-row' });
    const readingBox = el('div', { class: 'scroll readings' });
    this.body.append(title, intro, controls, scroll, readingBox, sameRow, this.exportControls());
    return { recordBody, recordTable: table, sameRow };
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'tables',
        label: 'Tables',
        scene: () =>
          tablesScene(
            [this.parts.recordTable, this.readings!.table],
            this.themeColours(),
            `Value swap: columns ${this.columnA} and ${this.columnB}`,
          ),
      },
    ];
  }

  protected summarize(): string {
    const s = this.readState();
    const n = s.weights.length;
    const swap =
      s.column_a === s.column_b
        ? `Both chosen columns are ${s.column_a}: nothing is swapped and the reading stays ${formatVector(s.reading)}.`
        : `Swapping value columns ${s.column_a} and ${s.column_b} turns the reading ${formatVector(s.reading)} into ${formatVector(s.swapped_reading)}; the attention weights do not change.`;
    return `${n} records with attention weights ${s.weights.map((w) => formatNumber(w)).join(', ')}. ${swap}`;
  }

  protected render(): void {
    const { data, a, b, original, swapped, reading, swappedReading } = this.view();
    const d = data.values[0].length;

    const shape = `${data.weights.length}×${d}`;
    if (shape !== this.lastShape) this.rebuildShape(data.weights.length, d);
    for (const [n, select] of this.selects.entries()) select.value = String(n === 0 ? a : b);

    const w = original.weights;
    data.records.forEach((label, j) => {
      const row = this.recordRows[j];
      row.label.textContent = label;
      const weight = w.data[j]; // row 0 of the weights the core used
      setNumberCell(row.weight, weight);
      row.bar.update(weight);
      setVectorCell(row.value, Array.from(original.v.data.subarray(j * d, (j + 1) * d)));
      setVectorCell(row.swapped, Array.from(swapped.v.data.subarray(j * d, (j + 1) * d)));
    });
    this.readings!.update(matrix([reading, swappedReading]));
    const same = original.weights.data.every((x, i) => x === swapped.weights.data[i]);
    this.parts.sameRow.textContent =
      a === b
        ? 'Both columns are the same: nothing is swapped.'
        : `Columns ${a} and ${b} swapped. Attention row in both computations: ${same ? 'identical' : 'different'}.`;
  }

  /** (Re)creates the per-record rows, the column options and the readings table for n records of width d. */
  private rebuildShape(n: number, d: number): void {
    this.lastShape = `${n}×${d}`;
    for (const select of this.selects) {
      select.replaceChildren(...Array.from({ length: d }, (_, i) => el('option', { value: String(i + 1) }, String(i + 1))));
    }
    this.recordRows = [];
    const body = this.parts.recordBody;
    body.replaceChildren();
    for (let j = 0; j < n; j++) {
      const tr = body.insertRow();
      const label = el('th', { scope: 'row' });
      const weightCell = tr.insertCell();
      const box = el('div', { class: 'weight' });
      const weight = el('span', { class: 'num' });
      const bar = new Bar(1, false, 60, 12);
      box.append(bar.svg, weight);
      weightCell.append(box);
      const value = tr.insertCell(),
        swapped = tr.insertCell();
      value.className = swapped.className = 'num vec';
      value.dataset.label = 'value';
      swapped.dataset.label = 'after swap';
      tr.prepend(label);
      this.recordRows.push({ weight, bar, value, swapped, label });
    }
    this.readings = new MatrixTable({
      caption: 'Reading Σⱼ aⱼ vⱼ, by output coordinate',
      rowLabels: ['original', 'after swap'],
      colLabels: Array.from({ length: d }, (_, i) => `${i + 1}`),
      heatScale: 0,
    });
    this.body.querySelector('.readings')!.replaceChildren(this.readings.table);
  }
}

function parseWeights(text: string): number[] {
  if (text.length > MAX_ATTRIBUTE_LENGTH) {
    throw new WidgetInputError(
      `attribute weights is ${formatCount(text.length)} characters long; the limit is ${formatCount(MAX_ATTRIBUTE_LENGTH)}`,
    );
  }
  const parts = text
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean);
  const weights = parts.map(Number);
  const bad = parts.findIndex((p, i) => !Number.isFinite(weights[i]));
  if (bad >= 0) throw new WidgetInputError(`attribute weights: "${parts[bad]}" is not a finite number`);
  return checkWeights(weights, 'attribute weights');
}

function checkWeights(raw: unknown, what: string): number[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new WidgetInputError(`${what} must be a non-empty list of numbers`);
  // One record per weight: the n × n attention of the swap and the n-row table (MAX_GRID_SIDE).
  if (raw.length > MAX_GRID_SIDE) {
    throw new WidgetInputError(`${what} has ${formatCount(raw.length)} entries (records); the limit is ${MAX_GRID_SIDE}`);
  }
  raw.forEach((w, i) => {
    if (typeof w !== 'number' || !Number.isFinite(w))
      throw new WidgetInputError(`${what}: entry ${i + 1} (${JSON.stringify(w)}) is not a finite number`);
    if (w < 0) throw new WidgetInputError(`${what}: entry ${i + 1} is ${w}, but weights must be ≥ 0`);
  });
  const sum = raw.reduce((s: number, w: number) => s + w, 0);
  if (!(Math.abs(sum - 1) <= WEIGHT_SUM_TOLERANCE)) {
    throw new WidgetInputError(`${what} sum to ${sum}, but an attention row must sum to 1 (within ${WEIGHT_SUM_TOLERANCE})`);
  }
  return raw as number[];
}

function checkRecords(raw: unknown, n: number): string[] {
  if (!Array.isArray(raw) || raw.length !== n || !raw.every((r) => typeof r === 'string')) {
    throw new WidgetInputError(`records must be a list of ${n} text labels, one per weight`);
  }
  return raw as string[];
}

export interface HeadlabValueSwap extends AttributeProperties<typeof HeadlabValueSwap.attributes> {}
