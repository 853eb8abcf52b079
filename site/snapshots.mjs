// Prerendered snapshots: after the pages are built, each is opened once in headless Chromium
// (served under the strict CSP), every headlab-* element is rendered in its default state,
// and two static copies of it are written into the page inside the element:
//
//   <headlab-x …>
//     <template shadowrootmode="open">            the widget as rendered (its shadow DOM, controls
//       <link rel="stylesheet" href="…/headlab/snapshot/headlab-x.css">   disabled), styled by
//       …                                         its own stylesheets saved as a file
//     </template>
//     <div class="hl-snapshot" slot="hl-snapshot">  the figure as SVG and its text summary
//       <svg role="img">…</svg><p>…</p>           (light DOM: what a reader without shadow
//     </div>                                     DOM — a feed reader, a search engine — sees)
//   </headlab-x>
//
// Without JavaScript (or opened from disk, where module scripts are refused) the declarative
// shadow root shows the widget as it will look, at its final size. When the script runs,
// the base class keeps those nodes on screen until the live widget's first render and then
// swaps them in one frame (widgets/base/headlab-element.ts), so nothing below moves. The
// light-DOM copy has no slot to go to inside a shadow root, so browsers never show it.
// No inline style attribute survives: each is hoisted into a class of the element's
// snapshot stylesheet (the strict CSP has style-src 'self').
//
// One snapshot per range of window widths (CAPTURE_WIDTHS): the page is laid out at each width
// in turn, every widget redrawn for it (a figure's layout changes with its width: fewer columns,
// a narrower drawing), and each element's shadow root written once per width, its top-level
// nodes marked with the class of the range (hl-w-<from>-<to>) that the snapshot stylesheet shows
// only from that width up to the next. A snapshot is so never drawn narrower than the width it
// was drawn for (a window at least as wide gives every box at least as much room), and its
// text keeps its size at every width: one drawing scaled down to a phone shrank 12 px chart
// text to 7 px.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from './chromium.mjs';
import { elementNames } from './element-names.mjs';
// The pieces of a snapshot the Node renderer writes the same way (its ranges' classes and rules, the compacted drawing).
import { compactDrawing, rangeClass, rangeCss } from './ssr/snapshot-markup.js';

/**
 * Serializes what each headlab-* element of the page shows now (runs in the page), its shadow
 * root's top-level elements carrying the class `variant` in the markup.
 */
function collect(variant) {
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
    // Serialization writes attributes, not live properties: carry the shown values over.
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
    // A canvas serialises empty: a picture of its pixels stands in for it (an <img> with the
    // canvas's attributes, its PNG written beside the snapshot stylesheets by prerenderSnapshots;
    // the live widget, drawing the canvas, replaces the snapshot). A heatmap's cells as SVG were
    // one <rect> each: 14,228 of them made the own-model page 1.7 MB, and the elements' upgrade
    // and snapshot swap moved every one of them on the main thread.
    const canvases = [];
    for (const canvas of root.querySelectorAll('canvas')) {
      if (!canvas.width || !canvas.height) continue;
      const img = document.createElement('img');
      for (const a of canvas.attributes) img.setAttribute(a.name, a.value);
      img.setAttribute('alt', '');
      img.setAttribute('data-hl-png', String(item.images.length));
      item.images.push(canvas.toDataURL('image/png'));
      canvas.replaceWith(img);
      canvases.push([img, canvas]);
    }
    // A drawing laid out by a row that wraps with the room it has (the query-key canvas's flex
    // row of figures, the training figure's auto-fit grid of charts) is narrower when a wider
    // window fits two of them on a line than when one fills it: the 360 px drawing shown at
    // 622 px was 268 px wide instead of 299, its 12 px text 10.8 px. So the snapshot keeps the
    // row as drawn: a wrapping flex item keeps at least the width it was drawn at, a grid keeps
    // the columns it had (in their proportions). Over the snapshot's range of windows (each at
    // least as wide) the row is so as wide as drawn or wider, never split into narrower columns.
    const keepStyle = (node, property, value) => {
      if (!restore.some(([n, name]) => n === node && name === 'style')) restore.push([node, 'style', node.getAttribute('style')]);
      node.style.setProperty(property, value);
    };
    for (const svg of root.querySelectorAll('svg')) {
      for (let node = svg; node.parentElement; node = node.parentElement) {
        const row = getComputedStyle(node.parentElement);
        if (row.display.endsWith('grid')) {
          const tracks = row.gridTemplateColumns.split(' ').map(parseFloat);
          if (tracks.length && tracks.every((t) => t > 0))
            keepStyle(node.parentElement, 'grid-template-columns', tracks.map((t) => `minmax(0, ${t.toFixed(2)}fr)`).join(' '));
          break;
        }
        if (!row.display.endsWith('flex') || row.flexWrap === 'nowrap') continue;
        const width = Math.floor(node.getBoundingClientRect().width);
        if (width > 0) keepStyle(node, 'min-width', `${width}px`);
        break;
      }
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
    item.sheets = root.adoptedStyleSheets.map((s) => [...s.cssRules].map((r) => r.cssText).join('\n'));
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

/**
 * Window widths at which the snapshots are drawn (px): the narrowest supported window, a phone,
 * a tablet, a small laptop, and the width from which the page column has its full 62rem (992 px
 * with the page's margins from 1,105 px), whose drawing serves every wider window. A drawing keeps
 * at least the width it was drawn at (collect), so a row of panels drawn for the 1,000 px window's
 * narrower column (three panels and a fourth alone, 956 px tall) stood where the live figure
 * puts four in a row (630 px) at 1,280 px: the figure shrank when it went live.
 */
export const CAPTURE_WIDTHS = [320, 360, 720, 1000, 1120];

/** The class marking, while the pages are captured, the snapshot drawn at `width` (replaced by its range's class when written). */
const captureMark = (width) => `hl-captured-at-${width}`;

/** Runs in the page: resolves when no widget has rendered for three frames in a row and none is computing. */
async function settle() {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const widgets = () => [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-') && e.shadowRoot);
  const renders = () => widgets().reduce((n, e) => n + (e.renderCount ?? 0), 0);
  let last = renders(),
    quiet = 0;
  while (quiet < 3) {
    await frame();
    const now = renders();
    quiet = now === last && !widgets().some((e) => e.busy) ? quiet + 1 : 0;
    last = now;
  }
}

const escapeText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Adds the snapshots to every built page of `siteDir` that has headlab-* elements.
 * Returns { pages, elements, seconds }. Throws if a widget fails to render.
 */
export async function prerenderSnapshots(siteDir, { quiet = false } = {}) {
  const started = Date.now();
  const { serve } = await import('./serve.mjs');
  const { chromium } = await import('playwright-core');
  const { server, url } = await serve({ dir: siteDir, port: 0, csp: true });
  const browser = await launchChromium(chromium);
  const perTag = new Map(); // tag → { sheets: string[], styles: Map<style, class> }
  // The canvases' pictures, named by their content (the same picture at two widths is one file).
  const snapshotDir = path.join(siteDir, 'headlab/snapshot');
  fs.mkdirSync(snapshotDir, { recursive: true });
  const pngNames = new Map(); // data URL → file name, each picture written once
  const writePng = (dataUrl) => {
    if (!pngNames.has(dataUrl)) {
      const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
      const name = `canvas-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.png`;
      fs.writeFileSync(path.join(snapshotDir, name), bytes);
      pngNames.set(dataUrl, name);
    }
    return pngNames.get(dataUrl);
  };
  let elements = 0;
  const pages = [];
  try {
    const context = await browser.newContext({
      viewport: { width: CAPTURE_WIDTHS.at(-1), height: 800 },
      colorScheme: 'light',
      reducedMotion: 'reduce',
    });
    const walk = (dir) =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((d) =>
          d.isDirectory() ? (['headlab', 'assets'].includes(d.name) ? [] : walk(path.join(dir, d.name))) : [path.join(dir, d.name)],
        );
    for (const file of walk(siteDir)
      .filter((f) => f.endsWith('.html'))
      .sort()) {
      const html = fs.readFileSync(file, 'utf8');
      if (!/<headlab-[a-z-]+/.test(html)) continue;
      const rel = path.relative(siteDir, file);
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${url}${rel.split(path.sep).join('/')}`);
      // Every element rendered once with its model (or showing its message): the default state.
      // A model element with loading="lazy" is loaded now, so its figures are drawn, not "loading".
      await page.waitForFunction(
        () => {
          for (const m of document.querySelectorAll('headlab-max-digit-model')) m.load?.();
          return [...document.querySelectorAll('*')]
            .filter((e) => e.localName.startsWith('headlab-') && e.shadowRoot)
            .every(
              (e) =>
                (e.renderCount > 0 && (!('currentModel' in e) || e.currentModel) && !e.busy) ||
                !e.shadowRoot.querySelector('.alert')?.hidden,
            );
        },
        null,
        { timeout: 120_000 },
      );
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      // The default state at each capture width, widest first (the light-DOM copy and the summary are the widest's).
      const captures = [];
      for (const width of [...CAPTURE_WIDTHS].reverse()) {
        await page.setViewportSize({ width, height: 800 });
        await page.evaluate(settle);
        captures.push({ width, items: await page.evaluate(collect, captureMark(width)) });
      }
      const items = captures[0].items;
      await page.close();
      if (errors.length) throw new Error(`${rel}: ${errors.join('; ')}`);
      const up = '../'.repeat(rel.split(path.sep).length - 1);
      let index = 0;
      const out = html.replace(/<(headlab-[a-z-]+)\b[^>]*>/g, (open, tag) => {
        const item = items[index++];
        if (!item || item.tag !== tag) throw new Error(`${rel}: element ${index} is <${item?.tag}> in the page, <${tag}> in the file`);
        if (!item.html) return open;
        const variants = captures.map((c) => c.items[index - 1]);
        if (variants.some((v) => v?.tag !== tag || !v.html))
          throw new Error(`${rel}: element ${index} <${tag}> has no snapshot at every capture width`);
        // style="…" → a class of this tag's snapshot stylesheet (!important keeps the inline precedence).
        // Drawings alike at neighbouring widths (a widget whose markup does not depend on its
        // width) are written once, for the union of their ranges. captures: widest first.
        let entry = perTag.get(tag);
        if (!entry) perTag.set(tag, (entry = { sheets: item.sheets, styles: new Map(), ranges: new Map() }));
        const groups = [];
        for (const [i, v] of variants.entries()) {
          const mark = captureMark(captures[i].width);
          const same = groups.at(-1);
          if (same && same.html.replaceAll(same.mark, mark) === v.html && same.images.join() === v.images.join())
            same.from = captures[i].width;
          else groups.push({ html: v.html, images: v.images, mark, from: captures[i].width, to: groups.at(-1)?.from ?? Infinity });
        }
        groups.at(-1).from = 0;
        const markup = groups
          .reverse()
          .map((g) => {
            const cls = rangeClass(g.from, g.to);
            entry.ranges.set(cls, [g.from, g.to]);
            return g.html
              .replaceAll(g.mark, cls)
              .replace(/ data-hl-png="(\d+)"/g, (_, i) => ` src="${up}headlab/snapshot/${writePng(g.images[+i])}"`);
          })
          .join('');
        const hoisted = markup.replace(/<([\w-]+)([^>]*?) style="([^"]*)"([^>]*)>/g, (_, name, before, style, after) => {
          const css = style.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
          if (!entry.styles.has(css)) entry.styles.set(css, `hs${entry.styles.size.toString(36)}`);
          const cls = entry.styles.get(css);
          const attrs = `${before}${after}`;
          return / class="/.test(attrs)
            ? `<${name}${attrs.replace(/ class="([^"]*)"/, ` class="$1 ${cls}"`)}>`
            : `<${name}${attrs} class="${cls}">`;
        });
        elements++;
        const drawn = compactDrawing(hoisted);
        const fallback =
          item.svg || item.summary
            ? `<div class="hl-snapshot" slot="hl-snapshot">${compactDrawing(item.svg)}${item.summary ? `<p>${escapeText(item.summary)}</p>` : ''}</div>`
            : '';
        return `${open}<template shadowrootmode="open"><link rel="stylesheet" href="${up}headlab/snapshot/${tag}.css">${drawn}</template>${fallback}`;
      });
      fs.writeFileSync(file, out);
      pages.push(rel);
    }
    fs.writeFileSync(path.join(siteDir, 'headlab/headlab.css'), await reserveStylesheet(context, url, siteDir));
  } finally {
    await browser.close();
    await new Promise((r) => server.close(r));
  }
  for (const [tag, { sheets, styles, ranges }] of perTag) {
    const important = (css) =>
      css
        .split(';')
        .filter((d) => d.trim())
        .map((d) => `${d.trim()} !important`)
        .join(';');
    const hoisted = [...styles].map(([css, name]) => `.${name}{${important(css)}}`).join('\n');
    fs.writeFileSync(path.join(snapshotDir, `${tag}.css`), `${sheets.join('\n')}\n${hoisted}\n${rangeCss(ranges.values())}`);
  }
  const seconds = (Date.now() - started) / 1000;
  if (!quiet) console.log(`snapshots: ${elements} elements on ${pages.length} pages in ${seconds.toFixed(1)} s`);
  return { pages, elements, seconds };
}

/** Column widths at which each element's default state is measured: a phone column and a blog column. */
const NARROW = 328;
const WIDE = 640;
const NARROW_BELOW = 720;

/**
 * What the measuring page gives an element besides its tag, so that it draws its default figure
 * rather than a message: the transformer figures read the shipped induction model (a model element
 * of their own, named by id, so that the figures' heights are not inside the model element's), the
 * seed grid the shipped seeds file, and the max-digit model panel an id (it needs one). An author's own model of another size draws another height.
 */
const MEASURE_ATTRIBUTES = {
  'headlab-transformer-model': 'src="data/induction-seed0.safetensors" config="data/induction-seed0.json"',
  'headlab-seed-grid': 'src="data/max-digit-seeds-0-9.json"',
  'headlab-max-digit-model': 'id="hl-measure-digits"', // its figures name it by id
};
/** Whether the element is a transformer figure (its class extends TransformerWidget), which reads a model element. */
const readsTransformer = (tag) =>
  fs.readFileSync(new URL(`../widgets/${tag}.ts`, import.meta.url), 'utf8').includes(' extends TransformerWidget<');

/**
 * headlab.css: for pages without snapshots (an author's Vite or Astro page), each element's
 * box is reserved before the script runs and while the core loads, at the height of its
 * default state once drawn (updateComplete: its model loaded, its worker idle) — measured here
 * at a NARROW column (reserved below NARROW_BELOW px of viewport, a phone's) and at a WIDE one
 * (above) — so the text below does not move when it starts. <headlab-value> is a number inside
 * a sentence: inline, nothing reserved. The quiz's height is its author's content: none.
 */
async function reserveStylesheet(context, url, siteDir) {
  const tags = elementNames()
    .map((n) => `headlab-${n}`)
    .filter((t) => t !== 'headlab-choice-quiz' && t !== 'headlab-value');
  const attributes = (t) => MEASURE_ATTRIBUTES[t] ?? (readsTransformer(t) ? 'model="hl-measure-model"' : '');
  const file = path.join(siteDir, '__measure.html');
  fs.writeFileSync(
    file,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>measure</title>
<script type="module" src="headlab/headlab.js"></script></head><body>
${tags.map((t) => `<div class="column"><${t} ${t === 'headlab-transformer-model' ? 'id="hl-measure-model" ' : ''}${attributes(t)}></${t}></div>`).join('\n')}
</body></html>`,
  );
  const page = await context.newPage();
  try {
    await page.goto(`${url}__measure.html`);
    const heights = {};
    for (const width of [NARROW, WIDE]) {
      heights[width] = await page.evaluate(async (w) => {
        for (const c of document.querySelectorAll('.column')) c.style.width = `${w}px`;
        const elements = [...document.querySelectorAll('.column > *')];
        await Promise.all(elements.map((e) => customElements.whenDefined(e.localName)));
        // Drawn at this width: each element complete (rendered, model loaded, worker idle),
        // then the layout watcher's resize renders done as well.
        for (;;) {
          const ok = await Promise.all(elements.map((e) => e.updateComplete));
          const bad = elements.filter((_, i) => !ok[i]);
          if (bad.length) throw new Error(`headlab.css: ${bad.map((e) => `<${e.localName}>: ${e.error}`).join('; ')}`);
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          if (elements.every((e) => !e.updatePending && !e.busy)) break;
        }
        return Object.fromEntries(elements.map((e) => [e.localName, Math.ceil(e.getBoundingClientRect().height)]));
      }, width);
    }
    const rules = tags.map((t) => `${t} { display: block; min-height: ${heights[WIDE][t]}px; }`);
    const narrow = tags.map((t) => `  ${t} { min-height: ${heights[NARROW][t]}px; }`);
    return `/* headlab: space reserved for each element's default state before it starts (no layout shift).
   Generated by the site build (site/snapshots.mjs) from the elements drawn in a ${WIDE} px column
   and a ${NARROW} px one (below ${NARROW_BELOW} px of viewport); the transformer figures with the
   shipped induction model. A widget with other attributes or another model may need another
   height: override min-height on it (or set it to 0). */
headlab-value { display: inline; }
${rules.join('\n')}
@media (max-width: ${NARROW_BELOW - 1}px) {
${narrow.join('\n')}
}
`;
  } finally {
    await page.close();
    fs.rmSync(file);
  }
}
