// Colour-blind-safe colours. Categories use the Okabe–Ito palette; signed values a
// diverging blue (negative) – orange (positive) scale centred on zero. Colours are
// CSS custom properties from the base sheet (widgets/base/theme.ts), so the scale
// follows light and dark; this module only chooses which end and how strongly.

/** Okabe–Ito (2008), in its usual order without black: orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple. */
export const OKABE_ITO = ['#e69f00', '#56b4e9', '#009e73', '#f0e442', '#0072b2', '#d55e00', '#cc79a7'] as const;

/**
 * Tints `cell` for a signed value on the diverging scale: |value| / scale in [0, 1]
 * sets the strength, the sign picks orange (≥ 0) or blue (< 0). Set through CSSOM
 * custom properties, which a strict style-src CSP allows.
 */
export function tintSigned(cell: HTMLElement, value: number, scale: number): void {
  const t = scale > 0 && Number.isFinite(value) ? Math.min(1, Math.abs(value) / scale) : 0;
  cell.classList.add('heat');
  cell.style.setProperty('--hl-heat', value < 0 ? 'var(--hl-neg)' : 'var(--hl-pos)');
  cell.style.setProperty('--hl-t', t.toFixed(4));
}
