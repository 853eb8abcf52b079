// Targets of every speed figure, and the project machine's figures to compare a reader's with.
// One source for both: bench/targets.mjs (./dev bench) prints its measurements against TARGETS,
// and the benchmark page (bench.html, assets/bench.js) prints the reader's against TARGETS and
// REFERENCE. Plain ESM with no import, so Node and the served page both load it as it is.

/** Targets, ms: training medians, update p95 (main-thread script time), start-up, longest task. */
export const TARGETS = {
  'max-digit recipe, native': 300,
  'max-digit recipe, WASM': 500,
  'feature recovery, native': 40,
  'feature recovery, WASM': 50,
  // Forward + every analysis of one 64-token prompt, 2 layers × 8 heads, d_model 128 (docs/own-model.md).
  'transformer analysis, native': 20,
  'transformer analysis, WASM': 20,
  'widget update p95': 4,
  'start-up, navigation to interactive': 1000,
  'longest main-thread task': 50,
};

/**
 * The project's figures on its 2-core Debian 12 machine, ms. Training: native bench executables
 * and WASM under Node 20 (median of 7, after one warm-up), measured at a load average of ~1 at
 * commit 188381a. The changes since (the WASM step's parts as separate functions, deferred dL_h
 * rows, the sampler's two-lane wedge exponentials, batches drawn in place) were measured only as
 * interleaved CPU-time ratios on a busy machine (load 5-14): WASM max-digit 0.74x, WASM feature
 * recovery 0.84x, native feature recovery 0.98x, native max-digit unchanged within the noise;
 * so expect about 625 and 46 ms for the two WASM figures until they are re-measured quietly. Widget updates: p95 script time in headless Chromium (bench/widgets.bench.mjs, 200
 * samples), keyed "<element> — <input>"; left empty until measured on a quiet machine (the only
 * run so far had a load average of 28 on 2 cores, which inflates every figure about tenfold).
 */
export const REFERENCE = {
  machine: 'project machine: 2 cores (Debian 12, shared), Node 20, headless Chromium',
  training: {
    'max-digit recipe, native': 313,
    'max-digit recipe, WASM': 843,
    'feature recovery, native': 42.0,
    'feature recovery, WASM': 54.9,
  },
  updates: {},
};
