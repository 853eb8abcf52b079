// The attention head through the WASM module, against the native CLI and the draft's hand-computed cases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeadlabError } from '../../web/headlab-core.js';
import { at, identity, matrix, toRows } from '../../web/matrix.js';
import { cliJson, cliRun, maxAbsDiff, wasmCore } from './helpers.mjs';

// Native (glibc, SSE2 Eigen kernels) and WASM (musl, scalar kernels) may round
// exp and summation order differently: a few ulp on values of order one.
const NATIVE_WASM_TOLERANCE = 16 * Number.EPSILON;

const I2 = identity(2);
const swap = matrix([
  [0, 1],
  [1, 0],
]);
const diag23 = matrix([
  [2, 0],
  [0, -3],
]);
const cases = {
  identity: { x: I2, w_q: I2, w_k: I2, w_v: I2 },
  swap_q: { x: I2, w_q: swap, w_k: I2, w_v: I2 },
  swap_k: { x: I2, w_q: I2, w_k: swap, w_v: I2 },
  value_diag: { x: I2, w_q: I2, w_k: I2, w_v: diag23 },
  general_causal: {
    x: matrix([
      [0.5, -1, 2],
      [1, 1, -0.5],
      [-2, 0.5, 0],
      [0.3, 0.2, 0.1],
    ]),
    w_q: matrix([
      [0.3, -0.7],
      [0.3, 0.3],
      [1.1, -0.2],
    ]),
    w_k: matrix([
      [-0.2, 0.9],
      [0.4, -0.2],
      [-0.2, 0.6],
    ]),
    w_v: matrix([
      [1, 2, 3, 4],
      [0.5, -0.5, 0, 1],
      [-1, 0, 1, 2],
    ]),
    causal: true,
  },
};

function cliInput(c) {
  return JSON.stringify({ x: toRows(c.x), w_q: toRows(c.w_q), w_k: toRows(c.w_k), w_v: toRows(c.w_v), causal: !!c.causal });
}

for (const [name, c] of Object.entries(cases)) {
  test(`attention ${name}: WASM equals the native CLI`, async () => {
    const core = await wasmCore();
    const wasm = core.attention(c);
    const native = cliJson(['attention'], cliInput(c));
    for (const key of ['q', 'k', 'v', 'dot_products', 'scores', 'weights', 'reading']) {
      assert.ok(maxAbsDiff(wasm[key], native[key]) <= NATIVE_WASM_TOLERANCE, `${key} differs`);
    }
  });
}

test('the draft: swapping W_Q or W_K turns q1·k1, q1·k2 from 1, 0 into 0, 1', async () => {
  const core = await wasmCore();
  const sqrt2 = Math.SQRT2;
  const base = core.attention(cases.identity);
  assert.equal(at(base.scores, 0, 0) * sqrt2, 1);
  assert.equal(at(base.scores, 0, 1) * sqrt2, 0);
  for (const c of [cases.swap_q, cases.swap_k]) {
    const r = core.attention(c);
    assert.equal(at(r.scores, 0, 0) * sqrt2, 0);
    assert.equal(at(r.scores, 0, 1) * sqrt2, 1);
  }
  // The core's own swap helper builds the same swapped projection.
  assert.deepEqual(toRows(core.swapProjectionCoordinates(I2, 0, 1)), toRows(swap));
});

test('the draft: W_V = diag(2, -3) keeps scores and weights bit-identical and gives values [2,0], [0,-3]', async () => {
  const core = await wasmCore();
  const base = core.attention(cases.identity);
  const r = core.attention(cases.value_diag);
  assert.deepEqual(r.scores.data, base.scores.data);
  assert.deepEqual(r.weights.data, base.weights.data);
  assert.deepEqual(toRows(r.v), [
    [2, 0],
    [0, -3],
  ]);
});

test('rotating Q and K leaves the scores unchanged', async () => {
  const core = await wasmCore();
  const q = matrix([
    [1, 2, 0.5],
    [-1, 0.3, 2],
  ]);
  const k = matrix([
    [0.2, -1, 1],
    [3, 0.1, -0.4],
    [1, 1, 1],
  ]);
  const r = core.planeRotation(3, 0, 2, 0.83);
  const rotated = core.rotateQueryKey(q, k, r);
  const scores = (a, b) => {
    const out = [];
    for (let i = 0; i < a.rows; i++)
      for (let j = 0; j < b.rows; j++) {
        let s = 0;
        for (let t = 0; t < a.cols; t++) s += at(a, i, t) * at(b, j, t);
        out.push(s);
      }
    return out;
  };
  const before = scores(q, k),
    after = scores(rotated.q, rotated.k);
  // Three length-3 dot products of magnitude ≤ 10 per score: 6·3·ε·10.
  const bound = 6 * 3 * Number.EPSILON * 10;
  before.forEach((s, i) => assert.ok(Math.abs(after[i] - s) <= bound, `score ${i}`));
  assert.ok(Math.abs(at(rotated.q, 0, 0) - at(q, 0, 0)) > 1e-3, 'coordinates move');
});

test('bad input: the JS Error carries the same message as the C++ exception and the CLI', async () => {
  const core = await wasmCore();
  const bad = {
    x: I2,
    w_q: matrix([
      [1, 0],
      [0, 1],
      [1, 1],
    ]),
    w_k: I2,
    w_v: I2,
  };
  const expected = 'w_q must have d_model = 2 rows to match x (2 × 2), got 3 × 2';
  assert.throws(
    () => core.attention(bad),
    (e) => e instanceof HeadlabError && e.message === expected,
  );
  const cli = cliRun(['attention'], cliInput(bad));
  assert.equal(cli.status, 1);
  assert.match(cli.stderr, new RegExp(expected.replace(/[()]/g, '\\$&')));

  const nan = {
    ...cases.identity,
    x: matrix([
      [1, 0],
      [NaN, 1],
    ]),
  };
  assert.throws(() => core.attention(nan), /x \(2 × 2\) has a non-finite entry nan at row 1, column 0/);
  const inf = {
    ...cases.identity,
    w_v: matrix([
      [1, Infinity],
      [0, 1],
    ]),
  };
  assert.throws(() => core.attention(inf), /w_v \(2 × 2\) has a non-finite entry/);
  const empty = { ...cases.identity, x: { rows: 0, cols: 2, data: new Float64Array(0) } };
  assert.throws(() => core.attention(empty), /x is empty \(0 × 2\)/);
  const shortData = { ...cases.identity, w_k: { rows: 2, cols: 2, data: new Float64Array(3) } };
  assert.throws(() => core.attention(shortData), /w_k.data has length 3 but 2 × 2 needs 4/);
  const notTyped = { ...cases.identity, w_k: { rows: 2, cols: 2, data: [1, 0, 0, 1] } };
  assert.throws(() => core.attention(notTyped), /w_k.data must be a Float64Array/);
  assert.throws(() => core.attention({}), /x must be a matrix/);
  const shear = matrix([
    [1, 0.5],
    [0, 1],
  ]);
  assert.throws(() => core.rotateQueryKey(I2, I2, shear), /rotation \(2 × 2\) is not orthogonal/);
  assert.throws(() => core.swapProjectionCoordinates(I2, 0, 2), /coordinate b = 2 is out of range \[0, 2\)/);
  assert.throws(() => core.planeRotation(2, 0, 1, NaN), /angle must be finite/);
});

test('softmax survives scores of ±1e300 in WASM too', async () => {
  const core = await wasmCore();
  // x·W_Q·(x·W_K)ᵀ/√1 = ±1e300 without overflow in the projections.
  const x = matrix([[1], [-1]]);
  const r = core.attention({ x, w_q: matrix([[1e150]]), w_k: matrix([[1e150]]), w_v: matrix([[1]]) });
  assert.ok(r.weights.data.every(Number.isFinite));
  assert.deepEqual(Array.from(r.weights.data), [1, 0, 0, 1]);
});
