// Colour-blind-safe colours for signed values: a diverging blue (negative) – orange
// (positive) scale centred on zero. Colours (and the Okabe–Ito categorical ones) are
// CSS custom properties from the base sheet (widgets/base/theme.ts), so the scale
// follows light and dark; this module only chooses which end and how strongly.

/**
 * Tints `cell` for a signed value on the diverging scale: |value| / scale in [0, 1]
 * sets the strength, the sign picks orange (≥ 0) or blue (< 0). Set through CSSOM
 * custom properties, which a strict style-src CSP allows.
 */
export function tintSigned(cell: HTMLElement, value: number, scale: number): void {
  const t = scale > 0 && Number.isFinite(value) ? Math.min(1, Math.abs(value) / scale) : 0;
  const heat = value < 0 ? 'var(--hl-neg-tint)' : 'var(--hl-pos-tint)';
  const tint = t.toFixed(4);
  // Unchanged tints are not written again (a table redrawn for a slider step keeps most of them).
  const last = tints.get(cell);
  if (last && last.heat === heat && last.tint === tint && cell.classList.contains('heat')) return;
  tints.set(cell, { heat, tint });
  cell.classList.add('heat');
  cell.style.setProperty('--hl-heat', heat);
  cell.style.setProperty('--hl-t', tint);
}
const tints = new WeakMap<HTMLElement, { heat: string; tint: string }>();

/** An sRGB colour, channels 0–255. */
export type Rgb = readonly [number, number, number];

/** The theme's colours resolved to sRGB, for figures drawn outside CSS (SVG/PNG export, heat cells). */
export interface ResolvedColours {
  fg: Rgb;
  muted: Rgb;
  panel: Rgb;
  rule: Rgb;
  neg: Rgb;
  pos: Rgb;
  focus: Rgb;
}

/**
 * Resolves the --hl-* colours as they currently compute inside `container` (light or
 * dark): a hidden probe takes each as its `color` and getComputedStyle reports rgb().
 */
export function resolveColours(container: HTMLElement | ShadowRoot): ResolvedColours {
  const probe = document.createElement('span');
  probe.hidden = true;
  container.append(probe);
  const read = (name: string): Rgb => {
    probe.style.color = `var(--hl-${name})`;
    return parseRgb(getComputedStyle(probe).color);
  };
  const colours = {
    fg: read('fg'),
    muted: read('muted'),
    panel: read('panel'),
    rule: read('rule'),
    neg: read('neg'),
    pos: read('pos'),
    focus: read('focus'),
  };
  probe.remove();
  return colours;
}

/** Parses "rgb(r, g, b)" / "rgba(…)" / "color(srgb r g b)" as getComputedStyle writes it. */
function parseRgb(text: string): Rgb {
  const srgb = /color\(srgb\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)/.exec(text);
  if (srgb) return [Number(srgb[1]) * 255, Number(srgb[2]) * 255, Number(srgb[3]) * 255];
  const m = /rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [128, 128, 128];
}

export function rgbText([r, g, b]: Rgb): string {
  return `rgb(${Math.round(r)}, ${Math.round(g)}, ${Math.round(b)})`;
}

/** (1 − t)·a + t·b per channel in sRGB. */
export function mixRgb(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

/** WCAG relative luminance. */
function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio of two colours (1 to 21). */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Strongest tint of the diverging scale: 85% of the end colour over the panel keeps numbers legible. */
const DIVERGING_MAX_MIX = 0.85;

/**
 * The diverging scale centred on zero: value/limit in [−1, 1] (clamped) mixes the panel
 * colour towards blue (negative) or orange (positive). Returns the fill and whichever of
 * the theme's text and panel colours contrasts more with it, for a number written on top.
 */
export function divergingFill(c: ResolvedColours, value: number, limit: number): { fill: Rgb; text: Rgb } {
  const t = Number.isFinite(value) && limit > 0 ? Math.min(1, Math.abs(value) / limit) : 0;
  const fill = mixRgb(c.panel, value < 0 ? c.neg : c.pos, t * DIVERGING_MAX_MIX);
  const text = contrast(fill, c.fg) >= contrast(fill, c.panel) ? c.fg : c.panel;
  return { fill, text };
}
