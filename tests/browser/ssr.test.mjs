// Rendering without a browser (headlab/ssr, site/ssr/render.js; `headlab render`, site/ssr/cli.js):
//   - every element of every built page, rendered in Node, is the markup the live element draws
//     first in Chromium (its shadow DOM, its exported figure, its summary), after the
//     normalisations listed below — so a change to a widget's first render that one side does not
//     follow fails here;
//   - `headlab render` over examples/plain-html: without JavaScript every figure shows its picture
//     and summary; with it the live widget takes over with layout shift ≤ 0.01 and no flash, at
//     360 and 1280 px;
//   - `headlab render` over a page as markdown writes it: a figure alone in a <p> comes out of it;
//   - renderPage gives the same bytes for a page whatever was rendered before it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { figuresLive, misplacedFigures, root, screenshot, startSession } from './helpers.mjs';
import { layoutShiftProbe } from './layout-shift.mjs';

const site = path.join(root, 'build/site');
const { renderPage } = await import(path.join(root, 'dist/ssr.js'));
const { collect } = await import(path.join(root, 'site/ssr/snapshot-markup.js'));
const { stripSnapshots } = await import(path.join(root, 'dist/ssr-cli.js'));
// The page column the site build draws each element for (its snapshots are this renderer's).
const { siteColumn } = await import(path.join(root, 'site/snapshots.mjs'));

/** Built pages with headlab-* elements, relative to build/site. */
const PAGES = fs
  .readdirSync(site, { recursive: true })
  .filter((f) => f.endsWith('.html') && !f.startsWith('headlab') && !f.startsWith('assets'))
  .filter((f) => /<headlab-[a-z-]+/.test(fs.readFileSync(path.join(site, f), 'utf8')))
  .sort();

/**
 * What may differ between the two sides and why; everything else must be equal.
 *  - An empty class attribute (the same as none: happy-dom's classList.toggle(c, false) leaves one)
 *    and the order of attributes.
 *  - The number of background workers the seed grid says it will use: the machine's
 *    navigator.hardwareConcurrency, the reader's in the live widget (the SSR machine's count is
 *    no better a guess for the reader than Chromium's in the test).
 */
function normalise(s) {
  return (
    s
      // The order of an element's attributes carries nothing (markParts adds `part` after the
      // widget's own attributes in one DOM and before a later `hidden` in the other).
      .replace(/<([a-z][\w-]*)((?:\s+[^\s=>]+(?:="[^"]*")?)+)(\s*\/?)>/g, (_, tag, attrs, end) => {
        const list = attrs.match(/[^\s=>]+(?:="[^"]*")?/g).filter((a) => a !== 'class=""');
        return `<${tag}${list.length ? ' ' : ''}${list.sort().join(' ')}${end}>`;
      })
      // A colour in a style attribute as Chromium's CSSOM writes it (rgb()), happy-dom keeps the hex.
      .replace(
        /style="([^"]*)"/g,
        (_, css) =>
          `style="${css.replace(/#([0-9a-f]{6})\b/gi, (__, h) => `rgb(${parseInt(h.slice(0, 2), 16)}, ${parseInt(h.slice(2, 4), 16)}, ${parseInt(h.slice(4), 16)})`)}"`,
      )
      .replace(/in \d+ background workers?, \d+ seeds? at a time/g, 'in N background workers, N seeds at a time')
  );
}

/**
 * A scroll box's overflow as the live widget measures it (widgets/base/dom.ts markScrollBox):
 * `data-overflows` and `--hl-scroll-width` when its table is wider than it. Whether a table of text
 * overflows depends on the text laid out in the reader's fonts, which no renderer without them
 * knows (Node marks none); the still does the same by CSS in the reader's browser (the snapshot
 * sheet's size container and caption at most 100cqi, site/ssr/snapshot-markup.js STILL_CSS). Not
 * normalised away: an element that differs only by these is reported (`overflow`), and compared
 * without them so that everything else of it is still asserted. The attributes that make such a
 * box keyboard-scrollable (tabindex, role, aria-label) are not taken out: where markScrollBox adds
 * them (the widget did not) the still lacks them, and that fails.
 */
function withoutOverflowMarks(s) {
  return s.replace(/<div\b[^>]*\bclass="(?:[^"]*\s)?scroll(?:\s[^"]*)?"[^>]*>/g, (tag) =>
    tag
      .replace(/ data-overflows=""/, '')
      .replace(/--hl-scroll-width: [\d.]+px;\s?/, '')
      .replace(/ style=""/, ''),
  );
}

/**
 * The kinds whose every element on the built pages renders in Node exactly as Chromium draws it
 * first (after the normalisations above): a change to one side's first render fails here. The
 * others are reported, not asserted, until the renderer draws them alike (site/ssr/README.md says
 * why). The quiz is not compared: its content is its light DOM, already in the page.
 */
const EQUAL = new Set([
  'headlab-angle-dot',
  'headlab-attention-bars',
  'headlab-attention-patch',
  'headlab-attribution-patching',
  'headlab-circuit-faithfulness',
  'headlab-feature-recovery',
  'headlab-head-ablation',
  'headlab-head-contributions',
  'headlab-head-svd',
  'headlab-interventions',
  'headlab-logit-lens',
  'headlab-max-digit-mechanism',
  'headlab-max-digit-model',
  'headlab-path-patching',
  'headlab-projection-ablation',
  'headlab-qk-attribution',
  'headlab-query-key-canvas',
  'headlab-score-ramps',
  'headlab-seed-grid',
  'headlab-subspace-accuracy',
  'headlab-training-replay',
  'headlab-transformer-ablation',
  'headlab-transformer-attention',
  'headlab-transformer-attribution',
  'headlab-transformer-circuits',
  'headlab-transformer-composition',
  'headlab-transformer-model',
  'headlab-transformer-patching',
  'headlab-transformer-training',
  'headlab-value-swap',
]);

let session;
before(async () => {
  session = await startSession({ dir: site, csp: true });
});
after(async () => {
  await session?.close();
});

/**
 * Every element of every built page rendered in Node for a window `width` px wide (its first
 * drawing at that width) and drawn live in Chromium in a window that wide, compared part by part.
 * Returns the kinds compared and what differs: asserted, `differing` and `failing`; reported,
 * `notYet` (kinds not in `equal`) and `overflow` (elements alike but for their scroll boxes'
 * measured overflow, withoutOverflowMarks).
 */
async function compareAt(width, equal, colorScheme = 'light') {
  const kinds = new Set();
  const differing = [];
  const failing = [];
  const notYet = [];
  const overflow = [];
  for (const rel of PAGES) {
    const file = path.join(site, rel);
    const html = stripSnapshots(fs.readFileSync(file, 'utf8'));
    // Drawn in the light scheme only, or in both (the built pages name both: <meta
    // name="color-scheme" content="light dark">), the dark drawing beside the light one.
    const schemes = colorScheme === 'dark' ? ['light', 'dark'] : ['light'];
    const out = await renderPage(html, { url: file, widths: [width], columnWidth: siteColumn, keepRows: false, schemes });
    for (const e of out.errors) (equal.has(e.tag) ? failing : notYet).push(`${rel} <${e.tag}> id="${e.id}": ${e.message}`);
    // The SSR side, as the snapshot pass collects it (site/ssr/render.js keeps the items it wrote).
    const ssr = colorScheme === 'dark' ? out.captures[0].dark : out.items;
    assert.ok(ssr, `${rel}: drawn in the ${colorScheme} scheme`);
    const page = await session.newPage({ viewport: { width, height: 900 }, colorScheme });
    await page.goto(`${session.url}${rel}`);
    await page.waitForFunction(
      () => {
        for (const m of document.querySelectorAll('headlab-max-digit-model')) m.load?.();
        return [...document.querySelectorAll('*')]
          .filter((e) => e.localName.startsWith('headlab-') && e.shadowRoot)
          .every((e) => e.renderCount > 0 && !e.updatePending && !e.busy && !e.shadowRoot.querySelector('link[href*="snapshot/"]'));
      },
      null,
      { timeout: 120_000 },
    );
    const live = await page.evaluate(`(${collect})(document, ${width})`);
    await page.close();
    assert.equal(live.length, ssr.length, `${rel}: element count`);
    for (const [i, l] of live.entries()) {
      const s = ssr[i];
      assert.equal(s.tag, l.tag, `${rel}: element ${i}`);
      if (!l.html || !s.html) continue; // no snapshot on one side: an element failing in Node is in `failing` or `notYet`
      if (equal.has(l.tag)) kinds.add(l.tag);
      // A canvas's picture: its pixels' hash (the PNG encoders differ).
      // The light-DOM figure and summary are written from the first scheme's drawing only
      // (render.js): the dark drawing is compared by its shadow DOM and pictures.
      for (const part of colorScheme === 'dark' ? ['html', 'images'] : ['html', 'svg', 'summary', 'images']) {
        const rawA = part === 'images' ? s.images.map((p) => p.sum).join(' ') : s[part];
        const rawB = part === 'images' ? l.images.map((p) => p.sum).join(' ') : l[part];
        const a = normalise(rawA);
        const b = normalise(rawB);
        if (a !== b && normalise(withoutOverflowMarks(rawA)) === normalise(withoutOverflowMarks(rawB)))
          overflow.push(`${rel} #${i} <${l.tag}> ${part}`);
        else if (a !== b) {
          let at = 0;
          while (a[at] === b[at]) at++;
          (equal.has(l.tag) ? differing : notYet).push(
            `${rel} #${i} <${l.tag}> ${part} at ${at}:\n    node:     …${a.slice(Math.max(0, at - 80), at + 120)}\n    chromium: …${b.slice(Math.max(0, at - 80), at + 120)}`,
          );
        }
      }
    }
  }
  return { kinds, differing, failing, notYet, overflow };
}

/**
 * Window widths compared: a phone (the site's snapshots are drawn at 320, 360, 720, 1000 and 1120
 * px: site/snapshots.mjs), a tablet and a desktop. Each loads every page in Chromium once more
 * (about 20–30 s a width on CI's 2 cores).
 */
const COMPARED_WIDTHS = [360, 720, 1280];

/**
 * The dark scheme at two of them: the renderer draws each element again in the dark scheme's
 * colours (site/ssr/render.js), and the still must be what the live widget draws first for a
 * reader in dark mode.
 */
const DARK_WIDTHS = [360, 1280];

for (const [width, colorScheme] of [...COMPARED_WIDTHS.map((w) => [w, 'light']), ...DARK_WIDTHS.map((w) => [w, 'dark'])])
  test(`every element of every built page: the SSR markup equals what the live element draws first in Chromium (${width} px${colorScheme === 'dark' ? ', dark' : ''})`, async () => {
    assert.ok(PAGES.length >= 5, `pages: ${PAGES.join(', ')}`);
    const started = performance.now();
    const { kinds, differing, failing, notYet, overflow } = await compareAt(width, EQUAL, colorScheme);
    console.log(
      `ssr ${width} px (${((performance.now() - started) / 1000).toFixed(1)} s): not yet alike (not asserted):\n${notYet.map((d) => d.split('\n')[0]).join('\n')}\n` +
        `alike but for a scroll box's measured overflow (reported):\n${overflow.join('\n')}`,
    );
    assert.deepEqual(failing, []);
    assert.deepEqual(differing, []);
    assert.deepEqual([...kinds].sort(), [...EQUAL].sort(), 'every kind asserted equal is on a built page');
    console.log(`ssr ${width} px: ${kinds.size} kinds equal to the live first render: ${[...kinds].sort().join(', ')}`);
  });

test('built pages without JavaScript: each canvas still shows the picture drawn in the reader’s scheme, the panel its colour (light and dark)', async () => {
  const withPictures = PAGES.filter((rel) =>
    /<picture><source media="\(prefers-color-scheme: dark\)"/.test(fs.readFileSync(path.join(site, rel), 'utf8')),
  );
  assert.ok(withPictures.length >= 1, 'a page with a canvas drawn per scheme');
  for (const rel of withPictures)
    for (const colorScheme of ['light', 'dark']) {
      const page = await session.newPage({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 }, colorScheme });
      await page.goto(`${session.url}${rel}`);
      const shown = await page.evaluate(async () => {
        const roots = [...document.querySelectorAll('*')]
          .filter((e) => e.localName.startsWith('headlab-') && e.shadowRoot)
          .map((e) => e.shadowRoot);
        const pictures = roots.flatMap((r) => [...r.querySelectorAll('picture')]).filter((p) => p.querySelector('img').checkVisibility());
        await Promise.all(pictures.map((p) => p.querySelector('img').decode()));
        return {
          pictures: pictures.map((p) => ({
            shown: new URL(p.querySelector('img').currentSrc).pathname,
            light: new URL(p.querySelector('img').src).pathname,
            dark: new URL(p.querySelector('source').srcset, document.baseURI).pathname,
          })),
          panels: [
            ...new Set(
              roots.flatMap((r) =>
                [...r.querySelectorAll('.body')].filter((b) => b.checkVisibility()).map((b) => getComputedStyle(b).backgroundColor),
              ),
            ),
          ],
          // A shown shape painted by a gradient finds it in a shown copy (one in a hidden copy paints nothing).
          unpainted: roots.flatMap((r) =>
            [...r.querySelectorAll('[fill^="url(#"]')]
              .filter((n) => n.checkVisibility())
              .map((n) => /url\(#([\w-]+)\)/.exec(n.getAttribute('fill'))[1])
              .filter((id) => !r.getElementById(id)?.closest('svg')?.checkVisibility()),
          ),
          gradients: roots.reduce((n, r) => n + r.querySelectorAll('[fill^="url(#"]').length, 0),
        };
      });
      assert.ok(shown.pictures.length >= 1, `${rel} ${colorScheme}: pictures shown`);
      for (const p of shown.pictures) assert.equal(p.shown, p[colorScheme], `${rel} ${colorScheme}`);
      assert.ok(shown.gradients > 0, `${rel}: shapes painted by a gradient`);
      assert.deepEqual(shown.unpainted, [], `${rel} ${colorScheme}: gradients found only in a hidden copy`);
      assert.deepEqual(shown.panels, [colorScheme === 'dark' ? 'rgb(32, 32, 38)' : 'rgb(243, 243, 241)'], `${rel} ${colorScheme}: panels`);
      assert.deepEqual(page.problems, []);
      await page.close();
    }
});

/** An examples/plain-html copy with the package's dist/ where its page loads it, prerendered by `headlab render`. */
function renderedPlainHtml() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-render-'));
  fs.cpSync(path.join(root, 'examples/plain-html'), dir, { recursive: true });
  fs.mkdirSync(path.join(dir, 'node_modules/headlab'), { recursive: true });
  fs.cpSync(path.join(root, 'dist'), path.join(dir, 'node_modules/headlab/dist'), { recursive: true });
  const r = spawnSync(process.execPath, [path.join(root, 'dist/headlab-cli.cjs'), 'render', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, `headlab render: ${r.stderr}`);
  assert.match(r.stdout, /headlab render: [1-9]\d* elements on 1 pages/);
  return dir;
}

test('headlab render over examples/plain-html: without JavaScript every figure shows its picture, its chart text at the live size, and its summary (360 and 1280 px, light and dark)', async () => {
  const dir = renderedPlainHtml();
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  assert.doesNotMatch(html, /\sstyle="/, 'no inline style attribute (strict CSP)');
  const served = await startSession({ dir, csp: true });
  try {
    for (const width of [360, 1280])
      for (const colorScheme of ['light', 'dark']) {
        const page = await served.newPage({ javaScriptEnabled: false, viewport: { width, height: 900 }, colorScheme });
        await page.goto(`${served.url}index.html`);
        const figures = await page.evaluate(() =>
          [...document.querySelectorAll('*')]
            .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')
            .map((e) => ({
              tag: e.localName,
              // The declarative shadow root drawn, at a size: the picture.
              height: e.getBoundingClientRect().height,
              drawn: Boolean(e.shadowRoot?.querySelector('svg, table')),
              // The light-DOM copy: its SVG's title and the summary (a feed reader's, a search engine's).
              title: e.querySelector(':scope > .hl-snapshot svg title')?.textContent ?? '',
              summary: e.querySelector(':scope > .hl-snapshot p')?.textContent ?? '',
              // Each drawing's text zoom (--hl-text-zoom, written by the renderer) against the scale
              // it is drawn at here: `meet` scales by the smaller of width and height ratios.
              drawings: [...(e.shadowRoot?.querySelectorAll('svg[viewBox]') ?? [])]
                .filter((svg) => svg.getClientRects().length > 0 && svg.viewBox.baseVal.width > 0)
                .map((svg) => {
                  const r = svg.getBoundingClientRect();
                  const vb = svg.viewBox.baseVal;
                  return {
                    label: (svg.getAttribute('aria-label') ?? '').slice(0, 40),
                    width: r.width,
                    scale: Math.min(r.width / vb.width, r.height / vb.height),
                    zoom: Number(getComputedStyle(svg).getPropertyValue('--hl-text-zoom') || 1),
                  };
                }),
            })),
        );
        assert.ok(figures.length >= 3, JSON.stringify(figures));
        for (const f of figures) {
          assert.ok(f.drawn && f.height > 100, `${f.tag} at ${width} px ${colorScheme}: ${JSON.stringify(f)}`);
          assert.ok(f.title && f.summary.length > 20, `${f.tag}: light-DOM figure and summary: ${JSON.stringify(f)}`);
          // The snapshot's chart text at its CSS size, as the live widget draws it (widgets/base/dom.ts
          // fitSvgText: zoom 1 / scale below scale 1, else none), or the text jumps when it goes live.
          // Tolerance: the zoom is written to 3 decimals (±0.0005), and the renderer's widths are
          // whole px where Chromium's may be fractional (a relative 1 / width).
          for (const d of f.drawings) {
            const expected = d.scale < 1 ? 1 / d.scale : 1;
            assert.ok(
              Math.abs(d.zoom - expected) <= 0.0005 + expected / d.width,
              `${f.tag} at ${width} px: "${d.label}" drawn at scale ${d.scale.toFixed(4)}, text zoom ${d.zoom} (expected ${expected.toFixed(3)})`,
            );
          }
        }
        await screenshot(page, `ssr-plain-html-nojs-${width}-${colorScheme}`);
        assert.deepEqual(page.problems, []);
        await page.close();
      }
  } finally {
    await served.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * What each figure of the page shows in colour, for comparing a still with the live widget: per
 * headlab-* element, its panel's background and, for every element drawn in its shadow root
 * (form controls left out: the still's are disabled copies), the tag with its computed colour,
 * background, fill, stroke and border colour, in document order. Runs in the page.
 */
function paintsOf(document) {
  const controls = 'input, select, textarea, button, option';
  return [...document.querySelectorAll('*')]
    .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value' && e.shadowRoot)
    .map((e) => {
      const shown = [...e.shadowRoot.querySelectorAll('*')].filter(
        (n) => n.localName !== 'link' && !n.closest(controls) && n.checkVisibility({ visibilityProperty: true }),
      );
      const panel = shown.find((n) => n.classList.contains('body'));
      return {
        tag: e.localName,
        panel: panel ? getComputedStyle(panel).backgroundColor : null,
        paints: shown.map((n) => {
          const cs = getComputedStyle(n);
          return `${n.localName} ${cs.color} ${cs.backgroundColor} ${cs.fill} ${cs.stroke} ${cs.borderTopColor}`;
        }),
      };
    });
}

test('headlab render over examples/plain-html in dark mode: the stills have the dark theme’s colours, and going live changes none (360 and 1280 px)', async () => {
  const dir = renderedPlainHtml();
  // The same page naming no colour scheme: its widgets, and so its stills, follow the reader's.
  const noMeta = fs.readFileSync(path.join(dir, 'index.html'), 'utf8').replace(/<meta name="color-scheme"[^>]*>\n?/, '');
  assert.doesNotMatch(noMeta, /color-scheme/);
  const served = await startSession({ dir, csp: true });
  try {
    const darkPanel = 'rgb(32, 32, 38)'; // --hl-panel's dark arm, widgets/base/theme.ts
    for (const width of [360, 1280]) {
      const still = await served.newPage({ javaScriptEnabled: false, viewport: { width, height: 900 }, colorScheme: 'dark' });
      await still.goto(`${served.url}index.html`);
      const before = await still.evaluate(`(${paintsOf})(document)`);
      await still.close();
      const page = await served.newPage({ viewport: { width, height: 900 }, colorScheme: 'dark' });
      await page.goto(`${served.url}index.html`);
      await page.waitForFunction(() => customElements.get('headlab-attention-bars') !== undefined);
      await page.locator('headlab-attention-bars').hover();
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('*')]
            .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')
            .every(
              (e) => e.renderCount > 0 && !e.updatePending && !e.busy && !e.shadowRoot.querySelector('link[href*="headlab-snapshot/"]'),
            ),
        null,
        { timeout: 90_000 },
      );
      const live = await page.evaluate(`(${paintsOf})(document)`);
      await screenshot(page, `ssr-plain-html-live-${width}-dark`);
      assert.deepEqual(page.problems, []);
      await page.close();
      assert.equal(before.length, live.length);
      assert.ok(before.length >= 3);
      for (const [i, f] of before.entries()) {
        assert.equal(f.panel, darkPanel, `${f.tag} at ${width} px: the still's panel`);
        assert.equal(live[i].panel, darkPanel, `${f.tag} at ${width} px: the live panel`);
        assert.ok(f.paints.length > 20, `${f.tag}: ${f.paints.length} elements drawn`);
        const changed = f.paints.map((p, k) => [k, p, live[i].paints[k]]).filter(([, a, b]) => a !== b);
        assert.deepEqual(changed.slice(0, 5), [], `${f.tag} at ${width} px: colours changed going live (${changed.length} elements)`);
        assert.equal(f.paints.length, live[i].paints.length, `${f.tag} at ${width} px: elements drawn`);
      }
    }
    // Without the tag the stills follow the reader too (light and dark).
    fs.writeFileSync(path.join(dir, 'index.html'), noMeta);
    const r = spawnSync(process.execPath, [path.join(root, 'dist/headlab-cli.cjs'), 'render', dir, '--force'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(fs.readFileSync(path.join(dir, 'index.html'), 'utf8'), /<headlab-[a-z-]+ data-auto-scheme[\s>]/);
    for (const colorScheme of ['dark', 'light']) {
      const still = await served.newPage({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 }, colorScheme });
      await still.goto(`${served.url}index.html`);
      const panels = (await still.evaluate(`(${paintsOf})(document)`)).map((f) => f.panel);
      await still.close();
      const want = colorScheme === 'dark' ? darkPanel : 'rgb(243, 243, 241)';
      assert.deepEqual(
        panels,
        panels.map(() => want),
        `no color-scheme tag, ${colorScheme}`,
      );
    }
  } finally {
    await served.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('headlab render over examples/plain-html: with JavaScript the live widgets take over with layout shift ≤ 0.01 and no flash (360 and 1280 px, light; 360 px dark)', async () => {
  const dir = renderedPlainHtml();
  const served = await startSession({ dir, csp: true });
  try {
    // 360 px: the max-digit figure's tables overflow their scroll boxes there, each caption held
    // to the box's width (widgets/base/dom.ts markScrollBox), the case that once moved its rows.
    for (const [width, colorScheme] of [
      [1280, 'light'],
      [360, 'light'],
      [360, 'dark'],
    ]) {
      const page = await served.newPage({ viewport: { width, height: 900 }, colorScheme });
      await page.addInitScript(layoutShiftProbe);
      await page.addInitScript(() => {
        // A flash: the placeholder ("Loading the interactive figure…") shown while the snapshot is gone.
        window.__flash = [];
        const seen = () => {
          for (const e of document.querySelectorAll('*'))
            if (e.localName.startsWith('headlab-') && e.shadowRoot?.querySelector('.placeholder:not([hidden])'))
              window.__flash.push(e.localName);
          requestAnimationFrame(seen);
        };
        requestAnimationFrame(seen);
      });
      await page.goto(`${served.url}index.html`);
      // Behind its snapshot a max-digit figure loads its module at the reader's first interaction
      // (widgets/max-digit/loading.ts): the pointer moving onto it.
      await page.waitForFunction(() => customElements.get('headlab-attention-bars') !== undefined);
      await page.mouse.move(0, 0);
      await page.locator('headlab-attention-bars').hover();
      await figuresLive(page);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
      const r = await page.evaluate(() => {
        window.__takeShifts();
        return { cls: window.__cls, before: window.__clsBefore, shifts: window.__shifts, flash: [...new Set(window.__flash)] };
      });
      console.log(
        `plain-html rendered, live at ${width} px ${colorScheme}: CLS ${r.cls.toFixed(4)} from the widgets, ${r.before.toFixed(4)} before any was defined ${r.shifts.join('; ')}`,
      );
      assert.ok(r.cls <= 0.01, `${width} px ${colorScheme}: CLS ${r.cls.toFixed(4)}: ${r.shifts.join('; ')}`);
      assert.deepEqual(r.flash, [], 'placeholder shown (a flash) on the way to the live widget');
      await screenshot(page, `ssr-plain-html-live-${width}-${colorScheme}`);
      assert.deepEqual(page.problems, []);
      await page.close();
    }
  } finally {
    await served.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('headlab render over a page as markdown writes it: each figure alone in a <p> is taken out of it, its light-DOM copy inside it, no stray paragraph (JavaScript off and on)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-render-md-'));
  try {
    fs.mkdirSync(path.join(dir, 'node_modules/headlab'), { recursive: true });
    fs.cpSync(path.join(root, 'dist'), path.join(dir, 'node_modules/headlab/dist'), { recursive: true });
    // markdown-it's and remark's HTML for a post: an element whose tag it does not know, on a line
    // of its own, is raw HTML in a paragraph; two on adjacent lines share one. A number in a
    // sentence (<headlab-value>) stays in its paragraph.
    const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>A post from markdown</title>
<link rel="stylesheet" href="node_modules/headlab/dist/headlab.css">
<script type="module" src="node_modules/headlab/dist/autoload.js"></script>
</head>
<body>
<h1>A post from markdown</h1>
<p>An attention head compares a query with each key.</p>
<p><headlab-projection-ablation id="ablation" w-q="[[0,1],[1,0]]"></headlab-projection-ablation></p>
<p>The values decide what is read:</p>
<p>
<headlab-value-swap id="swap"></headlab-value-swap>
<headlab-value-swap id="swap-b" column-b="2"></headlab-value-swap>
</p>
<p>The first weight is <headlab-value source="ablation" name="weight_1" digits="2">about 0.33</headlab-value> (a name the figure does not bind: the text stays).</p>
</body>
</html>
`;
    fs.writeFileSync(path.join(dir, 'post.html'), page);
    const r = spawnSync(process.execPath, [path.join(root, 'dist/headlab-cli.cjs'), 'render', dir], { encoding: 'utf8' });
    assert.equal(r.status, 0, `headlab render: ${r.stderr}`);
    assert.match(r.stdout, /headlab render: 3 elements on 1 pages/);
    const html = fs.readFileSync(path.join(dir, 'post.html'), 'utf8');
    assert.doesNotMatch(html, /<p>\s*<headlab-(?!value\b)/, 'a figure left in a <p>');
    assert.match(html, /<p>The first weight is <headlab-value /, 'the number stays in its sentence');
    const served = await startSession({ dir, csp: true });
    try {
      for (const javaScriptEnabled of [false, true]) {
        const browser = await served.newPage({ javaScriptEnabled, viewport: { width: 1000, height: 900 } });
        await browser.goto(`${served.url}post.html`);
        if (javaScriptEnabled) await figuresLive(browser);
        assert.deepEqual(await browser.evaluate(misplacedFigures), [], `JavaScript ${javaScriptEnabled ? 'on' : 'off'}`);
        // The page's own paragraphs, no more: two of text and the sentence with the number.
        assert.equal(await browser.evaluate(() => document.querySelectorAll('body > p').length), 3);
        await screenshot(browser, `ssr-markdown-${javaScriptEnabled ? 'live' : 'nojs'}`);
        assert.deepEqual(browser.problems, []);
        await browser.close();
      }
    } finally {
      await served.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Where two texts first differ, with some context (for a failed equality of long pages). */
function firstDifference(a, b) {
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  return `at ${at}:\n  first:  …${a.slice(Math.max(0, at - 120), at + 120)}\n  second: …${b.slice(Math.max(0, at - 120), at + 120)}`;
}

test('renderPage is deterministic: two pages rendered in either order give the same bytes (pages, shared sheets, pictures)', async () => {
  // Two pages sharing a tag (the value swap: one sheet for both), with widgets that name the
  // elements of their shadow trees (labels, radio groups, field messages). A class of a hoisted
  // style numbered per process, an id drawn from Math.random() or counted per page, a sheet whose
  // rules follow the order of the pages, or attributes in the order the data arrived: each made
  // these differ.
  const pages = ['articles/feature-recovery-two-projections.html', 'articles/projections-matching-and-content.html'];
  const build = async (order) => {
    const perTag = new Map();
    const html = {};
    const images = new Map();
    let stylesheets = new Map();
    for (const rel of order) {
      const file = path.join(site, rel);
      const out = await renderPage(stripSnapshots(fs.readFileSync(file, 'utf8')), {
        url: file,
        widths: [360, 1000],
        columnWidth: siteColumn,
        perTag,
      });
      assert.deepEqual(out.errors, [], rel);
      html[rel] = out.html;
      stylesheets = out.stylesheets;
      for (const [name, bytes] of out.images) images.set(name, Buffer.from(bytes).toString('base64'));
    }
    return { html, stylesheets, images };
  };
  const first = await build(pages);
  const second = await build([...pages].reverse());
  for (const rel of pages) {
    assert.ok(/<template shadowrootmode="open">/.test(first.html[rel]), `${rel}: prerendered`);
    assert.ok(first.html[rel] === second.html[rel], `${rel} ${firstDifference(first.html[rel], second.html[rel])}`);
  }
  assert.deepEqual([...second.stylesheets.keys()].sort(), [...first.stylesheets.keys()].sort());
  for (const [tag, css] of first.stylesheets)
    assert.ok(css === second.stylesheets.get(tag), `${tag}.css ${firstDifference(css, second.stylesheets.get(tag))}`);
  assert.deepEqual(Object.fromEntries(second.images), Object.fromEntries(first.images));
});
