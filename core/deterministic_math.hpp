// exp and log from IEEE-754 basic operations only (+ − × ÷, frexp, ldexp, bit assembly).
//
// glibc (native) and musl (Emscripten) may round std::exp / std::log differently in the last
// bit. Code whose results must match bit-for-bit between the native and the WASM build — the
// normal sampler's tables and accept/reject tests, every exponential of the max-digit model —
// uses these instead. Each basic operation is correctly rounded on both targets and the core
// is built with -ffp-contract=off (no a·b + c fused into an FMA), so these functions return
// identical bits on both.
//
// Why two exponentials: both reduce x = k·ln2 + r, |r| ≤ ln2/2, and sum the Taylor series of
// e^r, but in different orders (deterministic_exp adds the terms r^n/n! forward, exp_nonpositive
// evaluates the series by Horner's rule), so their results differ in the last bit for about
// 60% of arguments and in 121 of the sampler's 127 ziggurat layers. The random generator's
// tables use the first, the max-digit model the second; folding one into the other would change
// every shipped weight and figure, whose bits are the contract (tests/core/max_digit_kernels_test.cpp).
#pragma once

#include <cstdint>
#include <cstring>

namespace headlab {

// e^x for finite x; relative error below 4 ulp on [−700, 700]. Underflows to 0 below ≈ −745.
// Series summed forward to r^17/17!. Used by the normal sampler (core/random.cpp).
double deterministic_exp(double x);

// e^x for x ≤ 0: Horner on the Taylor terms to r^14/14!, relative error < 4 ulp; 2^k assembled
// from the exponent bits (results below 2^−1022 round once, into the subnormal range).
// Returns 0 below −745. Used by every softmax of the max-digit model.
double exp_nonpositive(double x);

// ln(x) for finite x > 0; absolute error below 4 ulp of |ln x|.
double deterministic_log(double x);

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

// exp_nonpositive on W lanes at once (W = 2, 4 or 8 doubles; GCC/clang vector extensions, lowered
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
  i64xW shifted_bits, shift_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
  const f64xW shift = f64xW{} + round_shift;
  std::memcpy(&shift_bits, &shift, sizeof shift_bits);
  const i64xW bits = (shifted_bits - shift_bits + 1023) << 52;
  f64xW scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}
#pragma GCC diagnostic pop

}  // namespace headlab
