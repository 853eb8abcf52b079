// Batch patching (core/batch_patching.hpp) and path patching (core/path_patching.hpp) in the WASM
// module: the documents the native CLI writes, byte for byte (every per-pair effect, mean, interval
// bound and p-value the same bits), from a pairs file and from the induction generator, and a bad pairs file refused with the CLI's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { cliRun, root, wasmDir } from './helpers.mjs';

const dataDir = path.join(root, 'tests/data');
const shipped = path.join(root, 'site/pages/data');

async function rawModule() {
  const { default: factory } = await import(path.join(wasmDir, 'headlab_transformer.mjs'));
  return factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_transformer.wasm')) });
}

/** A handle loaded with config + weights, and the CLI flags naming the same files. */
function loaded(raw, config, weights) {
  const handle = new raw.TransformerModelHandle();
  handle.load(fs.readFileSync(config, 'utf8'), new Uint8Array(fs.readFileSync(weights)));
  return { handle, files: ['--config', config, '--weights', weights] };
}

test('batch patching in WASM gives the CLI document byte for byte: a pairs file and the induction generator', async () => {
  const raw = await rawModule();
  const pairsPath = path.join(dataDir, 'batch_patching/pairs.json');
  const fixture = loaded(
    raw,
    path.join(dataDir, 'transformer/two_layer_ln_pos.json'),
    path.join(dataDir, 'transformer/two_layer_ln_pos.safetensors'),
  );
  const induction = loaded(raw, path.join(shipped, 'induction-seed0.json'), path.join(shipped, 'induction-seed0.safetensors'));
  try {
    const cases = [
      [
        fixture,
        ['--pairs', pairsPath, '--resamples', '100', '--permutations', '150', '--seed', '3'],
        { pairs: fs.readFileSync(pairsPath, 'utf8'), resamples: 100, permutations: 150, seed: 3 },
      ],
      [induction, ['--pairs-task', 'induction', '--count', '16', '--pairs-seed', '1'], { task: 'induction', count: 16, pairs_seed: 1 }],
    ];
    for (const [{ handle, files }, flags, request] of cases) {
      const r = cliRun(['model', 'analyze', ...files, ...flags]);
      assert.equal(r.status, 0, r.stderr);
      const text = handle.batch_patching(request);
      assert.equal(typeof text, 'string', JSON.stringify(text));
      assert.equal(text, r.stdout, flags.join(' '));
      // Path patching (core/path_patching.hpp) over the same pairs: the same request, --path-patching.
      const p = cliRun(['model', 'analyze', ...files, ...flags, '--path-patching']);
      assert.equal(p.status, 0, p.stderr);
      const paths = handle.path_patching(request);
      assert.equal(typeof paths, 'string', JSON.stringify(paths));
      assert.equal(paths, p.stdout, `${flags.join(' ')} --path-patching`);
      assert.ok(JSON.parse(paths).edges.length > 0);
    }
    // A pair whose prompts differ in length: the CLI's message after its "--pairs <path>: " prefix.
    const text = JSON.stringify({ pairs: [{ clean: '1 2 3', corrupted: '1 2', answer: 5, wrong: 6 }] });
    const tmp = path.join(fs.mkdtempSync(path.join(wasmDir, '..', 'pairs-')), 'bad.json');
    fs.writeFileSync(tmp, text);
    const r = cliRun(['model', 'analyze', ...fixture.files, '--pairs', tmp]);
    assert.equal(r.status, 1);
    const cli = /^headlab model analyze: --pairs \S+: (.*)\n$/s.exec(r.stderr)?.[1];
    assert.ok(cli, r.stderr);
    const wasm = fixture.handle.batch_patching({ pairs: text });
    assert.equal(wasm.error, `pairs: ${cli}`);
  } finally {
    fixture.handle.delete();
    induction.handle.delete();
  }
});
