#include "core/jacobi_svd.hpp"

#include "core/ordered_products.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace headlab {

namespace {

// Rows p and q of m become c·m_p − s·m_q and s·m_p + c·m_q.
void rotate_rows(Matrix& m, Eigen::Index p, Eigen::Index q, double c, double s) {
  for (Eigen::Index k = 0; k < m.cols(); ++k) {
    const double a = m(p, k), b = m(q, k);
    m(p, k) = c * a - s * b;
    m(q, k) = s * a + c * b;
  }
}

}  // namespace

Svd jacobi_svd(const Matrix& x) {
  const Eigen::Index n = x.rows(), m = x.cols();
  // Columns of X as rows, so that each rotation runs along contiguous memory.
  Matrix columns = x.transpose();
  Matrix v = Matrix::Identity(m, m);  // row i: column i of V
  const double eps = std::numeric_limits<double>::epsilon();
  for (int sweep = 0; sweep < kMaxJacobiSweeps; ++sweep) {
    bool rotated = false;
    for (Eigen::Index p = 0; p + 1 < m; ++p) {
      for (Eigen::Index q = p + 1; q < m; ++q) {
        const double alpha = ordered_dot(&columns(p, 0), &columns(p, 0), n);
        const double beta = ordered_dot(&columns(q, 0), &columns(q, 0), n);
        const double gamma = ordered_dot(&columns(p, 0), &columns(q, 0), n);
        if (gamma == 0.0 || std::abs(gamma) <= eps * std::sqrt(alpha) * std::sqrt(beta)) continue;
        rotated = true;
        // t = tan θ, the smaller root of t² + 2ζt − 1 = 0, zeroes the rotated pair's inner product.
        const double zeta = (beta - alpha) / (2.0 * gamma);
        const double t = std::abs(zeta) > 1e150
                             ? 0.5 / zeta
                             : (zeta >= 0.0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1.0 + zeta * zeta));
        const double c = 1.0 / std::sqrt(1.0 + t * t), s = c * t;
        rotate_rows(columns, p, q, c, s);
        rotate_rows(v, p, q, c, s);
      }
    }
    if (!rotated) break;
  }
  std::vector<double> sigma(static_cast<std::size_t>(m));
  for (Eigen::Index i = 0; i < m; ++i)
    sigma[static_cast<std::size_t>(i)] = std::sqrt(ordered_dot(&columns(i, 0), &columns(i, 0), n));
  std::vector<Eigen::Index> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return sigma[static_cast<std::size_t>(a)] > sigma[static_cast<std::size_t>(b)];
  });
  Svd out;
  out.singular_values.resize(m);
  out.u = Matrix::Zero(m, n);
  out.v.resize(m, m);
  for (Eigen::Index r = 0; r < m; ++r) {
    const Eigen::Index i = order[static_cast<std::size_t>(r)];
    const double s = sigma[static_cast<std::size_t>(i)];
    out.singular_values(r) = s;
    if (s > 0.0) out.u.row(r) = columns.row(i) / s;
    out.v.row(r) = v.row(i);
  }
  return out;
}

Svd factored_svd(const Matrix& a, const Matrix& b) {
  const Svd inner = jacobi_svd(b.transpose());  // Bᵀ (n × c): u rows = U_b columns, v rows = V_b columns
  // A V_b Σ_b (n × c): column j = σ_j A v_j.
  Matrix scaled = ordered_product_nt(a, inner.v);
  for (Eigen::Index j = 0; j < scaled.cols(); ++j) scaled.col(j) *= inner.singular_values(j);
  Svd outer = jacobi_svd(scaled);
  // Right singular vectors U_b W: row i = Σ_j W(j, i) u_b,j = (outer.v · inner.u) row i.
  outer.v = ordered_product(outer.v, inner.u);
  return outer;
}

}  // namespace headlab
