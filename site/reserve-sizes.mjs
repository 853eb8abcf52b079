// headlab.css: the space reserved for each element's default state on a page without snapshots
// (an author's Vite or Astro page), so the text below does not move when the elements start.
// Heights need a layout engine: this script measures every element drawn in headless Chromium
// and writes site/headlab.css, which the site build copies into the bundle (build/site/headlab/
// and dist/) without a browser. tests/browser/reserved-sizes.test.mjs holds each reserved height
// to the height the element draws (±2 px at 360 and 1280 px) and names this script when one has
// moved: run `node site/reserve-sizes.mjs` after a build (it serves build/site).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { elementNames } from './element-names.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The reserved sizes, a source file of the build (generated here). */
export const RESERVE_FILE = path.join(root, 'site/headlab.css');

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
export async function reserveStylesheet(context, url, siteDir) {
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
   Generated by site/reserve-sizes.mjs from the elements drawn in a ${WIDE} px column
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

/** Measures the elements of the built site `siteDir` (build/site) and writes RESERVE_FILE. */
export async function writeReserveFile(siteDir = path.join(root, 'build/site')) {
  const { serve } = await import('./serve.mjs');
  const { chromium } = await import('playwright-core');
  const { server, url } = await serve({ dir: siteDir, port: 0, csp: true });
  const browser = await launchChromium(chromium);
  try {
    const context = await browser.newContext({ viewport: { width: 1120, height: 800 }, colorScheme: 'light', reducedMotion: 'reduce' });
    fs.writeFileSync(RESERVE_FILE, await reserveStylesheet(context, url, siteDir));
  } finally {
    await browser.close();
    await new Promise((r) => server.close(r));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeReserveFile().then(
    () => console.log(`wrote ${path.relative(process.cwd(), RESERVE_FILE)}`),
    (err) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
