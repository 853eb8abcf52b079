// Number formatting for widgets. Values are rounded before printing so the
// text is stable across platforms (the last-bit differences between libms never
// show), negative zero prints as 0, and minus is U+2212.
export const MINUS = '\u2212';

/** x rounded to `digits` decimals, trailing zeros dropped: 0.70710678 → "0.7071", −3 → "−3". */
export function formatNumber(x: number, digits = 4): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '∞';
  if (x === -Infinity) return `${MINUS}∞`;
  const scale = 10 ** digits;
  let rounded = Math.round(x * scale) / scale;
  if (rounded === 0) rounded = 0; // −0 → 0
  let text = rounded.toFixed(digits);
  if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '');
  return text.replace('-', MINUS);
}

/** The value as precisely as screen-reader text needs: 12 decimals, trailing zeros dropped. */
export function exactNumber(x: number): string {
  return formatNumber(x, 12);
}

/** A small non-negative magnitude, compact for tables: "0" or 2.2e−16 (prose: formatScientific). */
export function formatMagnitude(x: number): string {
  if (x === 0) return '0';
  if (!Number.isFinite(x)) return formatScientific(x);
  return x.toExponential(1).replace('e-', `e${MINUS}`).replace('e+', 'e');
}

/** [a, b, …] with each entry formatted. */
export function formatVector(values: ArrayLike<number>, digits = 4): string {
  return `[${Array.from(values, (x) => formatNumber(x, digits)).join(', ')}]`;
}

/** Parses text printed by formatNumber / formatVector back to numbers (for tests and comparisons). */
export function parseNumbers(text: string): number[] {
  return (text.replaceAll(MINUS, '-').match(/-?\d+(\.\d+)?(e-?\d+)?/g) ?? []).map(Number);
}

/** Text with each "_X" shown as a subscript: "W_Q = I" → W<sub>Q</sub> = I (nodes, never parsed markup). */
export function subscripted(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  text.split(/(_[A-Za-z0-9]+)/).forEach((part) => {
    if (part.startsWith('_')) {
      const sub = document.createElement('sub');
      sub.textContent = part.slice(1);
      fragment.append(sub);
    } else if (part) {
      fragment.append(part);
    }
  });
  return fragment;
}

// ---- numbers in the words a reader expects (prose, captions, summaries, <headlab-value>) ----
//
// Rules shared by every widget and article:
//   - an accuracy never rounds up to 100% (or down to 0%) unless every item is right (wrong):
//     99.9955% prints as "99.996%", not "100.0%"; with a count, "all but 5 of 111,110";
//   - agreement that is exact or at rounding level is said in words ("unchanged to the last
//     bit", "R² above 1 − 10⁻¹²"), never as a comparison with a test tolerance;
//   - magnitudes print as "2.2 × 10⁻¹⁶"; a value beyond the double range never prints as
//     "Infinity" (see formatScientific).

/** What a widget reports for a number bound into prose (`boundValue(name)`, `<headlab-value>`). */
export interface BoundValue {
  value: number;
  /** fraction: in [0, 1], share of `of` items (an accuracy); count: a whole number of things; loss: an error ≥ 0. */
  kind: 'fraction' | 'count' | 'number' | 'loss';
  /** For a fraction: how many items it is a fraction of (lets the formatter say "all but 5 of 111,110"). */
  of?: number;
}

/**
 * What a source's boundValue answers while it computes a new value after having had one (another
 * head, cell or prompt): <headlab-value> then shows "computing…" rather than the value before or
 * the author's text, which describe other inputs.
 */
export interface BoundComputing {
  computing: true;
}

/** How a bound value is printed: percent, count ("all but 5 of 111,110"), number, sci (× 10ⁿ). */
export type ValueFormat = 'percent' | 'count' | 'number' | 'sci';

const SUPERSCRIPT: Record<string, string> = {
  '0': '⁰',
  '1': '¹',
  '2': '²',
  '3': '³',
  '4': '⁴',
  '5': '⁵',
  '6': '⁶',
  '7': '⁷',
  '8': '⁸',
  '9': '⁹',
  '-': '⁻',
  [MINUS]: '⁻',
};

/** An integer exponent in superscript digits: −16 → "⁻¹⁶". */
export function superscript(n: number): string {
  return String(n)
    .split('')
    .map((c) => SUPERSCRIPT[c] ?? c)
    .join('');
}

/**
 * A whole number with thousands separators: 111110 → "111,110" (negative with U+2212). Written
 * out, not toLocaleString: a page's first toLocaleString loads the locale's data, a main-thread
 * task of 50–200 ms, which a message refusing an over-long attribute or link used to cost.
 */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return formatScientific(n);
  const text = Math.round(Math.abs(n))
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 && Math.round(n) !== 0 ? `${MINUS}${text}` : text;
}

// The largest finite double is about 1.8 × 10³⁰⁸; anything that overflowed to ±Infinity is
// said as "more than 10³⁰⁸" (a reader's 1e400 is a number, just too large to compute with).
const OVERFLOW_TEXT = `more than 10${superscript(308)}`;

/**
 * A magnitude in scientific notation with `significant` digits: 2.2e−16 → "2.2 × 10⁻¹⁶";
 * between 0.001 and 10,000 plain decimals ("0.332"); 0 → "0"; ±Infinity → "more than 10³⁰⁸".
 */
export function formatScientific(x: number, significant = 2): string {
  if (Number.isNaN(x)) return 'not a number';
  if (!Number.isFinite(x)) return x > 0 ? OVERFLOW_TEXT : `${MINUS}(${OVERFLOW_TEXT})`;
  if (x === 0) return '0';
  const a = Math.abs(x);
  const sign = x < 0 ? MINUS : '';
  if (a >= 1e-3 && a < 1e4) return sign + Number(a.toPrecision(significant)).toString();
  const [mantissa, exponent] = a.toExponential(significant - 1).split('e');
  const m = mantissa.replace(/\.?0+$/, '');
  const e = superscript(Number(exponent));
  return m === '1' ? `${sign}10${e}` : `${sign}${m} × 10${e}`;
}

/**
 * A fraction in [0, 1] as a percentage that is only "100%" when the fraction is exactly 1
 * (and only "0%" when exactly 0): as few decimals as `digits`, more when rounding would
 * reach 100 or 0. 0.999955 → "99.996%"; 0.75 → "75%"; 0.9 with digits 1 → "90%".
 */
export function formatPercent(fraction: number, digits = 1): string {
  if (!Number.isFinite(fraction)) return formatScientific(fraction);
  const p = fraction * 100;
  if (fraction === 1 || fraction === 0) return `${p}%`;
  for (let d = digits; d <= 12; d++) {
    const text = formatNumber(p, d);
    const shown = Number(text.replace(MINUS, '-'));
    if ((fraction < 1 && fraction > 0 && shown < 100 && shown > 0) || fraction > 1 || fraction < 0) return `${text}%`;
  }
  // Within 10⁻¹² of 100 (or of 0) but not equal: say so rather than round.
  return fraction > 0.5 ? `just under 100%` : `just over 0%`;
}

/**
 * `right` of `of` items in words: "all 111,110", "all but 5 of 111,110", "none of 40",
 * "94,012 of 111,110".
 */
export function formatCountOf(right: number, of: number): string {
  const wrong = of - right;
  if (right === of) return of === 1 ? 'the one item' : `all ${formatCount(of)}`;
  if (right === 0) return `none of ${formatCount(of)}`;
  if (wrong > 0 && wrong < right && wrong <= 999) return `all but ${formatCount(wrong)} of ${formatCount(of)}`;
  return `${formatCount(right)} of ${formatCount(of)}`;
}

/**
 * An accuracy over `of` items: "99.996%" (or "100%" only when all are right); with
 * `words`, "all but 5 of 111,110".
 */
export function formatAccuracy(fraction: number, of?: number, { words = false, digits = 1 } = {}): string {
  if (words && of !== undefined && Number.isFinite(fraction)) return formatCountOf(Math.round(fraction * of), of);
  if (of !== undefined && Number.isFinite(fraction)) {
    // A fraction computed as right/of may carry rounding: snap to the count it stands for.
    const right = Math.round(fraction * of);
    if (right === of) return '100%';
    if (right === 0) return '0%';
  }
  return formatPercent(fraction, digits);
}

/**
 * How far two results differ, in words for a page: 0 → "unchanged to the last bit";
 * at most `roundingBound` (default 10⁻¹², rounding in double precision for values of
 * order one) → "unchanged up to rounding (differences below 10⁻¹²)"; larger → "changed by up to 0.42".
 */
export function formatDifference(maxAbsDifference: number, roundingBound = 1e-12): string {
  if (Number.isNaN(maxAbsDifference)) return 'not comparable (not a number)';
  if (maxAbsDifference === 0) return 'unchanged to the last bit';
  if (maxAbsDifference <= roundingBound)
    return `unchanged up to rounding (differences below ${formatScientific(10 ** Math.ceil(Math.log10(roundingBound)), 1)})`;
  return `changed by up to ${formatScientific(maxAbsDifference, 2)}`;
}

/**
 * A value just below 1 (R², cosine) without rounding it up to 1: exactly 1 → "1";
 * 1 − 3e−13 → "above 1 − 10⁻¹²"; 0.99996 → "0.99996"; otherwise `digits` decimals.
 */
export function formatNearOne(x: number, digits = 4): string {
  if (!Number.isFinite(x)) return formatScientific(x);
  const gap = 1 - x;
  if (gap === 0) return '1';
  if (gap > 0 && gap < 1e-6) return `above 1 ${MINUS} 10${superscript(Math.floor(Math.log10(gap)) + 1)}`;
  for (let d = digits; d <= 12; d++) {
    const text = formatNumber(x, d);
    if (text !== '1') return text;
  }
  return formatNumber(x, 12);
}

/** A bound value in words; `format` overrides the kind's default (fraction → percent, count → count, loss → sci). */
export function formatBound(v: BoundValue, format?: ValueFormat, digits?: number): string {
  const how = format ?? (v.kind === 'fraction' ? 'percent' : v.kind === 'count' ? 'count' : v.kind === 'loss' ? 'sci' : 'number');
  switch (how) {
    case 'percent':
      if (digits !== undefined && v.of === undefined) return formatPercent(v.value, digits);
      return v.kind === 'fraction' ? formatAccuracy(v.value, v.of) : formatPercent(v.value);
    case 'count':
      return v.kind === 'fraction' && v.of !== undefined ? formatAccuracy(v.value, v.of, { words: true }) : formatCount(v.value);
    case 'sci':
      return formatScientific(v.value);
    default:
      if (!Number.isFinite(v.value)) return formatScientific(v.value);
      return formatNumber(v.value, digits ?? (Math.abs(v.value) >= 100 ? 1 : 4));
  }
}
