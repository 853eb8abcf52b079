// RoPE, RMSNorm, shortformer positions and grouped key-value heads through the WASM module: the
// independent PyTorch float64 reference of tests/data/archs/make_fixtures.py within 1e-10, and the
// native CLI's analysis documents byte for byte (from the safetensors file and from the .pt file).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkTorchFixture, cliRun, readF64Tensors, root, wasmDir, wasmTransformerCore } from './helpers.mjs';

const dataDir = path.join(root, 'tests/data/archs');
const FIXTURES = ['rope_neox_rms_nobias', 'rope_gptj_partial_gqa', 'shortformer_ln', 'mqa_nopos_lnpre'];
const configText = (name) => fs.readFileSync(path.join(dataDir, `${name}.json`), 'utf8');
const weightsBytes = (name) => new Uint8Array(fs.readFileSync(path.join(dataDir, `${name}.safetensors`)));
// As tests/core/tolerances.hpp kReferenceParityBound.
const REFERENCE_PARITY_BOUND = 1e-10;

test(`WASM matches the PyTorch reference within ${REFERENCE_PARITY_BOUND} for RoPE, RMSNorm, shortformer, grouped heads`, async () => {
  const core = await wasmTransformerCore();
  for (const name of FIXTURES) {
    const expected = readF64Tensors(path.join(dataDir, `${name}.expected.safetensors`));
    const model = core.loadTransformer(configText(name), weightsBytes(name));
    try {
      checkTorchFixture(model, expected, REFERENCE_PARITY_BOUND, name);
    } finally {
      model.dispose();
    }
  }
});

test("the WASM module's analysis is the native CLI's, byte for byte, from safetensors and from .pt", async () => {
  const { default: factory } = await import(path.join(wasmDir, 'headlab_transformer.mjs'));
  const raw = await factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_transformer.wasm')) });
  const args = ['--prompt', '1 2 3 4 1 2', '--corrupted', '1 2 5 4 1 2', '--answer', '3', '--wrong', '5', '--circuits', '--sequences', '3'];
  for (const name of FIXTURES) {
    const handle = new raw.TransformerModelHandle();
    try {
      assert.equal(typeof handle.load(configText(name), weightsBytes(name)), 'string');
      const wasm = handle.analyze({
        prompt: [1, 2, 3, 4, 1, 2],
        corrupted: '1 2 5 4 1 2',
        answer: 3,
        wrong: 5,
        circuits: true,
        sequences: 3,
      });
      for (const weights of [`${name}.safetensors`, `${name}.pt`]) {
        const r = cliRun([
          'model',
          'analyze',
          '--config',
          path.join(dataDir, `${name}.json`),
          '--weights',
          path.join(dataDir, weights),
          ...args,
        ]);
        assert.equal(r.status, 0, r.stderr);
        assert.equal(wasm, r.stdout, `${name}: ${weights}`);
      }
    } finally {
      handle.delete();
    }
  }
});
