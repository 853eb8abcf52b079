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
  let cls = entry.styles.get(css);
  if (cls) return cls;
  cls = `hs${createHash('sha256').update(css).digest('hex').slice(0, 10)}`;
  const other = entry.names.get(cls);
  if (other !== undefined && other !== css) throw new Error(`headlab/ssr: two styles share the class ${cls}: "${other}" and "${css}"`);
  entry.styles.set(css, cls);
  entry.names.set(cls, css);
  return cls;
}

/**
 * Writes the captures into `html`: each <headlab-*> open tag (the page's elements in document
 * order, as `captures[i].items`) followed by its declarative shadow root — one copy per range of
 * window widths, alike neighbours merged, inline styles hoisted into classes of `perTag`'s sheet —
 * and its light-DOM figure. captures: [{ width, items }], any order. href(tag): the sheet's URL.
 * An element already carrying a snapshot (rendered before) is left as it is.
 * imageHref(name): the URL of a canvas's picture (written by the caller: `images`, name → PNG bytes).
 */
export function snapshotMarkup(html, captures, { perTag, href, imageHref = (name) => name, file = 'page' }) {
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
    if (!entry) perTag.set(tag, (entry = { sheets: item.sheets, styles: new Map(), names: new Map(), ranges: new Map() }));
    const groups = [];
    for (const [i, v] of variants.entries()) {
      const mark = `hl-captured-at-${widest[i].width}`;
      const same = groups.at(-1);
      const pictures = (v.images ?? []).map((p) => p.sum).join();
      if (same && same.html.replaceAll(same.mark, mark) === v.html && same.pictures === pictures) same.from = widest[i].width;
      else
        groups.push({ html: v.html, images: v.images ?? [], pictures, mark, from: widest[i].width, to: groups.at(-1)?.from ?? Infinity });
    }
    groups.at(-1).from = 0;
    const markup = groups
      .reverse()
      .map((g) => {
        const cls = rangeClass(g.from, g.to);
        entry.ranges.set(cls, [g.from, g.to]);
        return g.html
          .replaceAll(g.mark, cls)
          .replace(/ data-hl-png="(\d+)"/g, (_, i) => ` src="${imageHref(imageName(g.images[+i].url))}"`);
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
    return `${open}<template shadowrootmode="open"><link rel="stylesheet" href="${href(tag)}">${compactDrawing(hoisted)}</template>${fallback}`;
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
  '.scroll[data-hl-block] { container-type: inline-size; }\n.scroll[data-hl-block] > table > caption { position: sticky; left: 0; box-sizing: border-box; max-width: 100cqi; }\n';

/** An element's snapshot sheet: its own sheets, the hoisted inline styles and the width ranges. */
export function snapshotStylesheet({ sheets, styles, ranges }) {
  const important = (css) =>
    css
      .split(';')
      .filter((d) => d.trim())
      .map((d) => `${d.trim()} !important`)
      .join(';');
  // By class name: the same sheet whatever order the pages were rendered in.
  const hoisted = [...styles]
    .sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([css, name]) => `.${name}{${important(css)}}`)
    .join('\n');
  return `${sheets.join('\n')}\n${STILL_CSS}${hoisted}\n${rangeCss(ranges.values())}`;
}
