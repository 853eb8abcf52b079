// Prerendered snapshots (site/snapshots.mjs, drawn in Node by headlab/ssr) and the pages opened from disk:
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
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { root, screenshot, startSession } from './helpers.mjs';
import { layoutShiftProbe } from './layout-shift.mjs';
import { longestTask, TRACE_CATEGORIES } from './long-tasks.mjs';
import { elementsDefined } from './widget-fixtures.mjs';

const site = path.join(root, 'build/site');
const ARTICLES = fs
  .readdirSync(path.join(site, 'articles'))
  .filter((f) => f.endsWith('.html'))
  .sort()
  .map((f) => `articles/${f}`);
/** Budget of docs/embedding.md ("No layout shift"): a layout shift score a reader does not notice (web.dev calls ≤ 0.1 "good"). */
const CLS_BUDGET = 0.01;

/** headlab-* elements whose snapshot is a declarative shadow root (the quiz's light DOM is its own fallback). */
const snapshotElements = () =>
  [...document.querySelectorAll('*')].filter(
    (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-choice-quiz' && e.localName !== 'headlab-value',
  );

/**
 * The reader's first interaction with a max-digit page: the pointer moving onto the model panel
 * (behind the snapshots, that is what loads the max-digit module and weights,
 * widgets/max-digit/loading.ts). Pages without max-digit elements need none.
 */
async function firstInteraction(page) {
  const panel = page.locator('headlab-max-digit-model').first();
  if (await panel.count()) await panel.hover();
}

let session;
before(async () => {
  session = await startSession({ dir: site, csp: true });
});
after(async () => {
  await session?.close();
});

test('built articles: each widget carries a declarative shadow root and a light-DOM figure; no inline style attribute', () => {
  let count = 0;
  for (const page of ARTICLES) {
    const html = fs.readFileSync(path.join(site, page), 'utf8');
    assert.doesNotMatch(html, /\sstyle="/, `${page} has an inline style attribute (refused by style-src 'self')`);
    for (const m of html.matchAll(/<(headlab-[a-z-]+)\b[^>]*>/g)) {
      if (m[1] === 'headlab-choice-quiz' || m[1] === 'headlab-value') continue; // the quiz's content is its light DOM; a value is prose
      const after = html.slice(m.index + m[0].length, m.index + m[0].length + 200);
      assert.match(
        after,
        new RegExp(`^<template shadowrootmode="open"><link rel="stylesheet" href="(\\.\\./)*headlab/snapshot/${m[1]}\\.css">`),
        `${page}: <${m[1]}>`,
      );
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
      const boxes = await page.evaluate(
        `(${String(snapshotElements)})().map((e) => ({ tag: e.localName, h: e.getBoundingClientRect().height, shadow: !!e.shadowRoot?.querySelector('.body:not([hidden])') }))`,
      );
      assert.ok(boxes.length > 0, url);
      for (const b of boxes) assert.ok(b.shadow && b.h > 40, `${url} at ${width}: <${b.tag}> ${JSON.stringify(b)}`);
      // The notice is shown (no script to hide it).
      assert.equal(await page.locator('.hl-offline-notice').isVisible(), true);
    }
    await page.goto(`${session.url}${ARTICLES.find((a) => a.endsWith('max-digit-heads.html')) ?? ARTICLES[0]}`);
    await page.locator('headlab-attention-bars').first().scrollIntoViewIfNeeded();
    await screenshot(page, `snapshot-no-js-${width}`);
    await page.close();
  }
});

for (const width of [1280, 360]) {
  test(`with JavaScript under the strict CSP the live widgets replace the snapshots with layout shift ≤ ${CLS_BUDGET} at ${width} px`, async () => {
    const page = await session.newPage({ viewport: { width, height: 900 } });
    await page.addInitScript(layoutShiftProbe);
    const report = [];
    for (const url of ARTICLES) {
      await page.goto(`${session.url}${url}`);
      await firstInteraction(page);
      await page.waitForFunction(
        () => {
          // The unit-norm model of the max-digit article loads when its section nears the viewport.
          for (const m of document.querySelectorAll('headlab-max-digit-model[loading="lazy"]')) m.load?.();
          return [...document.querySelectorAll('*')]
            .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')
            .every((e) => e.renderCount > 0);
        },
        null,
        { timeout: 90_000 },
      );
      // Every snapshot swapped for its live widget and nothing left scheduled (the swaps go one per
      // frame), then one frame drawn after it, whose layout shifts are taken now: a state, not a time.
      // (A function, not a string: the strict CSP refuses eval, which a string predicate needs.)
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('*')]
            .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-choice-quiz' && e.localName !== 'headlab-value')
            .every((e) => !e.shadowRoot.querySelector('link[href*="headlab/snapshot/"]') && !e.updatePending),
        null,
        { timeout: 90_000 },
      );
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
      await page.evaluate(() => window.__takeShifts());
      const r = await page.evaluate(`({ cls: window.__cls, before: window.__clsBefore, shifts: window.__shifts,
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

/** A main-thread task longer than this is a "long task" (Long Tasks API), one a reader can feel as a stall. */
const LONG_TASK_MS = 50;

test('max-digit article: before the first interaction only the snapshots (no max-digit module, no weights); a hover brings the live widgets with no long main-thread task', async () => {
  const MAX_DIGIT = ARTICLES.find((a) => a.endsWith('max-digit-heads.html'));
  const report = [];
  for (const [scheme, width] of [
    ['light', 1280],
    ['dark', 1280],
    ['light', 360],
    ['dark', 360],
  ]) {
    const page = await session.newPage({ colorScheme: scheme, viewport: { width, height: 900 } });
    const fetched = [];
    page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
    await page.goto(`${session.url}${MAX_DIGIT}`, { waitUntil: 'networkidle' });
    // Every element defined (connected and upgraded: each has decided, synchronously, to wait for an interaction).
    await elementsDefined(page);
    // Before any interaction: every element defined, every figure its snapshot, nothing of the module.
    const idle = await page.evaluate(() => ({
      defined: !!customElements.get('headlab-attention-bars') && !!customElements.get('headlab-max-digit-model'),
      rendered: [...document.querySelectorAll('*')]
        .filter((e) => e.localName.startsWith('headlab-max-digit') || e.localName === 'headlab-attention-bars')
        .map((e) => e.renderCount),
      snapshots: [...document.querySelectorAll('headlab-max-digit-model, headlab-attention-bars, headlab-score-ramps')].every((e) =>
        e.shadowRoot.querySelector('link[href*="headlab/snapshot/"]'),
      ),
      placeholders: [...document.querySelectorAll('*')]
        .filter((e) => e.localName.startsWith('headlab-') && e.shadowRoot?.querySelector('.placeholder:not([hidden])'))
        .map((e) => e.localName),
    }));
    assert.ok(idle.defined && idle.snapshots, JSON.stringify(idle));
    assert.ok(
      idle.rendered.every((n) => n === 0),
      JSON.stringify(idle.rendered),
    );
    assert.deepEqual(idle.placeholders, []);
    assert.deepEqual(
      fetched.filter((f) => /headlab_max_digit|max-digit-seed0|\.wasm$/.test(f)),
      [],
      'before the first interaction',
    );
    // Scrolling is reading, not an interaction: the panel and the first figure come into view, still snapshots.
    // Until the scroll has been seen: an intersection observer made now reports #digits in view
    // after the page's own observers (notified in the order they were made) have had their turn.
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const digits = document.getElementById('digits');
          digits.scrollIntoView();
          const seen = new IntersectionObserver((entries) => {
            if (entries.some((e) => e.isIntersecting)) {
              seen.disconnect();
              resolve();
            }
          });
          seen.observe(digits);
        }),
    );
    assert.equal(await page.evaluate(() => document.getElementById('digits').renderCount), 0, 'scrolling loaded the model');
    await screenshot(page, `max-digit-before-interaction-${scheme}-${width}`);
    const boxes = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('*')]
          .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')
          .map((e) => {
            const r = e.getBoundingClientRect();
            return { id: e.id || e.localName, top: r.top + scrollY, height: r.height };
          }),
      );
    const before = await boxes();
    // The first interaction: the pointer onto the model panel. Time until every figure of the
    // seed-0 model is live (time to interactive after the first interaction).
    const browser = page.context().browser();
    // The light categories only: disabled-by-default-devtools.timeline inflates script time several-fold (bench/widgets.bench.mjs).
    await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    const t0 = await page.evaluate(() => performance.now());
    await page.locator('headlab-max-digit-model').first().hover();
    await page.waitForFunction(
      () =>
        [
          ...document.querySelectorAll(
            'headlab-max-digit-mechanism, headlab-score-ramps, headlab-attention-bars, headlab-attention-patch, headlab-head-ablation, #subspace, #outputs, #corrections, #angle',
          ),
        ].every((w) => w.currentModel && w.renderCount > 0) && document.getElementById('digits').renderCount > 0,
      null,
      { timeout: 120_000 },
    );
    const t1 = await page.evaluate(() => performance.now());
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    // The page's own threads only, and the task's computation (tests/browser/long-tasks.mjs, as the
    // product sweep measures it): Chromium's own WebUI renderers and the document's first layout are no widget's work.
    const longest = longestTask(await browser.stopTracing());
    await page.waitForFunction(
      () =>
        ![...document.querySelectorAll('#digits, #mechanism, #ramps, #attention')].some((e) =>
          e.shadowRoot.querySelector('link[href*="headlab/snapshot/"]'),
        ),
    );
    const after = await boxes();
    // The first screen's figures (the panel, the mechanism, the score ramps) go live where and
    // as large as their snapshots stood (within a pixel): nothing the reader sees moves.
    for (const id of ['digits', 'mechanism', 'ramps']) {
      const [b, a] = [before.find((x) => x.id === id), after.find((x) => x.id === id)];
      assert.ok(Math.abs(a.top - b.top) <= 1, `#${id} moved: ${b.top} → ${a.top}`);
      if (id !== 'ramps') assert.ok(Math.abs(a.height - b.height) <= 1, `#${id} resized: ${b.height} → ${a.height}`);
    }
    const resized = after
      .filter((a, i) => Math.abs(a.height - before[i].height) > 1)
      .map((a) => `${a.id} ${before[after.indexOf(a)].height.toFixed(0)}→${a.height.toFixed(0)} px`);
    // The analysis of the weights runs in the worker, and the figures swap in a few per frame:
    // no main-thread task over LONG_TASK_MS of CPU from the interaction until every figure is live.
    assert.ok(
      longest.ms <= LONG_TASK_MS,
      `a main-thread task of ${longest.ms.toFixed(0)} ms CPU computation (task ${longest.taskMs.toFixed(0)} ms CPU, ${longest.wallMs.toFixed(0)} ms wall; ${longest.what}) after the first interaction`,
    );
    assert.equal(fetched.filter((f) => f.endsWith('headlab_max_digit.wasm')).length, 1);
    assert.equal(fetched.filter((f) => f.endsWith('max-digit-seed0.json')).length, 1);
    await screenshot(page, `max-digit-after-interaction-${scheme}-${width}`);
    report.push(
      `${scheme} ${width} px: resized on going live: ${resized.join(', ') || 'none'}; every figure live ${(t1 - t0).toFixed(0)} ms after the hover; longest main-thread task meanwhile ${longest.ms.toFixed(0)} ms CPU computation (task ${longest.taskMs.toFixed(0)} ms CPU, ${longest.wallMs.toFixed(0)} ms wall, ${longest.what}; load average ${os.loadavg()[0].toFixed(1)})`,
    );
    assert.deepEqual(page.problems, []);
    await page.close();
  }
  console.log(`max-digit article, first interaction:\n  ${report.join('\n  ')}`);
});

test('opened from disk (file://): the notice and every snapshot show; the only error is the refused module script', async () => {
  const page = await session.newPage({ viewport: { width: 1000, height: 900 } });
  for (const url of [...ARTICLES, 'index.html']) {
    page.problems.length = 0;
    await page.goto(pathToFileURL(path.join(site, url)).href);
    await page.waitForLoadState('load');
    const hasWidgets = /<headlab-/.test(fs.readFileSync(path.join(site, url), 'utf8'));
    assert.equal(await page.locator('.hl-offline-notice').isVisible(), hasWidgets, url);
    if (!hasWidgets) continue;
    const boxes = await page.evaluate(
      `(${String(snapshotElements)})().map((e) => ({ tag: e.localName, h: e.getBoundingClientRect().height, upgraded: e.renderCount !== undefined, body: !!e.shadowRoot?.querySelector('.body:not([hidden])') }))`,
    );
    for (const b of boxes) assert.ok(b.body && b.h > 40 && !b.upgraded, `${url}: ${JSON.stringify(b)}`);
    // Chromium's message for the refused module (CORS from origin 'null'), nothing else.
    assert.ok(
      page.problems.every((p) => /CORS|origin 'null'|ERR_FAILED|file:\/\//.test(p)),
      page.problems.join('\n'),
    );
    if (url.includes('max-digit')) await screenshot(page, 'snapshot-file-url');
  }
  await page.close();
});

test("max-digit article: the reader's first click, on a snapshot's (disabled) control, acts once the widget is live", async () => {
  const MAX_DIGIT = ARTICLES.find((a) => a.endsWith('max-digit-heads.html'));
  const page = await session.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${session.url}${MAX_DIGIT}`, { waitUntil: 'networkidle' });
  const fig = page.locator('#outputs');
  await fig.scrollIntoViewIfNeeded();
  // The snapshot's "corrections" radio (the copy drawn at this width): the figure shows
  // "outputs" until the click acts.
  assert.equal(await fig.evaluate((e) => e.renderCount), 0, 'still the snapshot');
  const box = await fig.evaluate((e) => {
    const radio = [...e.shadowRoot.querySelectorAll('input[type=radio][name=mode][value=corrections]')].find(
      (r) => r.getClientRects().length,
    );
    const r = radio.getBoundingClientRect();
    return { disabled: radio.disabled, x: r.x, y: r.y, width: r.width, height: r.height };
  });
  assert.ok(box.disabled, "the snapshot's copy is disabled");
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForFunction(() => {
    const e = document.getElementById('outputs');
    return e.renderCount > 0 && !e.updatePending && !e.busy && e.state?.mode === 'corrections';
  });
  const focused = await fig.evaluate((e) => {
    const f = e.shadowRoot.activeElement;
    return f ? `${f.name}=${f.value} ${f.checked}` : null;
  });
  assert.equal(focused, 'mode=corrections true', 'the live radio took the press, and the focus');
  assert.deepEqual(page.problems, []);
});
