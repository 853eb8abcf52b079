// The max-digit transformer in WASM under Node: the default recipe and the full analysis,
// median of 5 runs each, with the native CLI's recipe for the ratio. Prints figures; not a test.
import { execFileSync } from 'node:child_process';
import { cliPath, wasmMaxDigitCore } from '../tests/wasm/helpers.mjs';
import { medianMs } from './median.mjs';
import os from 'node:os';
import path from 'node:path';

const runs = 5;
/** Median of `runs` timings of f, in seconds. */
const median = (f) => medianMs(runs, f) / 1000;

const core = await wasmMaxDigitCore();
let weights;
const wasmTrain = median(() => {
  weights = core.maxDigitTrain({ seed: 0 });
});
const trainer = core.maxDigitTrainer({ seed: 0 });
const chunked = median(() => {
  // a page's worker: 40 chunks of 100 steps with a progress report between them
  const t = core.maxDigitTrainer({ seed: 0 });
  while (!t.step(100).done);
  t.dispose();
});
trainer.dispose();
const wasmAnalysis = median(() => core.maxDigitAnalyze(weights));
const out = path.join(os.tmpdir(), 'headlab-bench-max-digit.json');
const nativeTrain = median(() => execFileSync(cliPath, ['max-digit', 'train', '--seed', '0', '--out', out], { stdio: 'ignore' }));
console.log(`max-digit recipe in WASM, median of ${runs}: ${wasmTrain.toFixed(3)} s (aim < 3 s: ${(wasmTrain / 3).toFixed(2)}× the aim)`);
console.log(`  in 40 chunks of 100 steps (trainer.step): ${chunked.toFixed(3)} s`);
console.log(
  `  native CLI train (incl. process start and JSON write): ${nativeTrain.toFixed(3)} s; WASM / native = ${(wasmTrain / nativeTrain).toFixed(2)}`,
);
console.log(`max-digit full analysis in WASM, median of ${runs}: ${wasmAnalysis.toFixed(3)} s`);
