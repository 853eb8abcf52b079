// The benchmark page (bench.html) as a smoke test: a quick run (one training run each, five
// samples per widget input) under the strict CSP finishes, fills the table with finite figures
// for both trainings and every widget input without an error, and offers the same results as
// JSON. Timings are not asserted (benchmarks print figures; ./dev bench runs the full one).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

test('bench page: a quick run fills the table and the JSON, in the worker, without a console error', async () => {
  const page = await session.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${session.url}bench.html?quick`);
  assert.match(await page.locator('#bench-device').textContent(), /\S/);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.click('#bench-run');
  await page.waitForFunction(() => 'benchDone' in document.body.dataset, null, { timeout: 240000 });
  const status = await page.locator('#bench-status').textContent();
  assert.match(status, /^Done in \d+ s\.$/, status);
  const results = JSON.parse(await page.locator('#bench-json-text').inputValue());
  assert.equal(results.quick, true);
  assert.ok(results.device.user_agent.length > 0 && results.device.cores >= 1, JSON.stringify(results.device));
  assert.deepEqual(
    results.training.map((t) => t.figure),
    ['max-digit recipe', 'feature recovery'],
  );
  for (const t of results.training) assert.ok(Number.isFinite(t.median_ms) && t.median_ms > 0 && t.target_ms > 0, JSON.stringify(t));
  assert.ok(
    workers.some((u) => u.endsWith('headlab-worker.js')),
    'training ran in the headlab worker',
  );
  const { SCENARIOS } = await import('../../site/assets/bench-widgets.js');
  const { WIDGETS } = await import('../../site/assets/bench-stage.js');
  // One row per scenario of each widget the page builds (the transformer figures are driven on
  // their article pages instead: bench/widgets.bench.mjs and the product sweep's long-task test).
  const expected = WIDGETS.reduce((n, w) => n + (SCENARIOS[w.tag]?.length ?? 0), 0);
  assert.ok(expected > 0, 'the stage has widgets with scenarios');
  assert.equal(results.updates.length, expected, 'one row per widget input');
  for (const u of results.updates) {
    assert.equal(u.error, undefined, `${u.element} — ${u.input}: ${u.error}`);
    assert.ok(Number.isFinite(u.p95_ms) && u.p95_ms >= u.p50_ms && u.samples === 5, JSON.stringify(u));
  }
  // Long tasks (Chromium reports them) in each of the three phases.
  assert.deepEqual(Object.keys(results.long_tasks), ['while training', 'while the widgets start', 'while driving the widgets']);
  for (const t of Object.values(results.long_tasks)) assert.ok(t.count >= 0 && t.longest_ms >= 0, JSON.stringify(t));
  // The table shows every figure: the 2 trainings, each input, the 3 long-task phases.
  assert.equal(await page.locator('#bench-rows tr').count(), 2 + expected + 3);
  const cells = await page.locator('#bench-rows tr:first-child > *').allTextContents();
  assert.match(cells[0], /^max-digit recipe: training, median of 1$/);
  assert.ok(
    cells.slice(1, 5).every((c) => /^(\d+(\.\d+)?|≤ \d+(\.\d+)?)$/.test(c)),
    cells.join(' | '),
  );
  assert.equal(await page.locator('#bench-stage').isHidden(), true, 'the widgets under test are removed');
  await page.locator('#bench-json-text').evaluate((t) => {
    t.closest('details').open = true;
  });
  await screenshot(page.locator('main'), 'bench-page-1280-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 360, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px at 360 px`);
  await screenshot(page.locator('main'), 'bench-page-360-dark');
  // JSON download: a file named after the run, holding the same results.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#bench-json')]);
  assert.match(download.suggestedFilename(), /^headlab-bench-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.json$/);
  assert.deepEqual(page.problems, []);
});
