// The max-digit transformer through the WASM module: shipped files, native CLI, trainer lifecycle, bad files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { HeadlabError } from '../../web/headlab-core.js';
import { cliRun, root, wasmMaxDigitCore } from './helpers.mjs';

const dataDir = path.join(root, 'site/pages/data');
const shippedText = (name) => fs.readFileSync(path.join(dataDir, name), 'utf8');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-max-digit-'));

// The shipped files are the CLI's output for the same code, so a regeneration differs only
// if the code changed; 1e-12 leaves room for a printed-and-parsed round trip (exact with 17 digits).
const REGENERATION_TOLERANCE = 1e-12;
// Native and WASM share every arithmetic path of training (no libm call reaches the weights),
// so they agree bit for bit here; docs/conventions.md ("Numbers are the product") allows a named tolerance, here 1e-6, for libm or vector-order differences.
const NATIVE_WASM_WEIGHTS_TOLERANCE = 1e-6;
// Analysis figures computed natively (SSE2 Eigen, glibc) and in WASM (scalar Eigen, musl):
// eigenvectors of a 64 × 64 covariance agree to ~1e-12; 1e-9 leaves margin without hiding a real change.
const NATIVE_WASM_ANALYSIS_TOLERANCE = 1e-9;

/** Largest |a − b| over two JSON-like trees with the same structure; throws on a structural difference. */
function treeDiff(a, b, where = '') {
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : Math.abs(a - b);
  if (ArrayBuffer.isView(a)) a = Array.from(a);
  if (ArrayBuffer.isView(b)) b = Array.from(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    assert.equal(a.length, b.length, `length at ${where}`);
    return a.reduce((m, x, i) => Math.max(m, treeDiff(x, b[i], `${where}[${i}]`)), 0);
  }
  if (a && typeof a === 'object' && b && typeof b === 'object') {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `keys at ${where}`);
    return Object.keys(a).reduce((m, k) => Math.max(m, treeDiff(a[k], b[k], `${where}.${k}`)), 0);
  }
  assert.deepEqual(a, b, `value at ${where}`);
  return 0;
}

const matrices = (w) => ({ E: w.E, W_U: w.W_U, W_Q: w.W_Q, W_K: w.W_K, W_V: w.W_V, W_O: w.W_O });

for (const [flags, weightsName, analysisName] of [
  [[], 'max-digit-seed0.json', 'max-digit-seed0-analysis.json'],
  [['--unit-norm-unembedding'], 'max-digit-seed0-unit-norm.json', 'max-digit-seed0-unit-norm-analysis.json'],
]) {
  test(`the CLI regenerates ${weightsName} and its analysis within ${REGENERATION_TOLERANCE}`, () => {
    const weights = path.join(tmp, weightsName),
      analysis = path.join(tmp, analysisName);
    let r = cliRun(['max-digit', 'train', '--seed', '0', ...flags, '--out', weights]);
    assert.equal(r.status, 0, r.stderr);
    r = cliRun(['max-digit', 'analyze', '--weights', weights, '--out', analysis]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(treeDiff(JSON.parse(fs.readFileSync(weights, 'utf8')), JSON.parse(shippedText(weightsName))) <= REGENERATION_TOLERANCE);
    assert.ok(treeDiff(JSON.parse(fs.readFileSync(analysis, 'utf8')), JSON.parse(shippedText(analysisName))) <= REGENERATION_TOLERANCE);
  });
}

test('WASM loads the shipped weights and its analysis matches the shipped analysis.json', async () => {
  const core = await wasmMaxDigitCore();
  const w = core.maxDigitWeightsFromJson(shippedText('max-digit-seed0.json'));
  assert.equal(w.E.rows, 14);
  assert.equal(w.W_Q.length, 4);
  const analysis = core.maxDigitAnalyze(w);
  const shipped = JSON.parse(shippedText('max-digit-seed0-analysis.json'));
  assert.ok(treeDiff(analysis, shipped) <= NATIVE_WASM_ANALYSIS_TOLERANCE);
  // accuracies are ratios of integer counts: identical, not merely close
  assert.equal(analysis.accuracy, 1);
  assert.equal(analysis.residual_free_accuracy, 1);
  assert.deepEqual(analysis.subspace_accuracy, shipped.subspace_accuracy);
  assert.equal(analysis.patching.all_heads.answer, 4);
});

test('the full recipe in WASM reproduces the native weights and figures', async () => {
  const core = await wasmMaxDigitCore();
  const wasm = core.maxDigitTrain({ seed: 0 });
  const native = core.maxDigitWeightsFromJson(shippedText('max-digit-seed0.json'));
  assert.ok(treeDiff(matrices(wasm), matrices(native)) <= NATIVE_WASM_WEIGHTS_TOLERANCE);
  const shipped = JSON.parse(shippedText('max-digit-seed0-analysis.json'));
  assert.equal(core.maxDigitResidualFree(wasm).accuracy, shipped.residual_free_accuracy);
  for (const basis of ['w_o', 'w_u']) {
    for (let k = 1; k <= 8; k++) {
      assert.equal(core.maxDigitSubspaceAccuracy(wasm, basis, k).accuracy, shipped.subspace_accuracy[basis][k - 1]);
    }
  }
});

test('the trainer: chunked equals one-shot bit for bit, dispose frees it, a disposed trainer throws', async () => {
  const core = await wasmMaxDigitCore();
  const before = core.maxDigitLiveTrainers();
  const settings = { seed: 3, steps: 60 };
  const oneShot = core.maxDigitTrain(settings);
  const trainer = core.createMaxDigitTrainer(settings);
  assert.equal(core.maxDigitLiveTrainers(), before + 1);
  let progress;
  for (const n of [1, 9, 20, 100]) progress = trainer.step(n);
  assert.equal(progress.steps_taken, 60);
  assert.equal(progress.steps_total, 60);
  assert.equal(progress.done, true);
  assert.equal(trainer.result().final_batch_loss, progress.loss);
  assert.ok(Number.isFinite(progress.loss));
  assert.deepEqual(matrices(trainer.weights()), matrices(oneShot));
  trainer.dispose();
  trainer.dispose();
  assert.equal(core.maxDigitLiveTrainers(), before);
  assert.throws(
    () => trainer.step(1),
    (e) => e instanceof HeadlabError && /disposed/.test(e.message),
  );
  assert.throws(() => trainer.weights(), HeadlabError);
  // a bad setting throws and leaks nothing
  assert.throws(
    () => core.createMaxDigitTrainer({ learning_rate: -1 }),
    (e) => e instanceof HeadlabError && /^learning_rate must be finite and > 0/.test(e.message),
  );
  assert.throws(() => core.createMaxDigitTrainer({ batch: 8 }), /settings has an unknown field "batch"/);
  assert.throws(() => core.createMaxDigitTrainer({ steps: -1 }), /steps must lie in \[1, 10000000\], got -1$/);
  assert.throws(() => core.createMaxDigitTrainer({ init_scale: 1e100 }), /init_scale must lie in \(0, 10000\], got 1e\+100$/);
  assert.equal(core.maxDigitLiveTrainers(), before);
  // Divergence: the step is named, training ends there, no NaN weight is handed out as a result.
  const wild = core.createMaxDigitTrainer({ seed: 0, steps: 20, batch_size: 8, weight_decay: 0, learning_rate: 1e300 });
  try {
    const p = wild.step(20);
    assert.equal(p.done, true);
    assert.equal(p.diverged_at, 1);
    assert.match(p.divergence, /^training diverged at step 1: .*learning_rate 1e\+300/);
  } finally {
    wild.dispose();
  }
});

test('bad weights files: the same clear message natively and in JS', async () => {
  const core = await wasmMaxDigitCore();
  const good = JSON.parse(shippedText('max-digit-seed0.json'));
  const cases = [
    [
      'wrong shape',
      (f) => {
        f.W_K[1] = f.W_K[1].map((row) => row.slice(0, 15));
      },
      /W_K\[1\] must be 64 × 16, got 64 × 15/,
    ],
    [
      'missing matrix',
      (f) => {
        delete f.W_V;
      },
      /missing field "W_V"/,
    ],
    [
      'unknown version',
      (f) => {
        f.format_version = 2;
      },
      /format_version 2 is not supported; this core reads version 1/,
    ],
    [
      'too few heads',
      (f) => {
        f.W_O.pop();
      },
      /W_O must hold 4 matrices/,
    ],
    [
      'ragged',
      (f) => {
        f.E[3].pop();
      },
      /E row 3 must have 64 numbers/,
    ],
    // Finite but huge (docs/limits.md): once "accuracy 0.00%" and NaN attention mass on the page.
    [
      'huge entry',
      (f) => {
        f.E[0][0] = 1e200;
      },
      /E \(14 × 64\) has an entry 1e\+200 at row 0, column 0 beyond the magnitude limit ±1e\+06/,
    ],
    [
      'entry past the limit',
      (f) => {
        f.W_V[2][5][7] = -2e6;
      },
      /W_V\[2\] \(64 × 16\) has an entry -2e\+06 at row 5, column 7 beyond/,
    ],
  ];
  for (const [name, edit, message] of cases) {
    const file = structuredClone(good);
    edit(file);
    const text = JSON.stringify(file);
    assert.throws(
      () => core.maxDigitWeightsFromJson(text),
      (e) => e instanceof HeadlabError && message.test(e.message),
      name,
    );
    const p = path.join(tmp, `bad-${name.replace(/ /g, '-')}.json`);
    fs.writeFileSync(p, text);
    const r = cliRun(['max-digit', 'analyze', '--weights', p, '--out', path.join(tmp, 'never.json')]);
    assert.equal(r.status, 1, name);
    assert.match(r.stderr, message, name);
  }
  // NaN cannot be written in JSON: an object holding one is written as JSON for the one reader,
  // where it arrives as null, not a number.
  const nan = structuredClone(good);
  nan.W_U[5][2] = NaN;
  assert.throws(() => core.maxDigitWeightsFromJson(nan), /W_U\[5\]\[2\] is not a number/);
  const overflow = shippedText('max-digit-seed0.json').replace(/("W_U":\[\[)[^,]+/, '$11e999');
  const p = path.join(tmp, 'bad-overflow.json');
  fs.writeFileSync(p, overflow);
  const r = cliRun(['max-digit', 'analyze', '--weights', p, '--out', path.join(tmp, 'never.json')]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--weights: ".*" is not valid JSON: number overflow parsing '1e999' at line 1, column \d+/);
  // The same reader in WASM: the same message.
  assert.throws(() => core.maxDigitWeightsFromJson(overflow), /is not valid JSON: number overflow parsing '1e999' at line 1, column \d+/);
  // A value nested 100,000 deep is refused by depth before any deep work, natively and in WASM.
  const deep = '['.repeat(100000) + ']'.repeat(100000);
  assert.throws(() => core.maxDigitWeightsFromJson(deep), /nested deeper than 8 levels/);
  fs.writeFileSync(p, deep);
  const d = cliRun(['max-digit', 'analyze', '--weights', p, '--out', path.join(tmp, 'never.json')]);
  assert.equal(d.status, 1);
  assert.match(d.stderr, /nested deeper than 8 levels/);
  assert.ok(d.stderr.length < 300, 'the message quotes only a short excerpt');
  assert.throws(() => core.maxDigitWeightsFromJson('{not json'), /not valid JSON/);
});

test('analyses through WASM: attention rows, patching, PCA invariants, bad arguments', async () => {
  const core = await wasmMaxDigitCore();
  const w = core.maxDigitWeightsFromJson(shippedText('max-digit-seed0.json'));
  const rows = core.maxDigitAnsAttention(w, [2, 3, 4, 5, 6]);
  assert.equal(rows.rows, 4);
  assert.equal(rows.cols, 9);
  for (let h = 0; h < 4; h++) {
    const sum = rows.data.subarray(h * 9, h * 9 + 9).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) <= 9 * 3 * Number.EPSILON, `row ${h} sums to 1`);
  }
  const every = [0, 1, 2, 3].map((head) => ({ head, position: 3 }));
  const patched = core.maxDigitPatch(w, [2, 3, 4, 5, 6], every);
  assert.equal(patched.original_answer, 6);
  assert.equal(patched.answer, 4);
  const pca = core.maxDigitPrincipalDirections(w, 'w_o');
  const d = pca.directions;
  for (let i = 0; i < 8; i++) {
    for (let j = 0; j < 8; j++) {
      let dot = 0;
      for (let r = 0; r < 64; r++) dot += d.data[r * 64 + i] * d.data[r * 64 + j];
      assert.ok(Math.abs(dot - (i === j ? 1 : 0)) <= 1e-12, `directions ${i}, ${j}`);
    }
  }
  for (let i = 1; i < 64; i++) assert.ok(pca.variance[i] <= pca.variance[i - 1]);
  assert.equal(core.maxDigitSubspaceAccuracy(w, 'w_u', 64).correct, core.maxDigitResidualFree(w).correct);
  assert.equal(core.maxDigitAblation(w, []).accuracy, 1);
  assert.throws(() => core.maxDigitLogits(w, [1, 12]), /digits\[1\] must be a digit 0–9, got 12/);
  assert.throws(() => core.maxDigitSubspaceAccuracy(w, 'w_x', 3), /basis/);
  assert.throws(() => core.maxDigitPatch(w, [1, 2], [{ head: 7, position: 0 }]), /patch head/);
  const c = core.maxDigitContributions(w, [2, 3, 4, 5, 6]);
  assert.equal(c.unembedding.rows, 14);
  assert.equal(c.answer, 6);
});

test('the runner-up split in WASM: the measured masses are the attention rows, the pair share is σ(gap)', async () => {
  const core = await wasmMaxDigitCore();
  const w = core.maxDigitWeightsFromJson(shippedText('max-digit-seed0.json'));
  for (const [m, r] of [
    [9, 8],
    [9, 0],
    [5, 4],
    [1, 0],
  ]) {
    const split = core.maxDigitRunnerUp(w, m, r);
    const att = core.maxDigitAnsAttention(w, [r, m]); // positions: BOS, r, m, PAD ×4, SEP, ANS
    for (let h = 0; h < 4; h++) {
      // The same core function produces both: equal to the last bit.
      assert.equal(split.on_maximum[h], att.data[h * 9 + 2]);
      assert.equal(split.on_runner_up[h], att.data[h * 9 + 1]);
      // Within the pair the softmax is σ(gap); 16ε covers the two exponentials and quotients.
      const share = split.on_maximum[h] / (split.on_maximum[h] + split.on_runner_up[h]);
      assert.ok(Math.abs(share - split.two_token_share[h]) <= 16 * Number.EPSILON, `m ${m} r ${r} head ${h}`);
    }
  }
  assert.throws(
    () => core.maxDigitRunnerUp(w, 4, 4),
    (e) => e instanceof HeadlabError && /runner_up must be below maximum/.test(e.message),
  );
});

test('a seed trained in WASM has the claims `headlab max-digit seeds` prints for it', async () => {
  const core = await wasmMaxDigitCore();
  const file = path.join(tmp, 'seeds.json');
  const r = cliRun(['max-digit', 'seeds', '--from', '1', '--to', '1', '--out', file]);
  assert.equal(r.status, 0, r.stderr);
  const cli = JSON.parse(fs.readFileSync(file, 'utf8')).seeds[0];
  assert.equal(cli.seed, 1);
  const analysis = core.maxDigitAnalyze(core.maxDigitTrain({ seed: 1 }));
  // Claims are counts, digit lists and ratios of counts: equal, not merely close.
  assert.deepEqual(analysis.claims, cli.claims);
  // The shipped cross-seed file is the CLI's output for seeds 0–9.
  const shipped = JSON.parse(shippedText('max-digit-seeds-0-9.json'));
  assert.deepEqual(
    shipped.seeds.map((s) => s.seed),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  assert.deepEqual(shipped.seeds[1].claims, cli.claims);
});

test('a model held in the heap: every analysis gives the same bits as with the weights, copies only at load, frees on dispose', async () => {
  const core = await wasmMaxDigitCore();
  const w = core.maxDigitWeightsFromJson(shippedText('max-digit-seed0.json'));
  // The weights' doubles: E (14 × 64), W_Q, W_K, W_V (4 × 64 × 16 each), W_O (4 × 16 × 64), W_U (64 × 14).
  const weightBytes = 8 * (14 * 64 + 4 * 4 * 64 * 16 + 64 * 14);
  assert.equal(weightBytes, 145408);
  const copied = () => core.memoryDiagnostics().bytes_copied_in;
  let before = copied();
  const models = core.maxDigitLiveModels();
  const model = core.maxDigitModel(w);
  assert.equal(copied() - before, weightBytes, 'the weights are copied in once, at load');
  assert.equal(core.maxDigitLiveModels(), models + 1);
  const digits = [2, 3, 4, 5, 6];
  const calls = [
    ['maxDigitLogits', digits],
    ['maxDigitAnsAttention', digits],
    ['maxDigitHeadLogits', digits],
    ['maxDigitScoreTable'],
    ['maxDigitAttentionByMax'],
    ['maxDigitPatch', digits, [{ head: 1, position: 3 }]],
    ['maxDigitAblation', [0, 2]],
    ['maxDigitResidualFree'],
    ['maxDigitPrincipalDirections', 'w_u'],
    ['maxDigitSubspaceAccuracy', 'w_o', 3],
    ['maxDigitCosineTop3'],
    ['maxDigitContributions', digits, 'w_o', 3],
    ['maxDigitAngleVsDot', 'w_u', 2],
    ['maxDigitRunnerUp', 7, 3],
    ['maxDigitAnalyze'],
  ];
  for (const [name, ...args] of calls) {
    const given = core[name](w, ...args);
    before = copied();
    const held = core[name](model, ...args);
    assert.equal(copied() - before, 0, `${name} of a held model copies nothing into the heap`);
    // The same bits: the held weights are the weights given.
    assert.equal(treeDiff(held, given), 0, name);
  }
  // Weights given with a call are copied in with it.
  before = copied();
  core.maxDigitLogits(w, digits);
  assert.equal(copied() - before, weightBytes);
  assert.throws(() => core.maxDigitLogits(model, [1, 12]), /digits\[1\] must be a digit 0–9, got 12/);
  model.dispose();
  model.dispose();
  assert.equal(core.maxDigitLiveModels(), models);
  assert.throws(
    () => core.maxDigitLogits(model, digits),
    (e) => e instanceof HeadlabError && /disposed/.test(e.message),
  );
  assert.throws(() => core.maxDigitModel({ ...w, E: { rows: 2, cols: 2, data: new Float64Array(4) } }), HeadlabError);
  assert.equal(core.maxDigitLiveModels(), models, 'a refused model frees its handle');
});
