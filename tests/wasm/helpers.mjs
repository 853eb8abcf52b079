// Shared by the WASM-in-Node tests: load the built module, run the native CLI.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCore, loadFeatureRecoveryCore, loadMaxDigitCore, loadTransformerCore } from '../../web/headlab-core.js';
import { isMatrix } from '../../web/matrix.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const wasmDir = path.join(root, 'build/wasm/web');
export const cliPath = path.join(root, 'build/native/cli/headlab');

const loaded = new Map();
/** The wrapped module `name` (build/wasm/web/<name>.mjs + .wasm) through `loader`, instantiated once per test file. */
function wasmModule(name, loader) {
  if (!loaded.has(name)) {
    loaded.set(
      name,
      (async () => {
        const { default: factory } = await import(path.join(wasmDir, `${name}.mjs`));
        return loader(factory, { wasmBinary: fs.readFileSync(path.join(wasmDir, `${name}.wasm`)) });
      })(),
    );
  }
  return loaded.get(name);
}

/** The wrapped headlab_core module (attention, projection edits). */
export const wasmCore = () => wasmModule('headlab_core', loadCore);
/** The wrapped headlab_feature_recovery module (the feature-recovery experiment). */
export const wasmFeatureRecoveryCore = () => wasmModule('headlab_feature_recovery', loadFeatureRecoveryCore);
/** The wrapped headlab_max_digit module (the max-digit transformer). */
export const wasmMaxDigitCore = () => wasmModule('headlab_max_digit', loadMaxDigitCore);
/** The wrapped headlab_transformer module (your own attention-only transformer). */
export const wasmTransformerCore = () => wasmModule('headlab_transformer', loadTransformerCore);

/** Runs `headlab <args>` with stdin and returns parsed JSON stdout; throws with stderr on failure. */
export function cliJson(args, stdin = '') {
  const out = execFileSync(cliPath, args, { input: stdin, encoding: 'utf8', maxBuffer: 1 << 28 });
  return JSON.parse(out);
}

/** Runs the CLI and returns { status, stdout, stderr } without throwing. */
export function cliRun(args, stdin = '') {
  const r = spawnSync(cliPath, args, { input: stdin, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The shipped induction model's files (site/pages/data), as the CLI's --config and --weights. */
export const SHIPPED_INDUCTION = {
  config: path.join(root, 'site/pages/data/induction-seed0.json'),
  weights: path.join(root, 'site/pages/data/induction-seed0.safetensors'),
};

/**
 * `headlab model analyze` of the shipped induction model with `flags` (e.g. --pairs-task induction
 * --count 16 --faithfulness "0.0 1.1"), its document parsed; asserts that it exits 0 (the
 * assertion's message is the CLI's).
 */
export function cliAnalyzeShipped(flags) {
  const r = cliRun(['model', 'analyze', '--config', SHIPPED_INDUCTION.config, '--weights', SHIPPED_INDUCTION.weights, ...flags]);
  assert.equal(r.status, 0, `headlab model analyze ${flags.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * The tensors of a safetensors file of the PyTorch fixtures (tests/data/fixture_io.py writes them),
 * every one F64 (asserted): { name: Float64Array }, values in file order, shapes left out.
 */
export function readF64Tensors(file) {
  const bytes = fs.readFileSync(file);
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const out = {};
  for (const [name, e] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    assert.equal(e.dtype, 'F64', `${path.basename(file)}: ${name}`);
    const [begin, end] = e.data_offsets;
    out[name] = Float64Array.from({ length: (end - begin) / 8 }, (_, i) => bytes.readDoubleLE(8 + n + begin + 8 * i));
  }
  return out;
}

/** Nested arrays, matrices ({ rows, cols, data }) and typed arrays as one flat array of numbers, in order. */
const flat = (nested) =>
  Array.isArray(nested)
    ? nested.flatMap(flat)
    : isMatrix(nested)
      ? Array.from(nested.data)
      : ArrayBuffer.isView(nested)
        ? Array.from(nested)
        : [nested];
/** Largest |a − b| over two flat arrays of one length (asserted). */
function largestDifference(actual, expected) {
  assert.equal(actual.length, expected.length);
  return actual.reduce((worst, a, i) => Math.max(worst, Math.abs(a - expected[i])), 0);
}

/**
 * Asserts a loaded transformer (core.loadTransformer) against its PyTorch float64 fixture
 * (readF64Tensors of <name>.expected.safetensors: tokens, logits, patterns and the direct logit
 * attribution to dla_token at the last position, tests/data/transformer/make_fixtures.py), every
 * number within `bound`. Returns { tokens, token, run, analysis } for the caller's own checks.
 */
export function checkTorchFixture(model, expected, bound, name) {
  const tokens = Array.from(expected.tokens);
  const run = model.run(tokens);
  assert.ok(largestDifference(flat(run.logits), expected.logits) <= bound, `${name} logits`);
  assert.ok(largestDifference(flat(run.patterns), expected.patterns) <= bound, `${name} patterns`);
  const token = expected.dla_token[0];
  const analysis = model.analyze({ prompt: tokens, token, sequences: 1 });
  const d = analysis.direct_logit_attribution;
  assert.ok(Math.abs(d.embed - expected.dla_embed[0]) <= bound, `${name} DLA embed`);
  assert.ok(Math.abs(d.pos_embed - expected.dla_pos_embed[0]) <= bound, `${name} DLA pos_embed`);
  assert.ok(largestDifference(flat(d.heads), expected.dla_heads) <= bound, `${name} DLA heads`);
  return { tokens, token, run, analysis };
}

/** Largest |a − b| between a WASM matrix and CLI rows (null = −Infinity in the CLI's JSON). */
export function maxAbsDiff(m, rows) {
  let worst = 0;
  for (let i = 0; i < m.rows; i++) {
    for (let j = 0; j < m.cols; j++) {
      const a = m.data[i * m.cols + j];
      const b = rows[i][j] === null ? -Infinity : rows[i][j];
      if (a === b) continue;
      worst = Math.max(worst, Math.abs(a - b));
    }
  }
  return worst;
}

/** The (row, layer) pairs of core.transformerLayout() for a config in state_dict order, as
 *  for_each_tensor (core/transformer_layout.hpp) walks them: the run of "blocks.{l}." rows once per
 *  layer, layer outermost; layer −1 for a model-level row. */
export function layoutTensors(layout, config) {
  const perLayer = (row) => row.name.startsWith('blocks.{l}.');
  const out = [];
  for (let i = 0; i < layout.length; i++) {
    if (!perLayer(layout[i])) {
      out.push([layout[i], -1]);
      continue;
    }
    let end = i;
    while (end < layout.length && perLayer(layout[end])) end++;
    for (let l = 0; l < config.n_layers; l++) for (let j = i; j < end; j++) out.push([layout[j], l]);
    i = end - 1;
  }
  return out;
}

/**
 * A safetensors file (bytes) of a random model for `config` (normalization "none", learned
 * positions): the required tensors of the core's TransformerLens layout, F32, values uniform in
 * ±0.1 from a seeded linear congruential generator, so a test or bench can make a model of any
 * shape without a fixture on disk. The config to read it with is { ...config, normalization: 'none' }.
 */
export function randomModelFile(core, config, seed = 1) {
  const has = { always: true, positional_embedding: true, ungrouped: true };
  const tensors = layoutTensors(core.transformerLayout(), config)
    .filter(([row]) => row.role === 'required' && has[row.presence])
    .map(([row, l]) => [row.name.replace('{l}', String(l)), row.shape.map((dim) => config[dim])]);
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  const header = {};
  const parts = [];
  let offset = 0;
  for (const [name, shape] of tensors) {
    const count = shape.reduce((a, b) => a * b, 1);
    const values = new Float32Array(count);
    for (let i = 0; i < count; i++) values[i] = random() * 0.2;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + 4 * count] };
    offset += 4 * count;
    parts.push(new Uint8Array(values.buffer));
  }
  let text = JSON.stringify(header);
  while (text.length % 8) text += ' ';
  const out = new Uint8Array(8 + text.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(new TextEncoder().encode(text), 8);
  let at = 8 + text.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
