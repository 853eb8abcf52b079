// What a snapshot is made of, shared by the Node renderer (site/ssr/render.js) and the tests that
// compare it with the live element in Chromium: `collect` serialises what each element shows now
// (its shadow root's top-level nodes marked with the capture's class), `snapshotMarkup` writes the
// captures of every width into the page's HTML, `snapshotStylesheet` the element's sheet.
// `collect` runs in a page too (tests/browser pass it to page.evaluate): it uses only its
// arguments and the DOM, no import.
import { createHash } from 'node:crypto';

/** The page's headlab-* elements, in document order. */
export function elementsOf(document) {
  return [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-'));
}

/**
 * A drawing laid out by a row that wraps with the room it has (the query-key canvas's and the
 * replay's flex rows of figures, the training figure's auto-fit grid of charts) would be split
 * into narrower columns in a wider window than the one it was drawn for, its drawing scaled
 * down with its text (a 360 px drawing shown at 622 px: 12 px text at 10.8 px). A snapshot is
 * shown over a range of windows at least as wide as its own, so the row keeps the width each
 * drawing had: a wrapping flex item keeps at least its drawn width, an auto-fit grid's columns
 * are at least as wide as drawn. Only figures' drawings (an svg with a viewBox outside a
 * control) count; a flex item keeps at least the narrower of its drawn and its viewBox width. The changed styles go on `restore` (collect puts them back).
 */
function keepRowsAsDrawn(root, restore) {
  const keepStyle = (node, property, value) => {
    if (!restore.some(([n, name]) => n === node && name === 'style')) restore.push([node, 'style', node.getAttribute('style')]);
    node.style.setProperty(property, value);
  };
  for (const svg of root.querySelectorAll('svg')) {
    if (!svg.hasAttribute('viewBox') || svg.closest('button, a, label, summary')) continue;
    for (let node = svg; node.parentElement; node = node.parentElement) {
      const row = getComputedStyle(node.parentElement);
      const drawn = Math.floor(node.getBoundingClientRect().width);
      if (row.display.endsWith('grid')) {
        if (drawn > 0) keepStyle(node.parentElement, 'grid-template-columns', `repeat(auto-fit, minmax(min(100%, ${drawn}px), 1fr))`);
        break;
      }
      const wrap = `${row.flexWrap ?? ''} ${row.flexFlow ?? ''}`;
      if (!row.display.endsWith('flex') || !/(^|\s)wrap\b/.test(wrap)) continue;
      // Its text keeps its size down to the narrower of the drawn width and the viewBox's (below
      // that it shrinks with the drawing); wider, the row wraps as the browser lays it out.
      const least = Math.min(drawn, Math.floor(svg.viewBox?.baseVal?.width || drawn));
      if (least > 0) keepStyle(node, 'min-width', `${least}px`);
      break;
    }
  }
}

/**
 * Serializes what each headlab-* element of `document` shows now: { tag, html, sheets, svg, summary,
 * images } per element, its shadow root's top-level elements carrying the class
 * `hl-captured-at-<width>`, each canvas an <img data-hl-png="i"> of images[i] ({ url: its PNG as a
 * data: URL, sum: a hash of its pixels }).
 * Form controls are written as they show (value, checked, selected: serialization writes
 * attributes, not live properties) and disabled (a still's controls do nothing). figures false:
 * svg and summary left empty (only the shadow root's markup, sheets and pictures).
 */
export function collect(document, width, { keepRows = false, figures = true } = {}) {
  const variant = `hl-captured-at-${width}`;
  const out = [];
  for (const el of document.querySelectorAll('*')) {
    if (!el.localName.startsWith('headlab-')) continue;
    const item = { tag: el.localName, html: '', sheets: [], svg: '', summary: '', images: [] };
    out.push(item);
    // An element without a shadow root (<headlab-value> in the prose) keeps its markup; it is
    // listed so the page's elements and the file's tags stay in step.
    if (!el.shadowRoot) continue;
    // A widget whose light DOM is its content (the quiz: slotted question and choices) is
    // already readable without script; a manual slot assignment cannot be declared in HTML.
    if (el.shadowRoot.slotAssignment === 'manual') continue;
    const root = el.shadowRoot;
    const restore = [];
    for (const input of root.querySelectorAll('input, select, textarea, button')) {
      if (input.localName === 'input' && (input.type === 'checkbox' || input.type === 'radio')) {
        restore.push([input, 'checked', input.hasAttribute('checked')]);
        input.toggleAttribute('checked', input.checked);
      } else if (input.localName === 'input') {
        restore.push([input, 'value', input.getAttribute('value')]);
        input.setAttribute('value', input.value);
      }
      // A text area serialises its text content, not the value it shows.
      if (input.localName === 'textarea') {
        restore.push([input, 'textContent', input.textContent]);
        input.textContent = input.value;
      }
      if (input.localName === 'select') {
        for (const o of input.options) {
          restore.push([o, 'selected', o.hasAttribute('selected')]);
          o.toggleAttribute('selected', o.selected);
        }
      }
      restore.push([input, 'disabled', input.hasAttribute('disabled')]);
      input.setAttribute('disabled', '');
    }
    // A scroll box laid out as a block is as wide as its parent: the still may make it a size
    // container (STILL_CSS); one in a flex or grid row takes its width from its content.
    for (const box of root.querySelectorAll('.scroll')) {
      const display = box.parentElement ? getComputedStyle(box.parentElement).display : 'block';
      if (/flex|grid/.test(display)) continue;
      restore.push([box, 'data-hl-block', box.getAttribute('data-hl-block')]);
      box.setAttribute('data-hl-block', '');
    }
    if (keepRows) keepRowsAsDrawn(root, restore);
    // A canvas serialises empty: a picture of its pixels stands in for it, an <img> with the
    // canvas's attributes whose PNG snapshotMarkup names and the caller writes beside the
    // snapshot sheets (the live widget, drawing the canvas, replaces the snapshot). `sum` is an
    // FNV-1a hash of the canvas's RGBA pixels taken a pixel (32 bits) at a time, for comparing
    // two drawings whose PNG encoders differ. A heatmap's cells as SVG were one <rect> each: 14,228 of them made the own-model
    // page 1.7 MB.
    const canvases = [];
    for (const canvas of root.querySelectorAll('canvas')) {
      if (!canvas.width || !canvas.height) continue;
      const img = document.createElement('img');
      for (const a of canvas.attributes) img.setAttribute(a.name, a.value);
      img.setAttribute('alt', '');
      img.setAttribute('data-hl-png', String(item.images.length));
      const rgba = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      const words = new Uint32Array(rgba.buffer, rgba.byteOffset, rgba.length / 4);
      let sum = 0x811c9dc5;
      for (let i = 0; i < words.length; i++) sum = Math.imul(sum ^ words[i], 0x01000193) >>> 0;
      item.images.push({ url: canvas.toDataURL('image/png'), sum: `${canvas.width}x${canvas.height}:${sum.toString(16)}` });
      canvas.replaceWith(img);
      canvases.push([img, canvas]);
    }
    const marked = [...root.children].map((child) => [child, child.getAttribute('class')]);
    for (const [child] of marked) child.classList.add(variant);
    item.html = root.innerHTML;
    for (const [child, was] of marked) {
      if (was === null) child.removeAttribute('class');
      else child.setAttribute('class', was);
    }
    for (const [stand, canvas] of canvases) stand.replaceWith(canvas);
    for (const [node, name, was] of restore.reverse()) {
      if (name === 'textContent') node.textContent = was;
      else if (typeof was === 'boolean') node.toggleAttribute(name, was);
      else if (was === null) node.removeAttribute(name);
      else node.setAttribute(name, was);
    }
    // The sheet's text as the widget gave it where the DOM kept it (site/ssr/environment.js), else as
    // the browser's CSSOM writes it.
    item.sheets = root.adoptedStyleSheets.map((s) => s.headlabSource ?? [...s.cssRules].map((r) => r.cssText).join('\n'));
    // The light-DOM figure is written once, from the widest drawing (snapshotMarkup): the other
    // captures skip it (figures false), a fifth of the site build's time each.
    if (!figures) continue;
    try {
      if (el.figures().length)
        item.svg = el
          .exportSvg()
          .replace(/^<\?xml[^>]*>\s*/, '')
          .trim();
    } catch {
      /* no figure in this state */
    }
    item.summary = el.summary;
  }
  return out;
}

/** The class of a snapshot shown for windows from `from` px (0: any narrower) up to `to` px (Infinity: any wider). */
export const rangeClass = (from, to) => `hl-w-${from}-${Number.isFinite(to) ? to : 'up'}`;

/** Shows each snapshot only in its range of window widths ([from, to) → one rule). */
export function rangeCss(ranges) {
  return (
    [...ranges]
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .map(([from, to]) => {
        const outside = [from > 0 ? `(width < ${from}px)` : '', Number.isFinite(to) ? `(width >= ${to}px)` : ''].filter(Boolean).join(', ');
        return outside ? `@media ${outside} { .${rangeClass(from, to)} { display: none !important; } }` : '';
      })
      .filter(Boolean)
      .join('\n') + '\n'
  );
}

const escapeText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const hex2 = (n) => Number(n).toString(16).padStart(2, '0');

/**
 * The still's drawing in fewer bytes, drawn the same: a heatmap is one <rect> per cell, and the
 * own-model page's snapshots held 14,228 of them (about 1 MB of its 1.73 MB). Its live widget's
 * hooks (data-* on a rect: the cell's query, row, column… for pointer and highlight) do nothing in
 * a still, `rgb(r, g, b)` is `#rrggbb`, and an SVG element may close itself (`<rect … />` is
 * valid in HTML's foreign content). The reader's browser receives and decodes the page on its main
 * thread, about 30 ms per MB on CI's machine: the 1.73 MB page took a 48–57 ms task.
 */
export function compactDrawing(markup) {
  return markup
    .replace(/<rect\b[^>]*>/g, (tag) => tag.replace(/ data-[\w-]+="[^"]*"/g, ''))
    .replace(/ (fill|stroke)="rgb\((\d+), ?(\d+), ?(\d+)\)"/g, (_, attr, r, g, b) => ` ${attr}="#${hex2(r)}${hex2(g)}${hex2(b)}"`)
    .replace(/<(rect|circle|line|path|polygon|polyline|ellipse|use)\b([^>]*)><\/\1>/g, '<$1$2/>');
}

/** An open tag with attributes, as a serializer writes it (`name` or `name="value"`, `"` in a value escaped). */
const OPEN_TAG = /<([a-zA-Z][\w:-]*)((?:\s+[^\s"'>/=]+(?:="[^"]*")?)+)(\s*\/?)>/g;
const ATTRIBUTE = /[^\s"'>/=]+(?:="[^"]*")?/g;
const attributeName = (a) => a.split('=', 1)[0];

/**
 * `markup` with each open tag's attributes in order of their names. The order in which a widget's
 * attributes were set can follow the order its data arrived in (a row hidden before or after the
 * base class marked its part), which differs between two runs; the order carries nothing.
 */
export function sortAttributes(markup) {
  return markup.replace(OPEN_TAG, (tag, name, attributes, end) => {
    const list = attributes.match(ATTRIBUTE);
    if (list.length < 2) return tag;
    list.sort((a, b) => (attributeName(a) < attributeName(b) ? -1 : 1));
    return `<${name} ${list.join(' ')}${end}>`;
  });
}

/**
 * The class of a hoisted inline style in its tag's sheet: `hs` and 10 hex digits of the SHA-256 of
 * its declarations, so that a class names the same declarations in every build and every page
 * order (a number counted per process gave the first style of one build's first page the name of
 * another style in a build that started elsewhere, or kept a page from an earlier build). Two
 * different styles of one sheet with one name (a chance of about n²/2⁴¹ for n styles: 10⁻⁵ for
 * 5,000) would be a wrong picture: an error naming both.
 */
function styleClass(entry, css) {
  return hashedClass(entry, entry.styles, 'hs', css);
}

/** The class `prefix` + 10 hex digits of the SHA-256 of `css`, kept in `map` (css → class); styleClass says why. */
function hashedClass(entry, map, prefix, css) {
  let cls = map.get(css);
  if (cls) return cls;
  cls = `${prefix}${createHash('sha256').update(css).digest('hex').slice(0, 10)}`;
  const other = entry.names.get(cls);
  if (other !== undefined && other !== css) throw new Error(`headlab/ssr: two styles share the class ${cls}: "${other}" and "${css}"`);
  map.set(css, cls);
  entry.names.set(cls, css);
  return cls;
}

/**
 * The colour schemes a page's widgets are drawn in, from its <meta name="color-scheme">: the one
 * it names alone (`dark`, `only light`, `normal`: light), else both (`light dark`, or no such tag:
 * the widgets follow the reader's prefers-color-scheme, widgets/base/headlab-element.ts), the
 * first the one whose drawing the snapshot's markup is built from.
 */
export function pageSchemes(html) {
  const meta = /<meta\b(?=[^>]*\bname=["']?color-scheme\b)[^>]*\bcontent=["']([^"']*)["'][^>]*>/i.exec(html);
  if (!meta) return ['light', 'dark'];
  const names = meta[1].toLowerCase().split(/\s+/);
  const light = names.includes('light');
  const dark = names.includes('dark');
  if (light && dark) return ['light', 'dark'];
  return dark ? ['dark'] : ['light'];
}

/** A colour as the widgets write one into the markup: #rrggbb, rgb(…) or rgba(…). */
const COLOUR = /#[0-9a-f]{6}\b|rgba?\([^()]*\)/gi;
/** The attributes whose whole value is a colour (an SVG drawing's paint). */
const COLOUR_ATTRIBUTES = new Set(['fill', 'stroke', 'stop-color', 'flood-color', 'lighting-color', 'color']);

/** A colour in one spelling: rgb(r, g, b) and #RRGGBB as #rrggbb, rgba(…) without spaces. */
function canonColour(c) {
  const rgb = /^rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$/i.exec(c);
  if (rgb) return `#${hex2(rgb[1])}${hex2(rgb[2])}${hex2(rgb[3])}`;
  return c.toLowerCase().replace(/\s+/g, '');
}

/**
 * The theme's colours by their two arms ("#light|#dark" → `var(--hl-name)`), read from the base
 * sheet's `--hl-x: var(--headlab-x, light-dark(#light, #dark))`: a drawn colour that is a theme
 * colour in both schemes is written as it, so it also takes a page's --headlab-* override.
 */
function themeTokens(sheets) {
  const tokens = new Map();
  for (const m of sheets
    .join('\n')
    .matchAll(/(--hl-[\w-]+):\s*var\(--headlab-[\w-]+,\s*light-dark\((#[0-9a-f]{6}),\s*(#[0-9a-f]{6})\)\)/gi)) {
    const key = `${canonColour(m[2])}|${canonColour(m[3])}`;
    if (!tokens.has(key)) tokens.set(key, `var(${m[1]})`);
  }
  return tokens;
}

const TEXT_ZOOM = /--hl-text-zoom:\s*[\d.]+;?\s*/;

/**
 * An SVG's open tag `tag` with the text zoom of `other` (widgets/base/dom.ts fitSvgText: 1 / the
 * scale it is drawn at, a measurement of its box). A browser lays a figure out alike in both
 * schemes; Node's block layout (environment.js) measures some narrow drawings differently after a
 * redraw (README: a few px at narrower windows), so the dark drawing takes the light one's.
 */
function withZoomOf(tag, other) {
  const zoom = TEXT_ZOOM.exec(other)?.[0].trim().replace(/;?$/, ';') ?? '';
  const bare = tag.replace(TEXT_ZOOM, '').replace(/ style=""/, '');
  if (!zoom) return bare;
  return / style="/.test(bare) ? bare.replace(/ style="/, ` style="${zoom} `) : bare.replace(/(\s*\/?)>$/, ` style="${zoom}"$1>`);
}

const MERGED_ATTRIBUTE = /\s+([^\s=>/]+)(?:="([^"]*)")?/g;

/**
 * One copy of an element's markup for both colour schemes, from its light and dark drawings, or
 * null when they differ in more than colours. A colour that differs is written as the theme
 * colour it is in both schemes (`var(--hl-panel)`), else as `light-dark(#light, #dark)`, which
 * resolves by the element's used colour scheme as the live widget's own colours do (the page's
 * color-scheme, else the reader's preference): in a style attribute in place (hoisted with the
 * others), a paint attribute (fill="…") as a class of the snapshot sheet (`colourClass(css)`,
 * a zero-specificity rule: a presentation attribute loses to every rule of the widget's sheets).
 * A data-* attribute that names colours (a widget's memo key) keeps its light value: a still's
 * data attributes do nothing.
 */
export function mergeSchemes(light, dark, { tokens, colourClass }) {
  if (light === dark) return light;
  // An empty class attribute is none (happy-dom's classList.toggle(c, false) leaves one behind).
  [light, dark] = [light, dark].map((s) => s.replace(/ class=""(?=[\s/>])/g, ''));
  if (light === dark) return light;
  const split = (s) => s.match(/<[^>]*>|[^<]+/g) ?? [];
  const a = split(light);
  const b = split(dark);
  if (a.length !== b.length) return null;
  const pair = (l, d) => {
    const [cl, cd] = [canonColour(l), canonColour(d)];
    if (cl === cd) return l;
    return tokens.get(`${cl}|${cd}`) ?? `light-dark(${cl}, ${cd})`;
  };
  // Each of a value's colours paired with the other's (null: they differ in more than colours).
  const mergeValue = (l, d) => {
    if (l.replace(COLOUR, '#') !== d.replace(COLOUR, '#')) return null;
    const darks = d.match(COLOUR) ?? [];
    let k = 0;
    return l.replace(COLOUR, (c) => pair(c, darks[k++]));
  };
  const out = [];
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i] && a[i].startsWith('<svg')) b[i] = withZoomOf(b[i], a[i]);
    if (a[i] === b[i]) {
      out.push(a[i]);
      continue;
    }
    const open = /^<([\w-]+)((?:\s+[^\s=>/]+(?:="[^"]*")?)*)(\s*\/?)>$/;
    const [ta, tb] = [open.exec(a[i]), open.exec(b[i])];
    if (!ta || !tb || ta[1] !== tb[1]) return null;
    const attrsA = [...ta[2].matchAll(MERGED_ATTRIBUTE)];
    const attrsB = [...tb[2].matchAll(MERGED_ATTRIBUTE)];
    if (attrsA.length !== attrsB.length) return null;
    const attrs = [];
    const classes = [];
    for (const [k, [, name, value = null]] of attrsA.entries()) {
      const [, nameB, valueB = null] = attrsB[k];
      if (name !== nameB) return null;
      if (value === valueB) {
        attrs.push([name, value]);
        continue;
      }
      if (value === null || valueB === null) return null;
      const merged = mergeValue(value, valueB);
      if (merged === null) return null;
      if (name === 'style') attrs.push([name, merged]);
      // A widget's own bookkeeping that names colours (a legend's memo key): inert in a still.
      else if (name.startsWith('data-')) attrs.push([name, value]);
      else if (COLOUR_ATTRIBUTES.has(name) && value.trim().replace(COLOUR, '') === '')
        classes.push(colourClass(`${name}:${merged.trim()}`));
      else return null;
    }
    const cls = attrs.find(([name]) => name === 'class');
    if (classes.length && cls) cls[1] = `${cls[1]} ${classes.join(' ')}`.trim();
    else if (classes.length) attrs.push(['class', classes.join(' ')]);
    out.push(`<${ta[1]}${attrs.map(([n, v]) => (v === null ? ` ${n}` : ` ${n}="${v}"`)).join('')}${ta[3]}>`);
  }
  return out.join('');
}

/**
 * Writes the captures into `html`: each <headlab-*> open tag (the page's elements in document
 * order, as `captures[i].items`) followed by its declarative shadow root — one copy per range of
 * window widths, alike neighbours merged, inline styles hoisted into classes of `perTag`'s sheet —
 * and its light-DOM figure. captures: [{ width, items }], any order. href(tag): the sheet's URL.
 * An element already carrying a snapshot (rendered before) is left as it is.
 * imageHref(name): the URL of a canvas's picture (written by the caller: `images`, name → PNG bytes).
 * captures[i].dark: the same elements drawn in the dark scheme (the copy written follows the
 * reader's scheme: mergeSchemes). autoScheme: the page names no colour scheme (each element is
 * marked data-auto-scheme, as the live widget marks itself).
 */
export function snapshotMarkup(html, captures, { perTag, href, imageHref = (name) => name, file = 'page', autoScheme = false }) {
  const widest = [...captures].sort((a, b) => b.width - a.width);
  // The canvases' pictures, named by their content (the same picture at two widths is one file).
  const images = new Map(); // name → PNG bytes
  const imageName = (url) => {
    const bytes = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
    const name = `canvas-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.png`;
    images.set(name, bytes);
    return name;
  };
  const items = widest[0].items;
  let index = 0;
  let elements = 0;
  const out = html.replace(/<(headlab-[a-z-]+)\b[^>]*>(<template shadowrootmode=)?/g, (open, tag, already) => {
    const item = items[index++];
    if (!item || item.tag !== tag) throw new Error(`${file}: element ${index} is <${item?.tag}> in the page, <${tag}> in the file`);
    if (already || !item.html) return open;
    const variants = widest.map((c) => c.items[index - 1]).map((v) => (v?.html ? { ...v, html: sortAttributes(v.html) } : v));
    if (variants.some((v) => v?.tag !== tag || !v.html))
      throw new Error(`${file}: element ${index} <${tag}> has no snapshot at every capture width`);
    let entry = perTag.get(tag);
    if (!entry)
      perTag.set(tag, (entry = { sheets: item.sheets, styles: new Map(), names: new Map(), ranges: new Map(), colours: new Map() }));
    entry.colours ??= new Map();
    const tokens = themeTokens(item.sheets);
    const colourClass = (css) => hashedClass(entry, entry.colours, 'hc', css);
    const groups = [];
    for (const [i, v] of variants.entries()) {
      const mark = `hl-captured-at-${widest[i].width}`;
      // Drawn in both schemes: one copy whose colours follow the scheme (mergeSchemes), its
      // canvases' pictures one per scheme where they differ; drawings that differ in more than
      // colours, a copy per scheme (hl-scheme-light, hl-scheme-dark: STILL_CSS shows one).
      const dark = widest[i].dark?.[index - 1];
      const d = dark?.html ? { ...dark, html: sortAttributes(dark.html) } : dark;
      let drawn = v.html;
      let split = false;
      if (d?.html) {
        const merged = mergeSchemes(v.html, d.html, { tokens, colourClass });
        split = merged === null;
        drawn = split
          ? v.html.replaceAll(mark, `${mark} hl-scheme-light`) +
            d.html.replaceAll(mark, `${mark} hl-scheme-dark`).replace(/ data-hl-png="/g, ' data-hl-png-dark="')
          : sortAttributes(merged);
      }
      const darkImages = d?.html ? (d.images ?? []) : [];
      const same = groups.at(-1);
      const pictures = [...(v.images ?? []), ...darkImages].map((p) => p.sum).join();
      if (same && same.html.replaceAll(same.mark, mark) === drawn && same.pictures === pictures) same.from = widest[i].width;
      else
        groups.push({
          html: drawn,
          images: v.images ?? [],
          darkImages,
          split,
          pictures,
          mark,
          from: widest[i].width,
          to: groups.at(-1)?.from ?? Infinity,
        });
    }
    groups.at(-1).from = 0;
    const markup = groups
      .reverse()
      .map((g) => {
        const cls = rangeClass(g.from, g.to);
        entry.ranges.set(cls, [g.from, g.to]);
        // A paint server (an SVG gradient, `fill="url(#ramp-1)"`) is found by its id, the first in
        // the shadow root: each copy but the first named its neighbour's, hidden in a narrower
        // window (display: none), and a gradient in an undisplayed SVG paints nothing (a blank
        // legend ramp in every window but the narrowest). Each copy's own, named by its range.
        const painted = groups.length > 1 ? new Set([...g.html.matchAll(/url\(#([\w-]+)\)/g)].map((m) => m[1])) : new Set();
        let html = g.html;
        for (const id of painted) html = html.replaceAll(`id="${id}"`, `id="${id}-${cls}"`).replaceAll(`url(#${id})`, `url(#${id}-${cls})`);
        // A canvas's picture; one drawn otherwise in the dark scheme is a <picture> whose source
        // the browser picks by prefers-color-scheme (only that one is fetched).
        return html.replaceAll(g.mark, cls).replace(/<img([^>]*?) data-hl-png(-dark)?="(\d+)"([^>]*)>/g, (_, before, isDark, i, after) => {
          const picture = (isDark ? g.darkImages : g.images)[+i];
          const img = `<img${before} src="${imageHref(imageName(picture.url))}"${after}>`;
          const dark = !isDark && !g.split ? g.darkImages[+i] : null;
          if (!dark || dark.sum === picture.sum) return img;
          return `<picture><source media="(prefers-color-scheme: dark)" srcset="${imageHref(imageName(dark.url))}">${img}</picture>`;
        });
      })
      .join('');
    // style="…" → a class of this tag's snapshot stylesheet (!important keeps the inline precedence).
    const hoisted = markup.replace(/<([\w-]+)([^>]*?) style="([^"]*)"([^>]*)>/g, (_, name, before, style, after) => {
      const css = style.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
      const cls = styleClass(entry, css);
      const attrs = `${before}${after}`;
      return / class="/.test(attrs)
        ? `<${name}${attrs.replace(/ class="([^"]*)"/, ` class="$1 ${cls}"`)}>`
        : `<${name}${attrs} class="${cls}">`;
    });
    elements++;
    const fallback =
      item.svg || item.summary
        ? `<div class="hl-snapshot" slot="hl-snapshot">${compactDrawing(item.svg)}${item.summary ? `<p>${escapeText(item.summary)}</p>` : ''}</div>`
        : '';
    // On a page that names no colour scheme the live widget follows the reader's
    // (:host([data-auto-scheme]), widgets/base/theme.ts): its still does too.
    const opened = autoScheme && !/\sdata-auto-scheme\b/.test(open) ? open.replace(/^<[a-z-]+/, (t) => `${t} data-auto-scheme`) : open;
    return `${opened}<template shadowrootmode="open"><link rel="stylesheet" href="${href(tag)}">${compactDrawing(hoisted)}</template>${fallback}`;
  });
  if (index !== items.length) throw new Error(`${file}: ${items.length} headlab-* elements in the page, ${index} in the file`);
  return { html: out, elements, images };
}

/**
 * What the live widget does by measuring, done by CSS in the still. A table wider than its scroll
 * box keeps its caption in view, as wide as the box (widgets/base/dom.ts markScrollBox measures the
 * box and sets --hl-scroll-width; theme.ts holds the caption to it): here the box is a size
 * container and the caption at most 100cqi, so a still drawn in one window and shown in a narrower
 * one wraps its caption as the live widget will (unchanged where the table fits: the caption is
 * then the table's width, under 100cqi). Without it the caption took one line fewer at 360 px and
 * the text below moved 22 px when the widget went live. Only a box laid out as a block
 * (data-hl-block, marked by collect): a size container has no width of its own, so a scroll box
 * in a flex row (the subspace figure's tables side by side) collapsed to nothing.
 */
const STILL_CSS =
  '.scroll[data-hl-block] { container-type: inline-size; }\n.scroll[data-hl-block] > table > caption { position: sticky; left: 0; box-sizing: border-box; max-width: 100cqi; }\n' +
  // A canvas's picture per scheme (snapshotMarkup's <picture>) lays out as the <img> alone.
  'picture { display: contents; }\n' +
  // A drawing that differs between the schemes in more than colours: a copy per scheme.
  '@media (prefers-color-scheme: dark) { .hl-scheme-light { display: none !important; } }\n' +
  '@media not (prefers-color-scheme: dark) { .hl-scheme-dark { display: none !important; } }\n';

/** An element's snapshot sheet: its own sheets, the hoisted inline styles, the colours per scheme and the width ranges. */
export function snapshotStylesheet({ sheets, styles, ranges, colours = new Map() }) {
  const important = (css) =>
    css
      .split(';')
      .filter((d) => d.trim())
      .map((d) => `${d.trim()} !important`)
      .join(';');
  // By class name: the same sheet whatever order the pages were rendered in.
  const byName = (a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
  const hoisted = [...styles]
    .sort(byName)
    .map(([css, name]) => `.${name}{${important(css)}}`)
    .join('\n');
  // A paint attribute's colour per scheme (mergeSchemes): as weak as the attribute it replaces.
  const painted = [...colours]
    .sort(byName)
    .map(([css, name]) => `:where(.${name}){${css}}`)
    .join('\n');
  return `${sheets.join('\n')}\n${STILL_CSS}${hoisted}\n${painted}${painted ? '\n' : ''}${rangeCss(ranges.values())}`;
}
