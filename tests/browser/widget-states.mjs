// Two shareable states per headlab-* element (el.sharedState values, i.e. attribute
// name → text). The product sweeps (tests/browser/product-sweep.test.mjs) restore them
// from the URL hash and alternate between them 500 times in the memory test.
// A new widget adds one entry here; the sweep fails for any element on a page without one.
// `setup` (optional) names a step the sweep runs first, e.g. 'trained' (a finished run on the page).
export const WIDGET_STATES = {
  'headlab-projection-ablation': { a: {}, b: { 'w-q': '[[0,1],[1,0]]', query: '2' } },
  'headlab-value-swap': { a: {}, b: { 'column-a': '1', 'column-b': '3' } },
  'headlab-basis-rotation': { a: { angle: '30' }, b: { angle: '-75.5' } },
  'headlab-query-key-canvas': {
    a: { 'w-q': '[[0,1],[1,0]]', scale: '4' },
    b: { basis: 'invertible', a: '[[2,0.5],[0,0.5]]', 'w-k': '[[1,0.5],[-0.5,1]]' },
  },
  'headlab-choice-quiz': { a: {}, b: { selected: '2', checked: '1', hint: '1' } },
  'headlab-feature-recovery': { a: {}, b: { seed: '3', steps: '400', pace: 'fast' } },
  'headlab-training-replay': { a: { snapshot: '5' }, b: { seed: '2', 'request-scale': '0.01', snapshot: '40' } },
  'headlab-interventions': {
    a: { intervention: 'erase-request', feature: '1' },
    b: { intervention: 'shift', shift: '2.5' },
    setup: 'trained',
  },
  'headlab-max-digit-model': { a: {}, b: { seed: '3' } },
  'headlab-attention-bars': { a: {}, b: { digits: '7 1 3' } },
  'headlab-attention-patch': { a: { patches: '3:3' }, b: { digits: '9 0 9', patches: '0:1 2:8' } },
  'headlab-head-ablation': { a: { ablated: '0' }, b: { ablated: '0 1 2' } },
  'headlab-subspace-accuracy': { a: { k: '1', basis: 'w_u' }, b: { k: '3', basis: 'w_o' } },
  'headlab-head-contributions': { a: {}, b: { digits: '8 8 1', mode: 'corrections', layout: 'chained' } },
  'headlab-angle-dot': { a: {}, b: { matrix: 'dot' } },
  'headlab-max-digit-mechanism': { a: {}, b: { digits: '9 0 9' } },
  'headlab-score-ramps': { a: {}, b: { maximum: '6', 'runner-up': '2' } },
  'headlab-seed-grid': { a: {}, b: { from: '2', to: '4' } },
  // Its files (src, config, tokenizer) are the author's: never in the hash, so no state to share.
  'headlab-transformer-model': { a: {}, b: {} },
  'headlab-transformer-attention': {
    a: { prompt: '5 9 1 5 9', position: '3' },
    b: { prompt: '5 9 1 5 9 1', position: '2', cell: '1.1.0' },
  },
  'headlab-transformer-attribution': { a: { position: '4' }, b: { prompt: '7 2 8 7 2', token: '8' } },
  'headlab-transformer-patching': { a: {}, b: { prompt: '4 11 19 4', corrupted: '4 30 19 4', answer: '11', wrong: '30' } },
  'headlab-transformer-ablation': { a: { heads: '1.2' }, b: { mode: 'zero', heads: '0.1 1.3', prompt: '6 1 6' } },
  'headlab-transformer-composition': { a: { kind: 'k' }, b: { kind: 'all', head: '1.0' } },
  'headlab-logit-lens': { a: { position: '4' }, b: { prompt: '7 2 8 7 2', position: '2' } },
  'headlab-head-svd': { a: { layer: '1', head: '2' }, b: { layer: '0', head: '1' } },
  'headlab-transformer-circuits': { a: { circuit: 'qk', head: '1' }, b: { layer: '0', head: '3', circuit: 'ov' } },
  'headlab-transformer-training': { a: {}, b: { seed: '3', steps: '200' } },
  'headlab-attribution-patching': { a: { point: '3' }, b: { count: '16', 'pairs-seed': '1', point: '10' } },
  'headlab-path-patching': {
    a: { input: 'k', sender: '0.0', receiver: '1.1' },
    b: { input: 'v', sender: '0.2', receiver: '1.3', count: '16' },
  },
  'headlab-circuit-faithfulness': { a: { circuit: '0.0 1.1' }, b: { circuit: '0.1 1.2 1.3', ablation: 'mean', count: '16' } },
  'headlab-qk-attribution': { a: { key: '3' }, b: { prompt: '5 9 1 5 9', layer: '1', head: '2', position: '3', key: '1' } },
};

/** Hostile values tried on every observed attribute of every element (bad-input sweep). */
export const HOSTILE_VALUES = [
  '<img src=x onerror="window.__injected=1">',
  '"><script>window.__injected=1</script>',
  'NaN',
  'Infinity',
  '-1e309',
  '1e308',
  '9007199254740993',
  '-0',
  '',
  '[[1e308,1e308],[1e308,1e308]]',
  '[[NaN]]',
  '[[1,2],[3]]',
  '[]',
  '{}',
  '{"__proto__":{"polluted":1}}',
  'null',
  '[[0.1,0.2',
  'x'.repeat(200000),
];
