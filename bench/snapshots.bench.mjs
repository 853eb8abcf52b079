// The site build's snapshots (site/snapshots.mjs, drawn in Node by headlab/ssr), per built page
// of build/site with widgets: what they add to the page (bytes, and gzip level 9) and to the
// shared files (sheets, canvas PNGs), and at 360 and 1280 px the layout shift once an element is
// defined (tests/browser/layout-shift.mjs) and the figures whose height differs by more than a
// pixel between the snapshot (JavaScript off) and the live widget (on) — a shift the reader sees
// when scrolled to it, which the layout-shift score (the viewport only) does not count.
// Figures, not a test: run `node bench/snapshots.bench.mjs` after a build.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { root, startSession } from '../tests/browser/helpers.mjs';
import { layoutShiftProbe } from '../tests/browser/layout-shift.mjs';

const site = path.join(root, 'build/site');
const { stripSnapshots } = await import(path.join(root, 'dist/ssr-cli.js'));
const PAGES = fs
  .readdirSync(site, { recursive: true })
  .filter((f) => f.endsWith('.html') && !f.startsWith('headlab') && !f.startsWith('assets'))
  .filter((f) => /<headlab-(?!value\b)[a-z-]+/.test(fs.readFileSync(path.join(site, f), 'utf8')))
  .sort();
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const gzip = (s) => zlib.gzipSync(s, { level: 9 }).length;

for (const rel of PAGES) {
  const html = fs.readFileSync(path.join(site, rel), 'utf8');
  const bare = stripSnapshots(html);
  console.log(
    `${rel}: snapshots +${kb(Buffer.byteLength(html) - Buffer.byteLength(bare))} (+${kb(gzip(html) - gzip(bare))} gzip) of ${kb(Buffer.byteLength(html))}`,
  );
}
const dir = path.join(site, 'headlab/snapshot');
const files = fs.readdirSync(dir);
const size = (ext) => files.filter((f) => f.endsWith(ext)).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
console.log(
  `shared: ${files.filter((f) => f.endsWith('.css')).length} sheets ${kb(size('.css'))}, ${files.filter((f) => f.endsWith('.png')).length} canvas PNGs ${kb(size('.png'))}`,
);

const figures = () =>
  [...document.querySelectorAll('*')].filter(
    (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value' && e.localName !== 'headlab-choice-quiz',
  );
const session = await startSession({ dir: site, csp: true });
try {
  for (const width of [360, 1280])
    for (const rel of PAGES) {
      const off = await session.newPage({ javaScriptEnabled: false, viewport: { width, height: 900 } });
      await off.goto(`${session.url}${rel}`);
      const still = await off.evaluate(`(${figures})().map((e) => Math.round(e.getBoundingClientRect().height))`);
      await off.close();
      const page = await session.newPage({ viewport: { width, height: 900 } });
      await page.addInitScript(layoutShiftProbe);
      await page.goto(`${session.url}${rel}`);
      // A max-digit page loads its module at the reader's first interaction (widgets/max-digit/loading.ts).
      const panel = page.locator('headlab-max-digit-model').first();
      if (await panel.count()) await panel.hover();
      // (A function, not a string: the strict CSP refuses eval, which a string predicate needs.)
      await page.waitForFunction(
        () => {
          for (const m of document.querySelectorAll('headlab-max-digit-model')) m.load?.();
          return [...document.querySelectorAll('*')]
            .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value' && e.localName !== 'headlab-choice-quiz')
            .every((e) => e.renderCount > 0 && !e.updatePending && !e.busy && !e.shadowRoot.querySelector('link[href*="snapshot/"]'));
        },
        null,
        { timeout: 180_000 },
      );
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
      await page.evaluate(() => window.__takeShifts());
      const cls = await page.evaluate(() => window.__cls);
      const live = await page.evaluate(`(${figures})().map((e) => [e.localName, Math.round(e.getBoundingClientRect().height)])`);
      await page.close();
      const moved = live.map(([t, h], i) => (Math.abs(h - still[i]) > 1 ? `${t} ${still[i]}→${h} px` : '')).filter(Boolean);
      console.log(
        `${width} px ${rel}: layout shift ${cls.toFixed(4)}; ${live.length} figures, ${moved.length} of another height live${moved.length ? `: ${moved.join(', ')}` : ''}`,
      );
    }
} finally {
  await session.close();
}
