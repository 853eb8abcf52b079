// <headlab-path-patching> on own-model.html under the strict CSP (path patching in the worker): its
// figure data is the native CLI's --path-patching document for the same pairs, number for number;
// the default input and cell are the document's largest effect; the readout and summary give the
// document's means, intervals and p-values; every path whose interval crosses 0 carries a stroke
// (and only those); the input's radio buttons and the arrow keys move the readout, a touch too; bad
// attributes are named with their bound; screenshots at 360, 700 and 1280 px, light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { figureScreenshots, frames, namesBadAttributes } from './widget-fixtures.mjs';
import { cliAnalyzeShipped } from '../wasm/helpers.mjs';

const TAG = 'headlab-path-patching';
const INPUTS = ['q', 'k', 'v'];

/** `headlab model analyze --pairs-task induction --path-patching` of the shipped induction model, parsed. */
const cliPath = (flags) => cliAnalyzeShipped(['--pairs-task', 'induction', ...flags, '--path-patching']);

/** The number as the figure writes it: `digits` decimals, a true minus sign. */
const fmt = (v, d) => {
  const text = v.toFixed(d);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text.replace('-', '−');
};
const crosses = (lo, hi) => lo <= 0 && hi >= 0 && lo < hi;

/** Waits until the figure holds the document of `count` pairs and is idle. */
function settled(p, count) {
  return p.waitForFunction(
    ({ t, count }) => {
      const w = document.querySelector(t);
      return w && !w.busy && !w.updatePending && w.figureData?.path_patching?.pairs === count;
    },
    { t: TAG, count },
  );
}

const readout = (p) => p.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.readout').textContent, TAG);

let session;
let page;
before(async () => {
  session = await startSession({ csp: true });
  page = await session.newPage();
  await page.goto(`${session.url}own-model.html`);
  await settled(page, 64);
});
after(async () => {
  await session?.close();
});

test('the CLI document; the largest effect shown first; readout, summary and strokes from the document', async () => {
  const doc = cliPath(['--count', '64', '--pairs-seed', '0']);
  const data = await page.evaluate((t) => document.querySelector(t).figureData, TAG);
  assert.deepEqual(data.path_patching, doc);
  // The default input and cell: the largest |mean| of any path and input.
  let best = [0, 0];
  doc.mean.forEach((row, e) => row.forEach((v, k) => Math.abs(v) > Math.abs(doc.mean[best[0]][best[1]]) && (best = [e, k])));
  const [e, k] = best;
  const [sl, sh, rl, rh] = doc.edges[e];
  assert.equal(data.input, INPUTS[k]);
  assert.deepEqual(
    [data.sender, data.receiver],
    [
      [sl, sh],
      [rl, rh],
    ],
  );
  assert.deepEqual(data.effect, { mean: doc.mean[e][k], lower: doc.lower[e][k], upper: doc.upper[e][k], p_value: doc.p_value[e][k] });
  assert.ok(
    (await readout(page)).startsWith(
      `L${sl} H${sh} → L${rl} H${rh} via ${INPUTS[k]}: mean effect ${fmt(doc.mean[e][k], 3)} (95 % interval ${fmt(doc.lower[e][k], 3)} to ${fmt(doc.upper[e][k], 3)}, p = `,
    ),
    await readout(page),
  );
  const caption = await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.caption').textContent, TAG);
  const crossing = doc.edges.filter((_, i) => crosses(doc.lower[i][k], doc.upper[i][k])).length;
  assert.ok(caption.includes(`${crossing} of ${doc.edges.length} paths have an interval that crosses 0`), caption);
  assert.ok(caption.includes(`the largest mean effects L${sl} H${sh} → L${rl} H${rh} ${fmt(doc.mean[e][k], 3)} [`), caption);
  // One stroke per crossing cell of the shown input: the lines drawn inside the grid's cells beyond the legend's and outline's.
  const strokes = await page.evaluate((t) => {
    const svg = document.querySelector(t).shadowRoot.querySelector('.grid svg');
    const cells = [...svg.querySelectorAll('rect[data-row]')].map((r) => r.getBBox());
    return [...svg.querySelectorAll('line')].filter((l) => {
      const x = (Number(l.getAttribute('x1')) + Number(l.getAttribute('x2'))) / 2,
        y = (Number(l.getAttribute('y1')) + Number(l.getAttribute('y2'))) / 2;
      return (
        Number(l.getAttribute('x1')) !== Number(l.getAttribute('x2')) &&
        Number(l.getAttribute('y1')) !== Number(l.getAttribute('y2')) &&
        cells.some((b) => x > b.x && x < b.x + b.width && y > b.y && y < b.y + b.height)
      );
    }).length;
  }, TAG);
  assert.equal(strokes, crossing);
  assert.deepEqual(page.problems, []);
});

test('the radio buttons switch the input, the arrow keys and a touch move the cell read out', async () => {
  const doc = cliPath(['--count', '64', '--pairs-seed', '0']);
  const radio = (input) =>
    page.evaluate(({ t, input }) => document.querySelector(t).shadowRoot.querySelector(`input[value="${input}"]`).click(), {
      t: TAG,
      input,
    });
  await radio('v');
  await frames(page);
  const state = await page.evaluate((t) => document.querySelector(t).state, TAG);
  // The value input's own largest path.
  const byV = doc.edges.map((_, e) => e).sort((a, b) => Math.abs(doc.mean[b][2]) - Math.abs(doc.mean[a][2]) || a - b)[0];
  assert.equal(state.input, 'v');
  assert.deepEqual([...state.sender, ...state.receiver], doc.edges[byV]);
  assert.equal(await page.evaluate((t) => document.querySelector(t).getAttribute('input'), TAG), 'v');
  // Keyboard: from L0 H2 → L1 H3, ArrowUp goes to the sender above (L0 H1), ArrowLeft to the receiver left (L1 H2).
  await page.evaluate((t) => {
    const w = document.querySelector(t);
    w.setAttribute('sender', '0.2');
    w.setAttribute('receiver', '1.3');
    w.shadowRoot.querySelector('.grid').focus();
  }, TAG);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowLeft');
  await frames(page);
  const edge = doc.edges.findIndex(([a, b, c, d]) => a === 0 && b === 1 && c === 1 && d === 2);
  assert.equal(
    await readout(page),
    `L0 H1 → L1 H2 via v: mean effect ${fmt(doc.mean[edge][2], 3)} (95 % interval ${fmt(doc.lower[edge][2], 3)} to ${fmt(doc.upper[edge][2], 3)}, p = ${doc.p_value[edge][2].toPrecision(2)}${crosses(doc.lower[edge][2], doc.upper[edge][2]) ? '; the interval crosses 0' : ''})`,
  );
  // Touch: a tap on row 3, column 0 reads out L0 H3 → L1 H0.
  const tap = await page.evaluate((t) => {
    const b = document.querySelector(t).shadowRoot.querySelector('.grid rect[data-row="3"][data-col="0"]').getBoundingClientRect();
    return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  }, TAG);
  await page.mouse.click(tap.x, tap.y);
  await frames(page);
  assert.match(await readout(page), /^L0 H3 → L1 H0 via v: /);
  assert.deepEqual(
    await page.evaluate((t) => [document.querySelector(t).getAttribute('sender'), document.querySelector(t).getAttribute('receiver')], TAG),
    ['0.3', '1.0'],
  );
  for (const name of ['input', 'sender', 'receiver'])
    await page.evaluate(({ t, name }) => document.querySelector(t).removeAttribute(name), { t: TAG, name });
  assert.deepEqual(page.problems, []);
});

test('bad attributes are named with the field and bound; getters do not throw', async () => {
  for (const [attrs, message] of [
    [{ input: 'z' }, /input="z" must be q, k or v/],
    [{ sender: '0.9', receiver: '1.1' }, /sender="0\.9": the model has no head 0\.9 \(2 layers × 4 heads, numbered from 0\)/],
    [{ sender: 'a', receiver: '1.1' }, /sender="a" is not a layer\.head pair such as 0\.1/],
    [{ sender: '1.0', receiver: '1.1' }, /no path from L1 H0 to L1 H1: a sender's layer must come before its receiver's/],
    [{ count: '0' }, /count="0" must be between 1 and 1024/],
  ]) {
    assert.equal(await namesBadAttributes(page, TAG, attrs, message), null);
    await page.evaluate(
      ({ t, names }) => {
        for (const n of names) document.querySelector(t).removeAttribute(n);
      },
      { t: TAG, names: Object.keys(attrs) },
    );
  }
  await settled(page, 64);
});

test('screenshots at 360, 700 and 1280 px, light and dark: no sideways scroll, labels at least 11 px', async () => {
  // The page of the tests above, back in its default state: resized rather than loaded again.
  const p = page;
  await figureScreenshots(p, TAG, 'path-patching', '.grid svg', screenshot);
  assert.deepEqual(p.problems, []);
});
