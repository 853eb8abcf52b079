// Circuit faithfulness (core/circuit_faithfulness.hpp) in the WASM module: the document the native CLI
// writes (--faithfulness), byte for byte (every per-pair recovery, mean, interval, p-value and
// leave-one-out row the same bits), for the two-layer fixture with its pairs file (corrupted and mean
// replacement) and for the shipped induction model with the induction generator; the wrapper's parsed
// document; bad circuits named as the CLI names them; the worker task <headlab-circuit-faithfulness>
// asks (the same document, the model released after, bad requests refused with the core's message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { workerTasks } from '../../web/worker-tasks.js';
import { cliAnalyzeShipped, cliRun, root, wasmDir, wasmTransformerCore } from './helpers.mjs';

const dataDir = path.join(root, 'tests/data');
const shipped = path.join(root, 'site/pages/data');

test('faithfulness in WASM gives the CLI document byte for byte', async () => {
  const { default: factory } = await import(path.join(wasmDir, 'headlab_transformer.mjs'));
  const raw = await factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_transformer.wasm')) });
  const pairsPath = path.join(dataDir, 'batch_patching/pairs.json');
  const fixture = path.join(dataDir, 'transformer/two_layer_ln_pos');
  const pairs = { pairs: fs.readFileSync(pairsPath, 'utf8') };
  const cases = [
    [
      fixture,
      ['--pairs', pairsPath, '--faithfulness', '0.1 1.0 1.2', '--seed', '4'],
      {
        ...pairs,
        circuit: [
          [0, 1],
          [1, 0],
          [1, 2],
        ],
        seed: 4,
      },
    ],
    [
      fixture,
      ['--pairs', pairsPath, '--faithfulness', '1.1,0.0', '--ablation', 'mean', '--resamples', '300'],
      {
        ...pairs,
        circuit: [
          [1, 1],
          [0, 0],
        ],
        ablation: 'mean',
        resamples: 300,
      },
    ],
    [
      fixture,
      ['--pairs', pairsPath, '--faithfulness-edges', '0.1>1.2:v 0.1>1.0:k,0.0>1.2:q', '--ablation', 'mean'],
      {
        ...pairs,
        edges: [
          [0, 1, 1, 2, 'v'],
          [0, 1, 1, 0, 'k'],
          [0, 0, 1, 2, 'q'],
        ],
        ablation: 'mean',
      },
    ],
    [
      path.join(shipped, 'induction-seed0'),
      ['--pairs-task', 'induction', '--count', '16', '--pairs-seed', '1', '--faithfulness', '0.0 1.0'],
      {
        task: 'induction',
        count: 16,
        pairs_seed: 1,
        circuit: [
          [0, 0],
          [1, 0],
        ],
      },
    ],
  ];
  for (const [stem, flags, request] of cases) {
    const handle = new raw.TransformerModelHandle();
    try {
      handle.load(fs.readFileSync(`${stem}.json`, 'utf8'), new Uint8Array(fs.readFileSync(`${stem}.safetensors`)));
      const r = cliRun(['model', 'analyze', '--config', `${stem}.json`, '--weights', `${stem}.safetensors`, ...flags]);
      assert.equal(r.status, 0, r.stderr);
      const text = handle.faithfulness(request);
      assert.equal(typeof text, 'string', JSON.stringify(text));
      assert.equal(text, r.stdout, flags.join(' '));
      const doc = JSON.parse(text);
      assert.equal(doc.leave_one_out.length, (request.circuit ?? request.edges).length);
      assert.equal(doc.recovery.pairs.length, doc.pairs);
    } finally {
      handle.delete();
    }
  }
});

test('TransformerModel.faithfulness: the parsed document; bad circuits named', async () => {
  const core = await wasmTransformerCore();
  const stem = path.join(dataDir, 'transformer/two_layer_ln_pos');
  const model = core.loadTransformer(fs.readFileSync(`${stem}.json`, 'utf8'), new Uint8Array(fs.readFileSync(`${stem}.safetensors`)));
  try {
    const request = { task: 'induction', count: 4, pairs_seed: 2 };
    // Every head kept: nothing is replaced, the clean run, recovery exactly 1 for every pair.
    const all = [0, 1].flatMap((l) => [0, 1, 2].map((h) => [l, h]));
    const doc = model.faithfulness({ ...request, circuit: all });
    assert.equal(doc.pairs, 4);
    assert.equal(doc.ablation, 'corrupted');
    assert.deepEqual(doc.recovery.pairs, [1, 1, 1, 1]);
    assert.equal(doc.leave_one_out.length, 6);
    assert.throws(() => model.faithfulness({ ...request, circuit: [[2, 0]] }), /circuit head 2\.0: layer must lie in \[0, 1\]/);
    assert.throws(() => model.faithfulness({ ...request, circuit: [[0, 3]] }), /circuit head 0\.3: head must lie in \[0, 2\]/);
    assert.throws(
      () =>
        model.faithfulness({
          ...request,
          circuit: [
            [0, 1],
            [0, 1],
          ],
        }),
      /circuit head 0\.1 is named twice/,
    );
    assert.throws(() => model.faithfulness({ ...request, circuit: [] }), /circuit is empty/);
    assert.throws(() => model.faithfulness(request), /the faithfulness request needs a circuit/);
    // A circuit of edges: every edge between every head is the circuit of every head (1 per pair);
    // bad edges named as the CLI names them.
    const edges = all.flatMap(([ls, hs]) =>
      all.filter(([lr]) => lr > ls).flatMap(([lr, hr]) => ['q', 'k', 'v'].map((input) => [ls, hs, lr, hr, input])),
    );
    const byEdges = model.faithfulness({ ...request, edges });
    assert.deepEqual(byEdges.recovery.pairs, [1, 1, 1, 1]);
    assert.equal(byEdges.leave_one_out.length, 27);
    assert.deepEqual(byEdges.leave_one_out[0].edge, [0, 0, 1, 0, 'q']);
    assert.throws(
      () => model.faithfulness({ ...request, edges: [[1, 1, 1, 0, 'v']] }),
      /circuit edge 1\.1>1\.0:v: the sender must be in an earlier layer/,
    );
    assert.throws(() => model.faithfulness({ ...request, edges: [[0, 1, 1, 0, 'z']] }), /edges\[0\] must be an edge/);
    assert.throws(() => model.faithfulness({ ...request, edges: [] }), /circuit has no edge/);
    assert.throws(() => model.faithfulness({ ...request, edges: [[0, 1, 1, 0, 'k']], circuit: [[0, 1]] }), /a circuit or edges, not both/);
    assert.throws(() => model.faithfulness({ ...request, circuit: [[0, 1]], ablation: 'zero' }), /ablation must be "corrupted" or "mean"/);
  } finally {
    model.dispose();
  }
});

test("worker task transformer-faithfulness: the CLI document for the own-model page's circuit; bad circuits named; nothing left in the heap", async () => {
  const core = await wasmTransformerCore();
  const config = fs.readFileSync(path.join(shipped, 'induction-seed0.json'), 'utf8');
  const safetensors = new Uint8Array(fs.readFileSync(path.join(shipped, 'induction-seed0.safetensors')));
  const live = core.transformerLiveHandles();
  const circuit = [
    [0, 0],
    [1, 1],
  ];
  const result = await workerTasks['transformer-faithfulness'].run(core, {
    config,
    safetensors,
    request: { task: 'induction', count: 16, pairs_seed: 1, circuit, ablation: 'mean' },
  });
  const cli = cliAnalyzeShipped([
    '--pairs-task',
    'induction',
    '--count',
    '16',
    '--pairs-seed',
    '1',
    '--faithfulness',
    '0.0 1.1',
    '--ablation',
    'mean',
  ]);
  assert.deepEqual(result, cli);
  await assert.rejects(
    workerTasks['transformer-faithfulness'].run(core, { config, safetensors, request: { task: 'induction', count: 4, circuit: [[1, 4]] } }),
    /circuit head 1\.4: head must lie in \[0, 3\]/,
  );
  await assert.rejects(
    workerTasks['transformer-faithfulness'].run(core, { config, safetensors, request: { task: 'induction', count: 4, circuit: [] } }),
    /circuit is empty/,
  );
  assert.equal(core.transformerLiveHandles(), live); // every model the task read was released
});
