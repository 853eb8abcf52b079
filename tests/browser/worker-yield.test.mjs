// A batch over prompt pairs running in the model element's worker gives way to a figure's job
// (web/worker-client.js WorkerHost, { background, yields }): activation patching of 512 pairs, once
// under way, is stopped at its next step when another job is asked, that job is answered while the
// batch is unfinished, and the batch is then run again from its start to its full document. The
// test waits for states (a step reported, the answer, the document), never for a time.
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

test('a running batch gives way to a figure’s job and then runs again to its end', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}own-model.html`);
  await page.waitForFunction(
    () => {
      const m = document.getElementById('induction');
      return m?.state?.status === 'ready' && !m.modelSource.workerBusy;
    },
    null,
    { timeout: 60_000 },
  );
  await page.evaluate(() => {
    const source = document.getElementById('induction').modelSource;
    const batch = { starts: 0, last: -1, done: null, error: null };
    window.__batch = batch;
    source.request(
      source.model,
      'transformer-batch-patching',
      { request: { task: 'induction', count: 512, pairs_seed: 3 }, chunk: 8 },
      {
        progress: (d) => {
          if (d.pairs_done === 0) batch.starts++;
          batch.last = d.pairs_done;
        },
        done: ({ value }) => {
          batch.done = value;
        },
        failed: (err) => {
          batch.error = err.message;
        },
      },
      { background: true, yields: true },
    );
  });
  // Under way: two steps reported.
  await page.waitForFunction(() => window.__batch.last >= 16, null, { timeout: 60_000, polling: 'raf' });
  const answered = await page.evaluate(async () => {
    const source = document.getElementById('induction').modelSource;
    const { run } = await source.compute('transformer-analyze', { run: { prompt: [1, 2, 3] } });
    return { tokens: run.tokens, doneThen: window.__batch.done !== null, lastThen: window.__batch.last };
  });
  assert.deepEqual(answered.tokens, [1, 2, 3]);
  assert.equal(answered.doneThen, false, 'the figure’s job was answered before the batch ended');
  assert.ok(answered.lastThen < 512, `the batch had done ${answered.lastThen} of 512 pairs`);
  // The batch started over after the answer and ends with the whole document.
  await page.waitForFunction(() => window.__batch.done !== null || window.__batch.error !== null, null, { timeout: 120_000 });
  const batch = await page.evaluate(() => ({
    starts: window.__batch.starts,
    error: window.__batch.error,
    pairs: window.__batch.done?.pairs ?? null,
    effects: window.__batch.done?.head_position?.effects?.length ?? null,
  }));
  assert.equal(batch.error, null);
  assert.equal(batch.starts, 2, 'started once, and again after giving way');
  assert.deepEqual([batch.pairs, batch.effects], [512, 512]);
  assert.deepEqual(page.problems, []);
  await page.close();
});
