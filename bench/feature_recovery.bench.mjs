// Wall time of the full feature-recovery training (draft settings, 1,200 steps) in WASM under Node,
// as the median of 7 runs, and its ratio to the native median (build/native/bench/feature_recovery_bench).
// Not a test.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadFeatureRecoveryCore } from '../web/headlab-core.js';
import { medianMs } from './median.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = path.join(root, 'build/wasm/web');
const { default: factory } = await import(path.join(wasmDir, 'headlab_feature_recovery.mjs'));
const core = await loadFeatureRecoveryCore(factory, { wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_feature_recovery.wasm')) });

const RUNS = 7;
const time = (f) => medianMs(RUNS, f);

// One warm-up run so the engine has compiled the module's hot functions (a page would pay this once).
const warm = core.createFeatureRecoveryTrainer({ seed: 0 });
warm.step(1200);
warm.dispose();

const train = time(() => {
  const t = core.createFeatureRecoveryTrainer({ seed: 0 });
  t.step(1200);
  t.dispose();
});
const chunked = time(() => {
  const t = core.createFeatureRecoveryTrainer({ seed: 0 });
  for (let done = false; !done;) {
    done = t.step(50).done;
    t.snapshot();
  } // as the widget's worker: 50 steps, then a copy for the UI
  t.dispose();
});
const evaluate = time(() => {
  const t = core.createFeatureRecoveryTrainer({ seed: 0, steps: 0 });
  t.evaluate();
  t.dispose();
});

console.log(`feature recovery, seed 0, 1200 steps × batch 128, median of ${RUNS} runs (WASM in Node ${process.version}):`);
console.log(`  training (step(1200))                 ${train.toFixed(2).padStart(8)} ms`);
console.log(`  training in chunks of 50 + snapshot   ${chunked.toFixed(2).padStart(8)} ms`);
console.log(`  evaluation (4,096 held-out examples)  ${evaluate.toFixed(2).padStart(8)} ms`);

const nativeBench = path.join(root, 'build/native/bench/feature_recovery_bench');
if (fs.existsSync(nativeBench)) {
  const out = execFileSync(nativeBench, { encoding: 'utf8' });
  const native = Number(/NATIVE_TRAIN_MS ([0-9.]+)/.exec(out)?.[1]);
  console.log(`  native training median                ${native.toFixed(2).padStart(8)} ms`);
  console.log(`  ratio WASM / native                   ${(train / native).toFixed(2).padStart(8)}`);
} else {
  console.log('  (build/native/bench/feature_recovery_bench not built: no ratio)');
}
