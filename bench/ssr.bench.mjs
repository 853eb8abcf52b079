// Rendering without a browser (headlab/ssr): prints
//   - the Node renderer's time over every built page of build/site at the five capture widths
//     (the site build's own snapshots, site/snapshots.mjs, print their time in the build's log);
//   - examples/plain-html as served, before and after `headlab render`: requests, bytes (gzip of
//     each response body, level 9), layout shift from the widgets, the first contentful paint
//     without JavaScript (a figure's picture is in the HTML after `headlab render`), and the time
//     to the first live widget (an element rendered, its snapshot gone) at 1280 and 360 px.
// Figures, not a test: run `node bench/ssr.bench.mjs` after a build.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { root, startSession } from '../tests/browser/helpers.mjs';

const site = path.join(root, 'build/site');
const { renderPage } = await import(path.join(root, 'dist/ssr.js'));
const { stripSnapshots } = await import(path.join(root, 'dist/ssr-cli.js'));

const pages = fs
  .readdirSync(site, { recursive: true })
  .filter((f) => f.endsWith('.html') && !f.startsWith('headlab') && !f.startsWith('assets'))
  .filter((f) => /<headlab-[a-z-]+/.test(fs.readFileSync(path.join(site, f), 'utf8')));
let started = performance.now();
let elements = 0;
for (const rel of pages) {
  const file = path.join(site, rel);
  elements += (await renderPage(stripSnapshots(fs.readFileSync(file, 'utf8')), { url: file })).elements;
}
console.log(
  `ssr: ${elements} elements on ${pages.length} pages at 5 widths in ${((performance.now() - started) / 1000).toFixed(1)} s (Node, happy-dom)`,
);

/** examples/plain-html with the package's dist/ where its page loads it; rendered when `render`. */
function plainHtml(render) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-bench-'));
  fs.cpSync(path.join(root, 'examples/plain-html'), dir, { recursive: true });
  fs.mkdirSync(path.join(dir, 'node_modules/headlab'), { recursive: true });
  fs.cpSync(path.join(root, 'dist'), path.join(dir, 'node_modules/headlab/dist'), { recursive: true });
  if (render) {
    started = performance.now();
    const r = spawnSync(process.execPath, [path.join(root, 'dist/headlab-cli.cjs'), 'render', dir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    console.log(`headlab render examples/plain-html: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return dir;
}

async function measure(dir, label) {
  const served = await startSession({ dir, csp: true });
  try {
    for (const width of [1280, 360]) {
      const off = await served.newPage({ javaScriptEnabled: false, viewport: { width, height: 900 } });
      await off.goto(`${served.url}index.html`);
      const fcp = await off.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
      await off.close();
      const page = await served.newPage({ viewport: { width, height: 900 } });
      const bodies = [];
      page.on('response', async (r) => {
        try {
          bodies.push(await r.body());
        } catch {
          /* a redirect or an aborted load has no body */
        }
      });
      await page.addInitScript(() => {
        window.__cls = 0;
        new PerformanceObserver((l) => {
          for (const e of l.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
        }).observe({ type: 'layout-shift', buffered: true });
        window.__live = NaN;
        const tick = () => {
          const live = [...document.querySelectorAll('*')].some(
            (e) => e.localName.startsWith('headlab-') && e.renderCount > 0 && !e.shadowRoot.querySelector('link[href*="snapshot/"]'),
          );
          if (live) window.__live = performance.now();
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      await page.goto(`${served.url}index.html`);
      await page.waitForFunction(() => customElements.get('headlab-attention-bars') !== undefined);
      await page.mouse.move(0, 0);
      await page.locator('headlab-attention-bars').hover();
      await page.waitForFunction(() =>
        [...document.querySelectorAll('*')]
          .filter((e) => e.localName.startsWith('headlab-'))
          .every((e) => e.renderCount > 0 && !e.updatePending && !e.shadowRoot.querySelector('link[href*="snapshot/"]')),
      );
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
      const r = await page.evaluate(() => ({ cls: window.__cls, live: window.__live }));
      const gzip = bodies.reduce((n, b) => n + zlib.gzipSync(b, { level: 9 }).length, 0);
      console.log(
        `plain-html ${label} at ${width} px: ${bodies.length} requests, ${(gzip / 1024).toFixed(1)} KB gzip, CLS ${r.cls.toFixed(4)}, ` +
          `first contentful paint without JavaScript ${fcp.toFixed(0)} ms, first live widget ${r.live.toFixed(0)} ms`,
      );
      await page.close();
    }
  } finally {
    await served.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await measure(plainHtml(false), 'as shipped');
await measure(plainHtml(true), 'after headlab render');
process.exit(0);
