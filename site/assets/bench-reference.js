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
 * The project's figures on its 2-core Debian 12 machine, ms, measured on one quiet evening (load
 * average 0.0–0.6) at the code of this file's commit. Training: native bench executables and WASM
 * under Node 20 (median of 7, after one warm-up, the method of bench/targets.mjs). Widget updates:
 * p95 script time of this page's own full run in headless Chromium 156, keyed
 * "<element> — <input>" (the same run trained the max-digit recipe in its worker in 435 ms
 * and feature recovery in 57 ms). The host's speed drifts between
 * sessions by up to 1.4x for the same code, so compare ratios of figures measured together.
 */
export const REFERENCE = {
  machine: 'project machine: 2 cores (Debian 12, shared), Node 20, headless Chromium',
  training: {
    'max-digit recipe, native': 186.0,
    'max-digit recipe, WASM': 339.4,
    'feature recovery, native': 33.9,
    'feature recovery, WASM': 40.5,
  },
  updates: {
    'headlab-query-key-canvas — drag a query tip': 2.3,
    'headlab-query-key-canvas — score-scale slider step': 1.7,
    'headlab-projection-ablation — ablation preset': 1.3,
    'headlab-projection-ablation — typed matrix entry': 1.4,
    'headlab-value-swap — value column select': 1.3,
    'headlab-basis-rotation — angle slider step': 1.3,
    'headlab-choice-quiz — choose an answer': 0.4,
    'headlab-feature-recovery — typed setting (steps)': 0.7,
    'headlab-interventions — intervention radio': 1.3,
    'headlab-interventions — typed new shift': 0.7,
    'headlab-training-replay — scrub the replay': 1.8,
    'headlab-max-digit-mechanism — typed list of digits': 1,
    'headlab-score-ramps — runner-up slider step': 1.1,
    'headlab-attention-bars — typed list of digits': 1.1,
    'headlab-head-contributions — drag to rotate': 1.8,
    'headlab-head-contributions — typed list of digits': 1.1,
    'headlab-attention-patch — patch (radio)': 2.1,
    'headlab-head-ablation — ablation toggle': 1.1,
    'headlab-subspace-accuracy — k slider step': 1.1,
    'headlab-subspace-accuracy — basis select': 0.9,
    'headlab-angle-dot — matrix select': 1.1,
  },
};
