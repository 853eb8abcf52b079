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
