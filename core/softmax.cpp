#include "core/softmax.hpp"

#include "core/check.hpp"

#include <cmath>
#include <limits>

namespace headlab {
namespace {

// Finite or −inf entries, and at least one finite one.
void require_softmax_row(const Matrix& scores, Eigen::Index i) {
  bool has_finite = false;
  for (Eigen::Index j = 0; j < scores.cols(); ++j) {
    const double s = scores(i, j);
    if (std::isnan(s) || s == std::numeric_limits<double>::infinity()) {
      throw InputError("scores row " + std::to_string(i) + " has entry " + std::to_string(s) + " at column " +
                       std::to_string(j) + "; only finite values or -inf (masked) are allowed");
    }
    has_finite = has_finite || std::isfinite(s);
  }
  if (!has_finite) {
    throw InputError("scores row " + std::to_string(i) + " is masked everywhere; softmax needs one finite entry");
  }
}

}  // namespace

Matrix softmax_rows(const Matrix& scores) {
  require_nonempty("scores", scores);
  Matrix weights(scores.rows(), scores.cols());
  const int m = static_cast<int>(scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    require_softmax_row(scores, i);
    softmax(scores.data() + i * m, weights.data() + i * m, m);  // row-major: row i is contiguous
  }
  return weights;
}

RowVector softmax_row_backward(const RowVector& weights, const RowVector& dweights) {
  const double inner = dweights.dot(weights);
  return weights.cwiseProduct((dweights.array() - inner).matrix());
}

}  // namespace headlab
