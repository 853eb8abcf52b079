// The widgets the benchmark page builds in its stage (bench.js drives SCENARIOS[tag] for each):
// a module of its own, with no import, so that tests/browser/bench-page.test.mjs counts the rows
// to expect from the same list the page builds.
/** The widgets built in the stage, as in the articles; `ready` waits for a widget's training. */
export const WIDGETS = [
  { tag: 'headlab-query-key-canvas' },
  { tag: 'headlab-projection-ablation' },
  { tag: 'headlab-value-swap' },
  { tag: 'headlab-basis-rotation' },
  {
    tag: 'headlab-choice-quiz',
    content: [
      ['title', 'Which projection leaves the attention weights alone?'],
      ['question', 'Change one projection and keep every attention weight.'],
      ['choice', 'The query projection'],
      ['choice', 'The key projection'],
      ['choice', 'The value projection', true],
      ['why', 'It makes the queries.'],
      ['why', 'It makes the keys.'],
      ['why', 'It is in no score.'],
    ],
  },
  { tag: 'headlab-feature-recovery', attrs: { id: 'bench-feature-recovery', autostart: '' } },
  { tag: 'headlab-interventions', attrs: { source: 'bench-feature-recovery' }, ready: (el) => el.state.clean_mse !== null },
  { tag: 'headlab-training-replay', ready: (el) => el.state.status === 'done' },
  { tag: 'headlab-max-digit-model', attrs: { id: 'bench-digits', src: 'data/max-digit-seed0.json' } },
  { tag: 'headlab-max-digit-mechanism', attrs: { model: 'bench-digits' } },
  { tag: 'headlab-score-ramps', attrs: { model: 'bench-digits' } },
  { tag: 'headlab-attention-bars', attrs: { model: 'bench-digits' } },
  { tag: 'headlab-head-contributions', attrs: { model: 'bench-digits', mode: 'outputs', layout: 'origin' } },
  { tag: 'headlab-attention-patch', attrs: { model: 'bench-digits' } },
  { tag: 'headlab-head-ablation', attrs: { model: 'bench-digits' } },
  { tag: 'headlab-subspace-accuracy', attrs: { model: 'bench-digits' } },
  { tag: 'headlab-angle-dot', attrs: { model: 'bench-digits' } },
];
