// Two examples at once: a vector of two doubles (GCC/clang vector extensions, SSE2 natively,
// simd128 in WASM) whose lanes hold the same quantity of two examples. Each lane of an operation
// is one IEEE operation and -ffp-contract=off fuses none, so code written once for T = double and
// T = Lanes2 gives each lane the one-example bits when it does the same operations in the same
// order. Used by the feature-recovery teacher and gradient (core/feature_recovery_*.cpp).
#pragma once

#include "core/musl_exp.hpp"

#include <cmath>

namespace headlab {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // inlined: no vector crosses a call boundary
typedef double Lanes2 __attribute__((vector_size(16)));

inline Lanes2 lanes(double first, double second) { return Lanes2{first, second}; }
inline double lane_exp(double x) { return std::exp(x); }
#if defined(__EMSCRIPTEN__)
// std::exp is musl's there: its arithmetic on both lanes at once (core/musl_exp.hpp), musl's bits.
inline Lanes2 lane_exp(Lanes2 x) { return musl_exp_lanes(x); }
#else
// glibc's std::exp (its FMA variant rounds differently from musl's arithmetic in ~0.06% of
// arguments), lane by lane: the native build keeps its own bits (FmaLaneExp below: the same bits inlined).
inline Lanes2 lane_exp(Lanes2 x) { return Lanes2{std::exp(x[0]), std::exp(x[1])}; }
#endif
// The exponential of lane_softmax, as a parameter: `PortableLaneExp` is lane_exp above (std::exp's
// bits); natively on a CPU whose glibc runs its FMA variant of exp, `FmaLaneExp` gives the same bits
// from that arithmetic inlined two lanes at a time (core/musl_exp.hpp), in code compiled for
// "avx2,fma" only. Which one the feature-recovery teacher and gradient use: SoftmaxExp below.
struct PortableLaneExp {
  double operator()(double x) const { return std::exp(x); }
  Lanes2 operator()(Lanes2 x) const { return lane_exp(x); }
};
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#define HEADLAB_FMA_LANE_EXP 1
struct FmaLaneExp {
  double operator()(double x) const { return std::exp(x); }
  // Not always_inline: callers compiled for "avx2,fma" inline it (flatten), others could not.
  __attribute__((target("avx2,fma"))) Lanes2 operator()(Lanes2 x) const { return glibc_fma_exp_lanes(x); }
};
#endif

// `portable`: PortableLaneExp (every build). `avx2_fma`: FmaLaneExp, available natively when the CPU
// has FMA and AVX2 (glibc's condition for its FMA exp) and FmaLaneExp reproduces this process's
// std::exp on probe arguments where the FMA and the plain arithmetic round differently; the one in
// use when available. Both give std::exp's bits: the choice changes speed only (tests hold them equal).
enum class SoftmaxExp { portable, avx2_fma };
bool softmax_exp_available(SoftmaxExp exp);
// Process-wide, for benchmarks and tests; throws InputError when not available.
void use_softmax_exp(SoftmaxExp exp);
SoftmaxExp softmax_exp_in_use();

inline double lane_max(double top, double s) { return s > top ? s : top; }
inline Lanes2 lane_max(Lanes2 top, Lanes2 s) { return s > top ? s : top; }

// core/softmax.hpp's softmax (std::exp) lane by lane: the maximum, the shifted exponentials
// summed in index order, each divided by the sum; the same bits as softmax() in every lane.
template <class T, class Exp = PortableLaneExp>
__attribute__((always_inline)) inline void lane_softmax(const T* scores, T* weights, int n, Exp exp = {}) {
  T top = scores[0];
  for (int i = 1; i < n; ++i) top = lane_max(top, scores[i]);
  T total = {};
  for (int i = 0; i < n; ++i) {
    weights[i] = exp(scores[i] - top);
    total += weights[i];
  }
  for (int i = 0; i < n; ++i) weights[i] /= total;
}
#pragma GCC diagnostic pop

}  // namespace headlab
