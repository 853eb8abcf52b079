// The attention-only transformer: forward + the analyses for a 2-layer, 8-head, d_model 128,
// n_ctx 64 model on one prompt (analyze_transformer with 8 repeated random sequences for ablation and
// induction scores, no circuits; head × position patching timed on its own and inside the analysis),
// and training steps per second of the induction default. The same model and request as
// bench/transformer.bench.mjs (WASM).
// Prints medians of 5 runs (native). Not a test.
#include "core/transformer_analysis.hpp"
#include "core/transformer_training.hpp"

#include "bench/median.hpp"

#include <cstdio>
#include <vector>

using headlab::bench::median_ms;

namespace {

volatile double sink;

}  // namespace

int main() {
  using namespace headlab::transformer;
  constexpr int kRuns = 5;
  // 2 layers of 8 heads, d_model 128, d_head 16, 64 positions, 64 tokens.
  const TransformerConfig c = transformer_config({2, 8, 128, 16, 64, 64}, Normalization::layer_norm);
  InductionTrainingSettings s;
  s.model = c;
  const TransformerWeights w = initial_weights(s);
  // A repeated random block of 32 tokens and a copy differing at position 40 (bench/transformer.bench.mjs).
  AnalysisRequest r;
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 32; ++i) r.prompt.push_back((i * 37 + 11) % 64);
  r.corrupted = r.prompt;
  r.corrupted[40] = (r.corrupted[40] + 1) % 64;
  r.answer = r.prompt[63];
  r.wrong = (r.prompt[63] + 1) % 64;
  r.sequences = 8;
  const double forward = median_ms(kRuns, [&] { sink = transformer_forward(w, r.prompt).logits(0, 0); });
  AnalysisRequest without_patching = r;
  without_patching.corrupted.clear();
  const double analyses = median_ms(kRuns, [&] { sink = analyze_transformer(w, without_patching).clean_loss; });
  const double everything = median_ms(kRuns, [&] { sink = analyze_transformer(w, r).clean_loss; });
  const double patching = median_ms(kRuns, [&] {
    sink = head_position_patching(w, r.prompt, r.corrupted, r.answer, r.wrong).clean_logit_difference;
  });
  InductionTrainingSettings defaults;
  defaults.steps = 100;
  const double train = median_ms(kRuns, [&] {
    InductionTrainer t(defaults);
    sink = t.step(defaults.steps).loss;
  });
  std::printf("attention-only transformer, 2 layers × 8 heads, d_model 128, n_ctx 64, median of %d runs (native):\n", kRuns);
  std::printf("  forward (every activation kept)             %8.2f ms\n", forward);
  std::printf("  forward + DLA + ablation + induction scores  %8.2f ms\n", analyses);
  std::printf("  patching (%d heads × %d positions, rows ≥ p recomputed) %8.2f ms\n", c.n_layers * c.n_heads, c.n_ctx, patching);
  std::printf("  analyze with patching (everything)          %8.2f ms\n", everything);
  std::printf("induction default (2 × 4 heads, d_model 32, n_ctx 24, batch %d):\n", defaults.batch_size);
  std::printf("  training                                    %8.1f steps/s\n", 1000.0 * defaults.steps / train);
  std::printf("NATIVE_TRANSFORMER_ANALYZE_MS %.3f\n", everything);
  std::printf("NATIVE_TRANSFORMER_TRAIN_STEPS_PER_S %.3f\n", 1000.0 * defaults.steps / train);
  return 0;
}
