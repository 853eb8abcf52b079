// <headlab-projection-ablation> on the article page, under the strict CSP: the
// draft's three single-projection edits, by mouse and by keyboard.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { changes, close, frames, openArticle } from './widget-fixtures.mjs';

// Entries are 2 × 2 products of 0/±1/2/−3 and one softmax of two scores: exact up
// to a few ulps, plus last-bit differences of exp between libms. 1e-12 is far above both.
const TOL = 1e-12;
// softmax([1, 0] / √2): the unablated first query row, from the formula (not the widget).
const a1 = 1 / (1 + Math.exp(-1 / Math.SQRT2));
const BASE_WEIGHTS = [a1, 1 - a1];

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

const TAG = 'headlab-projection-ablation';

/** Rows of the result table: { label, base, current, mark } with exact values from data-values. */
async function readRows(page) {
  return page.evaluate((tag) => {
    const root = document.querySelector(tag).shadowRoot;
    return [...root.querySelectorAll('.results tbody tr')].map((tr) => ({
      label: tr.cells[0].textContent,
      base: JSON.parse(tr.cells[1].dataset.values),
      current: JSON.parse(tr.cells[2].dataset.values),
      shown: tr.cells[2].querySelector('[aria-hidden]').textContent,
      mark: tr.cells[3].textContent,
    }));
  }, TAG);
}

function byLabel(rows) {
  const [query, dots, weights, v1, v2, reading] = rows;
  return { query, dots, weights, v1, v2, reading };
}

const open = (colorScheme) => openArticle(session, TAG, colorScheme);

for (const colorScheme of ['light', 'dark']) {
  test(`projection ablation: the draft's three edits by mouse (${colorScheme})`, async () => {
    const page = await open(colorScheme);
    const widget = page.locator(TAG);
    let r = byLabel(await readRows(page));
    close(assert, r.dots.current, [1, 0], TOL, 'unablated dot products q1·k');
    close(assert, r.weights.current, BASE_WEIGHTS, TOL, 'unablated weights');
    assert.equal(r.dots.shown, '[1, 0]');

    // Change only W_Q: dot products 1, 0 → 0, 1; keys and values untouched.
    await widget.getByRole('button', { name: 'Swap coordinates of WQ' }).click();
    await frames(page);
    r = byLabel(await readRows(page));
    close(assert, r.dots.current, [0, 1], TOL, 'dot products after swapping W_Q');
    close(assert, r.query.current, [0, 1], TOL, "q1' after swapping W_Q");
    close(assert, r.v1.current, [1, 0], TOL, 'v1 after swapping W_Q');
    close(assert, r.v2.current, [0, 1], TOL, 'v2 after swapping W_Q');
    assert.equal(r.dots.mark, 'changed');
    assert.equal(r.v1.mark, 'same');
    assert.equal(r.v2.mark, 'same');
    const inputs = widget.locator('input[type="number"]');
    assert.deepEqual(await Promise.all([0, 1, 2, 3].map((i) => inputs.nth(i).inputValue())), ['0', '1', '1', '0']);

    // Change only W_K (W_Q restored): the match reverses again, query unchanged.
    await widget.getByRole('button', { name: 'Swap coordinates of WK' }).click();
    await frames(page);
    r = byLabel(await readRows(page));
    close(assert, r.dots.current, [0, 1], TOL, 'dot products after swapping W_K');
    assert.equal(r.query.mark, 'same');
    assert.equal(r.dots.mark, 'changed');
    assert.equal(r.v1.mark, 'same');

    // Change only W_V = diag(2, −3): values [2, 0], [0, −3]; scores and weights exactly as before.
    await widget.getByRole('button', { name: 'WV = diag(2, −3)' }).click();
    await frames(page);
    r = byLabel(await readRows(page));
    close(assert, r.v1.current, [2, 0], TOL, 'v1 under W_V = diag(2, −3)');
    close(assert, r.v2.current, [0, -3], TOL, 'v2 under W_V = diag(2, −3)');
    close(assert, r.dots.current, [1, 0], TOL, 'dot products under W_V = diag(2, −3)');
    close(assert, r.weights.current, BASE_WEIGHTS, TOL, 'weights under W_V = diag(2, −3)');
    close(assert, r.reading.current, [2 * a1, -3 * (1 - a1)], TOL, 'reading under W_V = diag(2, −3)');
    assert.equal(r.v2.shown, '[0, −3]');
    assert.deepEqual([r.dots.mark, r.weights.mark, r.v1.mark, r.v2.mark], ['same', 'same', 'changed', 'changed']);

    // Typing one entry: W_V[1][1] = 5 makes v2 = [0, 5].
    const entry = widget.getByLabel('W_V (value projection) row 2, column 2');
    await entry.click();
    await entry.fill('5');
    await frames(page);
    r = byLabel(await readRows(page));
    close(assert, r.v2.current, [0, 5], TOL, 'v2 after typing 5');

    const last = (await changes(page)).at(-1);
    assert.deepEqual(last.w_v, [
      [2, 0],
      [0, 5],
    ]);
    close(assert, last.dot_products, [1, 0], TOL, 'change event dot products');
    await screenshot(widget, `projection-ablation-${colorScheme}`);
    assert.deepEqual(page.problems, []);
  });
}

test('projection ablation: keyboard only (Tab, Space, Enter, arrow keys)', async () => {
  const page = await open('light');
  const widget = page.locator(TAG);
  await widget.getByRole('button', { name: 'Swap coordinates of WQ' }).focus();
  await page.keyboard.press('Tab'); // → "Swap coordinates of W_K"
  await page.keyboard.press('Space');
  await frames(page);
  let r = byLabel(await readRows(page));
  close(assert, r.dots.current, [0, 1], TOL, 'dot products after W_K swap by keyboard');

  await page.keyboard.press('Tab'); // → "W_V = diag(2, −3)"
  await page.keyboard.press('Enter');
  await frames(page);
  r = byLabel(await readRows(page));
  close(assert, r.v1.current, [2, 0], TOL, 'v1 by keyboard');
  close(assert, r.v2.current, [0, -3], TOL, 'v2 by keyboard');
  close(assert, r.weights.current, BASE_WEIGHTS, TOL, 'weights by keyboard');

  // Query row radios: arrow key moves to x2, whose unablated dot products are [0, 1].
  await widget.getByRole('radio', { name: 'x₁ = [1, 0]' }).focus();
  await page.keyboard.press('ArrowRight');
  await frames(page);
  r = byLabel(await readRows(page));
  close(assert, r.query.base, [0, 1], TOL, 'q2 unablated');
  close(assert, r.dots.base, [0, 1], TOL, 'q2 dot products unablated');
  close(assert, r.v2.current, [0, -3], TOL, 'v2 with query x2');
  assert.equal((await changes(page)).at(-1).query, 2);
  assert.equal(await page.locator(TAG).getAttribute('query'), '2');
  await screenshot(widget, 'projection-ablation-keyboard');
  assert.deepEqual(page.problems, []);
});
