// The command line the npm package ships (package.json "bin": dist/headlab-cli.cjs, the CLI's own
// sources compiled for Node by web/CMakeLists.txt): for every command below it writes the same
// stdout bytes, the same stderr and the same exit code as the native build/native/cli/headlab, so an
// author without a C++ toolchain checks a model file with `npx headlab model inspect|run|analyze`.
// One documented exception (docs/numerics.md): the head SVD's OV eigenvalues and copying scores,
// from Eigen's EigenSolver, whose sums run in a vector-width-dependent order, agree within
// core/head_svd.hpp's kCopyingNativeWasmBound; every other number of that document is the same bits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cliPath, root } from './helpers.mjs';

const nodeCli = path.join(root, 'dist/headlab-cli.cjs');
const data = (...p) => path.join('tests/data', ...p);
const induction = ['--config', 'site/pages/data/induction-seed0.json', '--weights', 'site/pages/data/induction-seed0.safetensors'];

/** Runs one program with `args` (and `input` on stdin) from the repository root. */
function run(program, args, input = '') {
  const r = spawnSync(program, args, { cwd: root, input, maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

const cases = [
  ['--version', ['--version']],
  ['usage without a command', []],
  ['inspect: the shipped induction model (safetensors)', ['model', 'inspect', ...induction]],
  [
    'inspect: a torch.save checkpoint with a TransformerLens config (RoPE, RMSNorm, no biases)',
    ['model', 'inspect', '--config', data('archs/rope_neox_rms_nobias.json'), '--weights', data('archs/rope_neox_rms_nobias.pt')],
  ],
  [
    'run with head losses',
    ['model', 'run', ...induction, '--prompt', '3 17 5 3 17 5 3', '--head-losses', '--sequences', '8', '--seed', '1'],
  ],
  [
    'analyze: patching, circuits and QK attribution',
    ['model', 'analyze', ...induction, '--prompt', '3 17 5 9 3 17 5', '--corrupted', '3 17 6 9 3 17 6', '--answer', '9', '--wrong', '6'],
  ],
  [
    'analyze: QK attribution of L1H2 at position 6',
    ['model', 'analyze', ...induction, '--prompt', '3 17 5 9 3 17 5', '--qk-attribution', '1.2', '--position', '6'],
  ],
  [
    'analyze: composition and logit lens',
    ['model', 'analyze', ...induction, '--prompt', '3 17 5 9 3 17 5', '--composition', '--logit-lens'],
  ],
  [
    'analyze: a batch of 16 induction pairs with intervals',
    [
      'model',
      'analyze',
      ...induction,
      '--pairs-task',
      'induction',
      '--count',
      '16',
      '--pairs-seed',
      '0',
      '--resamples',
      '200',
      '--permutations',
      '200',
    ],
  ],
  [
    'refused: a missing weights file',
    ['model', 'inspect', '--config', 'site/pages/data/induction-seed0.json', '--weights', 'no-such-file.safetensors'],
  ],
  ['refused: a token beyond d_vocab', ['model', 'run', ...induction, '--prompt', '3 999']],
  ['refused: an unknown flag', ['model', 'run', ...induction, '--prompt', '3', '--no-such-flag']],
];

for (const [name, args] of cases) {
  test(`npx headlab ${name}: the same bytes and exit code as the native CLI`, () => {
    const native = run(cliPath, args);
    const node = run(process.execPath, [nodeCli, ...args]);
    assert.equal(node.status, native.status, `exit code; stderr: ${node.stderr}`);
    assert.equal(node.stderr, native.stderr);
    assert.ok(node.stdout.equals(native.stdout), `stdout differs (${node.stdout.length} B against ${native.stdout.length} B)`);
    // Not two empty outputs compared: each case either writes its document or says why not.
    assert.ok(native.stdout.length > 0 || native.stderr.length > 0, 'the case printed nothing');
  });
}

// core/head_svd.hpp kCopyingNativeWasmBound.
const COPYING_NATIVE_WASM_BOUND = 1e-12;

/** Walks two parsed documents: numbers under `copying` and `ov_eigenvalues` within the bound, every other leaf the same bits. */
function compareSvd(actual, expected, where, loose, worst) {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${where}: length`);
    expected.forEach((e, i) => compareSvd(actual[i], e, `${where}[${i}]`, loose, worst));
  } else if (expected !== null && typeof expected === 'object') {
    assert.deepEqual(Object.keys(actual), Object.keys(expected), `${where}: members`);
    for (const k of Object.keys(expected))
      compareSvd(actual[k], expected[k], `${where}.${k}`, loose || k === 'copying' || k === 'ov_eigenvalues', worst);
  } else if (loose) {
    worst.value = Math.max(worst.value, Math.abs(actual - expected));
  } else {
    assert.ok(Object.is(actual, expected), `${where}: ${actual} against ${expected}`);
  }
}

test('npx headlab analyze --head-svd: every number the native bits but the OV eigenvalues and copying scores, within 1e-12', () => {
  const args = ['model', 'analyze', ...induction, '--prompt', '3 17 5 9 3 17 5', '--head-svd'];
  const native = run(cliPath, args);
  const node = run(process.execPath, [nodeCli, ...args]);
  assert.equal(native.status, 0, native.stderr);
  assert.equal(node.status, 0, node.stderr);
  assert.equal(node.stderr, native.stderr);
  const worst = { value: 0 };
  compareSvd(JSON.parse(node.stdout), JSON.parse(native.stdout), 'document', false, worst);
  console.log(`# head SVD: largest native/Node difference of an eigenvalue or copying score ${worst.value.toExponential(2)}`);
  assert.ok(worst.value <= COPYING_NATIVE_WASM_BOUND, `${worst.value}`);
});

test('npx headlab: stdin in (attention), --out to a file, training from a seed: the same file bytes, written whole', () => {
  const input = fs.readFileSync(path.join(root, data('attention_identity.json')));
  const native = run(cliPath, ['attention'], input);
  const node = run(process.execPath, [nodeCli, 'attention'], input);
  assert.equal(native.status, 0, native.stderr);
  assert.equal(node.status, 0, node.stderr);
  assert.ok(node.stdout.equals(native.stdout), 'attention stdout');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-cli-node-'));
  try {
    const outputs = ['native', 'node'].map((who) => path.join(dir, `${who}-analysis.json`));
    const args = (out) => ['model', 'analyze', ...induction, '--prompt', '3 17 5 9 3 17 5', '--logit-lens', '--out', out];
    assert.equal(run(cliPath, args(outputs[0])).status, 0);
    const r = run(process.execPath, [nodeCli, ...args(outputs[1])]);
    assert.equal(r.status, 0, r.stderr);
    const [a, b] = outputs.map((f) => fs.readFileSync(f));
    assert.ok(a.length > 1000 && a.equals(b), `--out files differ (${a.length} B, ${b.length} B)`);
    // Training from a seed: the same weights and config files, bit for bit (the trainer's own
    // native/WASM policy, docs/numerics.md), and the same report on stderr.
    const train = (who) => [
      'model',
      'train',
      '--task',
      'induction',
      '--seed',
      '0',
      '--steps',
      '30',
      '--out',
      path.join(dir, `${who}.safetensors`),
    ];
    const trained = [run(cliPath, train('native')), run(process.execPath, [nodeCli, ...train('node')])];
    for (const t of trained) assert.equal(t.status, 0, t.stderr);
    assert.equal(trained[1].stderr, trained[0].stderr);
    for (const ext of ['safetensors', 'json']) {
      const [x, y] = ['native', 'node'].map((who) => fs.readFileSync(path.join(dir, `${who}.${ext}`)));
      assert.ok(x.length > 100 && x.equals(y), `trained .${ext} differs`);
    }
    // Only the outputs: no temporary file left beside them.
    assert.deepEqual(fs.readdirSync(dir).sort(), [
      'native-analysis.json',
      'native.json',
      'native.safetensors',
      'node-analysis.json',
      'node.json',
      'node.safetensors',
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('package.json ships the command: "bin" names dist/headlab-cli.cjs, an executable Node script with its .wasm beside it', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.bin?.headlab, 'dist/headlab-cli.cjs');
  const text = fs.readFileSync(nodeCli, 'utf8');
  assert.ok(text.startsWith('#!/usr/bin/env node\n'), 'shebang');
  assert.ok(fs.statSync(nodeCli).mode & 0o100, 'executable');
  assert.ok(fs.existsSync(path.join(root, 'dist/headlab_cli.wasm')));
});
