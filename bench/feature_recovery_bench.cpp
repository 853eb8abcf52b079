// Wall time of the full feature-recovery training (draft settings, 1,200 steps)
// and of its parts: drawing the batches alone, and the math alone on one batch.
// The training at each softmax exponential (core/lanes.hpp SoftmaxExp: `portable`, std::exp per
// lane; `avx2_fma`, glibc's FMA arithmetic inlined, where available; the same bits), the one in
// use as the headline. `--exp portable|avx2_fma` times that one alone as the headline.
// Prints medians of 7 runs. Not a test.
#include "core/feature_recovery_experiment.hpp"
#include "core/lanes.hpp"

#include "bench/median.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

using headlab::bench::median_ms;

namespace {

volatile double sink;

}  // namespace

int main(int argc, char** argv) {
  using namespace headlab;
  constexpr int kRuns = 7;
  struct Path {
    const char* name;  // as --exp spells it
    const char* tag;   // suffix of its NATIVE_TRAIN_CPU_MS_ line
    SoftmaxExp exp;
  };
  const Path paths[] = {{"portable", "PORTABLE", SoftmaxExp::portable}, {"avx2_fma", "AVX2_FMA", SoftmaxExp::avx2_fma}};
  const Path* only = nullptr;
  if (argc == 3 && std::strcmp(argv[1], "--exp") == 0) {
    for (const Path& p : paths)
      if (std::strcmp(argv[2], p.name) == 0) only = &p;
  }
  if (argc != 1 && !only) {
    std::fprintf(stderr, "usage: %s [--exp portable|avx2_fma]\n", argv[0]);
    return 2;
  }
  if (only && !softmax_exp_available(only->exp)) {
    std::printf("feature recovery, %s exponential: skipped, not available on this machine\n", only->name);
    return 1;
  }
  const SoftmaxExp in_use = only ? only->exp : softmax_exp_in_use();
  FeatureRecoverySettings settings;  // seed 0, 1,200 steps, batch 128
  const auto train_once = [&] {
    FeatureRecoveryTrainer trainer(settings);
    trainer.step(settings.steps);
    sink = trainer.loss_trace().back();
  };
  headlab::bench::WallCpuMs train_ms{};
  const char* path_name = nullptr;
  for (const Path& p : paths) {
    if (only && &p != only) continue;
    if (!softmax_exp_available(p.exp)) {
      std::printf("training, %s exponential: skipped, not available on this machine\n", p.name);
      continue;
    }
    use_softmax_exp(p.exp);
    const headlab::bench::WallCpuMs ms = headlab::bench::median_wall_cpu_ms(kRuns, train_once);
    std::printf("training, %s exponential: %.2f ms wall, %.2f ms CPU\n", p.name, ms.wall, ms.cpu);
    std::printf("NATIVE_TRAIN_CPU_MS_%s %.3f\n", p.tag, ms.cpu);
    if (p.exp == in_use) train_ms = ms, path_name = p.name;
  }
  use_softmax_exp(in_use);
  const double train = train_ms.wall;
  const double sampling = median_ms(kRuns, [&] {
    Random rng = Random(settings.seed).stream(kBatchStream);
    FeatureRecoveryBatch batch;
    for (int t = 0; t < settings.steps; ++t)
      sample_feature_recovery_batch(rng, settings.batch_size, settings.request_scale, batch);
    sink = batch.target(0, 0);
  });
  Random rng(1);
  const FeatureRecoveryBatch batch = sample_feature_recovery_batch(rng, settings.batch_size, settings.request_scale);
  ResponseMap mq = ResponseMap::Constant(0.1), mv = ResponseMap::Constant(-0.2), dmq, dmv;
  const double math = median_ms(kRuns, [&] {
    double total = 0.0;
    for (int t = 0; t < settings.steps; ++t) total += feature_recovery_latent_backward(batch, mq, mv, dmq, dmv);
    sink = total;
  });
  const double full = median_ms(kRuns, [&] { sink = run_feature_recovery(settings).evaluation.heldout_mse; });
  std::printf("feature recovery, seed 0, %d steps × batch %d, median of %d runs (native):\n", settings.steps,
              settings.batch_size, kRuns);
  std::printf("  training (trainer.step(%d))          %8.2f ms  (%.2f ms CPU)\n", settings.steps, train, train_ms.cpu);
  std::printf("    of which drawing batches + teacher  %8.2f ms (%d normals per step)\n", sampling,
              settings.batch_size * kRecordCount * kLatentSize + settings.batch_size * kLatentSize);
  std::printf("    of which forward + backward         %8.2f ms\n", math);
  std::printf("  run_feature_recovery (train + eval)   %8.2f ms\n", full);
  std::printf("NATIVE_TRAIN_MS %.3f\n", train);
  std::printf("NATIVE_TRAIN_PATH %s\n", path_name);
  std::printf("NATIVE_TRAIN_CPU_MS %.3f\n", train_ms.cpu);
  return 0;
}
