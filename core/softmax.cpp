#include "core/softmax.hpp"

#include "core/check.hpp"

#include <cmath>
#include <limits>

namespace headlab {

Matrix softmax_rows(const Matrix& scores) {
  require_nonempty("scores", scores);
  Matrix weights(scores.rows(), scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    double row_max = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      const double s = scores(i, j);
      if (std::isnan(s) || s == std::numeric_limits<double>::infinity()) {
        throw InputError("scores row " + std::to_string(i) + " has entry " + std::to_string(s) +
                         " at column " + std::to_string(j) + "; only finite values or -inf (masked) are allowed");
      }
      row_max = std::max(row_max, s);
    }
    if (!std::isfinite(row_max)) {
      throw InputError("scores row " + std::to_string(i) + " is masked everywhere; softmax needs one finite entry");
    }
    double total = 0.0;
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      // exp(−inf) = 0 for masked entries; every other exponent lies in [−∞, 0].
      const double e = std::exp(scores(i, j) - row_max);
      weights(i, j) = e;
      total += e;
    }
    weights.row(i) /= total;  // total ≥ 1 because the maximum contributes exp(0).
  }
  return weights;
}

RowVector softmax_row_backward(const RowVector& weights, const RowVector& dweights) {
  const double inner = dweights.dot(weights);
  return weights.cwiseProduct((dweights.array() - inner).matrix());
}

}  // namespace headlab
