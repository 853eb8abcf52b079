#include "core/projection_edit.hpp"

#include "core/check.hpp"
#include "core/softmax.hpp"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headlab {

Matrix swap_projection_coordinates(const Matrix& w, int a, int b) {
  require_usable("projection", w);
  require_index("coordinate a", a, w.cols());
  require_index("coordinate b", b, w.cols());
  Matrix out = w;
  out.col(a).swap(out.col(b));
  return out;
}

RotatedQueryKey rotate_query_key(const Matrix& q, const Matrix& k, const Matrix& rotation,
                                 double orthogonality_tolerance) {
  require_usable("q", q);
  require_usable("k", k);
  require_usable("rotation", rotation);
  if (q.cols() != k.cols()) {
    throw InputError("q (" + shape_of(q) + ") and k (" + shape_of(k) + ") must have the same width d_k");
  }
  require_shape("rotation", rotation, q.cols(), q.cols());
  const double defect =
      (rotation.transpose() * rotation - Matrix::Identity(rotation.rows(), rotation.cols())).cwiseAbs().maxCoeff();
  if (!(defect <= orthogonality_tolerance)) {
    throw InputError("rotation (" + shape_of(rotation) + ") is not orthogonal: max |RᵀR − I| = " +
                     std::to_string(defect) + " exceeds " + std::to_string(orthogonality_tolerance));
  }
  return {q * rotation, k * rotation};
}

Matrix plane_rotation(int d, int a, int b, double angle) {
  if (d <= 0) throw InputError("rotation size d = " + std::to_string(d) + " must be positive");
  require_index("coordinate a", a, d);
  require_index("coordinate b", b, d);
  if (a == b) throw InputError("a plane rotation needs two different coordinates, got a = b = " + std::to_string(a));
  if (!std::isfinite(angle)) throw InputError("rotation angle must be finite");
  Matrix r = Matrix::Identity(d, d);
  const double c = std::cos(angle), s = std::sin(angle);
  r(a, a) = c;
  r(a, b) = s;
  r(b, a) = -s;
  r(b, b) = c;
  return r;
}

namespace {

std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// Angle between two rows in [0, π]; 0 when either is the zero vector (no direction).
double row_angle(const RowVector& a, const RowVector& b) {
  const double na = a.norm(), nb = b.norm();
  if (na == 0.0 || nb == 0.0) return 0.0;
  return std::acos(std::clamp(a.dot(b) / (na * nb), -1.0, 1.0));
}

}  // namespace

ChangedBasis change_query_key_basis(const Matrix& q, const Matrix& k, const Matrix& a, double max_condition) {
  require_usable("q", q);
  require_usable("k", k);
  require_usable("A", a);
  if (q.cols() != k.cols()) {
    throw InputError("q (" + shape_of(q) + ") and k (" + shape_of(k) + ") must have the same width d_k");
  }
  require_shape("A", a, q.cols(), q.cols());
  const Eigen::JacobiSVD<Matrix> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const auto& sigma = svd.singularValues();
  const double largest = sigma(0), smallest = sigma(sigma.size() - 1);
  if (!(smallest > 0.0)) {
    throw InputError(
        "A (" + shape_of(a) +
        ") is singular (its smallest singular value is 0): it has no inverse, so K′ = K A⁻ᵀ does not exist");
  }
  const double condition = largest / smallest;
  if (!(condition <= max_condition)) {
    throw InputError("A (" + shape_of(a) + ") is too close to singular: condition number " + short_number(condition) +
                     " exceeds " + short_number(max_condition) +
                     ", so the scores could not be kept to the last digits");
  }
  // A^{−T} from the SVD A = U Σ Vᵀ: A^{−T} = U Σ^{−1} Vᵀ.
  const Matrix inverse_transpose = svd.matrixU() * sigma.cwiseInverse().asDiagonal() * svd.matrixV().transpose();
  ChangedBasis out{q * a, k * inverse_transpose, inverse_transpose, condition};
  if (!out.q.allFinite() || !out.k.allFinite()) {
    throw InputError("Q A or K A⁻ᵀ overflowed to a non-finite value: q, k and A are too large in magnitude");
  }
  return out;
}

QueryKeyPicture query_key_picture(const Matrix& q, const Matrix& k, const Matrix& v, double score_scale) {
  require_usable("q", q);
  require_usable("k", k);
  require_usable("v", v);
  if (q.cols() != k.cols()) {
    throw InputError("q (" + shape_of(q) + ") and k (" + shape_of(k) + ") must have the same width d_k");
  }
  if (v.rows() != k.rows()) {
    throw InputError("v (" + shape_of(v) + ") must have one row per key, " + std::to_string(k.rows()));
  }
  if (!std::isfinite(score_scale) || score_scale < 0.0) {
    throw InputError("score scale must be a finite number ≥ 0, got " + short_number(score_scale));
  }
  QueryKeyPicture p;
  p.dot_products.noalias() = q * k.transpose();
  p.scores = score_scale * p.dot_products;
  if (!p.scores.allFinite()) {
    throw InputError("scores overflowed to a non-finite value: q, k and the score scale are too large in magnitude");
  }
  p.weights = softmax_rows(p.scores);
  p.reading.noalias() = p.weights * v;
  if (!p.reading.allFinite()) throw InputError("the reading overflowed: v is too large in magnitude");
  p.query_lengths = q.rowwise().norm().transpose();
  p.key_lengths = k.rowwise().norm().transpose();
  p.query_key_angles.resize(q.rows(), k.rows());
  p.query_angles.resize(q.rows(), q.rows());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    for (Eigen::Index j = 0; j < k.rows(); ++j) p.query_key_angles(i, j) = row_angle(q.row(i), k.row(j));
    for (Eigen::Index j = 0; j < q.rows(); ++j) p.query_angles(i, j) = row_angle(q.row(i), q.row(j));
  }
  return p;
}

}  // namespace headlab
