// <headlab-qk-attribution> on the induction article under the strict CSP: the split it shows (parts,
// score, the dominant part in words, the bound values in the prose) against the native CLI's
// `headlab model analyze --qk-attribution`, a click on a cell of <headlab-transformer-attention>
// followed by the figure (linked selection), keyboard use, and screenshots at 360, 700 and 1280 px in
// light and dark. One page load; the screenshots reuse it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { frames } from './widget-fixtures.mjs';
import { cliAnalyzeShipped } from '../wasm/helpers.mjs';

const PAGE = 'articles/induction-heads.html';
const PROMPT = '5 9 14 3 22 7 30 1 17 11 26 8 5 9 14 3 22 7 30 1 17 11 26';
// The page (WASM) against the native CLI: the same float64 code in the same summation order
// (core/ordered_products.hpp); 1e-9 is the bound the transformer figures are held to.
const NATIVE_TOLERANCE = 1e-9;

let session, page;
before(async () => {
  session = await startSession({ csp: true });
  page = await session.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${session.url}${PAGE}`);
  await settled();
});
after(async () => {
  await session?.close();
});

/** Waits until the figure has its model, has drawn a split and nothing on the page is computing. */
async function settled(p = page) {
  await p.waitForFunction(
    () => {
      const q = document.querySelector('#qk');
      return q?.currentModel && q.renderCount > 0 && !q.busy && q.state?.score !== null && q.summary !== '';
    },
    null,
    { timeout: 120_000 },
  );
  await frames(p);
}

/** The CLI's split of head (layer, head)'s score from `position` to `key` on the article's prompt. */
function cliSplit(layer, head, position, key) {
  const flags = ['--prompt', PROMPT, '--position', String(position), '--sequences', '1', '--qk-attribution', `${layer}.${head}`];
  const q = cliAnalyzeShipped(flags).qk_attribution;
  return { sources: q.sources, parts: q.parts[key], score: q.scores[key] };
}

/** The figure's numbers now: its state, sources and S × S parts as plain arrays. */
async function shown() {
  return JSON.parse(
    await page.evaluate(() =>
      JSON.stringify(document.querySelector('#qk').figureData, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)),
    ),
  );
}

function assertSplit(got, want, what) {
  assert.deepEqual(got.sources, want.sources, what);
  let worst = Math.abs(got.score - want.score);
  got.parts.forEach((row, a) => row.forEach((v, b) => (worst = Math.max(worst, Math.abs(v - want.parts[a][b])))));
  assert.ok(worst <= NATIVE_TOLERANCE, `${what}: page and CLI differ by ${worst}`);
}

test("the article figure shows the CLI's split, names its largest part, and the prose reads its share", async () => {
  const got = await shown();
  assert.deepEqual([got.layer, got.head, got.position, got.key], [1, 1, 22, 11]);
  const want = cliSplit(1, 1, 22, 11);
  assertSplit(got, want, 'L1 H1 22 → 11');
  // The largest part by size, found here from the CLI's numbers.
  let a = 0,
    b = 0;
  want.parts.forEach((row, r) => row.forEach((v, c) => Math.abs(v) > Math.abs(want.parts[a][b]) && ((a = r), (b = c))));
  assert.deepEqual([want.sources[a], want.sources[b]], ['embed', 'L0H2']);
  assert.equal(got.dominant.query, 'embed');
  assert.equal(got.dominant.key, 'L0H2');
  const summary = await page.evaluate(() => document.querySelector('#qk').summary);
  const said = /([0-9.]+)% of this score is the token at the query against L0 H2’s output at the key/.exec(summary);
  assert.ok(said, summary);
  // Printed with one decimal at most (formatPercent): within 0.05 percentage points of the CLI's share.
  assert.ok(Math.abs(Number(said[1]) - (100 * want.parts[a][b]) / want.score) <= 0.05 + 1e-9, summary);
  const percent = `${said[1]}%`;
  // The share is bound to the model on the page; the head that part reads is named as the
  // shipped model's in the prose (another seed's largest part may be no head): the CLI's.
  const bound = await page.evaluate(() => ({
    share: document.querySelector('headlab-value[source=qk][name=share]').textContent,
    prose: document.querySelector('headlab-value[source=qk][name=share]').closest('p').textContent,
  }));
  assert.equal(bound.share, percent);
  assert.match(
    bound.prose,
    new RegExp(
      `In the shipped model it is the token at the query against the output of ${want.sources[b].replace(/^L(\d+)H(\d+)$/, 'L$1 H$2')} at the key`,
    ),
  );
  assert.deepEqual(page.problems, []);
});

test("the article's composition claim: the numbers bound in the prose are the CLI's K-composition of L1 H3 and its baseline", async () => {
  await page.waitForFunction(() => document.querySelector('#composition')?.figureData != null, null, { timeout: 120_000 });
  await frames(page);
  const c = cliAnalyzeShipped(['--prompt', '0', '--sequences', '1', '--composition']).composition;
  const { mean, std } = c.baseline;
  // The earlier head whose K-composition with L1 H3 (row 1·4 + 3) is the largest, found here from the CLI's matrix.
  const row = c.k[c.heads.indexOf('1.3')].slice(0, 4);
  const earlier = row.indexOf(Math.max(...row));
  const bound = await page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('headlab-value[source=composition]')].map((v) => [
        v.getAttribute('name'),
        { value: document.querySelector('#composition').boundValue(v.getAttribute('name'))?.value, state: v.dataset.state },
      ]),
    ),
  );
  assert.deepEqual(Object.keys(bound).sort(), [
    'baseline.mean',
    'baseline.std',
    'reads.k.head',
    'reads.k.layer',
    'reads.k.score',
    'reads.k.sigmas',
  ]);
  for (const [name, v] of Object.entries(bound)) assert.equal(v.state, 'bound', name);
  // Composition is bit-identical natively and in WASM.
  assert.equal(bound['baseline.mean'].value, mean);
  assert.equal(bound['baseline.std'].value, std);
  assert.equal(bound['reads.k.layer'].value, 0);
  assert.equal(bound['reads.k.head'].value, earlier);
  assert.equal(bound['reads.k.score'].value, row[earlier]);
  assert.ok(Math.abs(bound['reads.k.sigmas'].value - (row[earlier] - mean) / std) < 1e-12);
  // What the prose says of the shipped model (tests/core/induction_seeds_test.cpp checks seeds 0–9 for
  // one standard deviation): L1 H3's keys read most from L0 H3, more than two standard deviations above the baseline.
  assert.equal(earlier, 3);
  assert.ok(row[earlier] > mean + 2 * std);
  assert.deepEqual(page.problems, []);
});

test('a click on a cell of the attention figure splits that cell; the selects move the key by keyboard', async () => {
  // Cell L1 H3, query 20, key 9: its place on the canvas from the figure's own layout (columns
  // and cell size follow the element's width).
  // Everything the prose's bound share shows from the click on: its text and state at each change,
  // and what the figure's boundValue and state say at each of its change events.
  const before = await page.evaluate(() => {
    const value = document.querySelector('headlab-value[source=qk][name=share]');
    const qk = document.querySelector('#qk');
    const seen = (window.__shareSeen = []);
    const record = (what) => () =>
      seen.push({
        what,
        state: value.dataset.state,
        busy: value.getAttribute('aria-busy'),
        text: value.textContent,
        bound: qk.boundValue('share')?.value ?? null,
        score: qk.state?.score ?? null,
        cell: `${qk.layer}.${qk.head}`,
      });
    window.__shareObserver = new MutationObserver(record('value'));
    window.__shareObserver.observe(value, { childList: true, characterData: true, subtree: true, attributes: true });
    qk.addEventListener('change', record('figure'));
    return { text: value.textContent, bound: qk.boundValue('share').value };
  });
  await page.evaluate(() => {
    const host = document.querySelector('#attention');
    const canvas = host.shadowRoot.querySelector('canvas');
    const units = parseFloat(canvas.style.width);
    const rect = canvas.getBoundingClientRect();
    const s = rect.width / units;
    const layout = host.layout(host.currentModel, host.shown.run);
    const [ox, oy] = layout.origin(1, 3);
    const x = ox + 9 * layout.cell + layout.cell / 2,
      y = oy + 20 * layout.cell + layout.cell / 2;
    canvas.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true, clientX: rect.left + x * s, clientY: rect.top + y * s }));
  });
  await settled();
  const attention = await page.evaluate(() => document.querySelector('#attention').state);
  assert.deepEqual(attention.cell, { layer: 1, head: 3, key: 9 });
  await screenshot(page.locator('#attention'), 'qk-attribution-attention-cell');
  assert.equal(attention.position, 20);
  const got = await shown();
  assert.deepEqual([got.layer, got.head, got.position, got.key], [1, 3, 20, 9]);
  assertSplit(got, cliSplit(1, 3, 20, 9), 'L1 H3 20 → 9');
  // While the worker computed L1 H3's table, nothing showed L1 H1's split: the figure's bound value
  // and score were empty from its first change event on, and the prose said "computing…" (busy)
  // until the new share arrived, never the previous number nor the author's text.
  const seen = await page.evaluate(() => {
    window.__shareObserver.disconnect();
    return window.__shareSeen;
  });
  const after = await page.evaluate(() => ({
    text: document.querySelector('headlab-value[source=qk][name=share]').textContent,
    bound: document.querySelector('#qk').boundValue('share').value,
  }));
  assert.notEqual(after.bound, before.bound, 'the new cell has another share');
  const firstNew = seen.findIndex((e) => e.state === 'bound' && e.text === after.text);
  assert.ok(firstNew > 0, `the new share arrived after a computing state: ${JSON.stringify(seen)}`);
  // (A figure event is recorded before the value, listening on the document, has read it.)
  for (const e of seen.slice(0, firstNew)) {
    if (e.cell === '1.3') assert.deepEqual([e.bound, e.score], [null, null], `a stale split for L1 H3: ${JSON.stringify(e)}`);
    if (e.what === 'value') assert.deepEqual([e.state, e.text, e.busy], ['computing', 'computing…', 'true'], JSON.stringify(e));
  }
  assert.ok(
    seen.some((e) => e.what === 'value' && e.state === 'computing'),
    `the bound value showed its computing state: ${JSON.stringify(seen)}`,
  );
  assert.equal(seen.at(-1).busy, null);
  // Keyboard: focus the key menu and step to the next key.
  await page.locator('#qk select[name=key]').focus();
  await page.keyboard.press('ArrowDown');
  await settled();
  const next = await shown();
  assert.equal(next.key, 10);
  assertSplit(next, cliSplit(1, 3, 20, 10), 'L1 H3 20 → 10');
  assert.deepEqual(page.problems, []);
});

test('screenshots at 360, 700 and 1280 px, light and dark', async () => {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [360, 700, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await settled();
      await screenshot(page.locator('#qk'), `qk-attribution-${scheme}-${width}`);
    }
  }
  assert.deepEqual(page.problems, []);
});
