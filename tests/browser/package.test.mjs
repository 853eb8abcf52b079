// The npm package as an author gets it: `npm pack` of this repository, installed (offline,
// from the tarball) into a copy of examples/plain-html, examples/vite and examples/eleventy; the
// Vite app is built with the root's Vite 7, the Eleventy blog with the root's Eleventy 3. Each is served under the strict CSP and loaded in
// Chromium: the ablation widget computes, the trainer trains in its worker, nothing is
// requested from another origin. Also: the tarball holds what package.json promises.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { STRICT_CSP } from '../../site/serve.mjs';
import { figuresLive, misplacedFigures, root, screenshot, startSession } from './helpers.mjs';
import { layoutShiftProbe, readShifts } from './layout-shift.mjs';

const npm = (args, cwd) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

let tmp, tarball;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-pack-'));
  const out = npm(['pack', '--pack-destination', tmp], root).trim().split('\n');
  tarball = path.join(tmp, out.at(-1));
});
after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Copies examples/<name> into the temp folder and installs the tarball there. */
function example(name) {
  const dir = path.join(tmp, name);
  if (fs.existsSync(dir)) return dir; // installed by an earlier test of this file
  fs.cpSync(path.join(root, 'examples', name), dir, { recursive: true });
  npm(['install', '--offline', '--ignore-scripts', tarball], dir);
  return dir;
}

/** Installed into the page before its scripts, beside layoutShiftProbe: the first live widget, the first frame in which a figure has drawn itself (renderCount > 0). */
function firstLiveProbe() {
  window.__firstLive = null;
  const live = () => {
    const all = [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value');
    if (all.some((e) => e.renderCount > 0)) window.__firstLive = performance.now();
    else requestAnimationFrame(live);
  };
  requestAnimationFrame(live);
}

/**
 * A prerendered page (headlab/vite, headlab/astro, `headlab render`) keeps the max-digit figures'
 * snapshots until the reader's first interaction (widgets/max-digit/loading.ts): the pointer onto
 * one, once its element is defined.
 */
async function reachMaxDigit(page) {
  if (!(await page.locator('headlab-attention-bars > .hl-snapshot').count())) return;
  await page.waitForFunction(() => customElements.get('headlab-attention-bars') !== undefined, null, { timeout: 120_000 });
  await page.mouse.move(0, 0);
  await page.locator('headlab-attention-bars').first().hover();
}

/** The budget for layout shift while the widgets start (docs/embedding.md, "No layout shift") (web.dev: ≤ 0.1 is "good"). */
const CLS_BUDGET = 0.01;

/**
 * Loads `url` and checks what an author gets: every headlab-* element renders; the ablation
 * widget computes the softmax exactly; the trainer trains in its worker; the max-digit
 * widgets load the package's default weights; each .wasm (headlab_core, headlab_feature_recovery,
 * headlab_max_digit) is downloaded once (page and worker together); layout shift ≤ CLS_BUDGET; no console error, no other origin.
 */
async function check(session, url, shot, { origin = null } = {}) {
  const page = await session.newPage({ viewport: { width: 1000, height: 900 } });
  const downloads = [];
  const scripts = [];
  // What the page costs the reader: each response's body, gzipped (as a server would send it).
  const bodies = [];
  page.on('response', (r) =>
    bodies.push(
      r.body().then(
        (b) => zlib.gzipSync(b).length,
        () => 0,
      ),
    ),
  );
  page.on('request', (r) => {
    const p = new URL(r.url()).pathname;
    if (/\.(wasm|json)$/.test(p)) downloads.push(p);
    if (p.endsWith('.js')) scripts.push(p.split('/').pop());
  });
  await page.addInitScript(layoutShiftProbe);
  await page.addInitScript(firstLiveProbe);
  await page.goto(url);
  await reachMaxDigit(page);
  await page.waitForFunction(
    () => {
      const all = [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-'));
      return all.length > 0 && all.every((e) => e.renderCount > 0);
    },
    null,
    { timeout: 120_000 },
  );
  await page.waitForFunction(() => document.querySelector('headlab-attention-bars')?.currentModel, null, { timeout: 120_000 });
  // W_Q with swapped coordinates: query x₁ = [1, 0] gives q = [0, 1], so it matches x₂:
  // weights softmax([0, 1]/√2) = [1/(1+e^{1/√2}), e^{1/√2}/(1+e^{1/√2})].
  const weights = await page.evaluate(() => document.querySelector('#ablation').state.weights);
  const e = Math.exp(1 / Math.SQRT2);
  // A 2-term softmax in double precision: a few ulps.
  assert.ok(Math.abs(weights[0] - 1 / (1 + e)) <= 1e-15 && Math.abs(weights[1] - e / (1 + e)) <= 1e-15, String(weights));
  // The max-digit figure on the package's default weights (no src): the shipped seed-0 model.
  const bars = await page.evaluate(() => {
    const el = document.querySelector('headlab-attention-bars');
    return el && { label: el.currentModel?.label, max: el.state.max_digit };
  });
  assert.ok(bars, 'the example has a headlab-attention-bars');
  assert.match(bars.label, /shipped weights.*seed 0/);
  const shift = await readShifts(page);
  const gzip = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
  console.log(
    `# ${shot}: ${bodies.length} requests, ${gzip} B gzip until every figure is live; first live widget at ${shift.firstLive?.toFixed(0)} ms`,
  );
  await page.evaluate(() => document.querySelector('#trainer').train());
  await page.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('#trainer').trainingStatus), null, {
    timeout: 120_000,
  });
  const r = await page.evaluate(() => ({
    status: document.querySelector('#trainer').trainingStatus,
    steps: document.querySelector('#trainer').results?.steps_done,
  }));
  assert.deepEqual(r, { status: 'done', steps: 60 });
  await screenshot(page, shot);
  // Pages served by another server than the session's (the Vite dev server) come from `origin`.
  assert.deepEqual(
    page.problems.filter((p) => !(origin && p.startsWith(`off-origin request: ${origin}/`))),
    [],
  );
  // One download of each module for the page and its worker (the worker gets the page's compiled module).
  const count = (re) => downloads.filter((p) => re.test(p)).length;
  assert.equal(count(/headlab_core[^/]*\.wasm$/), 1, downloads.join(', '));
  assert.equal(count(/headlab_feature_recovery[^/]*\.wasm$/), 1, downloads.join(', '));
  assert.equal(count(/headlab_max_digit[^/]*\.wasm$/), 1, downloads.join(', '));
  assert.equal(count(/max-digit-seed0[^/]*\.json$/), 1, downloads.join(', '));
  console.log(
    `# ${shot}: layout shift ${shift.cls.toFixed(4)} after the first definition, ${shift.before.toFixed(4)} before${shift.shifts.length ? ` (${shift.shifts.join('; ')})` : ''}; downloads ${downloads.map((p) => p.split('/').pop()).join(' ')}`,
  );
  assert.ok(shift.cls <= CLS_BUDGET, `layout shift ${shift.cls}: ${shift.shifts.join('; ')}`);
  await page.close();
  return { scripts };
}

/**
 * The page `url` without JavaScript, at 360 and 1280 px: every figure (headlab-value aside: text
 * in the prose) shows its picture — its declarative shadow root drawn, at a height — and carries
 * its light-DOM figure's summary. Returns the count of figures and the first contentful paint.
 */
async function checkWithoutJavaScript(session, url, shot) {
  let count = 0;
  let paint = 0;
  for (const width of [360, 1280]) {
    const off = await session.newPage({ javaScriptEnabled: false, viewport: { width, height: 900 } });
    await off.goto(url);
    const shown = await off.evaluate(() =>
      [...document.querySelectorAll('*')]
        .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')
        .map((e) => ({
          tag: e.localName,
          height: e.getBoundingClientRect().height,
          // A figure's chart or table, or its canvas's picture; a model element shows its description.
          drawn:
            Boolean(e.shadowRoot?.querySelector('svg, table, img[src*="headlab-snapshot/"]')) ||
            (e.localName === 'headlab-transformer-model' && /attention layers/.test(e.shadowRoot?.textContent ?? '')),
          summary: e.querySelector(':scope > .hl-snapshot p')?.textContent ?? '',
        })),
    );
    assert.ok(shown.length > 0, `${url}: no figure`);
    for (const f of shown) assert.ok(f.drawn && f.height > 100 && f.summary.length > 20, `${width} px: ${JSON.stringify(f)}`);
    count = shown.length;
    paint = await off.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0);
    await screenshot(off, `${shot}-nojs-${width}`);
    assert.deepEqual(off.problems, []);
    await off.close();
  }
  console.log(`# ${shot} without JavaScript: ${count} figures drawn in the HTML (first contentful paint ${paint.toFixed(0)} ms)`);
  return { count, paint };
}

test('npm pack: the tarball holds the bundle, its chunk, worker and .wasm, the types, the embedding and own-model guides and the limits, and nothing else', () => {
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((f) => f.replace(/^package\//, ''))
    .sort();
  for (const f of [
    'package.json',
    'dist/headlab.js',
    'dist/elements.js',
    'dist/value-swap.js',
    'dist/headlab-worker.js',
    'dist/headlab_core.wasm',
    'dist/headlab_feature_recovery.wasm',
    'dist/headlab_max_digit.wasm',
    // The command line (package.json "bin"), the CLI compiled for Node, and its module.
    'dist/headlab-cli.cjs',
    'dist/headlab_cli.wasm',
    'dist/data/max-digit-seed0.json',
    'dist/custom-elements.json',
    'types/headlab.d.ts',
    // Prerendering: the renderer and its integrations, each with its types.
    'dist/ssr.js',
    'dist/astro.js',
    'dist/rehype.js',
    'dist/vite.js',
    'dist/eleventy.js',
    'types/ssr.d.ts',
    'types/astro.d.ts',
    'types/rehype.d.ts',
    'types/vite.d.ts',
    'types/eleventy.d.ts',
    'dist/docs/embedding.md',
    'dist/docs/elements.md',
    'dist/vscode.html-custom-data.json',
    'dist/web-types.json',
    'dist/llms.txt',
    // The own-model guides the own-model page names, and the limits they link to.
    'dist/docs/own-model.md',
    'dist/docs/own-model-widgets.md',
    'dist/docs/limits.md',
  ]) {
    assert.ok(files.includes(f), `${f} missing from ${files.join(', ')}`);
  }
  assert.ok(
    files.some((f) => /^dist\/chunk-[A-Z0-9]+\.js$/.test(f)),
    'the shared chunk',
  );
  const allowed =
    /^(package\.json|README\.md|dist\/[^/]+|dist\/data\/max-digit-[\w-]+\.json|dist\/docs\/(embedding|elements|own-model|own-model-widgets|limits)\.md|types\/[^/]+\.d\.ts)$/;
  assert.deepEqual(
    files.filter((f) => !allowed.test(f)),
    [],
  );
  // The shipped guides link only to what ships (site/package-docs.mjs writes repository paths out).
  const docs = files.filter((f) => /^dist\/docs\/.+\.md$/.test(f));
  const text = (f) => execFileSync('tar', ['-xOzf', tarball, `package/${f}`], { encoding: 'utf8' });
  for (const f of docs) {
    for (const [, target] of text(f).matchAll(/(?<!!)\[[^\]\n]+\]\(([^)\s]+)\)/g)) {
      if (/^([a-z]+:|#)/i.test(target)) continue;
      const to = path.posix.normalize(path.posix.join(path.posix.dirname(f), target.split('#')[0]));
      assert.ok(files.includes(to), `${f} links to ${target}, which the package does not hold`);
    }
  }
  // Every path package.json exports exists in the tarball.
  for (const [key, target] of Object.entries(pkg.exports)) {
    const t = typeof target === 'string' ? target : target.default;
    if (t.includes('*')) {
      const prefix = t.replace(/^\.\//, '').replace(/\*.*$/, '');
      assert.ok(
        files.some((f) => f.startsWith(prefix)),
        `exports["${key}"] → ${t}`,
      );
      continue;
    }
    assert.ok(files.includes(t.replace(/^\.\//, '')), `exports["${key}"] → ${t}`);
  }
});

test('examples/plain-html with the installed tarball: widgets compute under the strict CSP', async () => {
  const dir = example('plain-html');
  const session = await startSession({ dir, csp: true });
  try {
    const { scripts } = await check(session, `${session.url}index.html`, 'package-plain-html');
    // The recipe loads only the elements on the page (headlab/autoload): the entry of each of its
    // tags and the shared chunks, never headlab.js (every element) nor another element's entry.
    const tags = new Set(
      [...fs.readFileSync(path.join(dir, 'index.html'), 'utf8').matchAll(/<headlab-([a-z-]+)/g)].map((m) => `${m[1]}.js`),
    );
    // An element's entry point has no hash in its name; the bundle's chunks (shared code, a module's
    // loader, a module's JS face loaded with it: web/browser-core.js) all carry one.
    const entries = new Set(scripts.filter((f) => !/^(chunk-|headlab[-_])/.test(f) && !/-[A-Z0-9]{8}\.js$/.test(f)));
    assert.deepEqual([...entries].sort(), ['autoload.js', ...tags].sort(), scripts.join(' '));
    console.log(`# plain-html: ${scripts.length} script requests (${[...entries].join(', ')} and chunks)`);
  } finally {
    await session.close();
  }
});

test("examples/own-model with the installed tarball: `npx headlab model inspect` reads the folder's model offline, the bytes of the native CLI", () => {
  const dir = example('own-model');
  const args = ['model', 'inspect', '--config', 'model.json', '--weights', 'model.safetensors'];
  const viaNpx = execFileSync('npx', ['--offline', '--no-install', 'headlab', ...args], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const native = execFileSync(path.join(root, 'build/native/cli/headlab'), args, { cwd: dir, encoding: 'utf8' });
  assert.equal(viaNpx, native);
  assert.ok(JSON.parse(viaNpx).parameters > 0);
});

test('examples/own-model with the installed tarball: the model from the folder, every transformer figure computes under the strict CSP', async () => {
  const dir = example('own-model');
  const session = await startSession({ dir, csp: true });
  try {
    const page = await session.newPage({ viewport: { width: 1000, height: 900 } });
    await page.goto(`${session.url}index.html`);
    const tags = [
      'headlab-transformer-attention',
      'headlab-transformer-attribution',
      'headlab-transformer-patching',
      'headlab-transformer-ablation',
      'headlab-transformer-circuits',
    ];
    // Not busy and summarised: a figure whose numbers come from its worker (circuits, a new prompt)
    // renders its waiting state (an empty summary) before it asks the worker and before the answer.
    // The figures are read in the same task as the wait's last check: a figure that asks its worker
    // again (a new key) shows its waiting state between two reads taken in separate tasks.
    const shown = await (
      await page.waitForFunction(
        (t) => {
          const figures = t.map((tag) => document.querySelector(tag));
          // currentModel is the source's as soon as it is ready; the summary is the last render's, which
          // says "loading" until the render the source's change requested (a frame later) has run.
          if (!figures.every((e) => e?.currentModel && e.renderCount > 0 && !e.busy && e.summary !== '' && !/is loading/.test(e.summary)))
            return false;
          return {
            labels: figures.map((e) => e.currentModel.label),
            summaries: figures.map((e) => e.summary),
            // The nested figure found its model without a model attribute.
            nested: document.querySelector('#again headlab-transformer-circuits').currentModel !== null,
          };
        },
        tags,
        { timeout: 120_000 },
      )
    ).jsonValue();
    assert.deepEqual(new Set(shown.labels), new Set(['model.safetensors']));
    for (const s of shown.summaries) assert.ok(s.length > 40 && !/NaN|undefined/.test(s), JSON.stringify(shown));
    assert.ok(shown.nested);
    await screenshot(page, 'package-own-model');
    assert.deepEqual(page.problems, []);
  } finally {
    await session.close();
  }
});

/** The Astro recipe of docs/embedding.md ("Astro 5 with MDX"): its layout and its MDX post, as printed. */
function docsRecipe() {
  const doc = fs.readFileSync(path.join(root, 'docs/embedding.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Astro 5 with MDX'), doc.indexOf('### Types, JSX and the manifest'));
  const block = (lang) => {
    const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section);
    assert.ok(m, `docs/embedding.md: no \`\`\`${lang} block in the Astro recipe`);
    return m[1];
  };
  return { layout: block('astro'), mdx: block('mdx') };
}

const vite = path.join(root, 'node_modules/vite/bin/vite.js');

test('examples/vite with the installed tarball, built by Vite 7 with headlab/vite: .wasm, worker and weights emitted, every figure drawn without JavaScript, widgets compute under the strict CSP and go live with layout shift ≤ 0.01 at 360 and 1280 px', async () => {
  const dir = example('vite');
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const assets = fs.readdirSync(path.join(dir, 'dist/assets'));
  assert.ok(
    assets.some((f) => /^headlab_core[-.].*\.wasm$/.test(f)),
    assets.join(', '),
  );
  assert.ok(
    assets.some((f) => /^headlab_feature_recovery[-.].*\.wasm$/.test(f)),
    assets.join(', '),
  );
  assert.ok(
    assets.some((f) => /^headlab-worker-.*\.js$/.test(f)),
    assets.join(', '),
  );
  assert.ok(
    assets.some((f) => /^max-digit-seed0[-.].*\.json$/.test(f)),
    assets.join(', '),
  );
  // headlab/vite prerendered every figure into the built page, its sheets emitted beside it.
  const html = fs.readFileSync(path.join(dir, 'dist/index.html'), 'utf8');
  const figures = [...html.matchAll(/<(headlab-[a-z-]+)\b[^>]*>/g)].map((m) => m[1]).filter((t) => t !== 'headlab-value');
  assert.equal(
    [...html.matchAll(/<headlab-[a-z-]+\b[^>]*><template shadowrootmode="open">/g)].length,
    figures.length,
    'every figure prerendered',
  );
  for (const tag of new Set(figures))
    assert.ok(fs.existsSync(path.join(dir, `dist/headlab-snapshot/${tag}.css`)), `${tag}'s snapshot sheet`);
  const session = await startSession({ dir: path.join(dir, 'dist'), csp: true });
  try {
    await checkWithoutJavaScript(session, `${session.url}index.html`, 'package-vite');
    await check(session, `${session.url}index.html`, 'package-vite');
    // Going live over the snapshots, at both widths they are drawn for.
    for (const width of [1280, 360]) await checkLive(session, `${session.url}index.html`, 'package-vite', width);
  } finally {
    await session.close();
  }
});

test('examples/vite on the Vite 7 dev server (strict CSP header): widgets compute, the worker trains', async () => {
  const dir = example('vite');
  const { createServer } = await import(pathToFileURL(path.join(root, 'node_modules/vite/dist/node/index.js')).href);
  const server = await createServer({
    root: dir,
    configFile: path.join(dir, 'vite.config.js'),
    logLevel: 'warn',
    clearScreen: false,
    server: { host: '127.0.0.1', port: 0, strictPort: false, headers: { 'Content-Security-Policy': STRICT_CSP }, hmr: false },
  });
  await server.listen();
  const url = server.resolvedUrls.local[0];
  const session = await startSession({ dir, csp: true }); // the browser; pages come from Vite
  try {
    await check(session, `${url}index.html`, 'package-vite-dev', { origin: new URL(url).origin });
  } finally {
    await session.close();
    await server.close();
  }
});

const eleventy = path.join(root, 'node_modules/@11ty/eleventy/cmd.cjs');

test('examples/eleventy with the installed tarball, built by Eleventy 3 with headlab/eleventy: every figure drawn without JavaScript and out of its markdown <p>, widgets compute under the strict CSP and go live with layout shift ≤ 0.01 at 360 and 1280 px', async () => {
  const dir = example('eleventy');
  execFileSync(process.execPath, [eleventy, '--quiet'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // headlab/eleventy prerendered every figure of the markdown post as Eleventy wrote it, each out of
  // the <p> markdown-it put it in, its sheets in the output folder.
  const html = fs.readFileSync(path.join(dir, '_site/posts/attention-heads/index.html'), 'utf8');
  const figures = [...html.matchAll(/<(headlab-[a-z-]+)\b[^>]*>/g)].map((m) => m[1]).filter((t) => t !== 'headlab-value');
  assert.equal(figures.length, 5, figures.join(', '));
  assert.equal(
    [...html.matchAll(/<headlab-[a-z-]+\b[^>]*><template shadowrootmode="open">/g)].length,
    figures.length,
    'every figure prerendered',
  );
  assert.doesNotMatch(html, /<p>\s*<headlab-(?!value\b)/, 'a figure left in a <p>');
  for (const tag of new Set(figures))
    assert.ok(fs.existsSync(path.join(dir, `_site/headlab-snapshot/${tag}.css`)), `${tag}'s snapshot sheet`);
  const session = await startSession({ dir: path.join(dir, '_site'), csp: true });
  try {
    const url = `${session.url}posts/attention-heads/index.html`;
    await checkWithoutJavaScript(session, url, 'package-eleventy-example');
    const off = await session.newPage({ javaScriptEnabled: false });
    await off.goto(url);
    assert.deepEqual(await off.evaluate(misplacedFigures), []);
    await off.close();
    await check(session, url, 'package-eleventy-example');
    for (const width of [1280, 360]) await checkLive(session, url, 'package-eleventy-example', width);
  } finally {
    await session.close();
  }
});

/**
 * A copy of examples/astro with its dependencies — Astro and @astrojs/mdx from the registry (the
 * example's lock file; the npm cache serves repeats), which bring unified, remark, rehype and
 * @mdx-js/mdx — and headlab from the tarball; installed once for the tests of this file.
 */
function astroExample() {
  const dir = path.join(tmp, 'astro');
  if (fs.existsSync(path.join(dir, 'node_modules/headlab'))) return dir;
  fs.cpSync(path.join(root, 'examples/astro'), dir, { recursive: true });
  npm(['ci', '--prefer-offline'], dir);
  npm(['install', '--offline', '--ignore-scripts', '--no-save', tarball], dir);
  return dir;
}

test('examples/astro (Astro 5 + MDX) with the installed tarball: astro build, then every widget of the MDX post computes under the strict CSP and goes live with layout shift ≤ 0.01 at 360 and 1280 px', async () => {
  const dir = astroExample();
  // docs/embedding.md's own recipe beside the example's post: its layout and its MDX post, as printed.
  const recipe = docsRecipe();
  const { compile } = await import(pathToFileURL(path.join(dir, 'node_modules/@mdx-js/mdx/index.js')).href);
  await compile(recipe.mdx); // throws on an MDX syntax error (an ESM line with a comment after it)
  fs.writeFileSync(path.join(dir, 'src/layouts/Recipe.astro'), recipe.layout);
  fs.writeFileSync(path.join(dir, 'src/pages/posts/recipe.mdx'), recipe.mdx.replace('layouts/Post.astro', 'layouts/Recipe.astro'));
  const astro = path.join(dir, 'node_modules/astro/astro.js');
  execFileSync(process.execPath, [astro, 'build', '--silent'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const html = fs.readFileSync(path.join(dir, 'dist/posts/attention-heads/index.html'), 'utf8');
  // What the strict CSP would refuse: inline scripts, <style> elements, style attributes.
  assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle="/);
  // headlab/astro prerendered every figure: a declarative shadow root and a light-DOM figure each.
  const figures = [...html.matchAll(/<(headlab-[a-z-]+)\b[^>]*>/g)].map((m) => m[1]).filter((t) => t !== 'headlab-value');
  assert.ok(figures.length >= 5, figures.join(', '));
  assert.equal(
    [...html.matchAll(/<headlab-[a-z-]+\b[^>]*><template shadowrootmode="open">/g)].length,
    figures.length,
    'every figure prerendered',
  );
  // The Markdown post (src/pages/posts/in-markdown.md): Astro's markdown writes a figure on a line of
  // its own as raw HTML in a <p> (MDX makes it a block of its own); headlab/astro took it out.
  const md = fs.readFileSync(path.join(dir, 'dist/posts/in-markdown/index.html'), 'utf8');
  assert.doesNotMatch(md, /<p>\s*<headlab-(?!value\b)/, 'a figure left in a <p>');
  assert.equal([...md.matchAll(/<headlab-[a-z-]+\b[^>]*><template shadowrootmode="open">/g)].length, 2, 'both figures prerendered');
  const session = await startSession({ dir: path.join(dir, 'dist'), csp: true });
  try {
    // Without JavaScript every figure shows its picture (the shadow root, at a height) and carries its summary.
    await checkWithoutJavaScript(session, `${session.url}posts/attention-heads/index.html`, 'package-astro');
    // The Markdown post parses with each figure whole (its light-DOM copy inside it) and no stray
    // empty paragraph, before the script runs and after the live widgets take over (no shift).
    await checkWithoutJavaScript(session, `${session.url}posts/in-markdown/index.html`, 'package-astro-md');
    for (const width of [1280, 360]) await checkLive(session, `${session.url}posts/in-markdown/index.html`, 'package-astro-md', width);
    for (const javaScriptEnabled of [false, true]) {
      const page = await session.newPage({ javaScriptEnabled });
      await page.goto(`${session.url}posts/in-markdown/index.html`);
      if (javaScriptEnabled)
        await page.waitForFunction(() => document.querySelector('headlab-value-swap')?.renderCount > 0, null, { timeout: 90_000 });
      assert.deepEqual(await page.evaluate(misplacedFigures), [], `in-markdown, JavaScript ${javaScriptEnabled ? 'on' : 'off'}`);
      assert.deepEqual(page.problems, []);
      await page.close();
    }
    await check(session, `${session.url}posts/attention-heads/index.html`, 'package-astro');
    for (const width of [1280, 360]) await checkLive(session, `${session.url}posts/attention-heads/index.html`, 'package-astro', width);
    // The docs' recipe registers every element of its post in the browser, and each draws.
    const post = await session.newPage();
    await post.goto(`${session.url}posts/recipe/index.html`);
    const tags = [...recipe.mdx.matchAll(/<(headlab-[a-z-]+)/g)].map((m) => m[1]);
    assert.ok(tags.length >= 3, recipe.mdx);
    await post.waitForFunction((t) => t.every((tag) => customElements.get(tag)), tags, { timeout: 120_000 });
    // Prerendered, the max-digit figures go live at the reader's first interaction: a key press.
    await post.keyboard.press('Shift');
    const drawn = await post.evaluate(() =>
      Promise.all([...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-')).map((e) => e.updateComplete)),
    );
    assert.deepEqual(
      drawn,
      tags.map(() => true),
    );
    assert.deepEqual(post.problems, []);
    await post.close();
    // The blog's serif reached the widgets' text and chart text through --headlab-font-family,
    // and its panel style through ::part(body).
    const page = await session.newPage();
    await page.goto(`${session.url}posts/attention-heads/index.html`);
    // The bars are drawn once the default weights have loaded.
    await page.waitForFunction(() => document.querySelector('headlab-attention-bars')?.shadowRoot.querySelector('svg text'), null, {
      timeout: 120_000,
    });
    const look = await page.evaluate(() => {
      const bars = document.querySelector('headlab-attention-bars').shadowRoot;
      const swap = document.querySelector('headlab-value-swap').shadowRoot.querySelector('[part="body"]');
      return {
        text: getComputedStyle(bars.querySelector('.body')).fontFamily,
        chart: getComputedStyle(bars.querySelector('svg text')).fontFamily,
        panel: getComputedStyle(swap).borderLeftWidth,
        title: getComputedStyle(bars.querySelector('[part~="title"]')).fontVariantCaps,
      };
    });
    assert.equal(look.title, 'small-caps');
    assert.match(look.text, /^Georgia/);
    assert.match(look.chart, /^Georgia/);
    assert.equal(look.panel, '4px');
    await screenshot(page, 'package-astro-theme');
  } finally {
    await session.close();
  }
});

/**
 * The page `url` with JavaScript at `width` px: every figure goes live (drawn by the widget, its
 * snapshot gone) with layout shift ≤ CLS_BUDGET after the first element is defined, no console
 * error; logs the requests, their gzip bytes and when the first widget went live.
 */
async function checkLive(session, url, shot, width) {
  const page = await session.newPage({ viewport: { width, height: 900 } });
  const bodies = [];
  page.on('response', (r) =>
    bodies.push(
      r.body().then(
        (b) => zlib.gzipSync(b).length,
        () => 0,
      ),
    ),
  );
  await page.addInitScript(layoutShiftProbe);
  await page.addInitScript(firstLiveProbe);
  await page.goto(url);
  await reachMaxDigit(page);
  await figuresLive(page);
  // The frame after: a shift of the last render is reported by then.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
  const r = await readShifts(page);
  const gzip = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
  console.log(
    `# ${shot} at ${width} px: ${bodies.length} requests, ${gzip} B gzip; first live widget at ${r.firstLive?.toFixed(0)} ms; layout shift ${r.cls.toFixed(4)} after the first definition, ${r.before.toFixed(4)} before${r.shifts.length ? ` (${r.shifts.join('; ')})` : ''}`,
  );
  assert.ok(r.cls <= CLS_BUDGET, `${shot} at ${width} px: layout shift ${r.cls}: ${r.shifts.join('; ')}`);
  await screenshot(page, `${shot}-live-${width}`);
  assert.deepEqual(page.problems, []);
  await page.close();
}

test('headlab/rehype in markdown and MDX pipelines and headlab/eleventy: every figure drawn without JavaScript, the live widgets take over with layout shift ≤ 0.01', async () => {
  const dir = astroExample();
  // tests/browser/prerender-pipelines.mjs, run where unified, remark, rehype and @mdx-js/mdx are installed.
  fs.copyFileSync(path.join(root, 'tests/browser/prerender-pipelines.mjs'), path.join(dir, 'prerender-pipelines.mjs'));
  const out = path.join(dir, 'pipelines');
  fs.mkdirSync(path.join(out, 'md'), { recursive: true });
  // The second Eleventy page's model, beside it (examples/own-model's files).
  const second = path.join(out, 'eleventy/posts/second');
  fs.mkdirSync(second, { recursive: true });
  for (const f of ['model.safetensors', 'model.json']) fs.copyFileSync(path.join(root, 'examples/own-model', f), path.join(second, f));
  const r = JSON.parse(
    execFileSync(process.execPath, ['prerender-pipelines.mjs', out], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  assert.deepEqual(r.transforms, ['headlab']);
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(r.expression, {
    warnings: ['<headlab-value-swap> has an {expression} attribute: not prerendered (the live widget will show it)'],
    prerendered: false,
  });
  // The two figures of the post, each with its declarative shadow root and its light-DOM copy, alike
  // whether the pipeline handed them over as HTML text, parsed elements or MDX's JSX.
  assert.equal(r.raw.length, 2);
  for (const f of r.raw)
    assert.match(
      f,
      /^<headlab-[a-z-]+[^>]*><template shadowrootmode="open"><link rel="stylesheet" href="headlab-snapshot\/headlab-[a-z-]+\.css">[\s\S]*<\/template><div class="hl-snapshot" slot="hl-snapshot"><svg[\s\S]*<\/svg><p>.{20,}<\/p><\/div><\/headlab-/,
    );
  // Byte for byte: ids are counted per widget (widgets/base/ids.ts), hoisted styles named by content.
  assert.deepEqual(r.parsed, r.raw);
  assert.deepEqual(r.mdx, r.raw);
  // No figure left inside a <p> (a parser would close it at the light-DOM copy's <div>).
  assert.deepEqual(r.paragraphs, [0, 0, 0]);
  // Eleventy's pages, rendered at once: each figure, none in a <p>; its feed (not HTML) untouched.
  // The second page's model loaded from beside the written page (its weights named from the site's
  // root, its config from the page); its attention figure's canvas is a picture in the sheets' folder
  // (Eleventy's output, here the served root: ../../../../ from the page).
  assert.deepEqual(r.eleventy, [
    ['eleventy/posts/first/index.html', 2, 0],
    ['eleventy/posts/second/index.html', 3, 0],
  ]);
  const pictures = fs.readdirSync(path.join(dir, 'headlab-snapshot')).filter((f) => f.endsWith('.png'));
  assert.ok(pictures.length > 0, 'a canvas picture');
  assert.match(
    fs.readFileSync(path.join(second, 'index.html'), 'utf8'),
    new RegExp(`<img [^>]*src="(\\.\\./){4}headlab-snapshot/${pictures[0]}"`),
  );
  assert.equal(r.feed, '<headlab-value-swap></headlab-value-swap>');
  for (const tag of ['headlab-projection-ablation', 'headlab-value-swap']) {
    assert.ok(fs.existsSync(path.join(out, `md/headlab-snapshot/${tag}.css`)), tag);
    assert.ok(fs.existsSync(path.join(dir, `headlab-snapshot/${tag}.css`)), tag);
  }
  const session = await startSession({ dir, csp: true });
  try {
    for (const [name, file] of [
      ['package-rehype', 'pipelines/md/index.html'],
      ['package-eleventy', 'pipelines/eleventy/posts/first/index.html'],
      ['package-eleventy-second', 'pipelines/eleventy/posts/second/index.html'],
    ])
      await checkWithoutJavaScript(session, `${session.url}${file}`, name);
    for (const width of [1280, 360]) {
      await checkLive(session, `${session.url}pipelines/md/index.html`, 'package-rehype', width);
      await checkLive(session, `${session.url}pipelines/eleventy/posts/first/index.html`, 'package-eleventy', width);
    }
  } finally {
    await session.close();
  }
});
