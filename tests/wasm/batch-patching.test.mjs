// Batch patching (core/batch_patching.hpp) and path patching (core/path_patching.hpp) in the WASM
// module: the documents the native CLI writes, byte for byte (every per-pair effect, mean, interval
// bound and p-value the same bits), from a pairs file and from the induction generator; the worker
// task that runs batch patching a few pairs per step (progress, stop, refusals); and a bad pairs
// file refused with the CLI's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { workerTasks } from '../../web/worker-tasks.js';
import { cliRun, root, wasmDir, wasmTransformerCore } from './helpers.mjs';

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

test('worker task transformer-batch-patching: progress per step, the same document, stops with nothing, refuses bad input first', async () => {
  const core = await wasmTransformerCore();
  const config = fs.readFileSync(path.join(shipped, 'induction-seed0.json'), 'utf8');
  const safetensors = new Uint8Array(fs.readFileSync(path.join(shipped, 'induction-seed0.safetensors')));
  const request = { task: 'induction', count: 12, pairs_seed: 2, resamples: 100, permutations: 100 };
  const live = core.transformerLiveHandles();
  const messages = [];
  let yields = 0;
  const result = await workerTasks['transformer-batch-patching'].run(
    core,
    { config, safetensors, request, chunk: 5 },
    {
      progress: (m) => messages.push(m),
      shouldStop: () => false,
      yieldToEvents: async () => {
        yields += 1;
      },
    },
  );
  assert.deepEqual(
    messages.map((m) => [m.pairs_done, m.pairs_total]),
    [
      [0, 12],
      [5, 12],
      [10, 12],
      [12, 12],
    ],
  );
  assert.equal(yields, 4); // before each step and before the intervals
  // The stepped run gives batchPatching()'s bits (and so the CLI's, above).
  const model = core.loadTransformer(config, safetensors);
  try {
    assert.deepEqual(result, model.batchPatching(request));
    assert.equal(result.pairs, 12);
    assert.throws(() => model.batchPatchingResult(), /no batch-patching run/);
    model.batchPatchingStart(request);
    assert.throws(() => model.batchPatchingResult(), /12 of 12 pairs left/);
  } finally {
    model.dispose();
  }
  // Stopped after the second message: null, not a half-filled document.
  let calls = 0;
  const stopped = await workerTasks['transformer-batch-patching'].run(
    core,
    { config, safetensors, request, chunk: 5 },
    {
      progress: () => {
        calls += 1;
      },
      shouldStop: () => calls >= 2,
      yieldToEvents: async () => {},
    },
  );
  assert.equal(stopped, null);
  assert.equal(calls, 2);
  // Bad input is refused before any pair is patched (no progress message).
  const none = [];
  const bad = JSON.stringify({ pairs: [{ clean: '1 2 3', corrupted: '1 2', answer: 5, wrong: 6 }] });
  await assert.rejects(
    workerTasks['transformer-batch-patching'].run(
      core,
      { config, safetensors, request: { pairs: bad } },
      { progress: (m) => none.push(m) },
    ),
    /pairs: pair 0: the corrupted prompt has 2 tokens, the clean one 3/,
  );
  await assert.rejects(
    workerTasks['transformer-batch-patching'].run(core, { config, safetensors, request: { task: 'induction', count: 1025 } }),
    /count must lie in \[1, 1024\], got 1025/,
  );
  await assert.rejects(
    workerTasks['transformer-batch-patching'].run(core, { config, safetensors, request, chunk: 0 }),
    /chunk must be an integer from 1 to 1024, got 0/,
  );
  assert.deepEqual(none, []);
  assert.equal(core.transformerLiveHandles(), live); // every model the task read was released
});

test('worker task transformer-path-patching: the document pathPatching() gives; a one-layer model refused', async () => {
  const core = await wasmTransformerCore();
  const config = fs.readFileSync(path.join(shipped, 'induction-seed0.json'), 'utf8');
  const safetensors = new Uint8Array(fs.readFileSync(path.join(shipped, 'induction-seed0.safetensors')));
  const request = { task: 'induction', count: 8, pairs_seed: 3, resamples: 100, permutations: 100 };
  const live = core.transformerLiveHandles();
  const result = await workerTasks['transformer-path-patching'].run(core, { config, safetensors, request });
  const model = core.loadTransformer(config, safetensors);
  try {
    assert.deepEqual(result, model.pathPatching(request));
  } finally {
    model.dispose();
  }
  // 2 layers × 4 heads: every layer-0 head into every layer-1 head, each cell [q, k, v].
  assert.equal(result.edges.length, 16);
  assert.deepEqual(result.edges[5], [0, 1, 1, 1]);
  assert.equal(result.effects.length, 8);
  const one = (name) => fs.readFileSync(path.join(dataDir, `transformer/one_layer_plain.${name}`));
  await assert.rejects(
    workerTasks['transformer-path-patching'].run(core, {
      config: one('json').toString('utf8'),
      safetensors: new Uint8Array(one('safetensors')),
      request: { task: 'induction', count: 2 },
    }),
    /path patching needs at least 2 layers/,
  );
  assert.equal(core.transformerLiveHandles(), live);
});

test('worker task transformer-attribution-patching: the document attributionPatching() gives, with progress at its ends; bad requests named', async () => {
  const core = await wasmTransformerCore();
  const config = fs.readFileSync(path.join(shipped, 'induction-seed0.json'), 'utf8');
  const safetensors = new Uint8Array(fs.readFileSync(path.join(shipped, 'induction-seed0.safetensors')));
  const request = { task: 'induction', count: 4, pairs_seed: 2 };
  const live = core.transformerLiveHandles();
  const seen = [];
  const result = await workerTasks['transformer-attribution-patching'].run(
    core,
    { config, safetensors, request },
    { progress: (p) => seen.push(p) },
  );
  assert.deepEqual(seen, [
    { pairs_done: 0, pairs_total: 4 },
    { pairs_done: 4, pairs_total: 4 },
  ]);
  const model = core.loadTransformer(config, safetensors);
  try {
    assert.deepEqual(result, model.attributionPatching(request));
  } finally {
    model.dispose();
  }
  // 2 layers × 4 heads: 8 nodes, 16 edges × q, k, v, 4 pairs each.
  assert.equal(result.pairs, 4);
  assert.equal(result.nodes.estimate.flat().length, 8);
  assert.equal(result.edges.edges.length, 16);
  assert.equal(result.edges.estimates.length, 4);
  await assert.rejects(
    workerTasks['transformer-attribution-patching'].run(core, { config, safetensors, request: { ...request, seed: 3 } }),
    /seed sets intervals, which attribution patching does not draw/,
  );
  await assert.rejects(
    workerTasks['transformer-attribution-patching'].run(core, { config, safetensors, request: { task: 'induction', count: 2000 } }),
    /count/,
  );
  assert.equal(core.transformerLiveHandles(), live); // every model the task read was released
});
