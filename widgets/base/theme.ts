// The stylesheet every headlab-* shadow root adopts first, and sheet construction.
//
// Colours are custom properties resolved with light-dark(): the widget follows the
// page's color-scheme, and when the page sets none (data-auto-scheme, see
// HeadlabElement) it uses `color-scheme: light dark`, i.e. prefers-color-scheme.
// A page may override any colour with the matching --headlab-* property.
// Categorical colours are Okabe–Ito; signed values use a blue (negative) – orange
// (positive) scale, both distinguishable with the common colour-vision deficiencies.

const cache = new Map<string, CSSStyleSheet>();

/** A constructed stylesheet for `css` (one instance per distinct text, shared by all elements). */
export function sheet(css: string): CSSStyleSheet {
  let s = cache.get(css);
  if (!s) {
    s = new CSSStyleSheet();
    s.replaceSync(css);
    cache.set(css, s);
  }
  return s;
}

const BASE_CSS = /* css */ `
:host {
  display: block;
  margin: 1.5rem 0;
  color: var(--hl-fg);
  font: inherit;
  /* Typography follows the page unless the author sets these (docs/embedding.md, "Theming"). */
  font-family: var(--headlab-font-family, inherit);
  font-size: var(--headlab-font-size, inherit);
  /* Not inherited: a page's line-height (a blog's 1.6 against a browser's "normal") would change
     every widget's height from the one reserved for it in headlab.css, and the page would move. */
  line-height: var(--headlab-line-height, 1.6);
  --hl-fg: var(--headlab-fg, light-dark(#1b1b1f, #e8e8ea));
  --hl-muted: var(--headlab-muted, light-dark(#55555f, #a8a8b2));
  --hl-panel: var(--headlab-panel, light-dark(#f3f3f1, #202026));
  --hl-control: var(--headlab-control, light-dark(#ffffff, #2b2b33));
  --hl-rule: var(--headlab-rule, light-dark(#c9c9d1, #474752));
  --hl-focus: var(--headlab-focus, light-dark(#0b5cad, #7fb6ff));
  --hl-neg: var(--headlab-negative, light-dark(#0072b2, #56b4e9));
  --hl-pos: var(--headlab-positive, light-dark(#d55e00, #e69f00));
  /* Table-cell tints: in dark, dimmer ends so light text keeps 4.5:1 contrast on the strongest tint. */
  --hl-neg-tint: var(--headlab-negative-tint, light-dark(#0072b2, #3a7ca3));
  --hl-pos-tint: var(--headlab-positive-tint, light-dark(#d55e00, #a06e00));
  --hl-changed: var(--headlab-changed, light-dark(#a14600, #f0b050));
  --hl-good: var(--headlab-good, light-dark(#006b4f, #3fd0a0));
  --hl-bad: var(--headlab-bad, light-dark(#a13a00, #ff9e6b));
  --hl-scroll-shadow: light-dark(rgba(0, 0, 0, 0.28), rgba(0, 0, 0, 0.75));
}
:host([data-auto-scheme]) { color-scheme: light dark; }
:host([hidden]) { display: none; }
[hidden] { display: none !important; }
* { box-sizing: border-box; }
.body, .placeholder, .alert {
  background: var(--hl-panel);
  border: 1px solid var(--hl-rule);
  border-radius: 6px;
  padding: 0.75rem 1rem;
}
.placeholder { color: var(--hl-muted); min-height: 4rem; }
.alert { border-color: var(--hl-bad); border-width: 2px; color: var(--hl-fg); }
.alert::before { content: "Problem: "; font-weight: 600; color: var(--hl-bad); }
.title { font-weight: 600; margin: 0 0 0.5rem; }
.caption, .note { color: var(--hl-muted); font-size: 0.9em; margin: 0.25rem 0 0.5rem; }
button, select, input[type="number"] {
  font: inherit;
  color: var(--hl-fg);
  background: var(--hl-control);
  border: 1px solid var(--hl-rule);
  border-radius: 4px;
}
button { padding: 0.3rem 0.7rem; min-height: 2.25rem; cursor: pointer; }
button:hover { border-color: var(--hl-focus); }
button[aria-pressed="true"] { border-color: var(--hl-focus); box-shadow: inset 0 0 0 1px var(--hl-focus); }
select { padding: 0.25rem 0.4rem; min-height: 2.25rem; }
input[type="number"] { width: 4.5em; padding: 0.2rem 0.3rem; min-height: 2rem; text-align: right; }
input[type="range"] { accent-color: var(--hl-focus); }
input[type="radio"] { accent-color: var(--hl-focus); }
:focus-visible { outline: 3px solid var(--hl-focus); outline-offset: 2px; }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.5rem 0; }
.sr-only {
  position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
/* A box that scrolls sideways shows it: shadows at the edges it can scroll towards (the
   panel-coloured covers scroll with the content and hide them at the ends). While its content
   overflows, the base class makes it a labelled region in the Tab order. */
.scroll {
  overflow-x: auto; max-width: 100%; position: relative;  /* relative: contains .sr-only spans */
  background:
    linear-gradient(to right, var(--hl-panel) 30%, transparent) left center / 2.5rem 100% no-repeat local,
    linear-gradient(to left, var(--hl-panel) 30%, transparent) right center / 2.5rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, var(--hl-scroll-shadow), transparent) left center / 0.9rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, var(--hl-scroll-shadow), transparent) right center / 0.9rem 100% no-repeat scroll;
}
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 0.2rem 0.45rem; text-align: right; border-bottom: 1px solid var(--hl-rule); }
th { font-weight: 600; }
th[scope="row"], caption { text-align: left; }
caption { color: var(--hl-muted); font-size: 0.9em; padding-bottom: 0.25rem; }
/* A table wider than its scroll box keeps its caption in view: as wide as the box (the width
   markScrollBox writes, widgets/base/dom.ts) and held at its left edge, so the caption wraps inside
   the visible part instead of running off under the columns. */
.scroll[data-overflows] > table > caption { position: sticky; left: 0; box-sizing: border-box; width: var(--hl-scroll-width, auto); }
td.heat {
  background: color-mix(in srgb, var(--hl-heat, transparent) calc(var(--hl-t, 0) * 60%), transparent);
}
.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
/* The one export menu (exportControls): a quiet disclosure at the end of the widget. */
.exports { display: flex; flex-wrap: wrap; justify-content: flex-end; gap: 0.3rem 0.8rem; align-items: flex-start; font-size: 0.9em; margin: 0.5rem 0 0; }
.export-menu { display: flex; flex-direction: column; align-items: flex-end; max-width: 100%; }
.export-menu > summary {
  list-style: none; cursor: pointer; color: var(--hl-muted);
  display: inline-flex; align-items: center; gap: 0.35em; min-height: 2.25rem; padding: 0.2rem 0.6rem;
  border: 1px solid var(--hl-rule); border-radius: 4px; background: var(--hl-control);
}
.export-menu > summary::-webkit-details-marker { display: none; }
.export-menu > summary::before { content: "▸"; font-size: 0.8em; }
.export-menu[open] > summary::before { content: "▾"; }
.export-menu > summary:hover { border-color: var(--hl-focus); color: var(--hl-fg); }
.export-list {
  display: flex; flex-direction: column; align-items: stretch; gap: 0.35rem; margin-top: 0.3rem; padding: 0.5rem;
  border: 1px solid var(--hl-rule); border-radius: 4px; background: var(--hl-control); max-width: 100%;
}
.export-list .export-group { display: flex; flex-wrap: wrap; gap: 0.3rem; align-items: center; justify-content: flex-end; }
.export-list .export-label { margin-right: auto; padding-right: 0.5rem; }
.export-list button { min-height: 2.25rem; padding: 0.15rem 0.6rem; }
.export-status:empty { display: none; }
/* A typed field's message (bindField): beside the field, in the "bad" colour. */
input[aria-invalid="true"], textarea[aria-invalid="true"] { border-color: var(--hl-bad); border-width: 2px; }
.field-problem { color: var(--hl-bad); font-size: 0.9em; }
.field-problem:empty { display: none; }
/* Controls grouped the same way in every widget: a wrapping row of labelled controls. */
.controls { display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; align-items: center; margin: 0.5rem 0; }
.controls > label, .control { display: inline-flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; }
fieldset.controls { border: 0; padding: 0; min-width: 0; }
fieldset.controls > legend { padding: 0; margin-bottom: 0.25rem; font-weight: 600; float: left; width: 100%; }
/* Named by the URL hash (a prose link or a shared URL): ringed for a moment. */
:host([data-hash-target]) .body { outline: 3px solid var(--hl-focus); outline-offset: 3px; }
:host(:focus) { outline: none; }
/* Touch screens: every target at least 44 px high (radio and checkbox rows included). */
/* :host raises these above a widget's own sizes (its sheet comes later with equal specificity). */
@media (pointer: coarse) {
  :host button, :host select, :host input[type="number"], :host input[type="text"], :host textarea, :host .export-menu > summary { min-height: 44px; }
  :host button, :host select, :host .export-list button { min-width: 44px; }
  :host .exports button { min-height: 44px; }
  :host label:has(> input[type="radio"]), :host label:has(> input[type="checkbox"]) { display: inline-flex; align-items: center; min-height: 44px; }
  :host input[type="range"] { min-height: 44px; }
}
.tag { font-size: 0.8em; border-radius: 3px; padding: 0 0.3em; white-space: nowrap; }
.tag.changed { color: var(--hl-changed); border: 1px solid currentColor; font-weight: 600; }
.tag.same { color: var(--hl-muted); border: 1px dashed currentColor; }
/* Chart text keeps its CSS size (12 px unless the page sets --headlab-chart-font-size) however
   narrow its SVG is drawn (--hl-text-zoom: see HeadlabElement). */
svg text {
  fill: var(--hl-fg);
  font-size: calc(var(--headlab-chart-font-size, 12px) * var(--hl-text-zoom, 1));
  font-family: var(--headlab-chart-font-family, var(--headlab-font-family, system-ui, sans-serif));
}
svg text tspan[baseline-shift] { font-size: 0.92em; }
/* Text scaled back up may reach past the edge of its SVG: show it rather than cut it. */
svg { overflow: visible; }
.bar-pos { fill: var(--hl-pos); }
.bar-neg { fill: var(--hl-neg); }
.axis { stroke: var(--hl-muted); stroke-width: 1; }
/* Bars ease to a new length or place; colours change at once. A colour transition (this was
   "transition: all") restyled every recoloured cell again on each frame for 120 ms and showed
   colours between those of the numbers drawn: a training-replay scrub step restyled its heat
   maps' cells in 2-3 ms instead of 0.5 (54 cells; bench/widgets.bench.mjs). */
rect { transition: x 120ms ease-out, y 120ms ease-out, width 120ms ease-out, height 120ms ease-out; }
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { transition: none !important; animation: none !important; }
}
@supports not (color: light-dark(#000, #fff)) {
  :host {
    --hl-fg: var(--headlab-fg, #1b1b1f); --hl-muted: var(--headlab-muted, #55555f);
    --hl-panel: var(--headlab-panel, #f3f3f1); --hl-control: var(--headlab-control, #ffffff);
    --hl-rule: var(--headlab-rule, #c9c9d1); --hl-focus: var(--headlab-focus, #0b5cad);
    --hl-neg: var(--headlab-negative, #0072b2); --hl-pos: var(--headlab-positive, #d55e00);
    --hl-changed: var(--headlab-changed, #a14600); --hl-good: var(--headlab-good, #006b4f);
    --hl-bad: var(--headlab-bad, #a13a00); --hl-scroll-shadow: rgba(0, 0, 0, 0.28);
  }
  @media (prefers-color-scheme: dark) {
    :host {
      --hl-fg: var(--headlab-fg, #e8e8ea); --hl-muted: var(--headlab-muted, #a8a8b2);
      --hl-panel: var(--headlab-panel, #202026); --hl-control: var(--headlab-control, #2b2b33);
      --hl-rule: var(--headlab-rule, #474752); --hl-focus: var(--headlab-focus, #7fb6ff);
      --hl-neg: var(--headlab-negative, #56b4e9); --hl-pos: var(--headlab-positive, #e69f00);
      --hl-changed: var(--headlab-changed, #f0b050); --hl-good: var(--headlab-good, #3fd0a0);
      --hl-bad: var(--headlab-bad, #ff9e6b); --hl-scroll-shadow: rgba(0, 0, 0, 0.75);
    }
  }
}
`;

/** The base sheet (constructed on first use, so importing this module needs no DOM). */
export function baseSheet(): CSSStyleSheet {
  return sheet(BASE_CSS);
}

/**
 * CSS for a wide table that becomes one block per row in a narrow widget: below `maxWidth` of
 * the widget's body (a container query), the header row is hidden from sight but still read,
 * every cell is a line of its own, and a cell's `data-label` is written before its value.
 * `extra` adds rules inside the same query (a label for row headers, a cell's own layout).
 */
export function stackedTableCss(table: string, maxWidth: string, extra = ''): string {
  return /* css */ `
    .body { container-type: inline-size; }
    @container (max-width: ${maxWidth}) {
      ${table} thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
      ${table}, ${table} tbody, ${table} tr, ${table} th, ${table} td, ${table} caption { display: block; text-align: left; }
      ${table} tr { border-bottom: 1px solid var(--hl-rule); padding: 0.3rem 0; }
      ${table} th, ${table} td { border: 0; padding: 0.05rem 0.2rem; }
      ${table} td[data-label]::before { content: attr(data-label) ": "; color: var(--hl-muted); }
      ${extra}
    }
  `;
}
