// <headlab-logit-lens> and <headlab-head-svd> on own-model.html under the strict CSP: the numbers
// each shows are the native CLI's `headlab model analyze --logit-lens` / `--head-svd` (the logit
// lens, the singular values and the token readings bit for bit; the copying score, from Eigen's
// eigensolver, within kCopyingNativeWasmBound = 1e-12), their summaries say what those numbers say,
// the position and head selects work from the keyboard (and set the URL state), and screenshots at
// 360, 700 and 1280 px in light and dark. One page load.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { figureReady, frames } from './widget-fixtures.mjs';
import { cliAnalyzeShipped } from '../wasm/helpers.mjs';

// docs/own-model.md: EigenSolver's reductions sum in a vector-width-dependent order.
const COPYING_NATIVE_WASM_BOUND = 1e-12;

let session;
let page;
before(async () => {
  session = await startSession({ csp: true });
  page = await session.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${session.url}own-model.html`);
  for (const tag of ['headlab-logit-lens', 'headlab-head-svd']) await figureReady(page, tag);
});
after(async () => {
  await session?.close();
});

/** `headlab model analyze` of the shipped model on one sequence with `args`, parsed. */
const cli = (args) => cliAnalyzeShipped(['--sequences', '1', ...args]);

const shown = (tag) =>
  page.evaluate((t) => {
    const w = document.querySelector(t);
    return { data: JSON.parse(JSON.stringify(w.figureData)), summary: w.summary };
  }, tag);

test("logit lens: the CLI's lens bit for bit; the summary follows the answer through the stages", async () => {
  const got = await shown('headlab-logit-lens');
  const { prompt, position } = got.data;
  assert.equal(position, prompt.length - 1, 'the last position by default');
  const native = cli(['--prompt', prompt.join(' '), '--logit-lens', '--top', '3']).logit_lens;
  assert.deepEqual(got.data.logit_lens, native);
  assert.equal(got.data.answer, native.answers[position]);
  assert.deepEqual(
    got.data.probability,
    native.answer_probability.map((row) => row[position]),
  );
  const first = native.answer_rank.findIndex((row) => row[position] === 0);
  assert.equal(got.data.firstTop, first < 0 ? null : first);
  // The output stage is the model's own prediction at the last position: the answer there is its top token.
  assert.equal(native.answer_rank.at(-1)[position], 0);
  // One percentage per stage, printed with one decimal (more near 0 or 1: formatPercent): each
  // within half a unit of its last printed digit of the CLI's probability.
  const said = new RegExp(
    `^At position ${position} \\(${prompt[position]}\\), the model’s prediction, ${native.answers[position]}, has probability (.*?)\\. It is`,
  ).exec(got.summary);
  assert.ok(said, got.summary);
  const printed = said[1].split(', ').map((x) => /^([0-9.]+)% /.exec(x)?.[1]);
  assert.equal(printed.length, native.answer_probability.length, said[1]);
  printed.forEach((x, s) => {
    const decimals = x.includes('.') ? x.split('.')[1].length : 0;
    const p = 100 * native.answer_probability[s][position];
    assert.ok(Math.abs(Number(x) - p) <= 0.5 * 10 ** -decimals + 1e-9, `stage ${s}: printed ${x}%, CLI ${p}%`);
  });
  assert.match(got.summary, /Over the prompt, the answer is the top token at \d+ of \d+ positions at the output/);
});

test('logit lens: the position select from the keyboard moves the chosen column, the table and the URL state', async () => {
  const w = page.locator('headlab-logit-lens');
  await w.locator('select[name=position]').focus();
  await page.keyboard.press('ArrowUp');
  await frames(page);
  const got = await shown('headlab-logit-lens');
  assert.equal(got.data.position, got.data.prompt.length - 2);
  // Before the last position the answer is the next prompt token.
  assert.equal(got.data.answer, got.data.prompt.at(-1));
  await page.waitForFunction((p) => decodeURIComponent(location.hash).includes(`logit-lens.position=${p}`), got.data.position);
  assert.match(
    got.summary,
    new RegExp(`^At position ${got.data.position} \\(\\d+\\), the next token, ${got.data.answer}, has probability`),
  );
  const rows = await w.locator('table.stages tbody tr').count();
  assert.equal(rows, got.data.logit_lens.answer_probability.length);
});

test("head SVD: the CLI's singular values, readings and copying scores; the default head copies most", async () => {
  const got = await shown('headlab-head-svd');
  const native = cli(['--prompt', '0', '--head-svd', '--directions', '3', '--top', '4']).head_svd;
  const strip = (svd) => ({ ...svd, heads: svd.heads.map((row) => row.map(({ copying: _c, ov_eigenvalues: _e, ...rest }) => rest)) });
  assert.deepEqual(strip(got.data.head_svd), strip(native));
  let best = { layer: 0, head: 0, score: -Infinity };
  native.heads.forEach((row, l) =>
    row.forEach((e, h) => {
      const page = got.data.head_svd.heads[l][h];
      assert.ok(Math.abs(page.copying - e.copying) <= COPYING_NATIVE_WASM_BOUND, `L${l} H${h} copying`);
      if (e.copying > best.score) best = { layer: l, head: h, score: e.copying };
    }),
  );
  assert.deepEqual([got.data.layer, got.data.head], [best.layer, best.head]);
  const e = native.heads[best.layer][best.head];
  assert.deepEqual(got.data.ov, e.ov_singular_values);
  assert.deepEqual(got.data.qk, e.qk_singular_values);
  assert.match(got.summary, new RegExp(`^L${best.layer} H${best.head}: OV copying score ${Number(best.score.toFixed(2))} `));
  // The first OV direction's share of the squared norm, as the summary prints it.
  const total = e.ov_singular_values.reduce((a, v) => a + v * v, 0);
  const share = (100 * e.ov_singular_values[0] ** 2) / total;
  const printed = /Its first OV direction carries ([0-9.]+)% of the OV matrix’s squared norm/.exec(got.summary);
  assert.ok(printed, got.summary);
  assert.ok(Math.abs(Number(printed[1]) - share) <= 0.05 + 1e-9, `${printed[1]}% against ${share}%`);
});

test('head SVD: the head select from the keyboard changes the state, the drawing and the table', async () => {
  const w = page.locator('headlab-head-svd');
  const before = await page.evaluate(() => document.querySelector('headlab-head-svd').shadowRoot.querySelector('svg').innerHTML);
  await w.locator('select[name=head]').focus();
  await page.keyboard.press('End');
  await frames(page);
  const got = await shown('headlab-head-svd');
  assert.deepEqual([got.data.layer, got.data.head], [1, 3]);
  assert.match(got.summary, /^L1 H3: OV copying score /);
  const after = await page.evaluate(() => document.querySelector('headlab-head-svd').shadowRoot.querySelector('svg').innerHTML);
  assert.notEqual(after, before);
  assert.match(await w.locator('table.directions caption').textContent(), /^L1 H3’s top 3 singular directions/);
  await page.waitForFunction(() => /head-svd\.layer=1(&|$)/.test(decodeURIComponent(location.hash)));
});

test('logit lens and head SVD: screenshots at 360, 700 and 1280 px, light and dark', async () => {
  for (const scheme of ['light', 'dark']) {
    for (const width of [360, 700, 1280]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: 900 });
      await frames(page);
      await screenshot(page.locator('headlab-logit-lens'), `logit-lens-${scheme}-${width}`);
      await screenshot(page.locator('headlab-head-svd'), `head-svd-${scheme}-${width}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${scheme} ${width}: the page scrolls sideways by ${overflow} px`);
    }
  }
  assert.deepEqual(page.problems, []);
});
