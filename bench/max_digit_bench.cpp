// The max-digit transformer natively: the default recipe (4,000 steps of 256 lists) at each vector
// width of the training step (SSE2, AVX2, AVX-512; a width this CPU lacks is skipped with a note),
// the trainer's default (the widest) as the headline, and the full analysis (analysis.json),
// median of 7 runs each. `--vectors sse2|avx2|avx512` times that width alone as the headline.
// Prints figures; not a test.
#include "core/max_digit_analysis.hpp"
#include "core/max_digit_training.hpp"

#include "bench/median.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace headlab::max_digit;

namespace {

/** Median wall time of `runs` calls of f, in seconds. */
template <class F>
double median_seconds(int runs, F&& f) {
  return headlab::bench::median_ms(runs, f) / 1000.0;
}

struct Width {
  const char* name;  // as --vectors spells it
  const char* tag;   // suffix of its NATIVE_MAX_DIGIT_TRAIN_MS_ line
  StepVectors vectors;
};
// The portable step is SSE2 on x86-64 (its baseline), the widths' order narrowest first.
const Width kWidths[] = {{"sse2", "SSE2", StepVectors::portable},
                         {"avx2", "AVX2", StepVectors::avx2},
                         {"avx512", "AVX512", StepVectors::avx512}};

}  // namespace

int main(int argc, char** argv) {
  const int runs = 7;
  std::vector<Width> widths;
  for (int i = 1; i < argc; ++i) {
    const Width* chosen = nullptr;
    if (std::strcmp(argv[i], "--vectors") == 0 && i + 1 < argc) {
      ++i;
      for (const Width& w : kWidths)
        if (std::strcmp(argv[i], w.name) == 0) chosen = &w;
    }
    if (!chosen) {
      std::fprintf(stderr, "usage: %s [--vectors sse2|avx2|avx512]\n", argv[0]);
      return 2;
    }
    widths.push_back(*chosen);
  }
  const bool one_width = !widths.empty();
  if (!one_width) widths.assign(std::begin(kWidths), std::end(kWidths));

  MaxDigitTrainingSettings settings;  // seed 0, the default recipe
  MaxDigitWeights weights;
  const StepVectors widest = step_vectors_in_use();
  double headline = 0, headline_cpu = 0;
  const char* headline_name = nullptr;
  for (const Width& w : widths) {
    if (!step_vectors_available(w.vectors)) {
      std::printf("max-digit recipe, %s: skipped, this CPU lacks %s\n", w.name, w.name);
      continue;
    }
    use_step_vectors(w.vectors);
    const headlab::bench::WallCpuMs ms =
        headlab::bench::median_wall_cpu_ms(runs, [&] { weights = train_max_digit(settings); });
    const double train = ms.wall / 1000.0;
    std::printf("max-digit recipe, %s vectors, median of %d: %.3f s wall, %.3f s CPU  (%.1f µs/step)\n", w.name, runs,
                train, ms.cpu / 1000.0, 1e6 * train / settings.steps);
    std::printf("NATIVE_MAX_DIGIT_TRAIN_MS_%s %.3f\n", w.tag, ms.wall);
    std::printf("NATIVE_MAX_DIGIT_TRAIN_CPU_MS_%s %.3f\n", w.tag, ms.cpu);
    if (one_width || w.vectors == widest) headline = train, headline_cpu = ms.cpu, headline_name = w.name;
  }
  if (!headline_name) return 1;  // --vectors named a width this CPU lacks (noted above)
  use_step_vectors(widest);
  double accuracy = 0;
  standard_evaluation_set();  // built once per process; timed separately below
  const double analysis = median_seconds(runs, [&] { accuracy = analyze_max_digit(weights).accuracy.accuracy; });
  const double one_eval = median_seconds(runs, [&] { readout_accuracy(weights, Readout{}); });
  std::printf(
      "max-digit recipe (4000 steps × 256 lists, %s vectors%s), median of %d: %.3f s  (%.1f µs/step; target ≤ 0.3 s: %.2f× the target)\n",
      headline_name, one_width ? "" : ", the trainer's default", runs, headline, 1e6 * headline / settings.steps,
      headline / 0.3);
  std::printf("max-digit full analysis (analysis.json), median of %d: %.3f s  (accuracy %.4f)\n", runs, analysis,
              accuracy);
  std::printf("one accuracy pass over the 111,110-list evaluation set (%zu multisets): %.2f ms\n",
              standard_evaluation_set().counts.size(), 1e3 * one_eval);
  std::printf("NATIVE_MAX_DIGIT_TRAIN_MS %.3f\n", 1e3 * headline);
  std::printf("NATIVE_MAX_DIGIT_TRAIN_CPU_MS %.3f\n", headline_cpu);
}
