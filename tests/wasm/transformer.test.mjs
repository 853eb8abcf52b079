// Your own attention-only transformer through the WASM module (headlab_transformer): the PyTorch
// reference fixtures, the CLI's documents byte for byte, training bit for bit with the native CLI,
// every bad file of the native tests with the CLI's message, the worker tasks, and no leaked handles.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { HeadlabError, loadTransformerCore } from '../../web/headlab-core.js';
import { transferOf } from '../../web/transformer.js';
import { workerTasks } from '../../web/worker-tasks.js';
import { asRows, isMatrix } from '../../web/matrix.js';
import { checkTorchFixture, cliRun, layoutTensors, readF64Tensors, root, wasmDir, wasmTransformerCore } from './helpers.mjs';
import { coreConstant } from '../../site/core-limits.mjs';

const dataDir = path.join(root, 'tests/data/transformer');
const FIXTURES = ['one_layer_plain', 'two_layer_ln_pos', 'two_layer_lnpre_pos', 'three_layer_ln_f32'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-transformer-'));
const configText = (name) => fs.readFileSync(path.join(dataDir, `${name}.json`), 'utf8');
const weightsBytes = (name) => new Uint8Array(fs.readFileSync(path.join(dataDir, `${name}.safetensors`)));

// The PyTorch float64 fixtures against the core: a few hundred roundings of float64 (≈ 1e-13);
// the promised bound, as tests/core/tolerances.hpp kReferenceParityBound.
const REFERENCE_PARITY_BOUND = 1e-10;

/** Asserts that `actual` (a run() or analyze() value: rows may be Float64Arrays) holds the members of `expected` (a parsed CLI document) in its order, every number with the same bits. */
function assertSameBits(actual, expected, where) {
  if (ArrayBuffer.isView(actual)) actual = Array.from(actual);
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${where}: length`);
    expected.forEach((e, i) => assertSameBits(actual[i], e, `${where}[${i}]`));
  } else if (expected !== null && typeof expected === 'object') {
    assert.deepEqual(Object.keys(actual), Object.keys(expected), `${where}: members`);
    for (const k of Object.keys(expected)) assertSameBits(actual[k], expected[k], `${where}.${k}`);
  } else {
    assert.ok(Object.is(actual, expected), `${where}: ${actual} against ${expected}`);
  }
}

/** The raw embind module, for the tests that compare the bindings' text with the CLI's bytes. */
let rawPromise;
function rawModule() {
  rawPromise ??= (async () => {
    const { default: factory } = await import(path.join(wasmDir, 'headlab_transformer.mjs'));
    return factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_transformer.wasm')) });
  })();
  return rawPromise;
}

test(`WASM matches the PyTorch fixtures within ${REFERENCE_PARITY_BOUND}: logits, patterns, direct logit attribution`, async () => {
  const core = await wasmTransformerCore();
  for (const name of FIXTURES) {
    const expected = readF64Tensors(path.join(dataDir, `${name}.expected.safetensors`));
    const model = core.loadTransformer(configText(name), weightsBytes(name));
    try {
      const { tokens, token, run, analysis } = checkTorchFixture(model, expected, REFERENCE_PARITY_BOUND, name);
      assert.deepEqual(run.tokens, tokens);
      assert.equal(analysis.position, tokens.length - 1);
      assert.equal(analysis.token, token);
    } finally {
      model.dispose();
    }
  }
});

test('the WASM module returns the bytes the CLI writes: inspect, run, analyze (patching, circuits, zero ablation)', async () => {
  const raw = await rawModule();
  const name = 'two_layer_ln_pos';
  const files = ['--config', path.join(dataDir, `${name}.json`), '--weights', path.join(dataDir, `${name}.safetensors`)];
  const handle = new raw.TransformerModelHandle();
  try {
    assert.equal(typeof handle.load(configText(name), weightsBytes(name)), 'string');
    const cases = [
      [['inspect'], () => handle.inspect()],
      [['run', '--prompt', '1 2 3 4'], () => handle.run('1 2 3 4', undefined)],
      [
        ['run', '--prompt', '1 2 3', '--ablate', '0.1,1.2', '--ablation', 'zero'],
        () =>
          handle.run('1 2 3', {
            ablate: [
              [0, 1],
              [1, 2],
            ],
            mode: 'zero',
          }),
      ],
      [
        ['run', '--prompt', '5 1 2 5', '--ablate', '1.0', '--sequences', '3', '--seed', '2'],
        () => handle.run([5, 1, 2, 5], { ablate: [[1, 0]], sequences: 3, seed: 2 }),
      ],
      [
        [
          'analyze',
          '--prompt',
          '1 2 3 4 1 2',
          '--corrupted',
          '1 2 5 4 1 2',
          '--answer',
          '3',
          '--wrong',
          '5',
          '--circuits',
          '--sequences',
          '4',
        ],
        () => handle.analyze({ prompt: [1, 2, 3, 4, 1, 2], corrupted: '1 2 5 4 1 2', answer: 3, wrong: 5, circuits: true, sequences: 4 }),
      ],
      [
        ['analyze', '--prompt', '3 1', '--ablation', 'zero', '--seed', '7', '--sequences', '3', '--position', '0', '--token', '2'],
        () => handle.analyze({ prompt: '3 1', ablation: 'zero', seed: 7, sequences: 3, position: 0, token: 2 }),
      ],
      // New prompts on the same (sequences, seed, ablation): the handle reads the scores and ablation
      // losses it kept from the analyses above (each CLI run computes them afresh); same bytes.
      [
        ['analyze', '--prompt', '7 7 1 2 7', '--corrupted', '7 8 1 2 7', '--answer', '2', '--wrong', '1', '--sequences', '4'],
        () => handle.analyze({ prompt: '7 7 1 2 7', corrupted: '7 8 1 2 7', answer: 2, wrong: 1, sequences: 4 }),
      ],
      [
        ['analyze', '--prompt', '4 4 4', '--ablation', 'zero', '--seed', '7', '--sequences', '3'],
        () => handle.analyze({ prompt: '4 4 4', ablation: 'zero', seed: 7, sequences: 3 }),
      ],
    ];
    // The same requests through web/transformer.js (matrices as Matrix values, no JSON text): as rows, the CLI's numbers bit for bit.
    const core = await wasmTransformerCore();
    const model = core.loadTransformer(configText(name), weightsBytes(name));
    const typed = [
      null,
      () => model.run('1 2 3 4'),
      () =>
        model.run('1 2 3', {
          ablate: [
            [0, 1],
            [1, 2],
          ],
          mode: 'zero',
        }),
      () => model.run([5, 1, 2, 5], { ablate: [[1, 0]], sequences: 3, seed: 2 }),
      () => model.analyze({ prompt: [1, 2, 3, 4, 1, 2], corrupted: '1 2 5 4 1 2', answer: 3, wrong: 5, circuits: true, sequences: 4 }),
      () => model.analyze({ prompt: '3 1', ablation: 'zero', seed: 7, sequences: 3, position: 0, token: 2 }),
      () => model.analyze({ prompt: '7 7 1 2 7', corrupted: '7 8 1 2 7', answer: 2, wrong: 1, sequences: 4 }),
      () => model.analyze({ prompt: '4 4 4', ablation: 'zero', seed: 7, sequences: 3 }),
    ];
    for (const [i, [args, wasm]] of cases.entries()) {
      const r = cliRun(['model', args[0], ...files, ...args.slice(1)]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(wasm(), r.stdout, args.join(' '));
      if (typed[i]) assertSameBits(asRows(typed[i]()), JSON.parse(r.stdout), args.join(' '));
    }
    model.dispose();
    // Two (sequences, seed, ablation) keys were analysed; clearing forgets both, and the next
    // analysis (computed afresh) still gives the CLI's bytes.
    assert.equal(handle.clear_analysis_cache(), 2);
    assert.equal(handle.clear_analysis_cache(), 0);
    const [args, wasm] = cases.at(-1);
    assert.equal(wasm(), cliRun(['model', args[0], ...files, ...args.slice(1)]).stdout);
  } finally {
    handle.delete();
  }
});

test('one encoding: every matrix of run(), analyze() and qkAttributionTable() is a Matrix viewing one buffer; transferOf moves it', async () => {
  const name = 'two_layer_ln_pos';
  const core = await wasmTransformerCore();
  const model = core.loadTransformer(configText(name), weightsBytes(name));
  try {
    const { n_layers: L, n_heads: H, d_vocab: V } = model.config;
    const request = {
      prompt: [1, 2, 3, 4],
      corrupted: [1, 2, 5, 4],
      answer: 3,
      wrong: 5,
      circuits: true,
      qk_attribution: [1, 0],
      sequences: 2,
    };
    const a = model.analyze(request);
    const T = a.tokens.length,
      S = a.qk_attribution.sources.length;
    const buffer = a.logits.data.buffer;
    /** Asserts that `m` is a rows × cols Matrix whose data views `of` (the analysis's one buffer). */
    const viewOf = (m, rows, cols, what, of = buffer) => {
      assert.ok(isMatrix(m), `${what} is a Matrix`);
      assert.deepEqual([m.rows, m.cols], [rows, cols], `${what}: shape`);
      assert.equal(m.data.buffer, of, `${what}: a view of the one buffer`);
    };
    viewOf(a.logits, T, V, 'logits');
    assert.equal(a.patterns.length, L);
    a.patterns.forEach((layer, l) => {
      assert.equal(layer.length, H);
      layer.forEach((m, h) => viewOf(m, T, T, `patterns[${l}][${h}]`));
    });
    assert.equal(a.patching.normalised.length, L);
    a.patching.normalised.forEach((m, l) => viewOf(m, H, T, `normalised[${l}]`));
    for (const c of ['qk', 'ov']) a.circuits[c].forEach((layer, l) => layer.forEach((m, h) => viewOf(m, V, V, `${c}[${l}][${h}]`)));
    assert.equal(a.qk_attribution.parts.length, a.position + 1);
    a.qk_attribution.parts.forEach((m, j) => viewOf(m, S, S, `qk parts[${j}]`));
    assert.deepEqual(transferOf(a), [buffer]);
    // The small L × H tables stay plain arrays, as in the document.
    assert.ok(Array.isArray(a.direct_logit_attribution.heads[0]) && Array.isArray(a.induction.induction[0]));
    // The QK attribution table: [T][T] S × S parts and the T × T scores, two buffers; its cell (position, j) is the analysis's part j.
    const table = model.qkAttributionTable(request.prompt, 1, 0);
    assert.equal(table.parts.length, T);
    table.parts.forEach((row) => assert.equal(row.length, T));
    assert.ok(isMatrix(table.scores) && table.scores.rows === T && table.scores.cols === T);
    assert.ok(
      table.parts.flat().every((m) => isMatrix(m) && m.rows === S && m.cols === S && m.data.buffer === table.parts[0][0].data.buffer),
    );
    assert.deepEqual(transferOf(table), [table.parts[0][0].data.buffer, table.scores.data.buffer]);
    a.qk_attribution.parts.forEach((m, j) =>
      assert.ok(
        m.data.every((v, k) => Object.is(v, table.parts[a.position][j].data[k])),
        `table cell (${a.position}, ${j})`,
      ),
    );
    // A run: logits and patterns in one buffer.
    const run = model.run([3, 1, 2]);
    viewOf(run.logits, 3, V, 'run logits', run.logits.data.buffer);
    run.patterns.flat().forEach((m, k) => viewOf(m, 3, 3, `run patterns ${k}`, run.logits.data.buffer));
    assert.deepEqual(transferOf(run), [run.logits.data.buffer]);
    assert.deepEqual(transferOf({ logits: [new Float64Array(2)] }), []);
  } finally {
    model.dispose();
  }
});

test("an F32 model written into the heap chunk by chunk (WeightsBuffer): the CLI's bytes, and sequences 0 gives the prompt's figures alone", async () => {
  // three_layer_ln_f32: every tensor F32, so W_E and W_U are held as float32 and read in place.
  const name = 'three_layer_ln_f32';
  const files = ['--config', path.join(dataDir, `${name}.json`), '--weights', path.join(dataDir, `${name}.safetensors`)];
  const core = await wasmTransformerCore();
  const bytes = weightsBytes(name);
  const buffer = core.transformerWeightsBuffer(bytes.length);
  // Chunks of 1,000 bytes (not aligned to any tensor), the last one shorter.
  for (let at = 0; at < bytes.length; at += 1000) buffer.write(bytes.subarray(at, Math.min(bytes.length, at + 1000)), at);
  assert.throws(
    () => buffer.write(new Uint8Array(2), bytes.length - 1),
    (e) => e instanceof HeadlabError && /does not fit/.test(e.message),
  );
  const model = core.loadTransformer(configText(name), buffer);
  buffer.dispose(); // the model keeps the bytes
  const whole = core.loadTransformer(configText(name), bytes);
  try {
    const prompt = [1, 2, 3, 1, 2];
    for (const args of [
      ['run', '--prompt', prompt.join(' ')],
      ['analyze', '--prompt', prompt.join(' '), '--sequences', '0'],
    ]) {
      const r = cliRun(['model', args[0], ...files, ...args.slice(1)]);
      assert.equal(r.status, 0, r.stderr);
      const expected = JSON.parse(r.stdout);
      const request = args[0] === 'run' ? null : { prompt, sequences: 0 };
      for (const m of [model, whole]) assertSameBits(asRows(request ? m.analyze(request) : m.run(prompt)), expected, args.join(' '));
    }
    const alone = model.analyze({ prompt, sequences: 0 });
    assert.equal(alone.ablation, null);
    assert.equal(alone.induction, null);
    assert.deepEqual(alone.direct_logit_attribution.heads, model.analyze({ prompt, sequences: 2 }).direct_logit_attribution.heads);
  } finally {
    model.dispose();
    whole.dispose();
  }
  assert.throws(
    () => core.transformerWeightsBuffer(2 ** 29 + 1),
    (e) => e instanceof HeadlabError && /limit is 536870912/.test(e.message),
  );
});

test("induction training in WASM gives the native CLI's files bit for bit, however the steps are chunked", async () => {
  const core = await wasmTransformerCore();
  const out = path.join(tmp, 'induction.safetensors');
  // A warm-up of 10 steps, so 30 steps follow the cosine (core/transformer_training.hpp learning_rate_at).
  const r = cliRun(['model', 'train', '--task', 'induction', '--seed', '3', '--steps', '40', '--warmup-steps', '10', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const trainer = core.createTransformerTrainer({ seed: 3, steps: 40, warmup_steps: 10 });
  try {
    assert.equal(trainer.settings.steps, 40);
    assert.equal(trainer.settings.warmup_steps, 10);
    assert.equal(trainer.settings.final_learning_rate_fraction, 0.1);
    assert.equal(trainer.settings.batch_size, 16);
    assert.deepEqual(trainer.settings.model, core.transformerInductionDefaultConfig());
    assert.ok(Number.isNaN(trainer.progress.loss));
    trainer.step(15);
    const p = trainer.step(100);
    assert.deepEqual({ ...p, loss: 0 }, { steps_taken: 40, steps_total: 40, loss: 0, done: true, diverged_at: 0 });
    assert.ok(p.loss > 0 && Number.isFinite(p.loss));
    const result = trainer.result();
    assert.equal(result.config, fs.readFileSync(path.join(tmp, 'induction.json'), 'utf8'));
    assert.ok(Buffer.from(result.safetensors).equals(fs.readFileSync(out)), 'safetensors bytes differ from the native run');
    // The default run length the widgets read (widgets/base/core-limits.ts, generated from the header)
    // is the one the compiled trainer uses.
    const defaults = core.createTransformerTrainer({});
    assert.equal(defaults.settings.steps, coreConstant('core/transformer_training.hpp', 'kInductionDefaultSteps'));
    defaults.dispose();
    // The trained files load back, and the trainer's scores are the model's.
    const model = trainer.model();
    try {
      assert.deepEqual(model.inductionScores(16, 3), trainer.scores(16, 3));
      assert.deepEqual(trainer.scores(), trainer.scores(16, 3));
    } finally {
      model.dispose();
    }
  } finally {
    trainer.dispose();
  }
});

// ---- bad input: each case of tests/formats/safetensors_test.cpp and transformer_model_test.cpp, written
// to a file for the CLI; the JS error must be the CLI's message after its "--weights <path>: " prefix ----

function fileOf(header, data = new Uint8Array(0)) {
  const h = Buffer.from(header, 'utf8');
  const out = Buffer.alloc(8 + h.length + data.length);
  out.writeBigUInt64LE(BigInt(h.length), 0);
  h.copy(out, 8);
  Buffer.from(data).copy(out, 8 + h.length);
  return new Uint8Array(out);
}
const f32 = (...values) => new Uint8Array(new Float32Array(values).buffer);
const OK_HEADER = '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}';
const DATA = f32(1, 2);

/** A valid model's file (the two_layer_ln_pos fixture) with one tensor replaced, dropped (null) or added. */
function edited(name, replacement) {
  const bytes = Buffer.from(weightsBytes('two_layer_ln_pos'));
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const tensors = [];
  for (const [k, e] of Object.entries(header)) {
    if (k === '__metadata__') continue;
    tensors.push({ name: k, dtype: e.dtype, shape: e.shape, data: bytes.subarray(8 + n + e.data_offsets[0], 8 + n + e.data_offsets[1]) });
  }
  const i = tensors.findIndex((t) => t.name === name);
  if (i < 0) tensors.push(replacement);
  else if (replacement === null) tensors.splice(i, 1);
  else tensors[i] = replacement;
  const out = {};
  let offset = 0;
  for (const t of tensors) {
    out[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.data.length] };
    offset += t.data.length;
  }
  return fileOf(JSON.stringify(out), Buffer.concat(tensors.map((t) => t.data)));
}
const f64 = (count, value = 0) => new Uint8Array(new Float64Array(count).fill(value).buffer);

const BAD_WEIGHTS = {
  'truncated before the header length': new Uint8Array([97, 98, 99]),
  'header length past the end': (() => {
    const b = fileOf(OK_HEADER, DATA);
    b[0] = 200;
    b[1] = 1;
    return b;
  })(),
  'header length over the limit': (() => {
    const b = new Uint8Array(16);
    b[7] = 1;
    return b;
  })(),
  'data truncated': fileOf(OK_HEADER, DATA.subarray(0, 6)),
  'trailing bytes': fileOf(OK_HEADER, new Uint8Array([...DATA, 122, 122])),
  overlap: fileOf('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', DATA),
  gap: fileOf('{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', DATA),
  'shape disagrees with offsets': fileOf('{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}}', DATA),
  'offsets reversed': fileOf('{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}', DATA),
  'unsupported dtype': fileOf('{"a":{"dtype":"I16","shape":[4],"data_offsets":[0,8]}}', DATA),
  'negative shape': fileOf('{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}', DATA),
  'fractional offset': fileOf('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8.0]}}', DATA),
  'element count overflow': fileOf('{"a":{"dtype":"F64","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}}', DATA),
  'too many dimensions': fileOf('{"a":{"dtype":"F32","shape":[1,1,1,1,2],"data_offsets":[0,8]}}', DATA),
  'not JSON': fileOf('{"a":', DATA),
  'not an object': fileOf('[1]', DATA),
  'deep nesting': fileOf('{"a":{"b":[[1]]}}', DATA),
  '100,000-deep header': fileOf('{"a":' + '['.repeat(100000), DATA),
  'long string': fileOf(`{"${'x'.repeat(300)}":1}`, DATA),
  'unknown entry field': fileOf('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}}', DATA),
  'bad BOOL byte': fileOf('{"a":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}}', new Uint8Array([2])),
  'MLP tensor': edited('blocks.0.mlp.W_in', { name: 'blocks.0.mlp.W_in', dtype: 'F64', shape: [12, 48], data: f64(576) }),
  'second LayerNorm': edited('blocks.1.ln2.w', { name: 'blocks.1.ln2.w', dtype: 'F64', shape: [12], data: f64(12, 1) }),
  'rotary tensor': edited('blocks.0.attn.rotary_sin', { name: 'blocks.0.attn.rotary_sin', dtype: 'F64', shape: [1], data: f64(1) }),
  'unknown tensor': edited('decoder.weight', { name: 'decoder.weight', dtype: 'F64', shape: [1], data: f64(1) }),
  'layer past n_layers': edited('blocks.2.attn.W_Q', { name: 'blocks.2.attn.W_Q', dtype: 'F64', shape: [1], data: f64(1) }),
  'missing tensor': edited('blocks.1.attn.W_V', null),
  'missing LayerNorm': edited('ln_final.w', null),
  'wrong shape': edited('blocks.0.attn.W_O', { name: 'blocks.0.attn.W_O', dtype: 'F64', shape: [3, 12, 4], data: f64(144) }),
  'NaN values': edited('embed.W_E', { name: 'embed.W_E', dtype: 'F64', shape: [17, 12], data: f64(204, NaN) }),
};

const BAD_CONFIGS = {
  'unknown field': '{"n_layers":2,"n_heads":3,"d_model":12,"d_head":4,"n_ctx":10,"d_vocab":17,"foo":"gelu"}',
  'TransformerLens config with MLP blocks': '{"n_layers":2,"n_heads":3,"d_model":12,"d_head":4,"n_ctx":10,"d_vocab":17,"act_fn":"gelu"}',
  'missing field': '{"n_layers":1}',
  'other normalisation': '{"n_layers":2,"n_heads":3,"d_model":12,"d_head":4,"n_ctx":10,"d_vocab":17,"normalization":"RMS"}',
  'rotary': '{"n_layers":2,"n_heads":3,"d_model":12,"d_head":4,"n_ctx":10,"d_vocab":17,"positional_embedding":"rotary"}',
  'too many layers': '{"n_layers":9,"n_heads":1,"d_model":2,"d_head":2,"n_ctx":3,"d_vocab":4}',
  'token names short': '{"n_layers":2,"n_heads":3,"d_model":12,"d_head":4,"n_ctx":10,"d_vocab":17,"token_names":["a"]}',
  'eps zero': '{"n_layers":2,"n_heads":3,"d_model":12,"d_head":4,"n_ctx":10,"d_vocab":17,"eps":0}',
  'not JSON': '{"n_layers":2',
  'deep nesting': '{"token_names":[[["x"]]]}',
  '100,000-deep value': `{"d_model":${'['.repeat(100000)}${']'.repeat(100000)}}`,
  'long string': `{"token_names":["${'x'.repeat(70000)}"]}`,
  'fractional size': '{"n_layers":1,"n_heads":1,"d_model":2.5,"d_head":2,"n_ctx":3,"d_vocab":4}',
  'disagrees with the tensors': '{"n_layers":2,"n_heads":3,"d_model":12,"d_head":4,"n_ctx":10,"d_vocab":18,"normalization":"LN"}',
};

/** The CLI's message for `headlab model inspect` on these files, without "headlab model inspect: <flag> <path>: ". */
function cliMessage(config, weights) {
  const configPath = path.join(tmp, 'bad.json'),
    weightsPath = path.join(tmp, 'bad.safetensors');
  fs.writeFileSync(configPath, config);
  fs.writeFileSync(weightsPath, weights);
  const r = cliRun(['model', 'inspect', '--config', configPath, '--weights', weightsPath]);
  assert.equal(r.status, 1, r.stdout);
  const m = /^headlab model inspect: --(?:config|weights) \S+: (.*)\n$/s.exec(r.stderr);
  assert.ok(m, r.stderr);
  return m[1];
}

test("every bad safetensors file and config of the native tests gets the CLI's message in JS, and no handle survives", async () => {
  const core = await wasmTransformerCore();
  const live = core.transformerLiveHandles();
  const goodConfig = configText('two_layer_ln_pos');
  const cases = [
    ...Object.entries(BAD_WEIGHTS).map(([what, bytes]) => [what, goodConfig, bytes]),
    ...Object.entries(BAD_CONFIGS).map(([what, config]) => [`config: ${what}`, config, weightsBytes('two_layer_ln_pos')]),
  ];
  for (const [what, config, bytes] of cases) {
    const expected = cliMessage(config, bytes);
    assert.throws(
      () => core.loadTransformer(config, bytes),
      (err) => {
        assert.ok(err instanceof HeadlabError, what);
        assert.equal(err.message, expected, what);
        return true;
      },
    );
  }
  // A config over the 4 MiB limit (docs/limits.md): refused by size before it is parsed, in both
  // (the CLI says so while reading the file, before the core sees it, hence its own wording).
  const big = `{"n_layers":1${' '.repeat(4 << 20)}}`;
  assert.throws(
    () => core.loadTransformer(big, weightsBytes('two_layer_ln_pos')),
    /config: the file has 4194318 bytes; the limit is 4194304$/,
  );
  fs.writeFileSync(path.join(tmp, 'big.json'), big);
  const r = cliRun([
    'model',
    'inspect',
    '--config',
    path.join(tmp, 'big.json'),
    '--weights',
    path.join(dataDir, 'two_layer_ln_pos.safetensors'),
  ]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--config: ".*big\.json" is larger than 4194304 bytes\n$/);
  assert.equal(core.transformerLiveHandles(), live);
});

test("torch.save checkpoints, TransformerLens 4 names and TransformerLens's own configs: the CLI's bytes, the CLI's refusals", async () => {
  const data = path.join(root, 'tests/data');
  // [config, weights]: a .pt (W_U a transposed view), a float16 .pt, TransformerLens 4 bridge names in
  // both formats under TransformerLens 4's own config; each told apart by its bytes, not its name.
  const pairs = [
    ['transformer/two_layer_ln_pos.json', 'torch_checkpoint/two_layer_ln_pos.pt'],
    ['transformer/two_layer_ln_pos.json', 'dtypes/two_layer_ln_pos.f16.pt'],
    ['transformerlens_config/bridge_native_ln.json', 'transformerlens_names/bridge.pt'],
    ['transformerlens_config/bridge_native_ln.json', 'transformerlens_names/bridge.safetensors'],
  ];
  const raw = await rawModule();
  const handle = new raw.TransformerModelHandle();
  try {
    for (const [config, weights] of pairs) {
      const files = ['--config', path.join(data, config), '--weights', path.join(data, weights)];
      handle.load(fs.readFileSync(path.join(data, config), 'utf8'), new Uint8Array(fs.readFileSync(path.join(data, weights))));
      for (const [args, wasm] of [
        [['inspect'], () => handle.inspect()],
        [['run', '--prompt', '1 2 3'], () => handle.run('1 2 3', undefined)],
      ]) {
        const r = cliRun(['model', args[0], ...files, ...args.slice(1)]);
        assert.equal(r.status, 0, r.stderr);
        assert.equal(wasm(), r.stdout, `${weights}: ${args.join(' ')}`);
      }
    }
  } finally {
    handle.delete();
  }
  // A refused checkpoint gets the CLI's message; the handle that refused it keeps no model.
  const core = await wasmTransformerCore();
  const goodConfig = configText('two_layer_ln_pos');
  const pt = new Uint8Array(fs.readFileSync(path.join(data, 'torch_checkpoint/two_layer_ln_pos.pt')));
  const bad = {
    'int64 buffer': new Uint8Array(fs.readFileSync(path.join(data, 'torch_checkpoint/long.pt'))),
    'nested state_dict': new Uint8Array(fs.readFileSync(path.join(data, 'torch_checkpoint/nested.pt'))),
    truncated: pt.subarray(0, pt.length - 100),
  };
  for (const [what, bytes] of Object.entries(bad)) {
    const expected = cliMessage(goodConfig, bytes);
    assert.match(expected, /^torch checkpoint: /, what);
    assert.throws(() => core.loadTransformer(goodConfig, bytes), { message: expected }, what);
  }
});

test('a tensor the model has no place for is refused by its header entry, before any tensor data is converted', async () => {
  // A fresh module, so its memory starts at its initial size (a module's memory never shrinks).
  const { default: factory } = await import(path.join(wasmDir, 'headlab_transformer.mjs'));
  const core = await loadTransformerCore(factory, { wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_transformer.wasm')) });
  // 16 Mi BOOL elements of an unknown name whose bytes are 2 (no BOOL value): converted first, they
  // were refused as "BOOL value 2 at index 0" after 128 MiB of doubles were allocated (8 bytes each).
  const n = 16 << 20;
  const bytes = edited('junk', { name: 'junk', dtype: 'BOOL', shape: [n], data: new Uint8Array(n).fill(2) });
  const before = core.memoryDiagnostics().memory_bytes;
  assert.throws(
    () => core.loadTransformer(configText('two_layer_ln_pos'), bytes),
    (err) => {
      assert.match(err.message, /^unknown tensor junk \(expected TransformerLens names/);
      return true;
    },
  );
  // The module holds one copy of the file's bytes (n) while it reads; n doubles (8n) would not fit under 3n.
  const grown = core.memoryDiagnostics().memory_bytes - before;
  assert.ok(grown < 3 * n, `WASM memory grew by ${grown} bytes for a ${bytes.length}-byte file`);
  assert.equal(
    cliMessage(configText('two_layer_ln_pos'), bytes),
    'unknown tensor junk (expected TransformerLens names: embed.W_E, pos_embed.W_pos, blocks.L.ln1.*, blocks.L.attn.*, ln_final.*, unembed.*)',
  );
});

test("the core's layout table names and shapes the tensors of the canonical file, in its order", async () => {
  const core = await wasmTransformerCore();
  const layout = core.transformerLayout();
  assert.deepEqual(
    layout.slice(0, 2).map((r) => [r.name, r.shape.join(' × '), r.presence, r.role]),
    [
      ['embed.W_E', 'd_vocab × d_model', 'always', 'required'],
      ['pos_embed.W_pos', 'n_ctx × d_model', 'positional_embedding', 'required'],
    ],
  );
  for (const name of FIXTURES) {
    const model = core.loadTransformer(configText(name), weightsBytes(name));
    try {
      const { config: text, safetensors } = model.canonical(); // written without the buffers
      const config = JSON.parse(text);
      const has = {
        always: true,
        positional_embedding: ['standard', 'shortformer'].includes(config.positional_embedding),
        normalization_weight: ['LN', 'RMS'].includes(config.normalization),
        layer_norm_bias: config.normalization === 'LN',
        ungrouped: !config.n_key_value_heads,
        grouped: config.n_key_value_heads > 0,
        rotary: config.positional_embedding === 'rotary',
      };
      const expected = layoutTensors(layout, config)
        .filter(([row]) => row.role !== 'buffer' && has[row.presence])
        .map(([row, l]) => [row.name.replace('{l}', String(l)), row.shape.map((d) => config[d])]);
      const headerBytes = Number(new DataView(safetensors.buffer, safetensors.byteOffset).getBigUint64(0, true));
      const header = JSON.parse(new TextDecoder().decode(safetensors.subarray(8, 8 + headerBytes)));
      const written = Object.entries(header)
        .filter(([n]) => n !== '__metadata__')
        .sort(([, a], [, b]) => a.data_offsets[0] - b.data_offsets[0]) // the order the writer stored them in
        .map(([n, e]) => [n, e.shape]);
      assert.deepEqual(written, expected, name);
    } finally {
      model.dispose();
    }
  }
});

test('the canonical files of a model read back to the same weights, with a header of a few KB', async () => {
  const core = await wasmTransformerCore();
  for (const name of FIXTURES) {
    const model = core.loadTransformer(configText(name), weightsBytes(name));
    const { config, safetensors } = model.canonical();
    const again = core.loadTransformer(config, safetensors);
    try {
      const prompt = [1, 2, 3];
      assert.deepEqual(again.run(prompt), model.run(prompt), name);
      assert.deepEqual(again.inspect().parameters, model.inspect().parameters, name);
      const headerBytes = Number(new DataView(safetensors.buffer, safetensors.byteOffset).getBigUint64(0, true));
      assert.ok(headerBytes < 8192, `${name}: header of ${headerBytes} bytes`);
      assert.ok(!again.inspect().tensors.some((t) => /attn\.(mask|IGNORE)$/.test(t.name)), name);
    } finally {
      again.dispose();
      model.dispose();
    }
  }
});

test("the worker's read of a model (transformer-load) streams a Blob into the heap in chunks and hands back no weights", async () => {
  const core = await wasmTransformerCore();
  const name = 'two_layer_ln_pos';
  const bytes = weightsBytes(name);
  const here = core.loadTransformer(configText(name), bytes);
  const progress = [];
  const read = await workerTasks['transformer-load'].run(
    core,
    { config: configText(name), weights: new Blob([bytes]), keep_model: 'blob' },
    { progress: (p) => progress.push(p) },
  );
  // The page gets the config and the counts, never the weights.
  assert.deepEqual(Object.keys(read).sort(), ['bytes', 'config', 'parameters']);
  assert.deepEqual(read.config, here.config);
  assert.equal(read.parameters, here.inspect().parameters);
  assert.equal(read.bytes, bytes.length);
  // Progress from 0 to the file's size, never backwards.
  assert.deepEqual(progress[0], { weights_read: 0, weights_total: bytes.length });
  assert.deepEqual(progress.at(-1), { weights_read: bytes.length, weights_total: bytes.length });
  assert.ok(progress.every((p, i) => i === 0 || p.weights_read >= progress[i - 1].weights_read));
  // The kept model computes what the model read from the bytes computes, bit for bit.
  const kept = await workerTasks['transformer-analyze'].run(core, { model: 'blob', run: { prompt: [1, 2, 3] } });
  assert.deepEqual(kept.run, here.run([1, 2, 3]));
  // Prompts typed as names or ids are read by the kept model's prompt reader.
  const texts = await workerTasks['transformer-tokenize'].run(core, { model: 'blob', texts: ['1 2 3', '1 99999'] });
  assert.deepEqual(texts[0], { ids: here.tokenize('1 2 3') });
  assert.throws(
    () => here.tokenize('1 99999'),
    (err) => err.message === texts[1].error,
  );
  // A Blob that is not a model's weights: the core's message, nothing kept, no buffer left behind.
  const live = core.transformerLiveHandles();
  await assert.rejects(
    workerTasks['transformer-load'].run(core, { config: configText(name), weights: new Blob([bytes.subarray(0, 100)]), keep_model: 'cut' }),
    HeadlabError,
  );
  assert.equal(core.transformerLiveHandles(), live);
  await assert.rejects(
    workerTasks['transformer-analyze'].run(core, { model: 'cut', request: { prompt: [1] } }),
    /is not kept in this worker/,
  );
  await assert.rejects(workerTasks['transformer-load'].run(core, { config: configText(name), weights: 'model.safetensors' }), {
    message: 'weights must be a Blob (a File of the weights)',
  });
  assert.equal(await workerTasks['transformer-release'].run(core, { model: 'blob' }), true);
  here.dispose();
});

test('every truncation of a valid file is an error, never a crash', async () => {
  const core = await wasmTransformerCore();
  const bytes = weightsBytes('one_layer_plain');
  const config = configText('one_layer_plain');
  for (let n = 0; n < bytes.length; n += n < 400 ? 1 : 37) {
    assert.throws(() => core.loadTransformer(config, bytes.subarray(0, n)), HeadlabError);
  }
  core.loadTransformer(config, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)).dispose(); // an ArrayBuffer works too
});

test("bad prompts and requests get the core's message (the CLI's after its flag name)", async () => {
  const core = await wasmTransformerCore();
  const name = 'two_layer_ln_pos';
  const model = core.loadTransformer(configText(name), weightsBytes(name));
  const files = ['--config', path.join(dataDir, `${name}.json`), '--weights', path.join(dataDir, `${name}.safetensors`)];
  try {
    for (const prompt of ['1 17', '1 2 3 4 5 6 7 8 9 10 11', '1,2,cat', '']) {
      const r = cliRun(['model', 'run', ...files, '--prompt', prompt]);
      assert.equal(r.status, 1);
      const cli = /^headlab model run: --prompt: (.*)\n$/s.exec(r.stderr)?.[1];
      assert.ok(cli, r.stderr);
      assert.throws(() => model.run(prompt), { name: 'HeadlabError', message: `prompt: ${cli}` });
    }
    assert.throws(() => model.run([1, 17]), { message: 'prompt: token 17 at position 1 is outside the vocabulary [0, 17)' });
    assert.throws(() => model.run({}), { message: 'prompt must be a string of tokens or an array of token ids' });
    assert.throws(() => model.analyze({ prompt: '1 2', ablation: 'half' }), { message: 'ablation must be "zero" or "mean", got "half"' });
    assert.throws(() => model.analyze({ prompt: '1 2', sequences: -1 }), {
      message: 'sequences must be in [0, 10000] (0: no repeated sequences), got -1',
    });
    assert.throws(() => model.analyze({ prompt: '1 2', position: -2 }), { message: 'position must be -1 (the last) or in [0, 2), got -2' });
    assert.throws(() => model.analyze({ prompt: '1 2', corrupted: '1 3' }), {
      message: 'patching needs answer and wrong tokens with the corrupted prompt',
    });
    assert.throws(() => model.analyze({ prompt: '1 2', corrupted: '1 3 4', answer: 1, wrong: 2 }), /corrupted prompt has 3 tokens/);
    assert.throws(() => model.analyze({ prompt: '1 2', answr: 3 }), { message: 'the analysis request has an unknown field "answr"' });
    assert.throws(() => core.createTransformerTrainer({ steps: -1 }), /steps/);
    assert.throws(() => core.createTransformerTrainer({ model: { n_ctx: 3 } }), /n_ctx/);
    assert.throws(() => core.createTransformerTrainer({ model: { foo: 'gelu' } }), /unknown field "foo"/);
    assert.deepEqual(model.tokenize('1, 2 3'), [1, 2, 3]);
    assert.throws(() => model.run('1 2', { ablate: [[0, 3]] }), {
      message: 'head 0.3 is not in the model (2 layers × 3 heads, numbered from 0)',
    });
    assert.throws(
      () =>
        model.run('1 2', {
          ablate: [
            [0, 1],
            [0, 1],
          ],
        }),
      { message: 'head 0.1 is named twice' },
    );
    assert.throws(() => model.run('1 2', { ablate: [[0]] }), { message: 'ablate[0] must be a [layer, head] pair' });
    assert.throws(() => model.run('1 2', { heads: [] }), { message: 'the run options has an unknown field "heads"' });
    assert.deepEqual(model.run('1 2', { ablate: [] }).logits, model.run('1 2').logits);
  } finally {
    model.dispose();
  }
  assert.throws(() => model.run('1'), /disposed/);
});

test('worker tasks: transformer-train reports scores every chunk and stops between chunks; transformer-analyze loads and analyses', async () => {
  const core = await wasmTransformerCore();
  const live = core.transformerLiveHandles();
  const messages = [];
  const result = await workerTasks['transformer-train'].run(
    core,
    { settings: { seed: 3, steps: 40 }, chunk: 15, score_sequences: 4 },
    {
      progress: (m) => messages.push(m),
      shouldStop: () => false,
      yieldToEvents: async () => {},
    },
  );
  assert.deepEqual(
    messages.map((m) => m.steps_taken),
    [0, 15, 30, 40],
  );
  const L = 2,
    H = 4;
  for (const m of messages) {
    assert.equal(m.steps_total, 40);
    assert.equal(m.previous_token.length, L);
    assert.equal(m.induction[0].length, H);
    assert.ok(Number.isFinite(m.in_context_loss));
  }
  // Same bits as the trainer (and so as the native CLI, above).
  const trainer = core.createTransformerTrainer({ seed: 3, steps: 40 });
  trainer.step(40);
  assert.ok(Buffer.from(result.safetensors).equals(Buffer.from(trainer.result().safetensors)));
  assert.deepEqual(messages.at(-1).induction, trainer.scores(4).induction);
  trainer.dispose();
  // Stop after the second message: the result holds the steps taken.
  let calls = 0;
  const stopped = await workerTasks['transformer-train'].run(
    core,
    { settings: { seed: 3, steps: 40 }, chunk: 10, score_sequences: 2 },
    {
      progress: () => {
        calls += 1;
      },
      shouldStop: () => calls >= 2,
      yieldToEvents: async () => {},
    },
  );
  assert.equal(stopped.progress.steps_taken, 10);
  assert.equal(stopped.progress.done, true);
  await assert.rejects(workerTasks['transformer-train'].run(core, { chunk: 0 }, {}), /chunk must be an integer/);
  // Divergence (Adam moves each weight by about learning_rate per step: 1e8 leaves the ±1e6 limit at
  // step 1): step() says so, and the task fails with the message instead of returning the weights.
  const wild = core.createTransformerTrainer({ steps: 10, learning_rate: 1e8, weight_decay: 0 });
  const diverged = wild.step(10);
  wild.dispose();
  assert.equal(diverged.done, true);
  assert.equal(diverged.diverged_at, 1);
  assert.match(
    diverged.divergence,
    /^training diverged at step 1: a weight reached .* beyond the magnitude limit ±1e\+06 \(learning_rate 1e\+08\)$/,
  );
  await assert.rejects(
    workerTasks['transformer-train'].run(
      core,
      { settings: { steps: 10, learning_rate: 1e8, weight_decay: 0 }, chunk: 5, score_sequences: 1 },
      {
        progress: () => {},
        shouldStop: () => false,
        yieldToEvents: async () => {},
      },
    ),
    /^HeadlabError: training diverged at step 1: /,
  );

  const name = 'two_layer_ln_pos';
  const analyzed = await workerTasks['transformer-analyze'].run(core, {
    config: configText(name),
    safetensors: weightsBytes(name),
    request: { prompt: '1 2 3', sequences: 2 },
  });
  assert.equal(analyzed.inspection.checks, 'ok');
  assert.deepEqual(analyzed.analysis.tokens, [1, 2, 3]);
  assert.equal(analyzed.run, null);
  // A run in the worker (what the figures send for a new prompt or an ablated run) is the page's run, bit for bit.
  const options = { ablate: [[1, 0]], mode: 'mean', sequences: 2, seed: 0 };
  const ran = await workerTasks['transformer-analyze'].run(core, {
    config: configText(name),
    safetensors: weightsBytes(name),
    run: { prompt: [1, 2, 3], options },
  });
  assert.equal(ran.analysis, null);
  const here = core.loadTransformer(configText(name), weightsBytes(name));
  assert.deepEqual(ran.run, here.run([1, 2, 3], options));
  assert.notDeepEqual(ran.run.logits, here.run([1, 2, 3]).logits);
  // Kept by id: the files once, then the id alone (the kept model and its analysis cache), the same
  // numbers as a model loaded for the one task; the result's one buffer is offered for transfer.
  const request = { prompt: '1 2 3', corrupted: '1 2 4', answer: 3, wrong: 4, sequences: 2 };
  const moved = [];
  const first = await workerTasks['transformer-analyze'].run(
    core,
    { model: 'm1', config: configText(name), safetensors: weightsBytes(name), request },
    { transfer: (b) => moved.push(...b) },
  );
  const again = await workerTasks['transformer-analyze'].run(
    core,
    { model: 'm1', request: { ...request, prompt: '2 2 3' }, run: { prompt: [1, 2, 3], options } },
    { transfer: (b) => moved.push(...b) },
  );
  assert.deepEqual(first.analysis, here.analyze(request));
  assert.deepEqual(again.analysis, here.analyze({ ...request, prompt: '2 2 3' }));
  assert.deepEqual(again.run, ran.run);
  assert.deepEqual(moved, [first.analysis.logits.data.buffer, again.run.logits.data.buffer, again.analysis.logits.data.buffer]);
  assert.equal(core.transformerLiveHandles(), live + 2);
  assert.equal(await workerTasks['transformer-release'].run(core, { model: 'm1' }), true);
  assert.equal(await workerTasks['transformer-release'].run(core, { model: 'm1' }), false);
  await assert.rejects(workerTasks['transformer-analyze'].run(core, { model: 'm1', request }), /model "m1" is not kept in this worker/);
  // Read by a model source's worker (transformer-load with keep_model) and kept there: its figures'
  // requests name the id alone and get the same numbers, with no bytes copied into the heap.
  const read = await workerTasks['transformer-load'].run(core, {
    config: configText(name),
    safetensors: weightsBytes(name),
    keep_model: 'src',
  });
  assert.equal(read.parameters, here.inspect().parameters);
  assert.equal(core.transformerLiveHandles(), live + 2);
  const copied = core.memoryDiagnostics().bytes_copied_in;
  const kept = await workerTasks['transformer-analyze'].run(core, { model: 'src', request });
  assert.equal(core.memoryDiagnostics().bytes_copied_in, copied);
  assert.deepEqual(kept.analysis, here.analyze(request));
  assert.equal(await workerTasks['transformer-release'].run(core, { model: 'src' }), true);
  await assert.rejects(
    workerTasks['transformer-load'].run(core, { config: configText(name), safetensors: weightsBytes(name), keep_model: 3 }),
    /keep_model must be an id string, got number/,
  );
  // A refused read keeps nothing.
  await assert.rejects(
    workerTasks['transformer-load'].run(core, {
      config: configText(name),
      safetensors: weightsBytes('one_layer_plain'),
      keep_model: 'bad',
    }),
    /the config implies/,
  );
  await assert.rejects(workerTasks['transformer-analyze'].run(core, { model: 'bad', request }), /model "bad" is not kept in this worker/);
  here.dispose();
  await assert.rejects(
    workerTasks['transformer-analyze'].run(core, { config: configText(name), safetensors: weightsBytes(name), run: { prompt: [1, 99] } }),
    /99/,
  );
  await assert.rejects(
    workerTasks['transformer-analyze'].run(core, { config: configText(name), safetensors: weightsBytes('one_layer_plain') }),
    /blocks.0.attn.W_K has shape \[2, 8, 4\]; the config implies/,
  );
  assert.equal(core.transformerLiveHandles(), live);
});

test('handles are released: load, analyse and train 30 times, the live count and the heap stay flat', async () => {
  const core = await wasmTransformerCore();
  const name = 'two_layer_lnpre_pos';
  const cycle = () => {
    const model = core.loadTransformer(configText(name), weightsBytes(name));
    model.analyze({ prompt: '1 2 3 4', corrupted: '1 2 5 4', answer: 3, wrong: 5, sequences: 2 });
    model.dispose();
    model.dispose(); // idempotent
    const trainer = core.createTransformerTrainer({ steps: 2, batch_size: 2 });
    trainer.step(2);
    trainer.result();
    trainer.dispose();
    assert.throws(() => core.loadTransformer('{', weightsBytes(name)), HeadlabError);
  };
  cycle();
  const live = core.transformerLiveHandles();
  const before = core.memoryDiagnostics().heap_bytes_in_use;
  for (let i = 0; i < 30; i++) cycle();
  assert.equal(core.transformerLiveHandles(), live);
  assert.equal(live, 0);
  // A leak of one model per cycle would be ≥ 30 × its 11 KB of weights.
  assert.ok(
    core.memoryDiagnostics().heap_bytes_in_use - before < 64 * 1024,
    `heap grew by ${core.memoryDiagnostics().heap_bytes_in_use - before} bytes`,
  );
});

test('a run or an analysis asked for the logits from one position on: those rows, the full bits, every other figure the same', async () => {
  const name = 'two_layer_ln_pos';
  const core = await wasmTransformerCore();
  const model = core.loadTransformer(configText(name), weightsBytes(name));
  try {
    const V = model.config.d_vocab;
    const prompt = [1, 2, 3, 4, 1, 2];
    const full = model.run(prompt);
    const last = model.run(prompt, { logits_from: 5 });
    assert.equal(full.logits_from, undefined, 'a run of every row has the CLI document members only');
    assert.equal(last.logits_from, 5);
    assert.deepEqual([last.logits.rows, last.logits.cols], [1, V]);
    assert.deepEqual(Array.from(last.logits.data), Array.from(full.logits.data.subarray(5 * V)));
    last.patterns.forEach((layer, l) => layer.forEach((p, h) => assert.deepEqual(p.data, full.patterns[l][h].data)));
    const ablated = model.run(prompt, { ablate: [[1, 0]], mode: 'zero' });
    const ablatedLast = model.run(prompt, { ablate: [[1, 0]], mode: 'zero', logits_from: 5 });
    assert.deepEqual(Array.from(ablatedLast.logits.data), Array.from(ablated.logits.data.subarray(5 * V)));
    const request = { prompt, position: 4, sequences: 0, corrupted: [1, 2, 5, 4, 1, 2], answer: 3, wrong: 5 };
    const a = model.analyze(request);
    const b = model.analyze({ ...request, logits_from: 5 });
    // Rows from min(logits_from, position) = 4 on.
    assert.equal(b.logits_from, 4);
    assert.deepEqual(Array.from(b.logits.data), Array.from(a.logits.data.subarray(4 * V)));
    assert.deepEqual(b.direct_logit_attribution, a.direct_logit_attribution);
    assert.equal(b.token, a.token);
    assert.deepEqual(b.patching.normalised, a.patching.normalised);
    assert.throws(() => model.run(prompt, { logits_from: 6 }), /^HeadlabError: logits_from must lie in \[0, 5\], got 6$/);
  } finally {
    model.dispose();
  }
});
