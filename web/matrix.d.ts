import type { Matrix } from './headlab-core.js';
export type { Matrix };
/** Builds a matrix from equal-length rows; throws TypeError naming `name` (default "matrix") otherwise. */
export function matrix(rows: number[][], name?: string): Matrix;
/** Rows as plain arrays. */
export function toRows(m: Matrix): number[][];
/** Entry (i, j), 0-based. */
export function at(m: Matrix, i: number, j: number): number;
/** Row i as a plain array. */
export function row(m: Matrix, i: number): number[];
/** The n × n identity. */
export function identity(n: number): Matrix;
/** Row i as a Float64Array viewing m.data (no copy). */
export function rowView(m: Matrix, i: number): Float64Array;
/** Every row as a Float64Array viewing m.data (no copy): for code that walks rows. */
export function rowViews(m: Matrix): Float64Array[];
/** `value` with every Matrix in it (arrays and plain objects walked) as an array of its row views: the JSON documents' nested arrays. */
export function asRows(value: unknown): unknown;
/** Whether `value` is a Matrix: exactly { rows, cols, data: Float64Array of rows · cols }. */
export function isMatrix(value: unknown): value is Matrix;
