// memoryDiagnostics(): the measure the browser memory sweep relies on must see a real
// allocation and its release, and stay flat over repeated stateless calls.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { identity, matrix } from '../../web/matrix.js';
import { workerTasks } from '../../web/worker-tasks.js';
import { cliRun, wasmCore, wasmFeatureRecoveryCore, wasmMaxDigitCore, wasmTransformerCore } from './helpers.mjs';

test('memoryDiagnostics sees a live trainer (its W_q, W_v and Adam moments) and its release', async () => {
  const core = await wasmFeatureRecoveryCore();
  const before = core.memoryDiagnostics();
  for (const k of ['heap_bytes_in_use', 'memory_bytes', 'live_handles']) {
    assert.ok(Number.isFinite(before[k]) && before[k] >= 0, `${k} = ${before[k]}`);
  }
  const trainer = core.createFeatureRecoveryTrainer({ seed: 0, steps: 10 });
  const alive = core.memoryDiagnostics();
  // At least W_q and W_v (9 × 3 doubles each) and their two Adam moments: 6 × 27 × 8 bytes.
  assert.ok(alive.heap_bytes_in_use - before.heap_bytes_in_use >= 6 * 27 * 8, `${before.heap_bytes_in_use} → ${alive.heap_bytes_in_use}`);
  trainer.dispose();
  const after = core.memoryDiagnostics();
  assert.equal(after.heap_bytes_in_use, before.heap_bytes_in_use);
});

test('1,000 attention calls and 1,000 failing calls leave the heap in use and the handle count exactly flat', async () => {
  const core = await wasmCore();
  const x = identity(2),
    w = matrix([
      [0, 1],
      [1, 0],
    ]);
  core.attention({ x, w_q: w, w_k: x, w_v: x });
  const before = core.memoryDiagnostics();
  for (let i = 0; i < 1000; i++) {
    core.attention({ x, w_q: w, w_k: x, w_v: x });
    assert.throws(() => core.attention({ x, w_q: matrix([[1, 2, 3]]), w_k: x, w_v: x }), /w_q/);
  }
  const after = core.memoryDiagnostics();
  assert.equal(after.heap_bytes_in_use, before.heap_bytes_in_use);
  assert.equal(after.live_handles, before.live_handles);
});

// The interventions figure asks its source's worker (task 'feature-recovery-intervene' on the run
// kept there), where the browser memory sweep does not look: the task itself must leave that
// module's heap flat, on a kept model (the figure's way) and as a free function of the matrices.
test('500 interventions through the worker task, and 100 failing ones, leave the heap in use and the handle count exactly flat', async () => {
  const core = await wasmFeatureRecoveryCore();
  const t = core.createFeatureRecoveryTrainer({ seed: 0, steps: 20, eval_size: 64 });
  let snapshot;
  try {
    t.step(20);
    snapshot = t.snapshot();
  } finally {
    t.dispose();
  }
  const base = { seed: 0, w_q: snapshot.w_q, w_v: snapshot.w_v, eval_size: 64 };
  const kept = { model: 'diagnostics' };
  const task = workerTasks['feature-recovery-intervene'];
  // The kept model is made once, by the first request (the run sent to a worker that does not hold it).
  await task.run(core, {
    ...kept,
    run: { settings: { seed: 0, eval_size: 64 }, w_q: base.w_q, w_v: base.w_v },
    intervention: 'irrelevant_shift',
  });
  const kinds = (i) =>
    [
      { intervention: 'erase_request', feature: i % 3 },
      { intervention: 'erase_payload', feature: i % 3 },
      { intervention: 'irrelevant_shift', shift: 1 + i / 16, examples: 4 },
    ][i % 3];
  for (const model of [kept, base]) {
    const run = (params) => task.run(core, { ...model, ...params });
    for (let i = 0; i < 3; i++) await run(kinds(i)); // warm-up: the allocator's bins for each kind
    const before = core.memoryDiagnostics();
    for (let i = 0; i < 500; i++) await run(kinds(i));
    for (let i = 0; i < 100; i++) await assert.rejects(run({ intervention: 'irrelevant_shift', shift: Infinity }), /shift must be finite/);
    const after = core.memoryDiagnostics();
    assert.equal(after.heap_bytes_in_use, before.heap_bytes_in_use, model === kept ? 'kept model' : 'free function');
    assert.equal(after.live_handles, before.live_handles);
  }
});

// One limit, one message: a setting out of range is refused by the core's check, so the page (the
// WASM module) and the command line word it the same; the CLI names a seed by its flag (--seed).
// Before, the CLI checked ranges itself: "--steps must be an integer in [0, 10000000], got "0"" on
// the command line against "steps must lie in [0, 10000000]" in the page, and seeds up to 2^53 in
// the page against 2^53 − 1 on the command line.
test('the CLI and the WASM modules refuse a setting out of its range with the same message', async () => {
  const [fr, md, tf] = await Promise.all([wasmFeatureRecoveryCore(), wasmMaxDigitCore(), wasmTransformerCore()]);
  const message = (f) => {
    try {
      f();
    } catch (e) {
      return e.message;
    }
    assert.fail('no error');
  };
  const cases = [
    [() => md.createMaxDigitTrainer({ seed: 2 ** 53 }), ['max-digit', 'train', '--seed', '9007199254740992', '--out', '-'], '--'],
    [() => md.createMaxDigitTrainer({ steps: 0 }), ['max-digit', 'train', '--seed', '0', '--steps', '0', '--out', '-'], ''],
    [() => md.createMaxDigitTrainer({ batch_size: 0 }), ['max-digit', 'train', '--seed', '0', '--batch', '0', '--out', '-'], ''],
    [() => fr.createFeatureRecoveryTrainer({ eval_size: 1 }), ['feature-recovery', '--seed', '0', '--eval-size', '1', '--out', '-'], ''],
    [
      () => fr.createFeatureRecoveryTrainer({ request_scale: 1e-160 }),
      ['feature-recovery', '--seed', '0', '--request-scale', '1e-160', '--out', '-'],
      '',
    ],
    [
      () => tf.createTransformerTrainer({ steps: 0 }),
      ['model', 'train', '--task', 'induction', '--seed', '0', '--steps', '0', '--out', 'never.safetensors'],
      '',
    ],
    [
      () => tf.createTransformerTrainer({ seed: 2 ** 53 }),
      ['model', 'train', '--task', 'induction', '--seed', '9007199254740992', '--out', 'never.safetensors'],
      '--',
    ],
  ];
  for (const [wasm, args, prefix] of cases) {
    const expected = message(wasm);
    const cli = cliRun(args);
    assert.equal(cli.status, 2, `${args.join(' ')}: ${cli.stderr}`);
    const first = cli.stderr.split('\n')[0];
    assert.ok(first.endsWith(`: ${prefix}${expected}`), `${args.join(' ')}: the CLI says "${first}", the page "${expected}"`);
  }
});
