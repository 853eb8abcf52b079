// Composition scores, the logit lens and head SVDs (core/head_composition.hpp, core/logit_lens.hpp,
// core/head_svd.hpp) in WASM: the native CLI's numbers, bit for bit, except the OV eigenvalues and
// copying scores (Eigen's EigenSolver sums in a vector-width-dependent order; bound
// kCopyingNativeWasmBound = 1e-12), and the torch float64 reference within 1e-9.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cliRun, readF64Tensors, root, wasmTransformerCore } from './helpers.mjs';

const dataDir = path.join(root, 'tests/data/transformer');
const referenceDir = path.join(root, 'tests/data/head_circuits');
const MODELS = ['two_layer_ln_pos', 'two_layer_lnpre_pos', 'three_layer_ln_f32'];
// core/head_svd.hpp kCopyingNativeWasmBound, and tests/core/tolerances.hpp kCircuitReferenceRelative.
const COPYING_NATIVE_WASM_BOUND = 1e-12;
const CIRCUIT_REFERENCE_RELATIVE = 1e-9;

/** Walks two parsed documents; numbers under `loose` keys within the bound, every other leaf the same bits. */
function compare(actual, expected, where, loose, worst) {
  if (ArrayBuffer.isView(actual)) actual = Array.from(actual);
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${where}: length`);
    expected.forEach((e, i) => compare(actual[i], e, `${where}[${i}]`, loose, worst));
  } else if (expected !== null && typeof expected === 'object') {
    assert.deepEqual(Object.keys(actual), Object.keys(expected), `${where}: members`);
    for (const k of Object.keys(expected))
      compare(actual[k], expected[k], `${where}.${k}`, loose || k === 'copying' || k === 'ov_eigenvalues', worst);
  } else if (loose) {
    worst.value = Math.max(worst.value, Math.abs(actual - expected));
  } else {
    assert.ok(Object.is(actual, expected), `${where}: ${actual} against ${expected}`);
  }
}

test('composition, logit lens and head SVD: the CLI numbers in WASM, copying within 1e-12, torch within 1e-9', async () => {
  const core = await wasmTransformerCore();
  for (const name of MODELS) {
    const config = fs.readFileSync(path.join(dataDir, `${name}.json`), 'utf8');
    const model = core.loadTransformer(config, new Uint8Array(fs.readFileSync(path.join(dataDir, `${name}.safetensors`))));
    try {
      const files = ['--config', path.join(dataDir, `${name}.json`), '--weights', path.join(dataDir, `${name}.safetensors`)];
      const r = cliRun([
        'model',
        'analyze',
        ...files,
        '--prompt',
        '1 2 3 1 2',
        '--sequences',
        '1',
        '--seed',
        '4',
        '--composition',
        '--logit-lens',
        '--head-svd',
        '--top',
        '3',
        '--directions',
        '2',
      ]);
      assert.equal(r.status, 0, r.stderr);
      const native = JSON.parse(r.stdout);
      const wasm = model.analyze({
        prompt: [1, 2, 3, 1, 2],
        sequences: 1,
        seed: 4,
        composition: true,
        logit_lens: true,
        head_svd: true,
        top: 3,
        directions: 2,
      });
      const worst = { value: 0 };
      for (const key of ['composition', 'logit_lens', 'head_svd']) compare(wasm[key], native[key], `${name}.${key}`, false, worst);
      assert.ok(worst.value <= COPYING_NATIVE_WASM_BOUND, `${name}: copying / eigenvalues differ by ${worst.value}`);

      const ref = readF64Tensors(path.join(referenceDir, `${name}.circuits.safetensors`));
      const n = wasm.composition.heads.length;
      const within = (got, want, where) =>
        assert.ok(Math.abs(got - want) <= CIRCUIT_REFERENCE_RELATIVE * Math.max(1, Math.abs(want)), `${where}: ${got} against ${want}`);
      for (const m of ['q', 'k', 'v'])
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++) within(wasm.composition[m][i][j], ref[`comp_${m}`][i * n + j], `${name} ${m}[${i}][${j}]`);
      const H = wasm.head_svd.heads[0].length,
        c = wasm.head_svd.heads[0][0].ov_singular_values.length;
      wasm.head_svd.heads.flat().forEach((h, i) => {
        within(h.copying, ref.copying[i], `${name} copying ${i}`);
        h.ov_singular_values.forEach((s, k) => within(s, ref.ov_sv[i * c + k], `${name} ov σ ${i}.${k}`));
        h.qk_singular_values.forEach((s, k) => within(s, ref.qk_sv[i * c + k], `${name} qk σ ${i}.${k}`));
      });
      assert.equal(wasm.head_svd.heads.flat().length, n);
      assert.equal(H * wasm.head_svd.heads.length, n);
    } finally {
      model.dispose();
    }
  }
});

test('composition, logit lens and head SVD: bad requests are named', async () => {
  const core = await wasmTransformerCore();
  const name = 'two_layer_ln_pos';
  const model = core.loadTransformer(
    fs.readFileSync(path.join(dataDir, `${name}.json`), 'utf8'),
    new Uint8Array(fs.readFileSync(path.join(dataDir, `${name}.safetensors`))),
  );
  try {
    assert.throws(() => model.analyze({ prompt: '1 2', sequences: 1, head_svd: true, directions: 5 }), {
      message: 'directions must lie in [1, 4], got 5',
    });
    assert.throws(() => model.analyze({ prompt: '1 2', sequences: 1, logit_lens: true, top: 0 }), {
      message: 'top must lie in [1, 17], got 0',
    });
  } finally {
    model.dispose();
  }
});
