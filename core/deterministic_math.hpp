// exp and log from IEEE-754 basic operations only (+ − × ÷, frexp, ldexp, bit assembly).
//
// glibc (native) and musl (Emscripten) may round std::exp / std::log differently in the last
// bit. Code whose results must match bit-for-bit between the native and the WASM build — every
// exponential of the max-digit model and of the transformer, the normal sampler's wedge test —
// uses these instead. Each basic operation is correctly rounded on both targets and the core
// is built with -ffp-contract=off (no a·b + c fused into an FMA), so these functions return
// identical bits on both.
//
// One exponential: exp_nonpositive. The normal sampler's layer edges are stored as literals
// (core/ziggurat.hpp); its wedge test keeps, for the rare points the fast test leaves undecided,
// the series it has always used (core/random.cpp says why those bits stay).
#pragma once

#include <cstdint>
#include <cstring>

namespace headlab {

// e^x for x ≤ 0: Horner on the Taylor terms to r^14/14!, relative error < 4 ulp; 2^k assembled
// from the exponent bits (results below 2^−1022 round once, into the subnormal range).
// Returns 0 below −745. Used by every softmax of the max-digit model and the transformer. The
// reduction and polynomial do not depend on the sign of x, so it serves x > 0 as well (within
// 4 ulp up to 700, tests/core/deterministic_math_test.cpp): the sampler's wedge test passes
// arguments up to 0.74.
double exp_nonpositive(double x);

// ln(x) for finite x > 0; absolute error below 4 ulp of |ln x|.
double deterministic_log(double x);

// sin x and cos x for finite |x| ≤ 2^20 (the rotary angles: at most n_ctx − 1 rad). x = n·π/2 + r
// with n = round(2x/π) and r from a three-part π/2 (33 + 33 + 53 bits: n·pio2_1 and n·pio2_2 are
// exact for |n| < 2^20), |r| ≤ π/4 + ε; then the Taylor series of sin r and cos r to r^19 and r^18
// on r² (truncation below 1e-19 at π/4), and the quadrant n mod 4 picks ±sin r, ±cos r. Absolute
// error within 4 ulp of 1 (tests/core/deterministic_math_test.cpp).
void deterministic_sin_cos(double x, double& sine, double& cosine);

namespace exp_reduction {
// ln 2 split so that k·ln2_hi is exact for |k| < 2^11 (ln2_hi has 32 significant bits).
constexpr double ln2_hi = 6.93147180369123816490e-01;
constexpr double ln2_lo = 1.90821492927058770002e-10;
constexpr double inv_ln2 = 1.44269504088896338700e+00;
// 1.5·2^52: (y + round_shift) − round_shift rounds y to the nearest integer (|y| < 2^51).
constexpr double round_shift = 6755399441055744.0;

// 1/n! for n = 0…14, folded at compile time (IEEE double on every compiler): exp_nonpositive's
// Horner coefficients, shared with its two-lane twin in core/max_digit_kernels.cpp.
struct InverseFactorials {
  double c[15];
  constexpr InverseFactorials() : c{} {
    c[0] = 1.0;
    for (int n = 1; n < 15; ++n) c[n] = c[n - 1] / n;
  }
};
inline constexpr InverseFactorials kInverseFactorial{};
}  // namespace exp_reduction

// exp_nonpositive on W lanes at once (W = 2, 4, 8 or 16 doubles; GCC/clang vector extensions, lowered
// to SSE2/AVX natively and to simd128 in WASM), the same operations lane by lane, so each lane has
// exp_nonpositive's bits. 2^k is built from the bits of x/ln2 + 1.5·2^52, whose low bits hold k
// (the scalar code converts k to an integer; both give k exactly for |k| < 2^51). Only for
// −700 ≤ x ≤ 700 (no subnormal scale, no cut-off). Used by the max-digit kernels' softmax and the
// normal sampler's wedge test.
template <int W>
struct ExpLanes {
  typedef double f64 __attribute__((vector_size(8 * W)));
  typedef std::int64_t i64 __attribute__((vector_size(8 * W)));
};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // always inlined: no vector crosses a call boundary
// 2^k on every lane, where shifted = y + shift holds k = round(y) in its low bits (the shift trick,
// shift = 1.5·2^mantissa_bits): the difference of the two bit patterns as integers is k, moved into
// the exponent field with the exponent bias. F: a float or double vector, I: integers of its width.
template <class F, class I>
__attribute__((always_inline)) inline F power_of_two_from_shifted(F shifted, F shift, int bias, int mantissa_bits) {
  I shifted_bits, shift_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
  std::memcpy(&shift_bits, &shift, sizeof shift_bits);
  const I bits = (shifted_bits - shift_bits + bias) << mantissa_bits;
  F scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return scale;
}
template <int W>
__attribute__((always_inline)) inline typename ExpLanes<W>::f64 exp_nonpositive_lanes(typename ExpLanes<W>::f64 x) {
  using namespace exp_reduction;
  typedef typename ExpLanes<W>::f64 f64xW;
  typedef typename ExpLanes<W>::i64 i64xW;
  const f64xW shifted = x * inv_ln2 + round_shift;
  const f64xW k = shifted - round_shift;
  const f64xW r = (x - k * ln2_hi) - k * ln2_lo;
  f64xW p = r * kInverseFactorial.c[14] + kInverseFactorial.c[13];
  for (int n = 12; n >= 0; --n) p = p * r + kInverseFactorial.c[n];
  return p * power_of_two_from_shifted<f64xW, i64xW>(shifted, f64xW{} + round_shift, 1023, 52);
}
#pragma GCC diagnostic pop

// e^x for x ≤ 0 in single precision on N lanes (N floats; GCC/clang vector extensions), the same
// IEEE operations lane by lane on every target, so native and WASM give the same bits. Cody–Waite
// reduction x = k·ln2 + r with ln2_hi = 355/512 (9 significant bits, so k·ln2_hi and x − k·ln2_hi
// are exact for |k| ≤ 127), |r| ≤ ln2/2, then the Taylor terms to r^7/7! (truncation below
// 0.35^8/8! ≈ 5e-9, under a tenth of an ulp), relative error ≤ 2 ulp; 2^k assembled from the bits
// of x/ln2 + 1.5·2^23. Below −87 (e^−87 ≈ 1.6e-38, next to the smallest normal float) the result is
// 0, and −∞ gives 0. Used by the max-digit training step (core/max_digit_kernels.cpp).
template <int N>
struct ExpLanesF32 {
  typedef float f32 __attribute__((vector_size(4 * N)));
  typedef std::int32_t i32 __attribute__((vector_size(4 * N)));
};
constexpr float kExpF32Floor = -87.0f;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
template <int N>
__attribute__((always_inline)) inline typename ExpLanesF32<N>::f32 exp_nonpositive_f32_lanes(
    typename ExpLanesF32<N>::f32 x) {
  typedef typename ExpLanesF32<N>::f32 f32xN;
  typedef typename ExpLanesF32<N>::i32 i32xN;
  constexpr float ln2_hi = 0.693359375f, ln2_lo = -2.12194440e-4f, inv_ln2 = 1.44269504088896341f;
  constexpr float round_shift = 12582912.0f;  // 1.5·2^23
  const i32xN below = x < kExpF32Floor;
  const f32xN floor = f32xN{} + kExpF32Floor;
  const f32xN xc = below ? floor : x;
  const f32xN shifted = xc * inv_ln2 + round_shift;
  const f32xN k = shifted - round_shift;
  const f32xN r = (xc - k * ln2_hi) - k * ln2_lo;
  // 1/n! for n = 7 … 0, rounded to float
  f32xN p = r * (1.0f / 5040.0f) + (1.0f / 720.0f);
  p = p * r + (1.0f / 120.0f);
  p = p * r + (1.0f / 24.0f);
  p = p * r + (1.0f / 6.0f);
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const f32xN e = p * power_of_two_from_shifted<f32xN, i32xN>(shifted, f32xN{} + round_shift, 127, 23);
  return below ? f32xN{} : e;
}
#pragma GCC diagnostic pop

}  // namespace headlab
