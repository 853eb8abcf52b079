// The attention-only transformer: forward + the analyses for a 2-layer, 8-head, d_model 128,
// n_ctx 64 model on one prompt (analyze_transformer with 8 repeated random sequences for ablation and
// induction scores, no circuits), each analysis timed on its own and inside the whole analysis (a
// model's first, and a new prompt's with the prompt-independent part cached), the
// JSON text the CLI and the WASM module return, and training steps per second of the induction
// default. The same model and request as bench/transformer.bench.mjs (WASM). Also the multiply-adds
// each part performs (counted from the shapes, as the code forms its products) and the rate they
// were done at: the floor under any figure that keeps this arithmetic and its summation order.
// The new prompt's analysis and the training at each vector width of the products
// (core/ordered_products.hpp ProductVectors: SSE2, AVX2, AVX-512; a width this CPU lacks is
// skipped; the same bits), the widest as the headline; `--vectors sse2|avx2|avx512` runs everything
// at that width. Prints medians of 5 runs (native). Not a test.
#include "core/ordered_products.hpp"
#include "core/random.hpp"
#include "core/transformer_analysis.hpp"
#include "core/transformer_training.hpp"
#include "formats/transformer_json.hpp"

#include "bench/median.hpp"

#include <cstdio>
#include <cstring>
#include <vector>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

using headlab::bench::median_ms;

namespace {

volatile double sink;

using namespace headlab::transformer;

// Multiply-adds of the products of one attention layer with nk key/value rows and nq query rows
// recomputed, T keys in all: K and V (2·nk·d·c), Q (nq·d·c), scores and pattern·V (2·nq·T·c), z W_O (nq·c·d), per head.
double layer_macs(const TransformerConfig& c, double nk, double nq, double T) {
  const double d = c.d_model, dh = c.d_head;
  return c.n_heads * (2 * nk * d * dh + nq * d * dh + 2 * nq * T * dh + nq * dh * d);
}
// A forward pass over T tokens, unembedding every row; scores and pattern·V below the diagonal only
// (row pairs: Σ over pairs of 2·(i + 2) = T(T + 2)/2 entries instead of T²).
double forward_macs(const TransformerConfig& c, double T) {
  const double causal = c.n_heads * 2 * (T * (T + 2) / 2) * c.d_head;
  return c.n_layers * (layer_macs(c, T, T, T) - c.n_heads * 2 * T * T * c.d_head + causal) + T * c.d_model * c.d_vocab;
}
// resume_forward from layer `first` with rows [row, changed) changed, logits of rows [logit_row, T)
// (`columns` of W_U: d_vocab, or 2 for patching's logit difference).
double resume_macs(const TransformerConfig& c, int first, double row, double changed, double logit_row, double T,
                   double columns) {
  double n = 0;
  for (int l = first; l < c.n_layers; ++l) {
    const double q0 = l + 1 == c.n_layers ? logit_row : row;
    n += layer_macs(c, changed - row, T - q0, T);
    row = q0;
    changed = T;
  }
  return n + (T - logit_row) * c.d_model * columns;
}

}  // namespace

struct Width {
  const char* name;  // as --vectors spells it
  const char* tag;   // suffix of its _CPU_MS_ lines
  headlab::ProductVectors vectors;
};
const Width kWidths[] = {{"sse2", "SSE2", headlab::ProductVectors::portable},
                         {"avx2", "AVX2", headlab::ProductVectors::avx2},
                         {"avx512", "AVX512", headlab::ProductVectors::avx512}};

int main(int argc, char** argv) {
  const Width* only = nullptr;
  if (argc == 3 && std::strcmp(argv[1], "--vectors") == 0) {
    for (const Width& w : kWidths)
      if (std::strcmp(argv[2], w.name) == 0) only = &w;
  }
  if (argc != 1 && !only) {
    std::fprintf(stderr, "usage: %s [--vectors sse2|avx2|avx512]\n", argv[0]);
    return 2;
  }
  if (only && !headlab::product_vectors_available(only->vectors)) {
    std::printf("transformer, %s vectors: skipped, this CPU lacks them\n", only->name);
    return 1;
  }
  if (only) headlab::use_product_vectors(only->vectors);
  const headlab::ProductVectors in_use = headlab::product_vectors_in_use();
#if defined(__GLIBC__)
  // As the headlab CLI does (cli/main.cpp): keep freed memory instead of returning it to the system
  // after every forward pass (glibc's 128 KB trim threshold made every figure here ~5× slower).
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
  constexpr int kRuns = 5;
  // 2 layers of 8 heads, d_model 128, d_head 16, 64 positions, 64 tokens.
  const TransformerConfig c = transformer_config({2, 8, 128, 16, 64, 64}, Normalization::layer_norm);
  TransformerTrainingSettings s;
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
  headlab::Random rng = headlab::Random(r.seed).stream(kEvaluationStream);
  const auto batch = repeated_batch(c, rng, r.sequences);

  const double forward = median_ms(kRuns, [&] { sink = transformer_forward(w, r.prompt).logits(0, 0); });
  const double scores = median_ms(kRuns, [&] { sink = induction_scores(w, r.sequences, r.seed).in_context_loss; });
  const double ablation = median_ms(kRuns, [&] { sink = head_ablation_loss(w, batch, Ablation::mean)(0, 0); });
  const double patching = median_ms(kRuns, [&] {
    sink = head_position_patching(w, r.prompt, r.corrupted, r.answer, r.wrong).clean_logit_difference;
  });
  // A model's first analysis (no cache: the prompt-independent part computed too), and a new
  // prompt's on a model already analysed (that part read from the cache, as the WASM model handle does).
  const double first = median_ms(kRuns, [&] { sink = analyze_transformer(w, r).clean_loss; });
  AnalysisCache cache;
  const TransformerAnalysis analysis = analyze_transformer(w, r, &cache);
  AnalysisRequest without_patching = r;
  without_patching.corrupted.clear();
  const double analyses = median_ms(kRuns, [&] { sink = analyze_transformer(w, without_patching, &cache).clean_loss; });
  const headlab::bench::WallCpuMs everything_ms =
      headlab::bench::median_wall_cpu_ms(kRuns, [&] { sink = analyze_transformer(w, r, &cache).clean_loss; });
  const double everything = everything_ms.wall;
  const double json = median_ms(
      kRuns, [&] { sink = static_cast<double>(headlab::formats::write_transformer_analysis(w, r, analysis).size()); });
  TransformerTrainingSettings defaults;
  defaults.steps = 100;
  const headlab::bench::WallCpuMs train_ms = headlab::bench::median_wall_cpu_ms(kRuns, [&] {
    TransformerTrainer t(defaults);
    sink = t.step(defaults.steps).loss;
  });
  const double train = train_ms.wall;
  // Each width's new-prompt analysis and training (CPU time), then back to the one in use.
  const char* width_name = nullptr;
  for (const Width& wd : kWidths) {
    if (wd.vectors == in_use) width_name = wd.name;
    if (only && &wd != only) continue;
    if (!headlab::product_vectors_available(wd.vectors)) {
      std::printf("transformer, %s vectors: skipped, this CPU lacks them\n", wd.name);
      continue;
    }
    headlab::use_product_vectors(wd.vectors);
    const double analyze_cpu =
        headlab::bench::median_wall_cpu_ms(kRuns, [&] { sink = analyze_transformer(w, r, &cache).clean_loss; }).cpu;
    const double train_cpu = headlab::bench::median_wall_cpu_ms(kRuns, [&] {
                               TransformerTrainer t(defaults);
                               sink = t.step(defaults.steps).loss;
                             }).cpu;
    std::printf("transformer, %s vectors: new prompt's analysis %.2f ms CPU, 100 induction steps %.1f ms CPU\n",
                wd.name, analyze_cpu, train_cpu);
    std::printf("NATIVE_TRANSFORMER_ANALYZE_CPU_MS_%s %.3f\n", wd.tag, analyze_cpu);
    std::printf("NATIVE_TRANSFORMER_TRAIN_CPU_MS_%s %.3f\n", wd.tag, train_cpu);
  }
  headlab::use_product_vectors(in_use);

  // Multiply-adds, as the code forms its products (causal zeros of the forward pass skipped, those of
  // resume_forward included; softmax, LayerNorm, sums not counted).
  const double T = c.n_ctx, half = c.n_ctx / 2, B = r.sequences, H = c.n_heads;
  const double forward_n = forward_macs(c, T);
  const double batch_n = B * forward_n;  // one pass over the repeated sequences (scores, loss, mean outputs)
  double ablation_n = 0;
  for (int l = 0; l < c.n_layers; ++l) ablation_n += B * H * resume_macs(c, l + 1, 0, T, half, T, c.d_vocab);
  double patching_n = forward_n;  // the corrupted run (the clean one is the analysis's own forward)
  for (int l = 0; l < c.n_layers; ++l)
    for (int p = 0; p < c.n_ctx; ++p)
      if (l + 1 < c.n_layers || p + 1 == c.n_ctx) patching_n += H * resume_macs(c, l + 1, p, p + 1, T - 1, T, 2);
  const double first_n = forward_n + batch_n + ablation_n + patching_n;
  const double prompt_n = forward_n + patching_n;
  const auto rate = [](double macs, double ms) { return macs / ms / 1e6; };  // GMAC/s

  std::printf(
      "attention-only transformer, 2 layers × 8 heads, d_model 128, n_ctx 64, %d repeated sequences, median of %d runs (native):\n",
      r.sequences, kRuns);
  std::printf("  %-62s %8.2f ms  %7.1f M mul-add  %5.2f GMAC/s\n", "forward (every activation kept)", forward,
              forward_n / 1e6, rate(forward_n, forward));
  std::printf("  %-62s %8.2f ms  %7.1f M mul-add\n", "induction scores + in-context loss (one pass)", scores,
              batch_n / 1e6);
  std::printf("  %-62s %8.2f ms  %7.1f M mul-add\n", "head ablation, mean (one pass + each head's later layers)",
              ablation, (batch_n + ablation_n) / 1e6);
  std::printf("  %-62s %8.2f ms  %7.1f M mul-add\n", "patching (16 heads × 64 positions, rows ≥ p recomputed)",
              patching, patching_n / 1e6);
  std::printf("  %-62s %8.2f ms  %7.1f M mul-add  %5.2f GMAC/s\n", "first analysis of the model (everything, no cache)",
              first, first_n / 1e6, rate(first_n, first));
  std::printf("  %-62s %8.2f ms\n", "new prompt without patching (forward, DLA; batch part cached)", analyses);
  std::printf("  %-62s %8.2f ms  %7.1f M mul-add  %5.2f GMAC/s\n", "new prompt with patching (what a reader waits for)",
              everything, prompt_n / 1e6, rate(prompt_n, everything));
  std::printf("  %-62s %8.2f ms\n", "its JSON text (the CLI's and the WASM module's)", json);
  std::printf("induction default (2 × 4 heads, d_model 32, n_ctx 24, batch %d):\n", defaults.batch_size);
  std::printf("  training                                    %8.1f steps/s  (%.1f per CPU second)\n",
              1000.0 * defaults.steps / train, 1000.0 * defaults.steps / train_ms.cpu);
  std::printf("NATIVE_TRANSFORMER_ANALYZE_MS %.3f\n", everything);
  std::printf("NATIVE_TRANSFORMER_FIRST_ANALYZE_MS %.3f\n", first);
  std::printf("NATIVE_TRANSFORMER_ANALYZE_MACS %.0f\n", prompt_n);
  std::printf("NATIVE_TRANSFORMER_FIRST_ANALYZE_MACS %.0f\n", first_n);
  std::printf("NATIVE_TRANSFORMER_TRAIN_STEPS_PER_S %.3f\n", 1000.0 * defaults.steps / train);
  std::printf("NATIVE_TRANSFORMER_ANALYZE_CPU_MS %.3f\n", everything_ms.cpu);
  std::printf("NATIVE_TRANSFORMER_TRAIN_CPU_STEPS_PER_S %.3f\n", 1000.0 * defaults.steps / train_ms.cpu);
  std::printf("NATIVE_TRANSFORMER_VECTORS %s\n", width_name);
  return 0;
}
