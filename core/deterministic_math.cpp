#include "core/deterministic_math.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace headlab {
namespace {
using namespace exp_reduction;
constexpr double sqrt_half = 0.70710678118654752440;
}  // namespace

double exp_nonpositive(double x) {
  // Outside its domain (NaN, or x > 0 from a diverged model): NaN stays NaN and a large x gives +∞, before
  // k reaches the integer conversion and the exponent bits (undefined for NaN, wrong for k > 1023).
  if (std::isnan(x)) return x;
  if (x > 709.0) return HUGE_VAL;
  if (x < -745.0) return 0.0;
  const double k = (x * inv_ln2 + round_shift) - round_shift;
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  double p = kInverseFactorial.c[14];
  for (int n = 13; n >= 0; --n) p = p * r + kInverseFactorial.c[n];
  // 2^k straight from the exponent bits; below 2^−1021 scale by 2^(k+64), then by 2^−64 so that
  // only the last product rounds into the subnormal range.
  const auto ki = static_cast<std::int64_t>(k);
  const bool tiny = ki < -1021;
  const std::uint64_t bits = static_cast<std::uint64_t>(ki + (tiny ? 64 : 0) + 1023) << 52;
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return tiny ? (p * scale) * 0x1p-64 : p * scale;
}

namespace {
// 1/n! for n = 0 … 19, folded at compile time (IEEE double on every compiler).
struct InverseFactorials19 {
  double c[20];
  constexpr InverseFactorials19() : c{} {
    c[0] = 1.0;
    for (int n = 1; n < 20; ++n) c[n] = c[n - 1] / n;
  }
};
constexpr InverseFactorials19 kInverseFactorial19{};
}  // namespace

void deterministic_sin_cos(double x, double& sine, double& cosine) {
  // π/2 = pio2_1 + pio2_2 + pio2_3 (fdlibm's split: pio2_1, pio2_2 have 33 significant bits).
  constexpr double pio2_1 = 1.57079632673412561417e+00, pio2_2 = 6.07710050630396597660e-11,
                   pio2_3 = 2.02226624871116645580e-21, two_over_pi = 6.36619772367581382433e-01;
  const double n = (x * two_over_pi + round_shift) - round_shift;
  const double r = ((x - n * pio2_1) - n * pio2_2) - n * pio2_3;
  const double r2 = r * r;
  // sin r = r Σ (−r²)^k / (2k+1)!,  cos r = Σ (−r²)^k / (2k)!,  k = 0 … 9, Horner from k = 9.
  double s = 0.0, c = 0.0;
  for (int k = 9; k >= 0; --k) {
    const double sign = k % 2 ? -1.0 : 1.0;
    s = s * r2 + sign * kInverseFactorial19.c[2 * k + 1];
    c = c * r2 + sign * kInverseFactorial19.c[2 * k];
  }
  s *= r;
  const long long quadrant = static_cast<long long>(n) & 3;  // two's complement: −1 & 3 = 3
  sine = quadrant == 0 ? s : quadrant == 1 ? c : quadrant == 2 ? -s : -c;
  cosine = quadrant == 0 ? c : quadrant == 1 ? -s : quadrant == 2 ? -c : s;
}

double deterministic_log(double x) {
  if (!(x > 0.0) || !std::isfinite(x)) return std::nan("");
  int e = 0;
  double m = std::frexp(x, &e);  // x = m·2^e, m ∈ [0.5, 1)
  if (m < sqrt_half) {
    m *= 2.0;
    e -= 1;
  }  // m ∈ [√½, √2)
  // ln m = 2·atanh(t), t = (m − 1)/(m + 1), |t| ≤ 0.1716; terms up to t^27 reach below 2^-60.
  const double t = (m - 1.0) / (m + 1.0);
  const double t2 = t * t;
  double power = t, sum = 0.0;
  for (int n = 1; n <= 27; n += 2) {
    sum += power / n;
    power *= t2;
  }
  return 2.0 * sum + e * ln2_lo + e * ln2_hi;
}

}  // namespace headlab
