// Rendering without a browser (headlab/ssr): prints
//   - the Node renderer's time over every built page of build/site at the five capture widths
//     (the site build's own snapshots, site/snapshots.mjs, print their time in the build's log);
//   - per example, as an author serves it, at 1280 and 360 px: examples/plain-html as shipped and
//     after `headlab render`, examples/vite built by Vite with headlab/vite, examples/astro built by
//     Astro with headlab/astro (both with the package from `npm pack`, installed offline; Astro's
//     own dependencies from the example's lock file, the npm cache serving repeats): requests and
//     bytes (gzip of each response body, level 9) until every figure is live, layout shift from the
//     widgets (tests/browser/layout-shift.mjs: after the first element is defined), the first
//     picture without JavaScript (0 when every figure is drawn in the HTML, with that page's first
//     contentful paint; none when the page shows no figure without JavaScript) and the time to the
//     first live widget (an element rendered, its snapshot gone). A table at the end.
// Figures, not a test: run `node bench/ssr.bench.mjs` after a build (HEADLAB_BENCH_EXAMPLES=plain
// measures examples/plain-html only: no npm pack, no Vite or Astro build).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync, spawnSync } from 'node:child_process';
import { figuresLive, root, startSession } from '../tests/browser/helpers.mjs';
import { layoutShiftProbe, readShifts } from '../tests/browser/layout-shift.mjs';

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
  return { dir, served: dir, page: 'index.html' };
}

const npm = (args, cwd) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The package as an author installs it: `npm pack` of this repository, once. */
let tarball = null;
function packed() {
  if (tarball) return tarball;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-bench-pack-'));
  tarball = path.join(out, npm(['pack', '--pack-destination', out], root).trim().split('\n').at(-1));
  return tarball;
}

/** examples/vite with the tarball installed, built by the root's Vite with headlab/vite (prerendered). */
function viteBuilt() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-bench-vite-'));
  fs.cpSync(path.join(root, 'examples/vite'), dir, { recursive: true });
  npm(['install', '--offline', '--ignore-scripts', packed()], dir);
  started = performance.now();
  execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  console.log(`vite build examples/vite (headlab/vite prerendering): ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { dir, served: path.join(dir, 'dist'), page: 'index.html' };
}

/** examples/astro with its lock file's dependencies and the tarball, built by Astro with headlab/astro (prerendered). */
function astroBuilt() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-bench-astro-'));
  fs.cpSync(path.join(root, 'examples/astro'), dir, { recursive: true });
  npm(['ci', '--prefer-offline'], dir);
  npm(['install', '--offline', '--ignore-scripts', '--no-save', packed()], dir);
  started = performance.now();
  execFileSync(process.execPath, [path.join(dir, 'node_modules/astro/astro.js'), 'build', '--silent'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  console.log(`astro build examples/astro (headlab/astro prerendering): ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { dir, served: path.join(dir, 'dist'), page: 'posts/attention-heads/index.html' };
}

/** Installed before the page's scripts: window.__live, the first frame in which a figure is live (rendered, its snapshot gone). */
function firstLiveProbe() {
  window.__live = NaN;
  const tick = () => {
    const live = [...document.querySelectorAll('*')].some(
      (e) =>
        e.localName.startsWith('headlab-') &&
        e.localName !== 'headlab-value' &&
        e.renderCount > 0 &&
        !e.shadowRoot.querySelector('link[href*="snapshot/"]'),
    );
    if (live) window.__live = performance.now();
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

const rows = [];

async function measure({ dir, served: folder, page: file }, label) {
  const served = await startSession({ dir: folder, csp: true });
  try {
    for (const width of [1280, 360]) {
      const off = await served.newPage({ javaScriptEnabled: false, viewport: { width, height: 900 } });
      await off.goto(`${served.url}${file}`);
      // A figure drawn without JavaScript: its declarative shadow root holds its chart, table or picture.
      const drawn = await off.evaluate(() =>
        [...document.querySelectorAll('*')]
          .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')
          .map((e) => Boolean(e.shadowRoot?.querySelector('svg, table, img'))),
      );
      // The paint entry arrives after the load event at times: read until it is there (script is
      // off in the page, so no observer of its own can run; each read is a round trip).
      let fcp = NaN;
      for (let tries = 0; Number.isNaN(fcp) && tries < 500; tries++)
        fcp = await off.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
      await off.close();
      const page = await served.newPage({ viewport: { width, height: 900 } });
      const bodies = [];
      page.on('response', (r) =>
        bodies.push(
          r.body().then(
            (b) => zlib.gzipSync(b, { level: 9 }).length,
            () => 0, // a redirect or an aborted load has no body
          ),
        ),
      );
      await page.addInitScript(layoutShiftProbe);
      await page.addInitScript(firstLiveProbe);
      await page.goto(`${served.url}${file}`);
      // Behind their snapshots the max-digit figures load at the reader's first interaction
      // (widgets/max-digit/loading.ts): the pointer onto one, once it is defined.
      if (await page.locator('headlab-attention-bars').count()) {
        await page.waitForFunction(() => customElements.get('headlab-attention-bars') !== undefined, null, { timeout: 120_000 });
        await page.mouse.move(0, 0);
        await page.locator('headlab-attention-bars').first().hover();
      }
      await figuresLive(page, { timeout: 120_000 });
      // The frame after: a shift of the last render is reported by then.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
      const shift = await readShifts(page);
      const live = await page.evaluate(() => window.__live);
      const gzip = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
      const picture = drawn.length && drawn.every(Boolean) ? `0 (${drawn.length} figures in the HTML; FCP ${fcp.toFixed(0)} ms)` : 'none';
      const row = {
        example: label,
        width,
        requests: bodies.length,
        gzip: `${(gzip / 1024).toFixed(1)} KB`,
        cls: shift.cls.toFixed(4),
        picture,
        live: `${live.toFixed(0)} ms`,
      };
      rows.push(row);
      console.log(
        `${label} at ${width} px: ${row.requests} requests, ${row.gzip} gzip, layout shift ${row.cls} (${shift.before.toFixed(4)} before the first definition), ` +
          `first picture without JavaScript ${picture}, first live widget ${row.live}`,
      );
      await page.close();
    }
  } finally {
    await served.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await measure(plainHtml(false), 'plain-html as shipped');
await measure(plainHtml(true), 'plain-html, headlab render');
if (process.env.HEADLAB_BENCH_EXAMPLES !== 'plain') {
  await measure(viteBuilt(), 'vite, headlab/vite');
  await measure(astroBuilt(), 'astro, headlab/astro');
  fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
}

const columns = [
  ['example', 'example'],
  ['width', 'px'],
  ['requests', 'requests'],
  ['gzip', 'gzip'],
  ['cls', 'layout shift'],
  ['picture', 'first picture without JS'],
  ['live', 'first live widget'],
];
const widths = columns.map(([key, head]) => Math.max(head.length, ...rows.map((r) => String(r[key]).length)));
const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
console.log(
  [
    line(columns.map(([, head]) => head)),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(columns.map(([key]) => r[key]))),
  ].join('\n'),
);
process.exit(0);
