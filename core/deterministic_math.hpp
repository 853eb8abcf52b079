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

}  // namespace headlab
