// A prompt's next-token loss with each head ablated alone in WASM (TransformerModel.headLosses, the
// worker task 'transformer-head-losses') against the native CLI (`headlab model run --head-losses`):
// the same bits, zero ablation and mean ablation over repeated random sequences and over an author's
// reference sequences; the ablated run with reference means as well. The values themselves are
// checked against PyTorch in tests/formats/prompt_ablation_parity_test.cpp.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { workerTasks } from '../../web/worker-tasks.js';
import { asRows } from '../../web/matrix.js';
import { cliRun, root, wasmTransformerCore } from './helpers.mjs';

const dataDir = path.join(root, 'tests/data/transformer');
const configText = (name) => fs.readFileSync(path.join(dataDir, `${name}.json`), 'utf8');
const weightsBytes = (name) => new Uint8Array(fs.readFileSync(path.join(dataDir, `${name}.safetensors`)));
const files = (name) => ['--config', path.join(dataDir, `${name}.json`), '--weights', path.join(dataDir, `${name}.safetensors`)];

/** Every number of `a` and `b` (nested arrays) equal bit for bit (Object.is: -0 and 0 differ). */
function sameBits(a, b, what) {
  const flat = (x) => (Array.isArray(x) || ArrayBuffer.isView(x) ? Array.from(x).flatMap(flat) : [x]);
  const fa = flat(a),
    fb = flat(b);
  assert.equal(fa.length, fb.length, what);
  fa.forEach((v, i) => assert.ok(Object.is(v, fb[i]), `${what}: entry ${i} ${v} ≠ ${fb[i]}`));
}

const CASES = [
  { args: ['--prompt', '3 16 5 3 16 5 0 9', '--ablation', 'zero'], prompt: '3 16 5 3 16 5 0 9', options: { mode: 'zero' } },
  { args: ['--prompt', '3 16 5 3', '--sequences', '5', '--seed', '2'], prompt: [3, 16, 5, 3], options: { sequences: 5, seed: 2 } },
  {
    args: ['--prompt', '3 16 5 3 16 5 0 9', '--reference', '1 2 3 4 5 6 7 8 9; 16 15 14 13 12 11 10; 0 0 0 0; 5 3 16 5 3 16 2'],
    prompt: '3 16 5 3 16 5 0 9',
    options: { reference: ['1 2 3 4 5 6 7 8 9', [16, 15, 14, 13, 12, 11, 10], '0 0 0 0', '5 3 16 5 3 16 2'] },
  },
];
/** The one-layer model (a vocabulary of 11 tokens): its own prompts. */
const SMALL_CASES = [
  { args: ['--prompt', '4 7 1 4 7', '--ablation', 'zero'], prompt: '4 7 1 4 7', options: { mode: 'zero' } },
  {
    args: ['--prompt', '4 7 1 4 7', '--reference', '10 9 8 7 6 5; 1 2 3'],
    prompt: [4, 7, 1, 4, 7],
    options: { reference: ['10 9 8 7 6 5', '1 2 3'] },
  },
];

test('headLosses: the native CLI run --head-losses bit for bit (zero, repeated random sequences, reference sequences)', async () => {
  const core = await wasmTransformerCore();
  for (const name of ['two_layer_ln_pos', 'one_layer_plain']) {
    const model = core.loadTransformer(configText(name), weightsBytes(name));
    for (const c of name === 'one_layer_plain' ? SMALL_CASES : CASES) {
      const r = cliRun(['model', 'run', ...files(name), ...c.args, '--head-losses']);
      assert.equal(r.status, 0, r.stderr);
      const cli = JSON.parse(r.stdout).head_losses;
      const wasm = model.headLosses(c.prompt, c.options);
      const what = `${name} ${c.args.join(' ')}`;
      assert.deepEqual(
        { mode: wasm.mode, means: wasm.means, sequences: wasm.sequences, seed: wasm.seed },
        { mode: cli.mode, means: cli.means, sequences: cli.sequences, seed: cli.seed },
        what,
      );
      sameBits([wasm.clean_loss, wasm.loss], [cli.clean_loss, cli.loss], what);
      // A loss is a cross-entropy: never negative.
      assert.ok(wasm.clean_loss >= 0 && wasm.loss.flat().every((v) => v >= 0), what);
    }
    model.dispose();
  }
});

test('run with reference means: the native CLI run --ablate --reference bit for bit; the worker task answers the same', async () => {
  const core = await wasmTransformerCore();
  const name = 'two_layer_ln_pos';
  const model = core.loadTransformer(configText(name), weightsBytes(name));
  const reference = ['1 2 3 4 5 6 7 8 9', '16 15 14 13 12 11 10'];
  const r = cliRun(['model', 'run', ...files(name), '--prompt', '3 16 5 3 16', '--ablate', '0.1 1.2', '--reference', reference.join('; ')]);
  assert.equal(r.status, 0, r.stderr);
  const cli = JSON.parse(r.stdout);
  const run = model.run('3 16 5 3 16', {
    ablate: [
      [0, 1],
      [1, 2],
    ],
    reference,
  });
  sameBits(asRows(run.logits), cli.logits, 'ablated logits');
  const task = await workerTasks['transformer-head-losses'].run(core, {
    config: configText(name),
    safetensors: weightsBytes(name),
    prompt: [3, 16, 5, 3, 16],
    options: {
      mode: 'mean',
      reference: [
        [1, 2, 3, 4, 5, 6, 7, 8, 9],
        [16, 15, 14, 13, 12, 11, 10],
      ],
    },
  });
  const direct = model.headLosses('3 16 5 3 16', { reference });
  sameBits([task.clean_loss, task.loss], [direct.clean_loss, direct.loss], 'worker task');
  // Bad input is named, field and bound.
  assert.throws(() => model.headLosses('3', {}), /the prompt has 1 token; its next-token loss needs at least 2/);
  assert.throws(() => model.headLosses('3 16 5', { reference: ['1 2'] }), /the prompt has 3 tokens, the longest reference sequence 2/);
  assert.throws(
    () => model.headLosses('3 16', { reference: ['1 99'] }),
    /reference\[0\]: token 99 at position 1 is outside the vocabulary \[0, 17\)/,
  );
  assert.throws(() => model.headLosses('3 16', { refrence: ['1 2'] }), /refrence/);
  model.dispose();
});
