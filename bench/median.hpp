// The one timer of the native benchmarks (docs/conventions.md: "Benchmarks print medians of
// ≥ 5 runs"): the median wall time of `runs` calls of f, on the steady clock.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace headlab::bench {

/** Median of `runs` (≥ 1) timings of f(), in milliseconds; the upper middle one for an even count. */
template <class F>
double median_ms(int runs, F&& f) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace headlab::bench
