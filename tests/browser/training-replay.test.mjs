// <headlab-training-replay> on the feature-recovery article: the replay's snapshots against the
// native CLI trained for the same number of steps, the scrubber and "Play slowly", and the
// "break it" experiments' numbers and lessons against the CLI run with the same setting.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { frames } from './widget-fixtures.mjs';
import { cliJson, cliRun } from '../wasm/helpers.mjs';

const ARTICLE = 'articles/feature-recovery-two-projections.html';
// As in feature-recovery.test.mjs: native (glibc, SSE2) and WASM (musl, scalar) differ in the last
// bits of early steps; 1e-9 on W entries of order one leaves orders of margin.
const NATIVE_BROWSER_TOLERANCE = 1e-9;
// Held-out metrics from matrices that agree to ~1e-16, summed over 4096 × 3 in another order.
const METRIC_TOLERANCE = 1e-12;

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

const cli = (args) => cliJson(['feature-recovery', '--seed', '0', '--out', '-', ...args]);
const maxDiff = (flat, rows) => Math.max(...rows.flat().map((x, i) => Math.abs(x - flat[i])));

async function waitDone(page) {
  // The replay trains once it is near the viewport.
  await page.locator('#replay').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById('replay')?.state?.status === 'done', null, { timeout: 120000 });
  await frames(page);
}

const replay = (page) =>
  page.evaluate(() => {
    const el = document.getElementById('replay');
    const r = el.result;
    return {
      state: el.state,
      steps: r.steps,
      diverged_at: r.diverged_at,
      evaluation: r.evaluation,
      snapshots: r.snapshots.map((s) => ({ step: s.step, loss: s.loss, w_q: Array.from(s.w_q), w_v: Array.from(s.w_v) })),
      lesson: el.shadowRoot.querySelector('.lesson').textContent,
    };
  });

test('training replay: snapshots at log-spaced steps equal the CLI trained that many steps', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}${ARTICLE}`);
  await waitDone(page);
  const r = await replay(page);
  assert.equal(r.steps[0], 0);
  assert.equal(r.steps.at(-1), 1200);
  assert.ok(r.steps.length >= 30, `${r.steps.length} snapshots`);
  assert.deepEqual(r.steps.slice(0, 4), [0, 1, 2, 3]);
  // Three snapshots (early, middle, last) against the native CLI stopped at the same step.
  for (const i of [3, Math.floor(r.steps.length / 2), r.steps.length - 1]) {
    const s = r.snapshots[i];
    const native = cli(['--steps', String(s.step)]);
    assert.ok(maxDiff(s.w_q, native.w_q) <= NATIVE_BROWSER_TOLERANCE, `W_q at step ${s.step}`);
    assert.ok(maxDiff(s.w_v, native.w_v) <= NATIVE_BROWSER_TOLERANCE, `W_v at step ${s.step}`);
    assert.ok(
      Math.abs(s.loss - native.loss_trace.at(-1)) <= NATIVE_BROWSER_TOLERANCE * Math.max(1, native.loss_trace.at(-1)),
      `loss at step ${s.step}`,
    );
    if (s.step === 1200) {
      assert.ok(Math.abs(r.evaluation.heldout_mse - native.heldout_mse) <= METRIC_TOLERANCE);
      assert.ok(Math.abs(Math.min(...r.evaluation.query_r2) - Math.min(...native.query_r2)) <= METRIC_TOLERANCE);
    }
  }
  assert.match(r.lesson, /every query and value coordinate reads its feature with R² (above 1 − 10⁻\d+|equal to 1 in double precision)\./);
  assert.equal(Math.min(...r.evaluation.query_r2, ...r.evaluation.value_r2) === 1, r.lesson.includes('equal to 1'));
  // The scrubber: Home goes to step 0, End to the last; arrow keys step one snapshot.
  const scrub = page.locator('#replay').getByRole('slider', { name: 'Snapshot' });
  await scrub.focus();
  await page.keyboard.press('Home');
  await frames(page);
  assert.equal((await replay(page)).state.step, 0);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await frames(page);
  assert.equal((await replay(page)).state.step, 2);
  assert.match(await scrub.getAttribute('aria-valuetext'), /^step 2 of 1200, loss /);
  // Play slowly advances on its own, one snapshot per tick.
  await page.locator('#replay').getByRole('button', { name: 'Play slowly' }).click();
  await page.waitForFunction(() => document.getElementById('replay').state.snapshot >= 4);
  await page.locator('#replay').getByRole('button', { name: 'Pause' }).click();
  await screenshot(page.locator('#fig-replay'), 'training-replay-early-light');
  assert.deepEqual(page.problems, []);
});

test('break it: request scale 0.01 and learning rate 3, numbers from the run as the CLI gives them', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}${ARTICLE}`);
  await waitDone(page);
  await page.locator('#replay').getByRole('button', { name: 'Request scale 0.01' }).click();
  await waitDone(page);
  let r = await replay(page);
  const small = cli(['--request-scale', '0.01']);
  assert.ok(Math.abs(r.evaluation.heldout_mse - small.heldout_mse) <= METRIC_TOLERANCE);
  assert.ok(Math.abs(Math.min(...r.evaluation.query_r2) - Math.min(...small.query_r2)) <= METRIC_TOLERANCE);
  assert.ok(Math.min(...small.query_r2) < 0.5, 'the query is not identified');
  assert.ok(small.heldout_mse < 2 * small.uniform_attention_mse, 'yet the error stays near uniform attention');
  assert.match(r.lesson, /^Request scale 0\.01: held-out MSE .* smallest query R² is /);
  assert.ok(r.lesson.includes(String(Math.min(...small.query_r2).toFixed(3)).replace('-', '−')), r.lesson);

  await page.locator('#replay').getByRole('button', { name: 'Learning rate 3' }).click();
  await waitDone(page);
  r = await replay(page);
  const large = cliRun(['feature-recovery', '--seed', '0', '--out', '-', '--lr', '3']);
  assert.doesNotMatch(r.lesson, /NaN/);
  if (r.diverged_at > 0) {
    // The CLI refuses to write results for a diverged run and names the same step.
    assert.equal(large.status, 1);
    assert.equal(large.stdout, '');
    assert.match(large.stderr, new RegExp(`training diverged at step ${r.diverged_at}:`));
    assert.match(r.lesson, new RegExp(`diverged at step ${r.diverged_at}`));
    assert.ok(r.snapshots.every((s) => s.step < r.diverged_at && s.w_q.every(Number.isFinite)));
  } else {
    // Not a numerical divergence (every number finite) but no convergence. At this step size the
    // run is chaotic: the last-bit differences of native and WASM arithmetic grow until the two
    // runs part ways, so only the early steps are compared number for number (the leap happens
    // there); the end state is compared in kind.
    const native = JSON.parse(large.stdout);
    const early = await page.evaluate(() => Array.from(document.getElementById('replay').result.loss_trace.subarray(0, 10)));
    early.forEach((l, t) =>
      assert.ok(
        Math.abs(l - native.loss_trace[t]) <= NATIVE_BROWSER_TOLERANCE * Math.max(1, native.loss_trace[t]),
        `loss of step ${t + 1}`,
      ),
    );
    const peak = native.loss_trace.indexOf(Math.max(...native.loss_trace));
    assert.ok(peak < 10, `the leap is early (step ${peak + 1})`);
    assert.match(r.lesson, new RegExp(`at step ${peak + 1} and never settles`));
    assert.ok(r.evaluation.heldout_mse > r.evaluation.uniform_attention_mse);
    assert.ok(native.heldout_mse > native.uniform_attention_mse, 'worse than uniform attention');
    assert.match(r.lesson, /worse than uniform attention/);
  }
  // The loss axis spans this run's decades, not a fixed floor of 10⁻³²: the leap to tens of
  // nats fills the top of the chart instead of a sliver above 33 empty decades.
  const decades = await page.$eval('#replay', (e) => {
    const svg = [...e.shadowRoot.querySelectorAll('svg')].find((g) =>
      [...g.querySelectorAll('text')].some((t) => t.textContent.startsWith('Loss up to step')),
    );
    const SUP = { '⁰': 0, '¹': 1, '²': 2, '³': 3, '⁴': 4, '⁵': 5, '⁶': 6, '⁷': 7, '⁸': 8, '⁹': 9 };
    return [...svg.querySelectorAll('text')]
      .map((t) => /^10([⁻]?)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/.exec(t.textContent))
      .filter(Boolean)
      .map((m) => (m[1] ? -1 : 1) * Number([...m[2]].map((c) => SUP[c]).join('')));
  });
  const peakDecade = Math.ceil(Math.log10(Math.max(...(await page.$eval('#replay', (e) => Array.from(e.result.loss_trace))))));
  assert.equal(Math.max(...decades), peakDecade, `the axis tops at the leap's decade: ${decades}`);
  assert.ok(Math.min(...decades) >= -3, `no empty decades below the run's losses: ${decades}`);
  await screenshot(page.locator('#fig-replay'), 'training-replay-large-lr-light');
  // The prose under "Results" follows this run: its count of recovered coordinates (R² above the
  // draft's 0.999999) is the run's own, so it no longer says the responses were recovered.
  const recovered = [...r.evaluation.query_r2, ...r.evaluation.value_r2].filter((x) => x > 0.999999).length;
  assert.ok(recovered < 6, `learning rate 3 recovers ${recovered} of 6 coordinates`);
  const words = recovered === 0 ? 'none of 6' : 6 - recovered < recovered ? `all but ${6 - recovered} of 6` : `${recovered} of 6`;
  const prose = page.locator('headlab-value[source="replay"][name="recovered_coordinates"]');
  await page.waitForFunction(
    (w) => document.querySelector('headlab-value[source="replay"][name="recovered_coordinates"]').textContent === w,
    words,
  );
  assert.equal(await prose.getAttribute('data-state'), 'bound');
  // Its smallest query R² in the prose to two decimals, the precision of the text inside.
  const r2 = await page.locator('headlab-value[source="replay"][name="min_query_r2"]').textContent();
  assert.match(r2, /^−?\d+(\.\d{1,2})?$/);
  assert.ok(Math.abs(Number(r2.replace('−', '-')) - Math.min(...r.evaluation.query_r2)) <= 0.005 + 1e-12, `${r2}`);

  // Learned keys (no CLI flag): the properties the Catch2 test checks across seeds, and the
  // lesson's numbers are this run's.
  await page.locator('#replay').getByRole('button', { name: 'Learned keys' }).click();
  await waitDone(page);
  r = await replay(page);
  assert.equal(r.state.settings.learned_keys, true);
  assert.ok(r.evaluation.heldout_mse < 1e-3 * r.evaluation.uniform_attention_mse);
  const qMin = Math.min(...r.evaluation.query_r2);
  assert.ok(qMin < 0.9, `query R² ${qMin}`);
  assert.match(r.lesson, /^Learned keys: held-out MSE .* yet the smallest query R² is /);
  assert.ok(r.lesson.includes(qMin.toFixed(3).replace('-', '−').replace(/0+$/, '').replace(/\.$/, '')), r.lesson);
  await screenshot(page.locator('#fig-replay'), 'training-replay-learned-keys-light');
  assert.deepEqual(page.problems, []);
});

test('break it: keys in a plane lose query direction 3, numbers from the run as the CLI gives them', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}${ARTICLE}`);
  await waitDone(page);
  await page.locator('#replay').getByRole('button', { name: 'Keys in a plane' }).click();
  await waitDone(page);
  const r = await replay(page);
  const flat = [
    [1, 1, 0],
    [1, -1, 0],
    [-1, 1, 0],
    [-1, -1, 0],
  ];
  assert.deepEqual(r.state.settings.keys, flat);
  const native = cli(['--keys', flat.flat().join(',')]);
  // The whole run against the native CLI: final W_q, W_v and the held-out numbers.
  const last = r.snapshots.at(-1);
  assert.equal(last.step, 1200);
  assert.ok(maxDiff(last.w_q, native.w_q) <= NATIVE_BROWSER_TOLERANCE, 'W_q at step 1200');
  assert.ok(maxDiff(last.w_v, native.w_v) <= NATIVE_BROWSER_TOLERANCE, 'W_v at step 1200');
  assert.ok(Math.abs(r.evaluation.heldout_mse - native.heldout_mse) <= METRIC_TOLERANCE);
  r.evaluation.query_r2.forEach((x, j) => assert.ok(Math.abs(x - native.query_r2[j]) <= METRIC_TOLERANCE, `query R² ${j + 1}`));
  // What the lesson claims, checked on the native run: coordinate 3 lost, the others recovered, the fit good.
  assert.ok(native.query_r2[2] < 0, `query R² of coordinate 3: ${native.query_r2[2]}`);
  assert.ok(native.query_r2[0] > 0.999999 && native.query_r2[1] > 0.999999);
  assert.ok(native.heldout_mse < 1e-6 * native.uniform_attention_mse);
  // W_q's column 3 never moved: the first snapshot's equals the last one's, bit for bit.
  for (let k = 0; k < 9; k++) assert.equal(last.w_q[3 * k + 2], r.snapshots[0].w_q[3 * k + 2]);
  const fmt = (x) => x.toFixed(3).replace('-', '−').replace(/0+$/, '').replace(/\.$/, '');
  assert.match(
    r.lesson,
    /^Keys \[1, 1, 0\] \[1, −1, 0\] \[−1, 1, 0\] \[−1, −1, 0\]: their differences miss the direction \[0, 0, 1\], so no score depends on that part of the query/,
  );
  assert.ok(r.lesson.includes(`coordinate 3 is lost (R² ${fmt(native.query_r2[2])};`), r.lesson);
  assert.match(await page.locator('#replay').getByRole('button', { name: 'Keys in a plane' }).getAttribute('aria-pressed'), /true/);
  // The schematic draws the chosen keys.
  const keysDrawn = await page.evaluate(() =>
    [...[...document.getElementById('replay').shadowRoot.querySelectorAll('.fig svg')].at(-1).querySelectorAll('text')]
      .filter((t) => t.getAttribute('x') === '6' && /^\[[−\d.]+, [−\d.]+, [−\d.]+\]$/.test(t.textContent))
      .map((t) => t.textContent),
  );
  assert.deepEqual(keysDrawn, ['[1, 1, 0]', '[1, −1, 0]', '[−1, 1, 0]', '[−1, −1, 0]']);
  await screenshot(page.locator('#fig-replay'), 'training-replay-flat-keys-light');
  // A bad keys attribute is a message in the widget, not a crash.
  await page.evaluate(() => document.getElementById('replay').setAttribute('keys', '[[1,1,0],[1,-1,0]]'));
  const alert = page.locator('#replay').getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.textContent(), /attribute keys/);
  assert.deepEqual(page.problems, []);
});

test('keys the reader types: an invalid entry is flagged and kept out; a valid one reruns, as the CLI with --keys', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}${ARTICLE}`);
  await waitDone(page);
  const field = page.locator('#replay').getByRole('textbox', { name: /^Keys/ });
  await field.fill('1 1; 2');
  await field.press('Enter');
  await page.waitForFunction(() => document.getElementById('replay').shadowRoot.querySelector('.field-problem')?.textContent !== '');
  const problem = await page.evaluate(() => document.getElementById('replay').shadowRoot.querySelector('.field-problem').textContent);
  assert.match(problem, /the keys must be four rows of three numbers/);
  assert.equal(await page.evaluate(() => document.getElementById('replay').getAttribute('keys')), null, 'the last valid keys are kept');
  // Three axis keys and the origin: their differences span all three directions, nothing is lost.
  await field.fill('2 0 0; 0 2 0; 0 0 2; 0 0 0');
  await field.press('Enter');
  await page.waitForFunction(() => document.getElementById('replay').getAttribute('keys') !== null);
  await waitDone(page);
  const r = await replay(page);
  assert.deepEqual(r.state.settings.keys, [
    [2, 0, 0],
    [0, 2, 0],
    [0, 0, 2],
    [0, 0, 0],
  ]);
  const native = cli(['--keys', '2,0,0,0,2,0,0,0,2,0,0,0']);
  assert.ok(Math.abs(r.evaluation.heldout_mse - native.heldout_mse) <= METRIC_TOLERANCE);
  r.evaluation.query_r2.forEach((x, j) => assert.ok(Math.abs(x - native.query_r2[j]) <= METRIC_TOLERANCE, `query R² ${j + 1}`));
  assert.match(
    r.lesson,
    /^Keys \[2, 0, 0\] \[0, 2, 0\] \[0, 0, 2\] \[0, 0, 0\]: their differences span all three query directions, so none is lost/,
  );
  assert.deepEqual(page.problems, []);
});

for (const width of [360, 1280]) {
  for (const colorScheme of ['light', 'dark']) {
    test(`training replay at ${width} px (${colorScheme}): text ≥ 11 px, screenshot`, async () => {
      const page = await session.newPage({ colorScheme, viewport: { width, height: 900 } });
      await page.goto(`${session.url}${ARTICLE}#replay.snapshot=14`);
      await waitDone(page);
      const smallest = await page.evaluate(() => {
        const out = [];
        for (const svg of document.getElementById('replay').shadowRoot.querySelectorAll('.fig svg')) {
          const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          for (const t of svg.querySelectorAll('text')) {
            const own = Number(t.getAttribute('font-size'));
            for (const span of [t, ...t.querySelectorAll('tspan')]) out.push(k * Number(span.getAttribute('font-size') ?? own));
          }
        }
        return Math.min(...out);
      });
      assert.ok(smallest >= 11, `smallest chart text ${smallest.toFixed(2)} px`);
      await screenshot(page.locator('#fig-replay'), `training-replay-${width}-${colorScheme}`);
      assert.deepEqual(page.problems, []);
    });
  }
}
