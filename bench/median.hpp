// The one timer of the native benchmarks (docs/conventions.md: "Benchmarks print medians of
// ≥ 5 runs"): the median wall time of `runs` calls of f, on the steady clock, and with it the
// median CPU time of the process (std::clock), which waits for a core on a shared machine do not
// count: the figure to hold against WASM's CPU time (bench/median.mjs, medianCpuMs) there.
#pragma once

#include <algorithm>
#include <chrono>
#include <ctime>
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

struct WallCpuMs {
  double wall, cpu;
};
/** Medians of `runs` (≥ 1) timings of f(), wall and CPU time, in milliseconds. */
template <class F>
WallCpuMs median_wall_cpu_ms(int runs, F&& f) {
  std::vector<double> wall, cpu;
  for (int r = 0; r < runs; ++r) {
    const std::clock_t cpu_start = std::clock();
    const auto start = std::chrono::steady_clock::now();
    f();
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    cpu.push_back(1e3 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

}  // namespace headlab::bench
