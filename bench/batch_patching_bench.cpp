// Patching over a batch with intervals on the shipped induction model (site/pages/data/
// induction-seed0: 2 layers × 4 heads, prompts of 23 tokens): N = 64 induction pairs (seed 0),
// B = K = 1000 resamples and permutations (the defaults). Activation patching (core/batch_patching.hpp:
// 8 heads × 23 positions, 2 layers × 23 residual positions, 8 heads × q, k, v, z, each with its
// interval and p-value) and path patching (core/path_patching.hpp: 16 edges × q, k, v). The same
// model and request as bench/batch-patching.bench.mjs (WASM). Prints medians of 5 runs (native). Not a test.
#include "core/batch_patching.hpp"
#include "core/induction_task.hpp"
#include "core/path_patching.hpp"
#include "formats/file_io.hpp"
#include "formats/safetensors.hpp"
#include "formats/transformer_model.hpp"

#include "bench/median.hpp"

#include <cstdio>
#include <string>

namespace {

volatile double sink;

}  // namespace

int main() {
  namespace fm = headlab::formats;
  using namespace headlab::transformer;
  const std::string stem = std::string(HEADLAB_SOURCE_DIR) + "/site/pages/data/induction-seed0";
  const auto config = fm::transformer_config_from_json(fm::read_text_file(stem + ".json", "model", 1 << 20));
  const std::string bytes = fm::read_text_file(stem + ".safetensors", "weights", 1 << 26);
  const TransformerWeights w = fm::transformer_weights_from_safetensors(
      config, fm::read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  const auto pairs = induction_pairs(w.config, 0, 64);
  const IntervalSettings settings;  // B = K = 1000, seed 0
  constexpr int kRuns = 5;
  const auto batch = headlab::bench::median_wall_cpu_ms(
      kRuns, [&] { sink = batch_patching(w, pairs, settings).head_position.mean(0, 0); });
  const auto path =
      headlab::bench::median_wall_cpu_ms(kRuns, [&] { sink = path_patching(w, pairs, settings).grid.mean(0, 0); });
  std::printf(
      "patching over a batch, shipped induction model (2 × 4 heads, 23 tokens), N = 64, B = K = 1000, "
      "median of %d (native):\n",
      kRuns);
  std::printf("  %-58s %8.1f ms (%.1f ms CPU)\n", "activation patching with intervals (every grid)", batch.wall,
              batch.cpu);
  std::printf("  %-58s %8.1f ms (%.1f ms CPU)\n", "path patching with intervals (16 edges × q, k, v)", path.wall,
              path.cpu);
  std::printf("NATIVE_BATCH_PATCHING_N64_MS %.3f\n", batch.wall);
  std::printf("NATIVE_PATH_PATCHING_N64_MS %.3f\n", path.wall);
  return 0;
}
