// The core-check page: the module loads in Chromium (under the strict CSP), in the page and in
// the Web Worker, and shows the draft's numbers.
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

for (const colorScheme of ['light', 'dark']) {
  test(`core-check page computes the two-token example (${colorScheme})`, async () => {
    const page = await session.newPage({ colorScheme });
    await page.goto(`${session.url}core-check.html`);
    const cell = (key) => page.locator(`[data-out="${key}"]`);
    await page.waitForFunction(() => document.querySelector('[data-out="values"]').textContent !== 'loading');
    assert.match(await cell('version').textContent(), /^\d+\.\d+\.\d+$/);
    assert.equal(await cell('q1k1').textContent(), '1');
    assert.equal(await cell('q1k2').textContent(), '0');
    // softmax([1, 0]/√2) = [0.669761549327, 0.330238450673] to 12 decimals.
    assert.equal(await cell('weights').textContent(), '[0.669761549327, 0.330238450673]');
    assert.equal(await cell('values').textContent(), '[2, 0], [0, -3]');
    await page.waitForFunction(() => document.querySelector('[data-out="worker"]').textContent !== 'loading');
    assert.equal(await cell('worker').textContent(), await cell('version').textContent());
    await screenshot(page, `core-check-${colorScheme}`);
    assert.deepEqual(page.problems, []);
  });
}
