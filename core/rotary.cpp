#include "core/rotary.hpp"

#include "core/deterministic_math.hpp"

namespace headlab::transformer {

double rotary_angle(const TransformerConfig& c, int pair, long long position) {
  // ω_k = base^(−2k/R) = e^{−(2k/R)·ln base}: the exponent is ≤ 0, exp_nonpositive's domain.
  const double exponent = -(2.0 * pair / c.rotary_dim) * deterministic_log(c.rotary_base);
  return static_cast<double>(position) * exp_nonpositive(exponent);
}

void apply_rotary(const TransformerConfig& c, double* x, long long position, bool inverse) {
  const int half = c.rotary_dim / 2;
  for (int k = 0; k < half; ++k) {
    double s, co;
    deterministic_sin_cos(rotary_angle(c, k, position), s, co);
    if (inverse) s = -s;
    // The pair's two components: (k, k + R/2) half split, (2k, 2k + 1) adjacent.
    double& a = x[c.rotary_adjacent_pairs ? 2 * k : k];
    double& b = x[c.rotary_adjacent_pairs ? 2 * k + 1 : k + half];
    const double a0 = a, b0 = b;
    a = a0 * co - b0 * s;
    b = b0 * co + a0 * s;
  }
}

void rotate_rows(const TransformerConfig& c, Matrix& x, long long first_position, bool inverse) {
  for (Eigen::Index r = 0; r < x.rows(); ++r) apply_rotary(c, x.row(r).data(), first_position + r, inverse);
}

}  // namespace headlab::transformer
