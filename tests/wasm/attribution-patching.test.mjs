// Attribution patching (core/attribution_patching.hpp) in the WASM module: the document the native
// CLI writes (--attribution-patching), byte for byte (every per-pair estimate, real patch, mean,
// rank correlation and named disagreement the same bits), for the two-layer fixture with its pairs
// file and for the shipped induction model with the induction generator; the wrapper's parsed
// document; interval settings refused as the CLI refuses them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { cliRun, root, wasmDir, wasmTransformerCore } from './helpers.mjs';

const dataDir = path.join(root, 'tests/data');
const shipped = path.join(root, 'site/pages/data');

test('attribution patching in WASM gives the CLI document byte for byte', async () => {
  const { default: factory } = await import(path.join(wasmDir, 'headlab_transformer.mjs'));
  const raw = await factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_transformer.wasm')) });
  const pairsPath = path.join(dataDir, 'batch_patching/pairs.json');
  const cases = [
    [path.join(dataDir, 'transformer/two_layer_ln_pos'), ['--pairs', pairsPath], { pairs: fs.readFileSync(pairsPath, 'utf8') }],
    [
      path.join(shipped, 'induction-seed0'),
      ['--pairs-task', 'induction', '--count', '8', '--pairs-seed', '1'],
      { task: 'induction', count: 8, pairs_seed: 1 },
    ],
  ];
  for (const [stem, flags, request] of cases) {
    const handle = new raw.TransformerModelHandle();
    try {
      handle.load(fs.readFileSync(`${stem}.json`, 'utf8'), new Uint8Array(fs.readFileSync(`${stem}.safetensors`)));
      const r = cliRun([
        'model',
        'analyze',
        '--config',
        `${stem}.json`,
        '--weights',
        `${stem}.safetensors`,
        ...flags,
        '--attribution-patching',
      ]);
      assert.equal(r.status, 0, r.stderr);
      const text = handle.attribution_patching(request);
      assert.equal(typeof text, 'string', JSON.stringify(text));
      assert.equal(text, r.stdout, flags.join(' '));
      const doc = JSON.parse(text);
      assert.ok(doc.edges.edges.length > 0);
      assert.equal(typeof doc.agreement.nodes.spearman, 'number');
      assert.equal(
        handle.attribution_patching({ ...request, seed: 2 }).error,
        'seed sets intervals, which attribution patching does not draw',
      );
    } finally {
      handle.delete();
    }
  }
});

test('TransformerModel.attributionPatching: the parsed document; bad pairs named', async () => {
  const core = await wasmTransformerCore();
  const stem = path.join(dataDir, 'transformer/two_layer_ln_pos');
  const model = core.loadTransformer(fs.readFileSync(`${stem}.json`, 'utf8'), new Uint8Array(fs.readFileSync(`${stem}.safetensors`)));
  try {
    const doc = model.attributionPatching({ task: 'induction', count: 4, pairs_seed: 2 });
    assert.equal(doc.pairs, 4);
    // 2 layers × 3 heads: nodes [2][3], 9 edges [q, k, v], at most 5 named disagreements each.
    assert.equal(doc.nodes.estimate.length, 2);
    assert.equal(doc.nodes.estimate[0].length, 3);
    assert.equal(doc.edges.estimate.length, 9);
    assert.equal(doc.agreement.nodes.largest.length, 5);
    const bad = JSON.stringify({ pairs: [{ clean: '1 2 3', corrupted: '1 2', answer: 5, wrong: 6 }] });
    assert.throws(() => model.attributionPatching({ pairs: bad }), /pair 0: the corrupted prompt has 2 tokens, the clean one 3/);
  } finally {
    model.dispose();
  }
});
