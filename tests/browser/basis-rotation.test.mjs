// <headlab-basis-rotation>: Q' = QR and K' = KR move, the scores stay within 1e-12,
// across angles set by keyboard and by mouse. The first article draws the change of basis on
// the query–key canvas instead, so this public element is tested on an author's page: the
// widget bundle alone with one script tag, under the strict CSP.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { bundleDir, changes, close, frames, recordChanges, rendered } from './widget-fixtures.mjs';

const PAGE = 'rotation.html';

/** The draft's criterion for "the score matrix is unchanged" (2-term dot products of O(1) numbers: ~1e-16 rounding). */
const SCORE_TOL = 1e-12;
/** Q' checked against Q·R formed here from cos/sin: same rounding scale as the scores. */
const COORD_TOL = 1e-12;

const TAG = 'headlab-basis-rotation';

/** Matrices shown in the widget (exact values from data-value), keyed by caption start, and the verdict. */
async function read(page) {
  return page.evaluate((tag) => {
    const root = document.querySelector(tag).shadowRoot;
    const tables = {};
    for (const t of root.querySelectorAll('table.matrix')) {
      tables[t.caption.textContent] = [...t.tBodies[0].rows].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)),
      );
    }
    const verdict = root.querySelector('.verdict');
    return {
      tables,
      maxDiff: Number(verdict.dataset.value),
      verdict: verdict.textContent,
      angle: root.querySelector('input[type=range]').valueAsNumber,
    };
  }, TAG);
}

function check(r) {
  const S = r.tables['Scores QKᵀ/√d_k (before)'];
  const S2 = r.tables['Scores Q′K′ᵀ/√d_k (after)'];
  S.forEach((row, i) => close(assert, S2[i], row, SCORE_TOL, `angle ${r.angle}: score row ${i + 1}`));
  assert.ok(r.maxDiff <= SCORE_TOL, `angle ${r.angle}: max |ΔS| = ${r.maxDiff}`);
  assert.match(r.verdict, /scores unchanged/);
  // Q' = Q R with R = [[c, s], [−s, c]] (core/projection_edit.hpp's plane rotation).
  const t = (r.angle * Math.PI) / 180,
    c = Math.cos(t),
    s = Math.sin(t);
  const rotate = ([x, y]) => [x * c - y * s, x * s + y * c];
  r.tables['Q (before)'].forEach((q, i) =>
    close(assert, r.tables['Q′ = QR (after)'][i], rotate(q), COORD_TOL, `angle ${r.angle}: q'${i + 1}`),
  );
  r.tables['K (before)'].forEach((k, i) =>
    close(assert, r.tables['K′ = KR (after)'][i], rotate(k), COORD_TOL, `angle ${r.angle}: k'${i + 1}`),
  );
}

/** Largest coordinate change |Q' − Q| (to show the coordinates really moved). */
function moved(r) {
  return Math.max(...r.tables['Q (before)'].flatMap((q, i) => q.map((x, j) => Math.abs(r.tables['Q′ = QR (after)'][i][j] - x))));
}

let dir, session;
before(async () => {
  dir = bundleDir({ [PAGE]: { body: '<h1>A post</h1>\n<headlab-basis-rotation id="rotation"></headlab-basis-rotation>' } });
  session = await startSession({ dir, csp: true });
});
after(async () => {
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

for (const colorScheme of ['light', 'dark']) {
  test(`basis rotation: keyboard steps the angle, scores stay fixed (${colorScheme})`, async () => {
    const page = await session.newPage({ colorScheme });
    await page.goto(`${session.url}${PAGE}`);
    await rendered(page, TAG);
    await recordChanges(page);
    let r = await read(page);
    assert.equal(r.angle, 30);
    check(r);
    assert.ok(moved(r) > 0.1, 'coordinates move at 30°');
    const slider = page.locator(TAG).getByRole('slider', { name: 'Rotation angle' });
    await slider.focus();
    for (const [key, angle] of [
      ['ArrowRight', 31],
      ['ArrowUp', 32],
      ['ArrowLeft', 31],
      ['End', 180],
      ['Home', -180],
      ['PageUp', -144],
    ]) {
      await page.keyboard.press(key);
      await frames(page);
      r = await read(page);
      assert.equal(r.angle, angle, `after ${key}`);
      check(r);
    }
    assert.ok(moved(r) > 0.1, 'coordinates move at −144°');
    assert.equal(await slider.getAttribute('aria-valuetext'), '-144 degrees'.replace('-', '−'));
    const detail = (await changes(page)).at(-1);
    assert.equal(detail.angle_degrees, -144);
    assert.ok(detail.max_score_difference <= SCORE_TOL);
    await screenshot(page.locator(TAG), `basis-rotation-${colorScheme}`);
    assert.deepEqual(page.problems, []);
  });
}

test('basis rotation: mouse on the slider and the angle attribute', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}${PAGE}`);
  await rendered(page, TAG);
  const slider = page.locator(TAG).getByRole('slider', { name: 'Rotation angle' });
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  await page.mouse.click(box.x + box.width * 0.9, box.y + box.height / 2);
  await frames(page);
  let r = await read(page);
  assert.ok(r.angle > 100, `clicking near the right end gives a large angle (got ${r.angle})`);
  check(r);
  await page.evaluate((tag) => {
    document.querySelector(tag).angle = 90;
  }, TAG);
  await frames(page);
  r = await read(page);
  assert.equal(r.angle, 90);
  check(r);
  // At 90°, q' = [−q_y, q_x]: the first query [1, 0.5] lands on [−0.5, 1].
  close(assert, r.tables['Q′ = QR (after)'][0], [-0.5, 1], COORD_TOL, 'q1 at 90°');
  // q'₁₁ shown exactly (1 at 0°), then rounded (0.616… at 30°: the rounded text aria-hidden beside
  // its 12-decimal copy), exactly again (kept in the two spans, no element made) and rounded
  // again: the text is the shown number once, and what a screen reader reads is the exact value.
  const cell = () =>
    page.evaluate((tag) => {
      const td = document.querySelector(tag).shadowRoot.querySelectorAll('table.matrix')[2].tBodies[0].rows[0].querySelector('td');
      const hidden = [...td.querySelectorAll('[aria-hidden="true"]')].map((x) => x.textContent);
      return {
        text: td.textContent,
        read: td.textContent.length && !hidden.length ? td.textContent : td.querySelector('.sr-only')?.textContent,
        hidden,
        value: td.dataset.value,
      };
    }, TAG);
  const exact = { text: '1', read: '1', hidden: [], value: '1' };
  for (const [angle, want] of [
    [0, exact],
    [30, null],
    [0, exact],
    [30, null],
  ]) {
    await page.evaluate(
      ([tag, a]) => {
        document.querySelector(tag).angle = a;
      },
      [TAG, angle],
    );
    await frames(page);
    const got = await cell();
    if (want) assert.deepEqual(got, want, `q'₁₁ at ${angle}°`);
    else
      assert.deepEqual(
        got,
        { text: '0.6160.616025403784', read: '0.616025403784', hidden: ['0.616'], value: '0.6160254037844387' },
        `q'₁₁ at ${angle}°`,
      );
  }
  assert.deepEqual(page.problems, []);
});

test('basis rotation at its size limit (docs/limits.md: 8 × 8): every score unchanged, coordinates 3–8 untouched; 9 rows refused with a message', async () => {
  const grid = (n, seed) =>
    Array.from({ length: n }, (_, i) => Array.from({ length: 8 }, (_, j) => Math.round(Math.sin(seed * 31 + i * 7 + j * 3) * 1000) / 500));
  const page = await session.newPage();
  await page.goto(`${session.url}${PAGE}`);
  await rendered(page, TAG);
  await page.evaluate(
    ([tag, x, q, k]) => {
      const e = document.querySelector(tag);
      e.setAttribute('x', JSON.stringify(x));
      e.setAttribute('w-q', JSON.stringify(q));
      e.setAttribute('w-k', JSON.stringify(k));
      e.angle = 47;
    },
    [TAG, grid(8, 1), grid(8, 2), grid(8, 3)],
  );
  await frames(page);
  const r = await read(page);
  assert.equal(r.tables['Q (before)'].length, 8);
  assert.equal(r.tables['Scores Q′K′ᵀ/√d_k (after)'][0].length, 8);
  assert.ok(r.maxDiff <= SCORE_TOL, `max |ΔS| = ${r.maxDiff}`);
  assert.match(r.verdict, /scores unchanged/);
  // R rotates coordinates 1 and 2 only: the other six columns of Q' are Q's, bit for bit.
  r.tables['Q (before)'].forEach((q, i) => assert.deepEqual(r.tables['Q′ = QR (after)'][i].slice(2), q.slice(2), `q'${i + 1}`));
  assert.equal(
    await page.evaluate((tag) => document.querySelector(tag).shadowRoot.querySelector('[role="alert"]')?.hidden ?? true, TAG),
    true,
  );
  await page.evaluate(([tag, x]) => document.querySelector(tag).setAttribute('x', JSON.stringify(x)), [TAG, grid(9, 1)]);
  const alert = page.locator(`${TAG} [role="alert"]`);
  await alert.waitFor({ state: 'visible' });
  assert.match(await alert.textContent(), /attribute x has 9 rows; the limit is 8/);
  assert.deepEqual(page.problems, []);
});
