// The max-digit transformer natively: the default recipe (4,000 steps of 256 lists) and the
// full analysis (analysis.json), median of 7 runs each. Prints figures; not a test.
#include "core/max_digit_analysis.hpp"
#include "core/max_digit_training.hpp"

#include "bench/median.hpp"

#include <cstdio>

using namespace headlab::max_digit;

/** Median wall time of `runs` calls of f, in seconds. */
template <class F>
static double median_seconds(int runs, F&& f) {
  return headlab::bench::median_ms(runs, f) / 1000.0;
}

int main() {
  const int runs = 7;
  MaxDigitTrainingSettings settings;  // seed 0, the default recipe
  MaxDigitWeights weights;
  const double train = median_seconds(runs, [&] { weights = train_max_digit(settings); });
  double accuracy = 0;
  standard_evaluation_set();  // built once per process; timed separately below
  const double analysis = median_seconds(runs, [&] { accuracy = analyze_max_digit(weights).accuracy.accuracy; });
  const double one_eval = median_seconds(runs, [&] { readout_accuracy(weights, Readout{}); });
  std::printf("max-digit recipe (4000 steps × 256 lists), median of %d: %.3f s  (%.1f µs/step; target ≤ 0.3 s: %.2f× the target)\n",
              runs, train, 1e6 * train / settings.steps, train / 0.3);
  std::printf("max-digit full analysis (analysis.json), median of %d: %.3f s  (accuracy %.4f)\n", runs, analysis, accuracy);
  std::printf("one accuracy pass over the 111,110-list evaluation set (%zu multisets): %.2f ms\n",
              standard_evaluation_set().counts.size(), 1e3 * one_eval);
  std::printf("NATIVE_MAX_DIGIT_TRAIN_MS %.3f\n", 1e3 * train);
}
