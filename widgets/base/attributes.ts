// Attribute ↔ property mirroring: getters parse the attribute (throwing WidgetInputError naming
// it when it is malformed); setters write the attribute, so attributeChangedCallback is the one
// path by which state changes.
import { formatCount } from '../chart/format.js';
import { MAX_SEED, MAX_WEIGHT_MAGNITUDE } from './core-limits.js';
import { messageOf, WidgetInputError } from './errors.js';

/** Longest attribute value a widget parses (the largest shipped attribute, a trained run's matrices, is under 20,000). */
export const MAX_ATTRIBUTE_LENGTH = 200_000;

/** Largest seed every widget accepts: the core's (core/check.hpp kMaxSeed), the integers a JS number holds exactly. */
export { MAX_SEED };

/** A finite number attribute in [min, max], or `fallback` when absent. */
export function numberAttribute(host: Element, name: string, fallback: number, min = -Infinity, max = Infinity): number {
  const raw = host.getAttribute(name);
  if (raw === null || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) {
    throw new WidgetInputError(`attribute ${name}="${raw}" is not a finite number`);
  }
  if (value < min || value > max) {
    throw new WidgetInputError(`attribute ${name}="${raw}" must be between ${min} and ${max}`);
  }
  return value;
}

/** An integer attribute in [min, max], or `fallback` when absent. */
export function integerAttribute(host: Element, name: string, fallback: number, min: number, max: number): number {
  const value = numberAttribute(host, name, fallback, min, max);
  if (!Number.isInteger(value)) throw new WidgetInputError(`attribute ${name}="${host.getAttribute(name)}" must be an integer`);
  return value;
}

/** Writes a number attribute (the setter side of a mirrored property). */
export function setNumberAttribute(host: Element, name: string, value: number): void {
  host.setAttribute(name, String(value));
}

/** A JSON attribute parsed, or undefined when absent. */
export function jsonAttribute(host: Element, name: string): unknown {
  const raw = host.getAttribute(name);
  if (raw === null) return undefined;
  if (raw.length > MAX_ATTRIBUTE_LENGTH) {
    throw new WidgetInputError(
      `attribute ${name} is ${formatCount(raw.length)} characters long; the limit is ${formatCount(MAX_ATTRIBUTE_LENGTH)}`,
    );
  }
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new WidgetInputError(`attribute ${name} is not valid JSON: ${messageOf(err)}`);
  }
}

/**
 * Largest |entry| of a matrix an author gives a widget (docs/limits.md): the same bound as the
 * core's weights (core/limits.hpp kMaxWeightMagnitude, through the generated core-limits.ts). A score is at most four entries
 * deep (x W_q (x W_k)ᵀ) with ≤ 16·16·16 terms at the grid limits below: ≤ 4,096·(1e6)⁴ = 4e27,
 * far inside the double range, so no author matrix can overflow a table or a chart to ±Infinity.
 */
export const MAX_ENTRY_MAGNITUDE = MAX_WEIGHT_MAGNITUDE;
/**
 * Most rows and columns of an author's matrix (docs/limits.md). The widgets that take them build
 * n × n score tables on the main thread; 16 × 16 (512 score cells) is chosen to stay within the
 * 4 ms frame budget, where 100 rows once took 2.6 s (not yet measured at the limit in
 * bench/widgets.bench.mjs).
 */
export const MAX_GRID_SIDE = 16;

/**
 * Checks that `value` is an array of `rows` arrays of `cols` finite numbers (a
 * dimension given as 0 accepts any length ≥ 1, equal across rows), at most `maxSide` rows and
 * columns and every |entry| ≤ MAX_ENTRY_MAGNITUDE; `what` names it.
 */
export function numberGrid(value: unknown, what: string, rows = 0, cols = 0, maxSide = MAX_GRID_SIDE): number[][] {
  if (!Array.isArray(value) || value.length === 0) throw new WidgetInputError(`${what} must be a non-empty array of rows`);
  if (rows && value.length !== rows) throw new WidgetInputError(`${what} must have ${rows} rows, got ${value.length}`);
  if (value.length > maxSide) {
    throw new WidgetInputError(`${what} has ${formatCount(value.length)} rows; the limit is ${maxSide}`);
  }
  const width = cols || (Array.isArray(value[0]) ? value[0].length : 0);
  if (width > maxSide) {
    throw new WidgetInputError(`${what} has ${formatCount(width)} columns; the limit is ${maxSide}`);
  }
  value.forEach((row: unknown, i: number) => {
    if (!Array.isArray(row) || row.length === 0 || row.length !== width) {
      throw new WidgetInputError(`${what} row ${i + 1} must be an array of ${width || 'one or more'} numbers`);
    }
    row.forEach((x: unknown, j: number) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new WidgetInputError(`${what} row ${i + 1}, column ${j + 1} must be a finite number, got "${String(JSON.stringify(x))}"`);
      }
      if (Math.abs(x) > MAX_ENTRY_MAGNITUDE) {
        throw new WidgetInputError(
          `${what} row ${i + 1}, column ${j + 1} is ${x}, beyond the magnitude limit ±${MAX_ENTRY_MAGNITUDE.toExponential()} (larger entries overflow the scores)`,
        );
      }
    });
  });
  return value as number[][];
}

/**
 * One of a fixed set of words: the attribute's value when it is one of `values`, `fallback`
 * when absent or empty; anything else names the attribute and the words it accepts.
 */
export function enumAttribute<T extends string>(host: Element, name: string, values: readonly T[], fallback: T): T {
  const raw = host.getAttribute(name);
  if (raw === null || raw === '') return fallback;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  const words = values.map((v) => `"${v}"`);
  const list = words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : words[0];
  throw new WidgetInputError(`attribute ${name}="${raw}" must be ${list}`);
}
