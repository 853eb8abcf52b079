// Prerendered snapshots (site/snapshots.mjs) and the pages opened from disk:
//   - every widget of every built article carries its default state twice: a declarative
//     shadow root (the widget as rendered) and a light-DOM figure (SVG + summary); no inline
//     style attribute anywhere;
//   - without JavaScript each figure shows, at its final size;
//   - with JavaScript under the strict CSP the live widget replaces the snapshot without
//     moving the page: cumulative layout shift ≤ 0.01 at 1280 and 360 px;
//   - opened from its file:// URL (module scripts refused), each article shows the notice
//     and every snapshot, with no error beyond the refused module load.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { root, screenshot, startSession } from './helpers.mjs';

const site = path.join(root, 'build/site');
const ARTICLES = fs.readdirSync(path.join(site, 'articles')).filter((f) => f.endsWith('.html')).sort().map((f) => `articles/${f}`);
/** Budget of the issue: a layout shift score a reader does not notice (web.dev calls ≤ 0.1 "good"). */
const CLS_BUDGET = 0.01;

/** headlab-* elements whose snapshot is a declarative shadow root (the quiz's light DOM is its own fallback). */
const snapshotElements = () => [...document.querySelectorAll('*')]
  .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-choice-quiz' && e.localName !== 'headlab-value');

let session;
before(async () => { session = await startSession({ dir: site, csp: true }); });
after(async () => { await session?.close(); });

test('built articles: each widget carries a declarative shadow root and a light-DOM figure; no inline style attribute', () => {
  let count = 0;
  for (const page of ARTICLES) {
    const html = fs.readFileSync(path.join(site, page), 'utf8');
    assert.doesNotMatch(html, /\sstyle="/, `${page} has an inline style attribute (refused by style-src 'self')`);
    for (const m of html.matchAll(/<(headlab-[a-z-]+)\b[^>]*>/g)) {
      if (m[1] === 'headlab-choice-quiz' || m[1] === 'headlab-value') continue;  // the quiz's content is its light DOM; a value is prose
      const after = html.slice(m.index + m[0].length, m.index + m[0].length + 200);
      assert.match(after, new RegExp(`^<template shadowrootmode="open"><link rel="stylesheet" href="(\\.\\./)*headlab/snapshot/${m[1]}\\.css">`), `${page}: <${m[1]}>`);
      count++;
    }
    // Light-DOM copies: an SVG figure with its title and a text summary.
    const fallbacks = [...html.matchAll(/<div class="hl-snapshot" slot="hl-snapshot">([\s\S]*?)<\/div>/g)];
    assert.ok(fallbacks.length > 0, page);
    for (const [, inner] of fallbacks) assert.match(inner, /<svg[^>]*role="img"[^>]*>\s*<title>[^<]+<\/title>|<p>[^<]+<\/p>/, page);
  }
  assert.ok(count >= 15, `only ${count} snapshots`);
});

test('without JavaScript every figure shows its snapshot at its final size (1280 and 360 px)', async () => {
  for (const width of [1280, 360]) {
    const page = await session.newPage({ javaScriptEnabled: false, viewport: { width, height: 900 } });
    for (const url of ARTICLES) {
      await page.goto(`${session.url}${url}`);
      const boxes = await page.evaluate(`(${String(snapshotElements)})().map((e) => ({ tag: e.localName, h: e.getBoundingClientRect().height, shadow: !!e.shadowRoot?.querySelector('.body:not([hidden])') }))`);
      assert.ok(boxes.length > 0, url);
      for (const b of boxes) assert.ok(b.shadow && b.h > 40, `${url} at ${width}: <${b.tag}> ${JSON.stringify(b)}`);
      // The notice is shown (no script to hide it).
      assert.equal(await page.locator('.hl-offline-notice').isVisible(), true);
    }
    await page.goto(`${session.url}${ARTICLES.find((a) => a.includes('max-digit')) ?? ARTICLES[0]}`);
    await page.locator('headlab-attention-bars').first().scrollIntoViewIfNeeded();
    await screenshot(page, `snapshot-no-js-${width}`);
    await page.close();
  }
});

for (const width of [1280, 360]) {
  test(`with JavaScript under the strict CSP the live widgets replace the snapshots with layout shift ≤ ${CLS_BUDGET} at ${width} px`, async () => {
    const page = await session.newPage({ viewport: { width, height: 900 } });
    await page.addInitScript(() => {
      // Shifts before the first element is defined cannot come from a widget (the page is
      // static HTML then; the KaTeX web fonts arriving re-flow math): counted apart.
      window.__definedAt = Infinity;
      const define = customElements.define.bind(customElements);
      customElements.define = (...args) => { window.__definedAt = Math.min(window.__definedAt, performance.now()); return define(...args); };
      window.__cls = 0;
      window.__before = 0;
      window.__shifts = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          if (e.hadRecentInput) continue;
          if (e.startTime < window.__definedAt) { window.__before += e.value; continue; }
          window.__cls += e.value;
          window.__shifts.push(`${e.value.toFixed(4)}: ${e.sources.map((s) => (s.node?.nodeType === 3 ? s.node.parentElement : s.node)?.localName).join(' ')}`);
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    const report = [];
    for (const url of ARTICLES) {
      await page.goto(`${session.url}${url}`);
      await page.waitForFunction(() => [...document.querySelectorAll('*')]
        .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value').every((e) => e.renderCount > 0), null, { timeout: 90_000 });
      await page.evaluate(() => new Promise((r) => setTimeout(r, 500)));
      const r = await page.evaluate(`({ cls: window.__cls, before: window.__before, shifts: window.__shifts,
        left: (${String(snapshotElements)})().filter((e) => e.shadowRoot.querySelector('link[href*="headlab/snapshot/"]')).map((e) => e.localName) })`);
      assert.ok(r.cls <= CLS_BUDGET, `${url} at ${width} px: CLS ${r.cls.toFixed(4)} (${r.shifts.join('; ')})`);
      assert.deepEqual(r.left, [], `${url}: snapshot still shown`);
      report.push(`${url}: ${r.cls.toFixed(4)} from the widgets, ${r.before.toFixed(4)} before any was defined`);
    }
    console.log(`layout shift at ${width} px:\n  ${report.join('\n  ')}`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
}

test('opened from disk (file://): the notice and every snapshot show; the only error is the refused module script', async () => {
  const page = await session.newPage({ viewport: { width: 1000, height: 900 } });
  for (const url of [...ARTICLES, 'index.html']) {
    page.problems.length = 0;
    await page.goto(pathToFileURL(path.join(site, url)).href);
    await page.waitForLoadState('load');
    const hasWidgets = /<headlab-/.test(fs.readFileSync(path.join(site, url), 'utf8'));
    assert.equal(await page.locator('.hl-offline-notice').isVisible(), hasWidgets, url);
    if (!hasWidgets) continue;
    const boxes = await page.evaluate(`(${String(snapshotElements)})().map((e) => ({ tag: e.localName, h: e.getBoundingClientRect().height, upgraded: e.renderCount !== undefined, body: !!e.shadowRoot?.querySelector('.body:not([hidden])') }))`);
    for (const b of boxes) assert.ok(b.body && b.h > 40 && !b.upgraded, `${url}: ${JSON.stringify(b)}`);
    // Chromium's message for the refused module (CORS from origin 'null'), nothing else.
    assert.ok(page.problems.every((p) => /CORS|origin 'null'|ERR_FAILED|file:\/\//.test(p)), page.problems.join('\n'));
    if (url.includes('max-digit')) await screenshot(page, 'snapshot-file-url');
  }
  await page.close();
});
