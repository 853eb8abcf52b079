#include "core/projection_edit.hpp"

#include "core/check.hpp"

#include <cmath>

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

}  // namespace headlab
