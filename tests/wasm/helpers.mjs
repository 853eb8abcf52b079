// Shared by the WASM-in-Node tests: load the built module, run the native CLI.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCore, loadFeatureRecoveryCore, loadMaxDigitCore, loadTransformerCore } from '../../web/headlab-core.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const wasmDir = path.join(root, 'build/wasm/web');
export const cliPath = path.join(root, 'build/native/cli/headlab');

let corePromise;
/** The wrapped headlab_core module, instantiated once per test file from the built .mjs + .wasm. */
export function wasmCore() {
  corePromise ??= (async () => {
    const { default: factory } = await import(path.join(wasmDir, 'headlab_core.mjs'));
    return loadCore(factory, { wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_core.wasm')) });
  })();
  return corePromise;
}

let featureRecoveryPromise;
/** The wrapped headlab_feature_recovery module (the feature-recovery experiment), instantiated once per test file. */
export function wasmFeatureRecoveryCore() {
  featureRecoveryPromise ??= (async () => {
    const { default: factory } = await import(path.join(wasmDir, 'headlab_feature_recovery.mjs'));
    return loadFeatureRecoveryCore(factory, { wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_feature_recovery.wasm')) });
  })();
  return featureRecoveryPromise;
}

let maxDigitPromise;
/** The wrapped headlab_max_digit module (the max-digit transformer), instantiated once per test file. */
export function wasmMaxDigitCore() {
  maxDigitPromise ??= (async () => {
    const { default: factory } = await import(path.join(wasmDir, 'headlab_max_digit.mjs'));
    return loadMaxDigitCore(factory, { wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_max_digit.wasm')) });
  })();
  return maxDigitPromise;
}

let transformerPromise;
/** The wrapped headlab_transformer module (your own attention-only transformer), instantiated once per test file. */
export function wasmTransformerCore() {
  transformerPromise ??= (async () => {
    const { default: factory } = await import(path.join(wasmDir, 'headlab_transformer.mjs'));
    return loadTransformerCore(factory, { wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_transformer.wasm')) });
  })();
  return transformerPromise;
}

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
