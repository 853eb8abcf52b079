// Your own attention-only transformer in WASM under Node: forward + every analysis of one prompt for
// a 2-layer, 8-head, d_model 128, n_ctx 64 model (the figure docs/own-model.md measures against its
// 20 ms target), each part the module exposes timed on its own, and training steps per second of the
// induction default. Median of HEADLAB_BENCH_RUNS (default 5) runs after one warm-up. Prints
// figures; not a test. On a busy machine every figure grows. bench/transformer_bench.cpp breaks the
// analysis down natively, with the multiply-adds of each part.
import { wasmTransformerCore } from '../tests/wasm/helpers.mjs';
import { medianMs as median } from './median.mjs';

const RUNS = Number(process.env.HEADLAB_BENCH_RUNS) || 5;
const medianMs = (f) => median(RUNS, f, { warmup: true });

/** The benchmark model and request (also bench/transformer_bench.cpp, bench/targets.mjs). */
export const BENCH_MODEL = { n_layers: 2, n_heads: 8, d_model: 128, d_head: 16, n_ctx: 64, d_vocab: 64, normalization: 'LN' };
export function benchRequest() {
  // A repeated random block of 32 tokens (an induction prompt) and a corrupted copy differing at one position.
  const block = Array.from({ length: 32 }, (_, i) => (i * 37 + 11) % 64);
  const prompt = [...block, ...block];
  const corrupted = [...prompt];
  corrupted[40] = (corrupted[40] + 1) % 64;
  return { prompt, corrupted, answer: prompt[63], wrong: (prompt[63] + 1) % 64, sequences: 8 };
}

/** { forward, scores, withoutPatching, analyze, trainStepsPerSecond } in ms (and steps/s) for the WASM module. */
export async function transformerFigures() {
  const core = await wasmTransformerCore();
  const trainer = core.createTransformerTrainer({ model: BENCH_MODEL, steps: 0 });
  const model = trainer.model();
  trainer.dispose();
  const request = benchRequest();
  // The engine first runs a module's functions in its baseline compiler and optimises the hot ones
  // in the background: a few whole analyses first, so no figure below times the baseline code.
  for (let i = 0; i < 3; i++) model.analyze(request);
  const forward = medianMs(() => model.run(request.prompt));
  const scores = medianMs(() => model.inductionScores(request.sequences, 0));
  const analyze = medianMs(() => model.analyze(request));
  const { corrupted, answer, wrong, ...withoutPatching } = request;
  const withoutPatchingMs = medianMs(() => model.analyze(withoutPatching));
  model.dispose();
  const steps = 100;
  const train = medianMs(() => {
    const t = core.createTransformerTrainer({ steps });
    t.step(steps);
    t.dispose();
  });
  return { forward, scores, analyze, withoutPatching: withoutPatchingMs, trainStepsPerSecond: (1000 * steps) / train };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await transformerFigures();
  console.log(`attention-only transformer in WASM (2 layers × 8 heads, d_model 128, n_ctx 64), median of ${RUNS}:`);
  console.log(`  run (forward, logits and patterns as JSON text)                     ${f.forward.toFixed(2)} ms`);
  console.log(`  induction scores + in-context loss (8 repeated sequences)          ${f.scores.toFixed(2)} ms`);
  console.log(`  analyze: forward + DLA + induction scores + mean ablation, JSON    ${f.withoutPatching.toFixed(2)} ms`);
  console.log(`  analyze with patching (16 heads × 64 positions) too                ${f.analyze.toFixed(2)} ms (patching ≈ ${(f.analyze - f.withoutPatching).toFixed(2)} ms; target < 20 ms: ${(f.analyze / 20).toFixed(2)}×)`);
  console.log(`induction default (2 × 4 heads, d_model 32, n_ctx 24, batch 16): ${f.trainStepsPerSecond.toFixed(1)} steps/s in WASM`);
}
