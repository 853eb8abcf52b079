// The first article's query–key geometry through the WASM module: the invertible change of
// basis Q′ = QA, K′ = KA^{−T} and the query–key picture at a score scale.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeadlabError } from '../../web/headlab-core.js';
import { at, identity, matrix, toRows } from '../../web/matrix.js';
import { cliJson, maxAbsDiff, wasmCore } from './helpers.mjs';

// Scores after a change of basis of 2 × 2 O(1) entries with κ(A) ≤ 10: the rotation bound
// (6 · d · ε per unit of ‖q‖‖k‖) times κ, as in tests/core/tolerances.hpp.
const changedBasisBound = (d, magnitude, condition) => 6 * d * Number.EPSILON * magnitude * condition;
const NATIVE_WASM_TOLERANCE = 16 * Number.EPSILON;

test('QA, KA^-T: scores unchanged, lengths and angles moved, inverse transpose in closed form', async () => {
  const core = await wasmCore();
  const q = identity(2);
  const k = matrix([
    [1, 0.5],
    [-0.5, 1],
  ]);
  const a = matrix([
    [2, 0.5],
    [0, 0.5],
  ]); // det 1, so A^{-T} = [[0.5, 0], [-0.5, 2]]
  const r = core.changeQueryKeyBasis(q, k, a);
  assert.ok(
    maxAbsDiff(r.inverse_transpose, [
      [0.5, 0],
      [-0.5, 2],
    ]) <=
      4 * Number.EPSILON,
  );
  assert.ok(r.condition_number > 4 && r.condition_number < 4.5, `κ = ${r.condition_number}`);
  const v = identity(2);
  const before = core.queryKeyPicture(q, k, v, 1);
  const after = core.queryKeyPicture(r.q, r.k, v, 1);
  assert.ok(maxAbsDiff(after.scores, toRows(before.scores)) <= changedBasisBound(2, 2, r.condition_number));
  assert.equal(at(before.query_lengths, 0, 0), 1);
  assert.ok(Math.abs(at(after.query_lengths, 0, 0) - Math.sqrt(4.25)) <= 4 * Number.EPSILON);
  assert.ok(Math.abs(at(before.query_angles, 0, 1) - Math.PI / 2) <= 4 * Number.EPSILON);
  assert.ok(at(after.query_angles, 0, 1) < 1.4);
});

test('the head at s = 1/sqrt(2) equals the native CLI; s = 4 sharpens the W_Q edit to 98/2', async () => {
  const core = await wasmCore();
  const I2 = identity(2),
    swap = matrix([
      [0, 1],
      [1, 0],
    ]);
  const native = cliJson(
    ['attention'],
    JSON.stringify({
      x: [
        [1, 0],
        [0, 1],
      ],
      w_q: [
        [0, 1],
        [1, 0],
      ],
      w_k: [
        [1, 0],
        [0, 1],
      ],
      w_v: [
        [1, 0],
        [0, 1],
      ],
    }),
  );
  const p = core.queryKeyPicture(swap, I2, I2, 1 / Math.SQRT2);
  assert.ok(maxAbsDiff(p.weights, native.weights) <= NATIVE_WASM_TOLERANCE);
  assert.ok(maxAbsDiff(p.scores, native.scores) <= NATIVE_WASM_TOLERANCE);
  const sharp = core.queryKeyPicture(swap, I2, I2, 4);
  assert.ok(Math.abs(at(sharp.weights, 0, 1) - 1 / (1 + Math.exp(-4))) <= 4 * Number.EPSILON);
  assert.equal(at(core.queryKeyPicture(swap, I2, I2, 0).weights, 0, 0), 0.5);
});

test('bad A or score scale: a HeadlabError with the core message, never NaN', async () => {
  const core = await wasmCore();
  const q = identity(2);
  const cases = [
    [
      matrix([
        [1, 2],
        [2, 4],
      ]),
      /A \(2 × 2\) is singular/,
    ],
    [
      matrix([
        [1, 0],
        [0, 1e-10],
      ]),
      /condition number 1e\+10 exceeds 1e\+08/,
    ],
    [
      matrix([
        [1, 0],
        [NaN, 1],
      ]),
      /non-finite entry/,
    ],
    [identity(3), /A must be 2 × 2, got 3 × 3/],
  ];
  for (const [a, message] of cases) {
    assert.throws(
      () => core.changeQueryKeyBasis(q, q, a),
      (e) => e instanceof HeadlabError && message.test(e.message),
    );
  }
  assert.throws(() => core.queryKeyPicture(q, q, q, -1), /score scale must be a finite number ≥ 0/);
  assert.throws(() => core.queryKeyPicture(q, q, q, Infinity), /score scale must be finite/);
});
