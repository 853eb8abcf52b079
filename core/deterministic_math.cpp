#include "core/deterministic_math.hpp"

#include <cmath>

namespace headlab {
namespace {
// ln 2 split so that k·ln2_hi is exact for |k| < 2^11 (ln2_hi has 32 significant bits).
constexpr double ln2_hi = 6.93147180369123816490e-01;
constexpr double ln2_lo = 1.90821492927058770002e-10;
constexpr double inv_ln2 = 1.44269504088896338700e+00;
constexpr double sqrt_half = 0.70710678118654752440;
}  // namespace

double deterministic_exp(double x) {
  if (x > 709.0) return HUGE_VAL;
  if (x < -745.0) return 0.0;
  // x = k·ln2 + r with |r| ≤ ln2/2, so e^x = 2^k · e^r.
  const double k = std::floor(x * inv_ln2 + 0.5);
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  // Taylor series of e^r to r^17/17!: the next term is below 2^-60 for |r| ≤ 0.347.
  double term = 1.0, sum = 1.0;
  for (int n = 1; n <= 17; ++n) {
    term = term * r / n;
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(k));
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
