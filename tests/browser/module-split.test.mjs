// Four WASM modules (web/CMakeLists.txt): a page downloads only the ones its widgets use, each once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSession } from './helpers.mjs';

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

test('the first article fetches headlab_core.wasm and never the feature-recovery or max-digit module', async () => {
  const page = await session.newPage();
  const fetched = [];
  page.on('request', (req) => fetched.push(new URL(req.url()).pathname));
  await page.goto(`${session.url}articles/projections-matching-and-content.html`, { waitUntil: 'networkidle' });
  // Every widget past its placeholder: the core has been instantiated and used.
  await page.waitForFunction(() =>
    [...document.querySelectorAll('headlab-projection-ablation, headlab-value-swap')].every((el) => el.renderCount > 0),
  );
  assert.ok(fetched.includes('/headlab/headlab_core.wasm'), fetched.join(', '));
  assert.ok(!fetched.some((p) => p.includes('headlab_max_digit') || p.includes('headlab_feature_recovery')), fetched.join(', '));
  assert.deepEqual(page.problems, []);
});

test('the feature-recovery article fetches headlab_feature_recovery.wasm once for its widgets and the worker that trains', async () => {
  const page = await session.newPage();
  const fetched = [];
  page.on('request', (req) => fetched.push(new URL(req.url()).pathname));
  await page.goto(`${session.url}articles/feature-recovery-two-projections.html`);
  // The autostarted trainer (it starts when scrolled into view; pace fast: the same steps without
  // the pauses) has trained in the worker, on the page's compiled module, and the interventions
  // have read its run through the page's own instance.
  await page.waitForFunction(() => document.querySelector('#feature-recovery')?.renderCount > 0, null, { timeout: 120_000 });
  await page.evaluate(() => document.querySelector('#feature-recovery').setAttribute('pace', 'fast'));
  await page.locator('#feature-recovery').scrollIntoViewIfNeeded();
  await page.waitForFunction(
    () =>
      document.querySelector('#feature-recovery')?.trainingStatus === 'done' &&
      document.querySelector('#interventions')?.state?.clean_mse !== null,
    null,
    { timeout: 120_000 },
  );
  const count = (name) => fetched.filter((p) => p === `/headlab/${name}`).length;
  assert.equal(count('headlab_feature_recovery.wasm'), 1, fetched.join(', '));
  // The value-swap figure on the page computes with headlab_core.
  assert.equal(count('headlab_core.wasm'), 1, fetched.join(', '));
  assert.ok(!fetched.some((p) => p.includes('headlab_max_digit')), fetched.join(', '));
  assert.deepEqual(page.problems, []);
});
