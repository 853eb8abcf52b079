// <headlab-transformer-composition> on own-model.html under the strict CSP: its scores and baseline
// are the native CLI's `headlab model analyze --composition` bit for bit (composition is
// bit-identical natively and in WASM), its summary names the strongest pair against the baseline,
// the selects work from the keyboard, and screenshots at 360, 700 and 1280 px in light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { figureReady, frames } from './widget-fixtures.mjs';
import { cliAnalyzeShipped } from '../wasm/helpers.mjs';

const TAG = 'headlab-transformer-composition';

let session;
let page;
before(async () => {
  session = await startSession({ csp: true });
  page = await session.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${session.url}own-model.html`);
  await ready(page);
});
after(async () => {
  await session?.close();
});

const ready = (p) => figureReady(p, TAG);

test('composition figure: the CLI scores and baseline bit for bit, the strongest pair named against the baseline', async () => {
  const native = cliAnalyzeShipped(['--prompt', '0', '--sequences', '1', '--composition']).composition;
  const shown = await page.evaluate((tag) => {
    const w = document.querySelector(tag);
    return { data: JSON.parse(JSON.stringify(w.figureData)), summary: w.summary };
  }, TAG);
  assert.deepEqual(shown.data.composition, native);
  // The strongest edge over every kind: the largest (score − mean) / std of the CLI's matrices.
  const { mean, std } = native.baseline;
  let best = null;
  for (const k of ['q', 'k', 'v'])
    native[k].forEach((row, later) =>
      row.forEach((s, earlier) => {
        if (Math.floor(earlier / 4) < Math.floor(later / 4) && (best === null || s > best.s)) best = { k, s, later, earlier };
      }),
    );
  const strongest = shown.data.strongest;
  assert.equal(strongest.kind, best.k);
  assert.equal(strongest.later, native.heads[best.later]);
  assert.equal(strongest.earlier, native.heads[best.earlier]);
  assert.ok(Math.abs(strongest.sigmas - (best.s - mean) / std) < 1e-12);
  assert.match(
    shown.summary,
    /^The strongest is [QKV]-composition of L1 H\d with L0 H\d: 0\.\d+, \d\.\d standard deviations above the baseline/,
  );
});

test('composition figure: screenshots at 360, 700 and 1280 px, light and dark', async () => {
  for (const scheme of ['light', 'dark']) {
    for (const width of [360, 700, 1280]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: 900 });
      await frames(page);
      await screenshot(page.locator(TAG), `transformer-composition-${scheme}-${width}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${scheme} ${width}: the page scrolls sideways by ${overflow} px`);
    }
  }
  assert.deepEqual(page.problems, []);
});

test('composition figure: kind and head selects from the keyboard change the state and the drawing', async () => {
  const w = page.locator(TAG);
  const before = await page.evaluate((tag) => document.querySelector(tag).shadowRoot.querySelector('svg').innerHTML.length, TAG);
  await w.locator('select[name=kind]').focus();
  await page.keyboard.press('ArrowDown');
  await frames(page);
  const state = await page.evaluate((tag) => document.querySelector(tag).state, TAG);
  assert.equal(state.kind, 'q');
  assert.equal(state.strongest.kind, 'q');
  const after = await page.evaluate((tag) => document.querySelector(tag).shadowRoot.querySelector('svg').innerHTML.length, TAG);
  assert.notEqual(after, before);
  await w.locator('select[name=head]').focus();
  // The chosen head follows the strongest Q-composition's later head until the reader picks one.
  const from = (await page.evaluate((tag) => document.querySelector(tag).state, TAG)).head;
  await page.keyboard.press('ArrowDown');
  await frames(page);
  const head = (await page.evaluate((tag) => document.querySelector(tag).state, TAG)).head;
  assert.notEqual(head, from);
  const [l, h] = head.split('.');
  assert.match(await w.locator('.readout').textContent(), new RegExp(`^L${l} H${h} reads most from: L0 H\\d`));
});
