// Prerendered snapshots: after the pages are built, every headlab-* element of each page is
// rendered in its default state in Node (headlab/ssr, site/ssr/render.js: happy-dom and the WASM
// core, no browser), and two static copies of it are written into the page inside the element:
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
// snapshot stylesheet (the strict CSP has style-src 'self'). A canvas is written as a PNG
// beside the sheets (headlab/snapshot/canvas-<hash>.png).
//
// One snapshot per range of window widths (CAPTURE_WIDTHS): each element is given the width of
// its column in such a window (siteColumn, the page's grid in site/assets/site.css), every widget
// redrawn for it, and its shadow root written once per width, its top-level nodes marked with the
// class of the range (hl-w-<from>-<to>) that the snapshot stylesheet shows only from that width up
// to the next. Its text so keeps its size at every width: one drawing scaled down to a phone
// shrank 12 px chart text to 7 px. tests/browser/ssr.test.mjs holds the renderer's markup to what
// the live element draws first in Chromium.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Window widths at which the snapshots are drawn (px): the narrowest supported window, a phone,
 * a tablet, a small laptop, and the width from which the page column has its full 62rem (992 px
 * with the page's margins from 1,105 px), whose drawing serves every wider window.
 */
export const CAPTURE_WIDTHS = [320, 360, 720, 1000, 1120];

/**
 * The width of an element's column on headlab's pages in a window `w` px wide (site/assets/site.css:
 * text 42rem, page 62rem — class hl-wide —, the whole screen — hl-screen — less its padding; the
 * gutters 1rem, 0.85rem in a window up to 30rem).
 */
export const siteColumn = (w, element) => {
  // In Chromium's layout units (1/64 px, truncated): the text column is one track, min(42rem,
  // 100% − 2 × gutter) computed and then held (332.8 → 332.796875 px at 360 px); the page column
  // is the window less the two gutter tracks, each held first (2 × 13.59375: 332.8125 px).
  const unit = (x) => Math.trunc(x * 64) / 64;
  const gutter = w <= 480 ? 0.85 * 16 : 16;
  const room = w - 2 * unit(gutter);
  return element.closest('.hl-screen') ? room : element.closest('.hl-wide') ? Math.min(992, room) : unit(Math.min(672, w - 2 * gutter));
};

/**
 * Adds the snapshots to every built page of `siteDir` that has headlab-* elements, with the Node
 * renderer bundled at `ssrModule` (dist/ssr.js, built before the pages).
 * Returns { pages, elements, bytes, seconds } (bytes: what the snapshots add, pages and files).
 * Throws naming the page and element if a widget fails to render.
 */
export async function prerenderSnapshots(siteDir, { ssrModule, quiet = false } = {}) {
  const started = Date.now();
  const { renderPage } = await import(pathToFileURL(ssrModule).href);
  const snapshotDir = path.join(siteDir, 'headlab/snapshot');
  fs.mkdirSync(snapshotDir, { recursive: true });
  const perTag = new Map();
  let stylesheets = new Map();
  let elements = 0;
  let bytes = 0;
  const pages = [];
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
    const up = '../'.repeat(rel.split(path.sep).length - 1);
    const out = await renderPage(html, {
      url: file,
      widths: CAPTURE_WIDTHS,
      columnWidth: siteColumn,
      stylesheetHref: (tag) => `${up}headlab/snapshot/${tag}.css`,
      imageHref: (name) => `${up}headlab/snapshot/${name}`,
      perTag,
    });
    if (out.errors.length) throw new Error(`${rel}: ${out.errors.map((e) => `<${e.tag}> id="${e.id}": ${e.message}`).join('; ')}`);
    fs.writeFileSync(file, out.html);
    bytes += Buffer.byteLength(out.html) - Buffer.byteLength(html);
    for (const [name, png] of out.images) {
      const target = path.join(snapshotDir, name);
      if (!fs.existsSync(target)) bytes += png.length;
      fs.writeFileSync(target, png);
    }
    stylesheets = out.stylesheets;
    elements += out.elements;
    pages.push(rel);
  }
  for (const [tag, css] of stylesheets) {
    fs.writeFileSync(path.join(snapshotDir, `${tag}.css`), css);
    bytes += Buffer.byteLength(css);
  }
  const seconds = (Date.now() - started) / 1000;
  if (!quiet) console.log(`snapshots: ${elements} elements on ${pages.length} pages in ${seconds.toFixed(1)} s (Node)`);
  return { pages, elements, bytes, seconds };
}
