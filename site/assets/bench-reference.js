// Targets of every speed figure: bench/targets.mjs (./dev bench) prints its measurements against
// TARGETS, and the benchmark page (bench.html, assets/bench.js) prints the reader's against TARGETS
// and the project machine's figures of record (bench/results/*.json, which site/build.mjs writes
// into assets/bench-reference-data.js). Plain ESM with no import, so Node and the served page both
// load it as it is.

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
