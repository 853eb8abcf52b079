#include "core/normalization.hpp"

#include "core/ordered_products.hpp"

#include <cmath>

namespace headlab::transformer {

Matrix layer_norm_forward(const Matrix& x, const Matrix& w, const Matrix& b, double eps, Vector& scale) {
  const Eigen::Index T = x.rows(), d = x.cols();
  Matrix y(T, d);
  scale.resize(T);
  for (Eigen::Index i = 0; i < T; ++i) {
    // Sums in one order on every target (core/ordered_products.hpp); sqrt is correctly rounded everywhere.
    const double mean = ordered_sum(x.data() + i * d, d) / static_cast<double>(d);
    y.row(i) = x.row(i).array() - mean;
    const double variance = ordered_dot(y.data() + i * d, y.data() + i * d, d) / static_cast<double>(d);
    scale(i) = std::sqrt(variance + eps);
    y.row(i) /= scale(i);
  }
  if (w.size() > 0) {
    y.array().rowwise() *= w.row(0).array();
    y.rowwise() += b.row(0);
  }
  return y;
}

Matrix layer_norm_backward(const Matrix& x, const Vector& scale, const Matrix& w, const Matrix& dy, Matrix& dw,
                           Matrix& db) {
  const Eigen::Index T = x.rows(), d = x.cols();
  Matrix dx(T, d);
  for (Eigen::Index i = 0; i < T; ++i) {
    // x̂ = (x − μ)/σ;  y = x̂ ⊙ w + b.  dx̂ = dy ⊙ w;  dx = (dx̂ − mean(dx̂) − x̂·mean(dx̂ ⊙ x̂)) / σ.
    const RowVector centred = (x.row(i).array() - ordered_sum(x.data() + i * d, d) / static_cast<double>(d)).matrix();
    const RowVector xhat = centred / scale(i);
    RowVector dxhat = dy.row(i);
    if (w.size() > 0) {
      dw.row(0).array() += dy.row(i).array() * xhat.array();
      db.row(0) += dy.row(i);
      dxhat.array() *= w.row(0).array();
    }
    const double mean_dxhat = ordered_sum(dxhat.data(), d) / static_cast<double>(d);
    const double mean_dxhat_xhat = ordered_dot(dxhat.data(), xhat.data(), d) / static_cast<double>(d);
    dx.row(i) = ((dxhat.array() - mean_dxhat) - xhat.array() * mean_dxhat_xhat) / scale(i);
  }
  return dx;
}

Matrix rms_norm_forward(const Matrix& x, const Matrix& w, double eps, Vector& scale) {
  const Eigen::Index T = x.rows(), d = x.cols();
  Matrix y(T, d);
  scale.resize(T);
  for (Eigen::Index i = 0; i < T; ++i) {
    // σ = √(mean(x²) + ε) (TransformerLens RMSNorm: x.pow(2).mean(-1) + eps, sqrt), x̂ = x / σ.
    const double mean_square = ordered_dot(x.data() + i * d, x.data() + i * d, d) / static_cast<double>(d);
    scale(i) = std::sqrt(mean_square + eps);
    y.row(i) = x.row(i) / scale(i);
  }
  if (w.size() > 0) y.array().rowwise() *= w.row(0).array();
  return y;
}

Matrix rms_norm_backward(const Matrix& x, const Vector& scale, const Matrix& w, const Matrix& dy, Matrix& dw) {
  const Eigen::Index T = x.rows(), d = x.cols();
  Matrix dx(T, d);
  for (Eigen::Index i = 0; i < T; ++i) {
    // x̂ = x/σ, σ² = mean(x²) + ε:  dσ/dx = x̂/d,  so dx = (dx̂ − x̂·mean(dx̂ ⊙ x̂)) / σ with dx̂ = dy ⊙ w.
    const RowVector xhat = x.row(i) / scale(i);
    RowVector dxhat = dy.row(i);
    if (w.size() > 0) {
      dw.row(0).array() += dy.row(i).array() * xhat.array();
      dxhat.array() *= w.row(0).array();
    }
    const double mean_dxhat_xhat = ordered_dot(dxhat.data(), xhat.data(), d) / static_cast<double>(d);
    dx.row(i) = (dxhat.array() - xhat.array() * mean_dxhat_xhat) / scale(i);
  }
  return dx;
}

bool normalizes(const TransformerConfig& c) { return c.normalization != Normalization::none; }

bool centres(const TransformerConfig& c) {
  return c.normalization == Normalization::layer_norm || c.normalization == Normalization::layer_norm_pre;
}

Matrix normalize(const TransformerConfig& c, const Matrix& x, const Matrix& w, const Matrix& b, Vector& scale) {
  if (!normalizes(c)) return x;
  if (centres(c)) return layer_norm_forward(x, w, b, c.layer_norm_eps, scale);
  return rms_norm_forward(x, w, c.layer_norm_eps, scale);
}

Matrix normalize_backward(const TransformerConfig& c, const Matrix& x, const Vector& scale, const Matrix& w,
                          const Matrix& dy, Matrix& dw, Matrix& db) {
  if (!normalizes(c)) return dy;
  if (centres(c)) return layer_norm_backward(x, scale, w, dy, dw, db);
  return rms_norm_backward(x, scale, w, dy, dw);
}

}  // namespace headlab::transformer
