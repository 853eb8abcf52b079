// <headlab-circuit-faithfulness> on own-model.html under the strict CSP (faithfulness in the worker):
// its figure data is the native CLI's --faithfulness document for the same pairs and circuit, number
// for number; the summary and readout give the document's recovery, interval and leave-one-out rows;
// ticking a head by keyboard computes the grown circuit (never reading out the previous circuit's
// number meanwhile), and the last head of a circuit cannot be unticked; bad attributes are named
// with their bound; screenshots at 360, 700 and 1280 px, light and dark.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { figureScreenshots, namesBadAttributes } from './widget-fixtures.mjs';
import { cliAnalyzeShipped } from '../wasm/helpers.mjs';

const TAG = 'headlab-circuit-faithfulness';

/** `headlab model analyze --pairs-task induction --faithfulness <circuit>` of the shipped induction model, parsed. */
const cliFaithfulness = (circuit, flags = []) => cliAnalyzeShipped(['--pairs-task', 'induction', ...flags, '--faithfulness', circuit]);

/** The number as the figure writes it: `digits` decimals, a true minus sign. */
const fmt = (v, d) => {
  const text = v.toFixed(d);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text.replace('-', '−');
};

/** Waits until the figure holds the document of `circuit` (e.g. [[0, 0], [1, 1]]) and is idle. */
function settled(p, circuit) {
  return p.waitForFunction(
    ({ t, want }) => {
      const w = document.querySelector(t);
      const d = w?.figureData;
      return !w.busy && !w.updatePending && d && JSON.stringify(d.faithfulness.circuit) === want;
    },
    { t: TAG, want: JSON.stringify(circuit) },
  );
}

let session;
let page;
before(async () => {
  session = await startSession({ csp: true });
  page = await session.newPage();
  await page.goto(`${session.url}own-model.html`);
  await settled(page, [
    [0, 0],
    [1, 1],
  ]);
});
after(async () => {
  await session?.close();
});

const text = (p, selector) =>
  p.evaluate(({ t, s }) => document.querySelector(t).shadowRoot.querySelector(s).textContent, { t: TAG, s: selector });

test("the page's circuit: the CLI document, the recovery and each head left out in words, one interval row each", async () => {
  const data = await page.evaluate((t) => document.querySelector(t).figureData, TAG);
  const doc = cliFaithfulness('0.0 1.1');
  assert.deepEqual(data.faithfulness, doc);
  const r = doc.recovery;
  assert.deepEqual(data.recovery, { mean: r.mean, lower: r.lower, upper: r.upper, p_value: r.p_value });
  assert.deepEqual(
    data.leave_one_out,
    doc.leave_one_out.map((x) => ({ layer: x.layer, head: x.head, mean: x.mean, lower: x.lower, upper: x.upper })),
  );
  assert.equal(data.ablation, 'corrupted');
  const caption = await text(page, '.caption');
  assert.ok(caption.includes(`the circuit recovers ${fmt(r.mean, 3)} [${fmt(r.lower, 3)}, ${fmt(r.upper, 3)}]`), caption);
  for (const x of doc.leave_one_out)
    assert.ok(caption.includes(`L${x.layer} H${x.head} ${fmt(x.mean, 3)} [${fmt(x.lower, 3)}, ${fmt(x.upper, 3)}]`), caption);
  const costliest = doc.leave_one_out.reduce((a, b) => (b.mean < a.mean ? b : a));
  assert.ok(caption.endsWith(`Dropping L${costliest.layer} H${costliest.head} costs the most.`), caption);
  assert.match(
    await text(page, '.readout'),
    new RegExp(`^Recovered: ${fmt(r.mean, 3)} \\(95 % interval ${fmt(r.lower, 3)} to ${fmt(r.upper, 3)},`),
  );
  // Rows: the circuit and one per head left out, each an interval bar with two caps and a mean mark.
  const rows = await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelectorAll('.intervals svg rect').length, TAG);
  assert.equal(rows, 1 + doc.leave_one_out.length);
  const boxes = await page.evaluate(
    (t) =>
      [...document.querySelector(t).shadowRoot.querySelectorAll('.heads input')].map(
        (i) => `${i.dataset.layer}.${i.dataset.head}:${i.checked}`,
      ),
    TAG,
  );
  assert.deepEqual(boxes, ['0.0:true', '0.1:false', '0.2:false', '0.3:false', '1.0:false', '1.1:true', '1.2:false', '1.3:false']);
  assert.deepEqual(page.problems, []);
});

test("a head ticked by keyboard grows the circuit: the grown circuit's CLI document, no stale number meanwhile; the last head stays", async () => {
  // Record every readout the figure shows between the key press and the new document.
  await page.evaluate((t) => {
    const readout = document.querySelector(t).shadowRoot.querySelector('.readout');
    window.__readouts = [];
    window.__observer = new MutationObserver(() => window.__readouts.push(readout.textContent));
    window.__observer.observe(readout, { childList: true, characterData: true, subtree: true });
    document.querySelector(t).shadowRoot.querySelector('.heads input[data-layer="1"][data-head="3"]').focus();
  }, TAG);
  await page.keyboard.press('Space');
  const grown = [
    [0, 0],
    [1, 1],
    [1, 3],
  ];
  await settled(page, grown);
  const seen = await page.evaluate(() => {
    window.__observer.disconnect();
    return window.__readouts;
  });
  const before = cliFaithfulness('0.0 1.1').recovery;
  const doc = cliFaithfulness('0.0 1.1 1.3');
  assert.equal(await page.evaluate((t) => document.querySelector(t).getAttribute('circuit'), TAG), '0.0 1.1 1.3');
  assert.deepEqual((await page.evaluate((t) => document.querySelector(t).figureData, TAG)).faithfulness, doc);
  // While the worker computed, the readout said so; it never showed the two-head circuit's number as the new one's.
  assert.ok(seen.length >= 2 && seen[0].startsWith('Computing the recovery of L0 H0, L1 H1, L1 H3'), seen.join(' | '));
  assert.ok(!seen.slice(0, -1).some((s) => s.includes(fmt(before.mean, 3))), seen.join(' | '));
  assert.ok(seen.at(-1).startsWith(`Recovered: ${fmt(doc.recovery.mean, 3)} `), seen.join(' | '));
  // Down to one head: its box cannot be unticked (an empty circuit recovers nothing by definition).
  await page.evaluate((t) => document.querySelector(t).setAttribute('circuit', '1.1'), TAG);
  await settled(page, [[1, 1]]);
  const last = await page.evaluate((t) => {
    const box = document.querySelector(t).shadowRoot.querySelector('.heads input[data-layer="1"][data-head="1"]');
    return { checked: box.checked, disabled: box.disabled };
  }, TAG);
  assert.deepEqual(last, { checked: true, disabled: true });
  // One head: no leave-one-out rows (the circuit without it is empty).
  assert.deepEqual((await page.evaluate((t) => document.querySelector(t).figureData, TAG)).leave_one_out, []);
  await page.evaluate((t) => document.querySelector(t).setAttribute('circuit', '0.0 1.1'), TAG);
  await settled(page, [
    [0, 0],
    [1, 1],
  ]);
  assert.deepEqual(page.problems, []);
});

test('bad attributes are named with the field and bound', async () => {
  for (const [name, value, message] of [
    ['circuit', '0.9', /circuit="0\.9": the model has no head 0\.9 \(2 layers × 4 heads, numbered from 0\)/],
    ['circuit', 'L1H1', /circuit="L1H1": "L1H1" is not a layer\.head pair such as 1\.2/],
    ['circuit', '1.1 1.1', /circuit="1\.1 1\.1": head 1\.1 is named twice/],
    ['ablation', 'zero', /ablation="zero" must be corrupted or mean/],
    ['count', '2000', /count="2000" must be between 1 and 1024/],
  ]) {
    const was = await page.evaluate(({ t, name }) => document.querySelector(t).getAttribute(name), { t: TAG, name });
    await page.evaluate(({ t, name, value }) => document.querySelector(t).setAttribute(name, value), { t: TAG, name, value });
    await page.waitForFunction(({ t, message }) => new RegExp(message).test(document.querySelector(t).shadowRoot.textContent), {
      t: TAG,
      message: message.source,
    });
    // Getters never throw: state reads null while an attribute is bad.
    assert.equal(await page.evaluate((t) => document.querySelector(t).state, TAG), null);
    await page.evaluate(
      ({ t, name, was }) =>
        was === null ? document.querySelector(t).removeAttribute(name) : document.querySelector(t).setAttribute(name, was),
      {
        t: TAG,
        name,
        was,
      },
    );
  }
  await settled(page, [
    [0, 0],
    [1, 1],
  ]);
});

test('a circuit of edges: the CLI document, an edge ticked by keyboard, the cut rows, bad edges named; screenshots', async () => {
  const cliEdges = (edges) => cliAnalyzeShipped(['--pairs-task', 'induction', '--faithfulness-edges', edges]);
  /** Waits until the figure holds the document of `n` edges and is idle. */
  const edgesShown = (n) =>
    page.waitForFunction(
      ({ t, n }) => {
        const w = document.querySelector(t);
        return !w.busy && !w.updatePending && w.figureData?.faithfulness?.edges?.length === n;
      },
      { t: TAG, n },
    );
  await page.evaluate((t) => {
    const w = document.querySelector(t);
    w.removeAttribute('circuit');
    w.setAttribute('edges', '0.0>1.1:k 0.0>1.1:q');
  }, TAG);
  await edgesShown(2);
  let data = await page.evaluate((t) => document.querySelector(t).figureData, TAG);
  assert.deepEqual(data.faithfulness, cliEdges('0.0>1.1:k 0.0>1.1:q'));
  assert.deepEqual(data.edges, [
    [0, 0, 1, 1, 'q'],
    [0, 0, 1, 1, 'k'],
  ]);
  assert.deepEqual(data.circuit, [
    [0, 0],
    [1, 1],
  ]);
  const boxes = () =>
    page.evaluate((t) => {
      const root = document.querySelector(t).shadowRoot;
      return {
        headsHidden: root.querySelector('.heads:not(.edges)').hidden,
        edgesHidden: root.querySelector('.edges').hidden,
        edges: [...root.querySelectorAll('.edges input')].map((i) => `${i.value}:${i.checked}`),
      };
    }, TAG);
  assert.deepEqual(await boxes(), {
    headsHidden: true,
    edgesHidden: false,
    edges: ['0.0>1.1:q:true', '0.0>1.1:k:true', '0.0>1.1:v:false'],
  });
  // The value path ticked by keyboard: three edges, the CLI's document for them.
  await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.edges input[value="0.0>1.1:v"]').focus(), TAG);
  await page.keyboard.press('Space');
  await edgesShown(3);
  assert.equal(await page.evaluate((t) => document.querySelector(t).getAttribute('edges'), TAG), '0.0>1.1:q 0.0>1.1:k 0.0>1.1:v');
  const doc = cliEdges('0.0>1.1:v 0.0>1.1:q 0.0>1.1:k');
  data = await page.evaluate((t) => document.querySelector(t).figureData, TAG);
  assert.deepEqual(data.faithfulness, doc);
  // One row per cut edge below the circuit's, and the costliest cut named in words.
  const rows = await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelectorAll('.intervals svg rect').length, TAG);
  assert.equal(rows, 1 + 3);
  const costliest = doc.leave_one_out.reduce((a, b) => (b.mean < a.mean ? b : a));
  const [ls, hs, lr, hr, input] = costliest.edge;
  assert.ok((await text(page, '.caption')).endsWith(`Cutting L${ls} H${hs} → L${lr} H${hr} via ${input} costs the most.`));
  const bound = await page.evaluate((t) => document.querySelector(t).boundValue('without.0.0>1.1:k'), TAG);
  assert.equal(bound.value, doc.leave_one_out.find((x) => x.edge[4] === 'k').mean);
  await figureScreenshots(page, TAG, 'circuit-faithfulness-edges', '.intervals svg', screenshot);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
  for (const [attrs, message] of [
    [{ edges: '0.0>0.1:k' }, /in 0\.0>0\.1:k the sender must be in an earlier layer than the receiver/],
    [{ edges: '0.0-1.1:k' }, /"0\.0-1\.1:k" is not an edge such as 0\.1>1\.2:k/],
    [{ edges: '0.0>1.9:k' }, /the model has no head for 0\.0>1\.9:k \(2 layers × 4 heads/],
    [{ edges: '0.0>1.1:k', circuit: '0.0' }, /attribute edges="0\.0>1\.1:k" cannot be given with circuit="0\.0"/],
  ]) {
    assert.equal(await namesBadAttributes(page, TAG, attrs, message), null);
    await page.evaluate((t) => document.querySelector(t).removeAttribute('circuit'), TAG);
  }
  await page.evaluate((t) => {
    const w = document.querySelector(t);
    w.removeAttribute('edges');
    w.setAttribute('circuit', '0.0 1.1');
  }, TAG);
  await settled(page, [
    [0, 0],
    [1, 1],
  ]);
  const back = await boxes();
  assert.deepEqual([back.headsHidden, back.edgesHidden], [false, true]);
  assert.deepEqual(page.problems, []);
});

test('removed and inserted again, this figure and the ablation figure rebuild their head boxes, and a tick still acts', async () => {
  // A figure attached again reads the URL hash (share-state), which still holds the edges the test
  // above ticked: the test starts from a page without one, as a reader following a plain link would.
  await page.evaluate(() => history.replaceState(null, '', location.pathname));
  for (const [tag, attribute, from, to] of [
    [TAG, 'circuit', '0.0 1.1', '0.0 1.1 1.2'],
    ['headlab-transformer-ablation', 'heads', null, '1.2'],
  ]) {
    const was = await page.evaluate(({ tag, attribute }) => document.querySelector(tag).getAttribute(attribute), { tag, attribute });
    // Put back where it was: its content is built anew on connection, its model unchanged.
    await page.evaluate((tag) => {
      const w = document.querySelector(tag);
      const [parent, next] = [w.parentNode, w.nextSibling];
      w.remove();
      parent.insertBefore(w, next);
    }, tag);
    await page.waitForFunction((tag) => document.querySelector(tag).shadowRoot.querySelectorAll('.heads input').length === 8, tag);
    // Its drawing is in the new content too (the old one was patched in place, in the old, detached plot).
    if (tag === TAG)
      await page.waitForFunction((t) => document.querySelector(t).shadowRoot.querySelector('.intervals svg rect') !== null, tag);
    // The box of L1 H2 (unticked in both) ticked by a click: the attribute follows.
    await page.evaluate(
      (tag) => document.querySelector(tag).shadowRoot.querySelector('.heads input[data-layer="1"][data-head="2"]').click(),
      tag,
    );
    assert.equal(await page.evaluate(({ tag, attribute }) => document.querySelector(tag).getAttribute(attribute), { tag, attribute }), to);
    assert.equal(was, from);
    await page.evaluate(
      ({ tag, attribute, was }) =>
        was === null ? document.querySelector(tag).removeAttribute(attribute) : document.querySelector(tag).setAttribute(attribute, was),
      { tag, attribute, was },
    );
  }
  await settled(page, [
    [0, 0],
    [1, 1],
  ]);
  assert.deepEqual(page.problems, []);
});

test('screenshots at 360, 700 and 1280 px, light and dark: no sideways scroll, labels at least 11 px', async () => {
  // The page of the tests above, back in its default state: resized rather than loaded again.
  const p = page;
  await figureScreenshots(p, TAG, 'circuit-faithfulness', '.intervals svg', screenshot);
  assert.deepEqual(p.problems, []);
});
