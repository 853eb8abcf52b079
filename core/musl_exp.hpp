// e^x with the arithmetic of musl's exp (Arm optimized-routines, 2018: a 2^(k/128) table and a
// degree-5 polynomial, error 0.511 ulp without FMA), which is the WASM build's std::exp, here on two
// lanes at once (core/lanes.hpp). Each lane does exp()'s operations in its order, and -ffp-contract=off
// fuses none (WASM has no FMA), so each lane returns musl's std::exp bits: the feature-recovery softmax
// in WASM keeps its results and computes two exponentials per vector instead of two calls.
// |x| < 2^-54 gives 1 + x, as exp() does; a pair with an argument of magnitude ≥ 512 (or ±inf, NaN)
// goes to std::exp itself, whose special cases (overflow, subnormal results) are not reproduced here.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#include <immintrin.h>
#endif

namespace headlab {
namespace musl_exp {

constexpr int kTableBits = 7;
constexpr int kN = 1 << kTableBits;
constexpr double kInvLn2N = 0x1.71547652b82fep0 * kN;  // N/ln2
constexpr double kNegLn2HiN = -0x1.62e42fefa0000p-8;   // −ln2/N, high part
constexpr double kNegLn2LoN = -0x1.cf79abc9e3b3ap-47;  // −ln2/N, low part
constexpr double kShift = 0x1.8p52;                    // rounds z to an integer in the low bits
constexpr double kC2 = 0x1.ffffffffffdbdp-2, kC3 = 0x1.555555555543cp-3;
constexpr double kC4 = 0x1.55555cf172b91p-5, kC5 = 0x1.1111167a4d017p-7;
// Biased exponent bits (x >> 52 & 0x7ff) of 2^-54 and 512: exp()'s fast path is [kTopLow, kTopHigh), below it 1 + x.
constexpr std::uint64_t kTopLow = 0x3c9, kTopHigh = 0x408;
// tail and scale bits of 2^(i/N), i = 0 … N − 1: tab[2i] the tail, tab[2i + 1] the scale (exp_data.c).
extern const std::uint64_t kTable[2 * kN];

}  // namespace musl_exp

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // always inlined: no vector crosses a call boundary
typedef double MuslExpF64x2 __attribute__((vector_size(16)));
typedef std::uint64_t MuslExpU64x2 __attribute__((vector_size(16)));

__attribute__((always_inline)) inline MuslExpF64x2 musl_exp_lanes(MuslExpF64x2 x) {
  using namespace musl_exp;
  MuslExpU64x2 xbits;
  std::memcpy(&xbits, &x, sizeof xbits);
  const MuslExpU64x2 top = (xbits >> 52) & 0x7ff;
  if (top[0] >= kTopHigh || top[1] >= kTopHigh) return MuslExpF64x2{std::exp(x[0]), std::exp(x[1])};
  // x = k·ln2/N + r, |r| ≤ ln2/(2N); e^x = 2^(k/N)·e^r ≈ scale·(1 + tail + e^r − 1).
  const MuslExpF64x2 z = kInvLn2N * x;
  MuslExpF64x2 kd = z + kShift;
  MuslExpU64x2 ki;
  std::memcpy(&ki, &kd, sizeof ki);
  kd -= kShift;
  const MuslExpF64x2 r = x + kd * kNegLn2HiN + kd * kNegLn2LoN;
  const MuslExpU64x2 index = (ki % kN) * 2;
  const MuslExpU64x2 exponent = ki << (52 - kTableBits);
  const MuslExpU64x2 tail_bits = {kTable[index[0]], kTable[index[1]]};
  const MuslExpU64x2 scale_bits = MuslExpU64x2{kTable[index[0] + 1], kTable[index[1] + 1]} + exponent;
  MuslExpF64x2 tail, scale;
  std::memcpy(&tail, &tail_bits, sizeof tail);
  std::memcpy(&scale, &scale_bits, sizeof scale);
  const MuslExpF64x2 r2 = r * r;
  const MuslExpF64x2 tmp = tail + r + r2 * (kC2 + r * kC3) + r2 * r2 * (kC4 + r * kC5);
  // |x| < 2^-54 (0 among them: the softmax's largest score): exp() returns 1 + x.
  return top < kTopLow ? 1.0 + x : scale + scale * tmp;
}

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
// The same arithmetic with the five fused multiply-adds that GCC contracts when glibc builds its
// x86-64 FMA variant of exp (__exp_fma, sysdeps/ieee754/dbl-64/e_exp.c compiled with -mfma -mavx2,
// which glibc's std::exp runs on CPUs with FMA and AVX2; its disassembly, glibc 2.36):
//   kd = fma(x, N/ln2, shift);   r = fma(kd, −ln2lo/N, fma(kd, −ln2hi/N, x));
//   tmp = fma(r²·r², fma(r, C5, C4), fma(fma(r, C3, C2), r², r + tail));   e^x = fma(scale, tmp, scale).
// On such a CPU each lane returns glibc's std::exp bits (core/lanes.cpp checks that on probe
// arguments before the feature-recovery softmax uses it; tests/core/musl_exp_test.cpp on millions).
// Inlined only into functions compiled for "avx2,fma".
// fma(a, b, c) = a·b + c rounded once, on both lanes (vfmadd).
__attribute__((target("avx2,fma"), always_inline)) inline MuslExpF64x2 fma_lanes(MuslExpF64x2 a, MuslExpF64x2 b,
                                                                                 MuslExpF64x2 c) {
  return reinterpret_cast<MuslExpF64x2>(
      _mm_fmadd_pd(reinterpret_cast<__m128d>(a), reinterpret_cast<__m128d>(b), reinterpret_cast<__m128d>(c)));
}
__attribute__((target("avx2,fma"), always_inline)) inline MuslExpF64x2 glibc_fma_exp_lanes(MuslExpF64x2 x) {
  using namespace musl_exp;
  typedef MuslExpF64x2 F;
  MuslExpU64x2 xbits;
  std::memcpy(&xbits, &x, sizeof xbits);
  const MuslExpU64x2 top = (xbits >> 52) & 0x7ff;
  if (top[0] >= kTopHigh || top[1] >= kTopHigh) return F{std::exp(x[0]), std::exp(x[1])};
  F kd = fma_lanes(x, F{} + kInvLn2N, F{} + kShift);
  MuslExpU64x2 ki;
  std::memcpy(&ki, &kd, sizeof ki);
  kd -= kShift;
  const F r = fma_lanes(kd, F{} + kNegLn2LoN, fma_lanes(kd, F{} + kNegLn2HiN, x));
  const MuslExpU64x2 index = (ki % kN) * 2;
  const MuslExpU64x2 exponent = ki << (52 - kTableBits);
  const MuslExpU64x2 tail_bits = {kTable[index[0]], kTable[index[1]]};
  const MuslExpU64x2 scale_bits = MuslExpU64x2{kTable[index[0] + 1], kTable[index[1] + 1]} + exponent;
  F tail, scale;
  std::memcpy(&tail, &tail_bits, sizeof tail);
  std::memcpy(&scale, &scale_bits, sizeof scale);
  const F r2 = r * r;
  const F low = fma_lanes(fma_lanes(r, F{} + kC3, F{} + kC2), r2, r + tail);
  const F tmp = fma_lanes(r2 * r2, fma_lanes(r, F{} + kC5, F{} + kC4), low);
  return top < kTopLow ? 1.0 + x : fma_lanes(scale, tmp, scale);
}
#endif
#pragma GCC diagnostic pop

}  // namespace headlab
