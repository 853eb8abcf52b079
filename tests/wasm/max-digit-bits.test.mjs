// Bit-identity of max-digit training: the CLI regenerates the shipped seed-0 weight files byte for
// byte, and the recipe trained in WASM gives exactly the native weights (every double equal, no
// tolerance). The batched training kernels keep the order and rounding of every product and sum
// (tests/core/max_digit_kernels_test.cpp checks them against the per-example reference).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cliRun, root, wasmMaxDigitCore } from './helpers.mjs';

const dataDir = path.join(root, 'site/pages/data');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-max-digit-bits-'));

/** Every matrix of a weights object as one list of doubles, in parameter order. */
function flatten(w) {
  const out = [];
  const push = (m) => {
    for (const x of m.data) out.push(x);
  };
  push(w.E);
  for (let h = 0; h < 4; h++) for (const name of ['W_Q', 'W_K', 'W_V', 'W_O']) push(w[name][h]);
  push(w.W_U);
  return out;
}

for (const [flags, name] of [
  [[], 'max-digit-seed0.json'],
  [['--unit-norm-unembedding'], 'max-digit-seed0-unit-norm.json'],
]) {
  test(`the CLI regenerates ${name} byte for byte`, () => {
    const out = path.join(tmp, name);
    const r = cliRun(['max-digit', 'train', '--seed', '0', ...flags, '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(fs.readFileSync(out).equals(fs.readFileSync(path.join(dataDir, name))), `${name} differs from the shipped file`);
  });
}

test('WASM trains the seed-0 recipe to exactly the shipped native weights (default and unit-norm W_U)', async () => {
  const core = await wasmMaxDigitCore();
  for (const [settings, name] of [
    [{ seed: 0 }, 'max-digit-seed0.json'],
    [{ seed: 0, unit_norm_unembedding: true }, 'max-digit-seed0-unit-norm.json'],
  ]) {
    const wasm = flatten(core.maxDigitTrain(settings));
    const native = flatten(core.maxDigitWeightsFromJson(fs.readFileSync(path.join(dataDir, name), 'utf8')));
    assert.equal(wasm.length, native.length);
    const differing = wasm.filter((x, i) => !Object.is(x, native[i])).length;
    assert.equal(differing, 0, `${name}: ${differing} of ${wasm.length} weights differ`);
  }
});
