// <headlab-transformer-patching pairs-task="induction"> (batch patching in the worker, a few pairs
// per step) on own-model.html under the strict CSP: the figure data is the native CLI's document for
// the same pairs, number for number; the caption shows the worker's progress while it runs; the
// readout gives a cell's mean with its 95 % interval and p-value and follows the arrow keys; every
// cell whose interval crosses 0 carries a diagonal stroke (and only those); a bad attribute is
// named; screenshots at 360, 700 and 1280 px, light and dark.
// <headlab-attribution-patching> on the same page (attribution patching in the worker): its figure
// data is the CLI's --attribution-patching document for the same pairs, number for number; the
// summary gives Spearman ρ per group and names the largest disagreements with the document's
// numbers; the arrow keys and a touch move the readout through the points; a bad attribute is
// named; screenshots at the same widths.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { frames, namesBadAttributes } from './widget-fixtures.mjs';
import { cliAnalyzeShipped } from '../wasm/helpers.mjs';

const TAG = 'headlab-transformer-patching';
const ATTR = 'headlab-attribution-patching';

/** `headlab model analyze --attribution-patching` of the shipped induction model, parsed. */
const cliAttribution = (flags) => cliAnalyzeShipped([...flags, '--attribution-patching']);

/**
 * Sets `attrs` on the first `tag` of page `p` and waits until it is idle and holds its `key`
 * document (figureData[key]) of attrs.count pairs; returns the texts its caption showed meanwhile.
 */
async function showPairs(p, tag, key, attrs) {
  return p.evaluate(
    async ({ t, key, attrs }) => {
      const w = document.querySelector(t);
      const caption = w.shadowRoot.querySelector('.caption');
      const seen = [];
      const observer = new MutationObserver(() => seen.push(caption.textContent));
      observer.observe(caption, { childList: true, characterData: true, subtree: true });
      for (const [k, v] of Object.entries(attrs)) w.setAttribute(k, v);
      await new Promise((resolve) => {
        const check = () => {
          if (!w.busy && w.figureData?.[key]?.pairs === Number(attrs.count)) resolve();
          else requestAnimationFrame(check);
        };
        check();
      });
      observer.disconnect();
      return seen;
    },
    { t: tag, key, attrs },
  );
}

/** Sets attributes on the attribution figure and waits for the document of `count` pairs. */
const showAttribution = (p, attrs) => showPairs(p, ATTR, 'attribution_patching', attrs);

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
const showBatch = (p, attrs) => showPairs(p, TAG, 'batch_patching', attrs);

test('batch mode: the CLI document, progress, interval readout, strokes on the cells whose interval crosses 0', async () => {
  const seen = await showBatch(page, { 'pairs-task': 'induction', count: '16', 'pairs-seed': '1' });
  assert.ok(
    seen.some((s) => /^Patching 16 induction prompt pairs in the worker/.test(s)),
    `the caption said what the worker was doing: ${JSON.stringify(seen)}`,
  );
  const cli = cliAnalyzeShipped(['--pairs-task', 'induction', '--count', '16', '--pairs-seed', '1']);
  const data = await page.evaluate((t) => document.querySelector(t).figureData, TAG);
  assert.deepEqual(data.batch_patching, cli);
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

test('batch mode: a count beyond 1024 and an unknown task are named with their bound, as every batch figure names them', async () => {
  // The four batch figures read these attributes through one function (widgets/transformer/batch.ts), so one wording.
  await namesBadAttributes(page, TAG, { 'pairs-task': 'copying' }, /pairs-task="copying" must be induction or max-digit/);
  await page.evaluate((t) => document.querySelector(t).setAttribute('pairs-task', 'induction'), TAG);
  await page.evaluate((t) => document.querySelector(t).setAttribute('count', '2000'), TAG);
  await page.waitForFunction((t) => /count="2000" must be between 1 and 1024/.test(document.querySelector(t).shadowRoot.textContent), TAG);
  await page.evaluate((t) => document.querySelector(t).setAttribute('count', '16'), TAG);
});

test('attribution patching: the CLI document, ρ and disagreements in words, keyboard and touch readout', async () => {
  await showAttribution(page, { count: '16', 'pairs-seed': '1' });
  const data = await page.evaluate((t) => document.querySelector(t).figureData, ATTR);
  const doc = cliAttribution(['--pairs-task', 'induction', '--count', '16', '--pairs-seed', '1']);
  assert.deepEqual(data.attribution_patching, doc);
  const a = doc.agreement;
  assert.deepEqual(data.spearman, {
    nodes: a.nodes.spearman,
    edges: a.edges.spearman,
    q: a.edges.spearman_by_input.q,
    k: a.edges.spearman_by_input.k,
    v: a.edges.spearman_by_input.v,
  });
  // The summary's numbers are the document's at the 2 (ρ) and 3 (estimates) decimals shown.
  const fmt = (v, d) => {
    const text = v.toFixed(d);
    return /^-0\.?0*$/.test(text) ? text.slice(1) : text.replace('-', '−');
  };
  const caption = await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.caption').textContent, ATTR);
  const L = doc.nodes.estimate.length,
    H = doc.nodes.estimate[0].length,
    E = doc.edges.edges.length;
  assert.ok(caption.includes(`the ${L * H} heads ${fmt(a.nodes.spearman, 2)}, the ${3 * E} edges ${fmt(a.edges.spearman, 2)}`), caption);
  for (const k of ['q', 'k', 'v']) assert.ok(caption.includes(`${k} ${fmt(a.edges.spearman_by_input[k], 2)}`), caption);
  // The two largest disagreements among heads, then among edges, named with their estimate and real patch.
  const said = (g) => `estimate ${fmt(g.estimate, 3)}, actual ${fmt(g.actual, 3)}`;
  const named = [
    ...a.nodes.largest.slice(0, 2).map((g) => `head L${g.layer} H${g.head}: ${said(g)}`),
    ...a.edges.largest
      .slice(0, 2)
      .map((g) => `edge L${g.sender[0]} H${g.sender[1]} → L${g.receiver[0]} H${g.receiver[1]} via ${g.input}: ${said(g)}`),
  ];
  assert.ok(caption.endsWith(`Largest disagreements: ${named.join('; ')}.`), caption);
  // Every point is drawn: L·H crosses (two lines each) and 3E outlines, plus the four legend marks.
  const marks = await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelectorAll('.scatter [data-point]').length, ATTR);
  assert.equal(marks, 2 * L * H + 3 * E);
  // Keyboard: Home reads out head L0 H0; two ArrowRights, L0 H2; End, the last edge's v input.
  const readout = () => page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.readout').textContent, ATTR);
  await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.scatter[tabindex]').focus(), ATTR);
  await page.keyboard.press('Home');
  await frames(page);
  assert.equal(
    await readout(),
    `head L0 H0: estimate ${fmt(doc.nodes.estimate[0][0], 3)}, actual ${fmt(doc.nodes.actual[0][0], 3)} (mean over 16 pairs; gap ${fmt(Math.abs(doc.nodes.estimate[0][0] - doc.nodes.actual[0][0]), 3)})`,
  );
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await frames(page);
  assert.match(
    await readout(),
    new RegExp(`^head L0 H2: estimate ${fmt(doc.nodes.estimate[0][2], 3)}, actual ${fmt(doc.nodes.actual[0][2], 3)} `),
  );
  assert.equal(await page.evaluate((t) => document.querySelector(t).getAttribute('point'), ATTR), '2');
  await page.keyboard.press('End');
  await frames(page);
  const [sl, sh, rl, rh] = doc.edges.edges[E - 1];
  assert.match(
    await readout(),
    new RegExp(
      `^edge L${sl} H${sh} → L${rl} H${rh} via v: estimate ${fmt(doc.edges.estimate[E - 1][2], 3)}, actual ${fmt(doc.edges.actual[E - 1][2], 3)} `,
    ),
  );
  // Touch: a tap on a drawn point reads it out.
  const tap = await page.evaluate((t) => {
    const root = document.querySelector(t).shadowRoot;
    const mark = root.querySelector('.scatter [data-point="5"]');
    const box = mark.getBoundingClientRect();
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  }, ATTR);
  await page.mouse.click(tap.x, tap.y);
  await frames(page);
  assert.equal(await page.evaluate((t) => document.querySelector(t).getAttribute('point'), ATTR), '5');
  assert.match(await readout(), /^head L1 H1: /);
  assert.deepEqual(page.problems, []);
});

test('attribution patching: a bad attribute is named with its bound', async () => {
  for (const [name, value, message] of [
    ['pairs-task', 'copying', /pairs-task="copying" must be induction or max-digit/],
    ['count', '0', /count="0" must be between 1 and 1024/],
  ]) {
    await page.evaluate(({ t, name, value }) => document.querySelector(t).setAttribute(name, value), { t: ATTR, name, value });
    await page.waitForFunction(({ t, message }) => new RegExp(message).test(document.querySelector(t).shadowRoot.textContent), {
      t: ATTR,
      message: message.source,
    });
    await page.evaluate(({ t, name }) => document.querySelector(t).removeAttribute(name), { t: ATTR, name });
  }
});

/**
 * An author's pairs file for the shipped induction model (d_vocab 32): pair k is the block
 * A B C D E F repeated without its last token (the answer F), corrupted by G in the first block's
 * F (the wrong token), so only an induction head can tell them apart.
 */
function authorPairs() {
  const pairs = [];
  for (let k = 0; k < 6; k++) {
    const block = [k + 1, k + 3, k + 5, k + 7, k + 9];
    const [answer, wrong] = [k + 11, k + 12];
    pairs.push({ clean: [...block, answer, ...block], corrupted: [...block, wrong, ...block], answer, wrong });
  }
  return JSON.stringify({ pairs });
}

test("pairs: the four batch figures compute the CLI documents of the author's pairs file; an unreadable or bad file is named", async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-pairs-')), 'pairs.json');
  fs.writeFileSync(file, authorPairs());
  // Pair 1's corrupted prompt one token short: the core refuses the file, naming the pair.
  const [first] = JSON.parse(authorPairs()).pairs;
  const bad = JSON.stringify({ pairs: [first, { ...first, corrupted: first.corrupted.slice(0, 10) }] });
  await page.route('**/author-pairs/**', (route) => {
    const name = route.request().url().split('/').pop();
    if (name === 'pairs.json') return route.fulfill({ status: 200, contentType: 'application/json', body: fs.readFileSync(file, 'utf8') });
    if (name === 'bad.json') return route.fulfill({ status: 200, contentType: 'application/json', body: bad });
    return route.fulfill({ status: 404, body: 'not here' });
  });
  const cli = (flags) => cliAnalyzeShipped(['--pairs', file, ...flags]);
  const figures = [
    [TAG, 'batch_patching', cli([]), 'Batch patching'],
    [ATTR, 'attribution_patching', cli(['--attribution-patching']), 'Attribution patching'],
    ['headlab-path-patching', 'path_patching', cli(['--path-patching']), 'Path patching'],
    ['headlab-circuit-faithfulness', 'faithfulness', cli(['--faithfulness', '0.0 1.1']), 'Faithfulness'],
  ];
  for (const [tag, field, doc, what] of figures) {
    // The generator's attributes put aside (a pairs file cannot be given beside them), the file named.
    const was = await page.evaluate((t) => {
      const w = document.querySelector(t);
      const kept = Object.fromEntries(['pairs-task', 'count', 'pairs-seed'].map((n) => [n, w.getAttribute(n)]));
      for (const n of Object.keys(kept)) w.removeAttribute(n);
      w.setAttribute('pairs', 'author-pairs/pairs.json');
      return kept;
    }, tag);
    await page.waitForFunction(
      ({ t, field }) => !document.querySelector(t).busy && document.querySelector(t).figureData?.[field]?.pairs === 6,
      {
        t: tag,
        field,
      },
    );
    const data = await page.evaluate((t) => document.querySelector(t).figureData, tag);
    assert.deepEqual(data[field], doc, `${tag}: the CLI's document for the same file`);
    assert.equal(data.pairs, 'author-pairs/pairs.json');
    assert.equal(data.pairs_task, null);
    const caption = await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.caption').textContent, tag);
    assert.match(caption, /^Over the 6 prompt pairs of the pairs file, /, tag);
    // A file that is not there, a file the core refuses (its message), and a generator's attribute beside a file.
    for (const [name, value, message] of [
      ['pairs', 'author-pairs/notes.txt', /attribute pairs="author-pairs\/notes\.txt" must name a \.json file/],
      ['pairs', 'author-pairs/missing.json', /attribute pairs="author-pairs\/missing\.json": the pairs file could not be read: HTTP 404/],
      [
        'pairs',
        'author-pairs/bad.json',
        new RegExp(`${what} cannot be computed for .*pair 1: the corrupted prompt has 10 tokens, the clean one 11`),
      ],
      ['count', '8', /attribute count="8" cannot be given with pairs="author-pairs\/bad\.json": the file holds the pairs/],
    ]) {
      await page.evaluate(({ t, name, value }) => document.querySelector(t).setAttribute(name, value), { t: tag, name, value });
      await page.waitForFunction(({ t, message }) => new RegExp(message).test(document.querySelector(t).shadowRoot.textContent), {
        t: tag,
        message: message.source,
      });
      // Getters never throw, whatever the attribute.
      await page.evaluate((t) => [document.querySelector(t).state, document.querySelector(t).figureData], tag);
    }
    await page.evaluate(
      ({ t, was }) => {
        const w = document.querySelector(t);
        w.removeAttribute('pairs');
        w.removeAttribute('count');
        for (const [n, v] of Object.entries(was)) if (v !== null) w.setAttribute(n, v);
      },
      { t: tag, was },
    );
  }
  await page.unroute('**/author-pairs/**');
  // The missing file's 404 (the request and Chromium's console line) is what the test asked for.
  const unexpected = page.problems.filter((p) => !/author-pairs\/missing\.json|status of 404/.test(p));
  page.problems.length = 0;
  assert.deepEqual(unexpected, []);
});

test('batch mode screenshots at 360, 700 and 1280 px, light and dark', async () => {
  const p = await session.newPage({ viewport: { width: 360, height: 900 } });
  await p.goto(`${session.url}own-model.html`);
  await p.waitForFunction((t) => document.querySelector(t)?.currentModel, TAG);
  await showBatch(p, { 'pairs-task': 'induction', count: '16', 'pairs-seed': '1' });
  await showAttribution(p, { count: '64' });
  for (const scheme of ['light', 'dark']) {
    for (const width of [360, 700, 1280]) {
      await p.emulateMedia({ colorScheme: scheme });
      await p.setViewportSize({ width, height: 900 });
      await frames(p);
      await screenshot(p.locator(TAG).first(), `batch-patching-${scheme}-${width}`);
      await screenshot(p.locator(ATTR).first(), `attribution-patching-${scheme}-${width}`);
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${scheme} ${width}: the page scrolls sideways by ${overflow} px`);
    }
  }
  assert.deepEqual(p.problems, []);
  await p.close();
});
