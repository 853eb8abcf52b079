// Attribution patching (core/attribution_patching.hpp) in the WASM module: the document the native
// CLI writes (--attribution-patching), byte for byte (every per-pair estimate, real patch, mean,
// rank correlation and named disagreement the same bits), for the two-layer fixture with its pairs
// file and for the shipped induction model with the induction generator; the wrapper's parsed
// document; interval settings refused as the CLI refuses them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { cliRun, randomModelFile, root, wasmDir, wasmTransformerCore } from './helpers.mjs';

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

test('pairs beyond the memory bound are refused with the CLI message; a failed allocation names the analysis', async () => {
  const core = await wasmTransformerCore();
  // 16 heads a layer and the induction pairs of n_ctx 2048 (2047 tokens): two runs' attention
  // patterns alone are 2 · 2 · 16 · 2047² doubles ≈ 2 GiB, over the core's 1 GiB bound.
  const wide = { n_layers: 2, n_heads: 16, d_model: 16, d_head: 4, n_ctx: 2048, d_vocab: 3000 };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-pair-memory-'));
  try {
    const config = JSON.stringify({ ...wide, normalization: 'none' });
    const bytes = randomModelFile(core, wide, 3);
    fs.writeFileSync(path.join(dir, 'm.json'), config);
    fs.writeFileSync(path.join(dir, 'm.safetensors'), bytes);
    const model = core.loadTransformer(config, bytes);
    let message = '';
    try {
      model.attributionPatching({ task: 'induction', count: 1, pairs_seed: 1 });
    } catch (err) {
      message = err.message;
    } finally {
      model.dispose();
    }
    assert.match(
      message,
      /^attribution patching of prompt pairs of 2047 tokens would hold about \d+ MiB at once \(two forward passes with 32 attention patterns of T × T each\); the limit is 1024 MiB: prompt pairs of at most \d+ tokens fit this model/,
    );
    const r = cliRun([
      'model',
      'analyze',
      '--config',
      path.join(dir, 'm.json'),
      '--weights',
      path.join(dir, 'm.safetensors'),
      '--pairs-task',
      'induction',
      '--count',
      '1',
      '--pairs-seed',
      '1',
      '--attribution-patching',
    ]);
    assert.notEqual(r.status, 0);
    assert.ok(r.stderr.includes(message), r.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // One allocation past the module's 2 GiB: the logits of a 4,096-token prompt over 65,536 tokens
  // (4096 · 65536 doubles = 2 GiB) fail at once, without the memory being touched. The message
  // names the forward pass and the limit, and the model answers the next prompt.
  const huge = { n_layers: 1, n_heads: 1, d_model: 8, d_head: 4, n_ctx: 4096, d_vocab: 65536 };
  const big = core.loadTransformer(JSON.stringify({ ...huge, normalization: 'none' }), randomModelFile(core, huge, 5));
  try {
    const prompt = Array.from({ length: 4096 }, (_, i) => (i * 7919) % 65536);
    assert.throws(
      () => big.run(prompt),
      /^HeadlabError: the forward pass ran out of memory: it needed more than the \d+ MiB left of this module's limit of 2048 MiB \(\d+ MiB in use\)$/,
    );
    assert.equal(big.run([1, 2, 3]).patterns.length, 1);
  } finally {
    big.dispose();
  }
});
