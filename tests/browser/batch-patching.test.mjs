// <headlab-transformer-patching pairs-task="induction"> (batch patching in the worker, a few pairs
// per step) on own-model.html under the strict CSP: the figure data is the native CLI's document for
// the same pairs, number for number; the caption shows the worker's progress while it runs; the
// readout gives a cell's mean with its 95 % interval and p-value and follows the arrow keys; every
// cell whose interval crosses 0 carries a diagonal stroke (and only those); a bad attribute is
// named; screenshots at 360, 700 and 1280 px, light and dark.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, screenshot, startSession } from './helpers.mjs';
import { frames } from './widget-fixtures.mjs';
import { cliRun } from '../wasm/helpers.mjs';

const DATA = path.join(root, 'site/pages/data');
const TAG = 'headlab-transformer-patching';

let session;
let page;
before(async () => {
  session = await startSession({ csp: true });
  page = await session.newPage();
  await page.goto(`${session.url}own-model.html`);
  await page.waitForFunction((t) => {
    const w = document.querySelector(t);
    return w?.currentModel && w.renderCount > 0 && !w.busy;
  }, TAG);
});
after(async () => {
  await session?.close();
});

/** Sets the batch attributes and waits for the figure to hold that batch's document; the captions it showed meanwhile. */
async function showBatch(p, attrs) {
  return p.evaluate(
    async ({ t, attrs }) => {
      const w = document.querySelector(t);
      const caption = w.shadowRoot.querySelector('.caption');
      const seen = [];
      const observer = new MutationObserver(() => seen.push(caption.textContent));
      observer.observe(caption, { childList: true, characterData: true, subtree: true });
      for (const [k, v] of Object.entries(attrs)) w.setAttribute(k, v);
      await new Promise((resolve) => {
        const check = () => {
          const d = w.figureData;
          if (!w.busy && d?.batch_patching?.pairs === Number(attrs.count)) resolve();
          else requestAnimationFrame(check);
        };
        check();
      });
      observer.disconnect();
      return seen;
    },
    { t: TAG, attrs },
  );
}

test('batch mode: the CLI document, progress, interval readout, strokes on the cells whose interval crosses 0', async () => {
  const seen = await showBatch(page, { 'pairs-task': 'induction', count: '16', 'pairs-seed': '1' });
  assert.ok(
    seen.some((s) => /^Patching 16 induction prompt pairs in the worker/.test(s)),
    `the caption said what the worker was doing: ${JSON.stringify(seen)}`,
  );
  const cli = cliRun([
    'model',
    'analyze',
    '--config',
    path.join(DATA, 'induction-seed0.json'),
    '--weights',
    path.join(DATA, 'induction-seed0.safetensors'),
    '--pairs-task',
    'induction',
    '--count',
    '16',
    '--pairs-seed',
    '1',
  ]);
  assert.equal(cli.status, 0, cli.stderr);
  const data = await page.evaluate((t) => document.querySelector(t).figureData, TAG);
  assert.deepEqual(data.batch_patching, JSON.parse(cli.stdout));
  const grid = data.batch_patching.head_position;
  const lower = grid.lower.flat(2),
    upper = grid.upper.flat(2);
  // Crossing 0: including it with some width (a cell that is exactly 0 for every pair is not stroked).
  const crossing = lower.filter((lo, i) => lo <= 0 && upper[i] >= 0 && lo < upper[i]).length;
  const zero = lower.filter((lo, i) => lo === 0 && upper[i] === 0).length;
  assert.ok(crossing > 0 && crossing + zero < lower.length, `${crossing} of ${lower.length} intervals cross 0, ${zero} are [0, 0]`);
  const shown = await page.evaluate((t) => {
    const root = document.querySelector(t).shadowRoot;
    return {
      strokes: root.querySelectorAll('.layered svg line').length,
      caption: root.querySelector('.caption').textContent,
      controlsHidden: root.querySelector('.controls').hidden,
    };
  }, TAG);
  assert.equal(shown.strokes, crossing);
  assert.match(
    shown.caption,
    new RegExp(
      `^Over 16 induction prompt pairs .* ${crossing} of ${lower.length} cells have an interval that crosses 0 .*; ${zero} are exactly 0 for every pair`,
    ),
  );
  assert.equal(shown.controlsHidden, true);
  // The readout: the cell under the cursor, its mean, interval and p-value; the arrow keys move it.
  const readout = () => page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.readout').textContent, TAG);
  await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.layered[tabindex]').focus(), TAG);
  await frames(page);
  const first = await readout();
  assert.match(first, /^L0 H0, position 0: mean effect [−0-9.]+, 95 % interval [−0-9.]+ to [−0-9.]+, p = [0-9.]+/);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await frames(page);
  const moved = await readout();
  // Cell (row 1 = L0 H1, position 1): the readout's numbers are the document's, to the 4 decimals shown.
  const numbers = /^L0 H1, position 1: mean effect (\S+), 95 % interval (\S+) to (\S+), p = ([0-9.]+)/.exec(moved);
  assert.ok(numbers, moved);
  const [mean, lo, hi] = numbers.slice(1, 4).map((x) => Number(x.replace('−', '-')));
  const cell = (g) => g.flat()[1][1];
  assert.ok(Math.abs(mean - cell(grid.mean)) <= 5e-5, `${mean} vs ${cell(grid.mean)}`);
  assert.ok(Math.abs(lo - cell(grid.lower)) <= 5e-5, `${lo} vs ${cell(grid.lower)}`);
  assert.ok(Math.abs(hi - cell(grid.upper)) <= 5e-5, `${hi} vs ${cell(grid.upper)}`);
  assert.equal(/the interval crosses 0/.test(moved), cell(grid.lower) <= 0 && cell(grid.upper) >= 0 && cell(grid.lower) < cell(grid.upper));
  assert.deepEqual(page.problems, []);
});

test('batch mode: a count beyond 1024 is named with its bound', async () => {
  await page.evaluate((t) => document.querySelector(t).setAttribute('count', '2000'), TAG);
  await page.waitForFunction(
    (t) => /count="2000" must be an integer from 1 to 1024/.test(document.querySelector(t).shadowRoot.textContent),
    TAG,
  );
  await page.evaluate((t) => document.querySelector(t).setAttribute('count', '16'), TAG);
});

test('batch mode screenshots at 360, 700 and 1280 px, light and dark', async () => {
  const p = await session.newPage({ viewport: { width: 360, height: 900 } });
  await p.goto(`${session.url}own-model.html`);
  await p.waitForFunction((t) => document.querySelector(t)?.currentModel, TAG);
  await showBatch(p, { 'pairs-task': 'induction', count: '16', 'pairs-seed': '1' });
  for (const scheme of ['light', 'dark']) {
    for (const width of [360, 700, 1280]) {
      await p.emulateMedia({ colorScheme: scheme });
      await p.setViewportSize({ width, height: 900 });
      await frames(p);
      await screenshot(p.locator(TAG).first(), `batch-patching-${scheme}-${width}`);
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${scheme} ${width}: the page scrolls sideways by ${overflow} px`);
    }
  }
  assert.deepEqual(p.problems, []);
  await p.close();
});
