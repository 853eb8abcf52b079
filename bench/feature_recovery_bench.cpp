// Wall time of the full feature-recovery training (draft settings, 1,200 steps)
// and of its parts: drawing the batches alone, and the math alone on one batch.
// Prints medians of 7 runs. Not a test.
#include "core/feature_recovery_experiment.hpp"

#include "bench/median.hpp"

#include <cstdio>
#include <vector>

using headlab::bench::median_ms;

namespace {

volatile double sink;

}  // namespace

int main() {
  using namespace headlab;
  constexpr int kRuns = 7;
  FeatureRecoverySettings settings;  // seed 0, 1,200 steps, batch 128
  const headlab::bench::WallCpuMs train_ms = headlab::bench::median_wall_cpu_ms(kRuns, [&] {
    FeatureRecoveryTrainer trainer(settings);
    trainer.step(settings.steps);
    sink = trainer.loss_trace().back();
  });
  const double train = train_ms.wall;
  const double sampling = median_ms(kRuns, [&] {
    Random rng = Random(settings.seed).stream(kBatchStream);
    FeatureRecoveryBatch batch;
    for (int t = 0; t < settings.steps; ++t) sample_feature_recovery_batch(rng, settings.batch_size, settings.request_scale, batch);
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
  std::printf("NATIVE_TRAIN_CPU_MS %.3f\n", train_ms.cpu);
  return 0;
}
