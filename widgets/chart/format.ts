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
  if (rounded === 0) rounded = 0;  // −0 → 0
  let text = rounded.toFixed(digits);
  if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '');
  return text.replace('-', MINUS);
}

/** The value as precisely as screen-reader text needs: 12 decimals, trailing zeros dropped. */
export function exactNumber(x: number): string {
  return formatNumber(x, 12);
}

/** A small non-negative magnitude: "0" or "2.2 × 10^−16" written as 2.2e−16. */
export function formatMagnitude(x: number): string {
  if (x === 0) return '0';
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
