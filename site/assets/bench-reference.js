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
 * and WASM under Node 20 (median of 7, after one warm-up, bench/targets.mjs), measured at a load
 * average of 1.2 at commit 1d71d26 (the training code of 6faa19f). A run of the same code on the
 * same machine another day gave figures up to 1.4x these (host noise), so compare ratios of
 * figures measured together. Widget updates: p95 script time in headless Chromium
 * (bench/widgets.bench.mjs), keyed "<element> — <input>"; left empty until one full run is
 * measured on a quiet machine (every full run so far ended at a load average of 4 or more on
 * 2 cores, which inflates the figures).
 */
export const REFERENCE = {
  machine: 'project machine: 2 cores (Debian 12, shared), Node 20, headless Chromium',
  training: {
    'max-digit recipe, native': 392.1,
    'max-digit recipe, WASM': 728.8,
    'feature recovery, native': 34.4,
    'feature recovery, WASM': 39.0,
  },
  updates: {},
};
