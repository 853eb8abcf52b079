// Two WASM modules (web/CMakeLists.txt): a page downloads only the one its widgets use.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSession } from './helpers.mjs';

let session;
before(async () => { session = await startSession({ csp: true }); });
after(async () => { await session?.close(); });

test('the first article fetches headlab_core.wasm and never the max-digit module', async () => {
  const page = await session.newPage();
  const fetched = [];
  page.on('request', (req) => fetched.push(new URL(req.url()).pathname));
  await page.goto(`${session.url}articles/projections-matching-and-content.html`, { waitUntil: 'networkidle' });
  // Every widget past its placeholder: the core has been instantiated and used.
  await page.waitForFunction(() => [...document.querySelectorAll('headlab-projection-ablation, headlab-value-swap')]
    .every((el) => el.renderCount > 0));
  assert.ok(fetched.includes('/headlab/headlab_core.wasm'), fetched.join(', '));
  assert.ok(!fetched.some((p) => p.includes('headlab_max_digit')), fetched.join(', '));
  assert.deepEqual(page.problems, []);
});
