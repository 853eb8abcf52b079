// Matrices in JS: { rows, cols, data } with data a Float64Array in row-major order.

/** Builds a matrix from an array of equal-length rows of finite numbers. */
export function matrix(rows, name = 'matrix') {
  if (!Array.isArray(rows) || rows.length === 0 || !Array.isArray(rows[0])) {
    throw new TypeError(`${name} must be a non-empty array of rows`);
  }
  const cols = rows[0].length;
  const data = new Float64Array(rows.length * cols);
  rows.forEach((row, i) => {
    if (!Array.isArray(row) || row.length !== cols) {
      throw new TypeError(`${name} row ${i} must have ${cols} numbers like row 0`);
    }
    row.forEach((x, j) => {
      if (typeof x !== 'number') throw new TypeError(`${name}[${i}][${j}] is not a number`);
      data[i * cols + j] = x;
    });
  });
  return { rows: rows.length, cols, data };
}

/** The matrix as an array of row arrays (plain numbers). */
export function toRows(m) {
  const out = [];
  for (let i = 0; i < m.rows; i++) out.push(Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
  return out;
}

/** Entry (i, j). */
export function at(m, i, j) {
  return m.data[i * m.cols + j];
}

/** Row i as a plain array. */
export function row(m, i) {
  return Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));
}

/** The n × n identity. */
export function identity(n) {
  const data = new Float64Array(n * n);
  for (let i = 0; i < n; i++) data[i * n + i] = 1;
  return { rows: n, cols: n, data };
}

/** Row i as a Float64Array viewing m.data (no copy). */
export function rowView(m, i) {
  return m.data.subarray(i * m.cols, (i + 1) * m.cols);
}

/** Every row as a Float64Array viewing m.data (no copy): for code that walks rows. */
export function rowViews(m) {
  return Array.from({ length: m.rows }, (_, i) => rowView(m, i));
}

/**
 * `value` with every Matrix in it (arrays and plain objects walked) as an array of its rows
 * (Float64Array views): the nested arrays of the JSON documents, where [..][rows][cols] was a stack of
 * Matrix (web/README.md). Anything else is returned as it is.
 */
export function asRows(value) {
  if (Array.isArray(value)) return value.map(asRows);
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (isMatrix(value)) return rowViews(value);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asRows(v)]));
}

/** Whether `value` is a Matrix: exactly { rows, cols, data: Float64Array of rows · cols }. */
export function isMatrix(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    value.data instanceof Float64Array &&
    Number.isInteger(value.rows) &&
    Number.isInteger(value.cols) &&
    value.data.length === value.rows * value.cols &&
    Object.keys(value).length === 3
  );
}
