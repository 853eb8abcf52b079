#include "core/attention.hpp"

#include "core/check.hpp"
#include "core/softmax.hpp"

#include <cmath>
#include <limits>

namespace headlab {
namespace {

void require_rows_match(const char* name, const Matrix& w, const Matrix& x) {
  if (w.rows() != x.cols()) {
    throw InputError(std::string(name) + " must have d_model = " + std::to_string(x.cols()) + " rows to match x (" +
                     shape_of(x) + "), got " + shape_of(w));
  }
}

}  // namespace

AttentionResult attention_forward(const Matrix& x, const Matrix& w_q, const Matrix& w_k, const Matrix& w_v,
                                  const AttentionOptions& options) {
  require_usable("x", x);
  require_usable("w_q", w_q);
  require_usable("w_k", w_k);
  require_usable("w_v", w_v);
  require_rows_match("w_q", w_q, x);
  require_rows_match("w_k", w_k, x);
  require_rows_match("w_v", w_v, x);
  if (w_q.cols() != w_k.cols()) {
    throw InputError("w_q (" + shape_of(w_q) + ") and w_k (" + shape_of(w_k) +
                     ") must have the same number of columns d_k: queries and keys meet in a dot product");
  }
  const Eigen::Index n = x.rows();
  if (options.weights_override) {
    const Matrix& w = *options.weights_override;
    require_shape("weights_override", w, n, n);
    require_finite("weights_override", w);
    if ((w.array() < 0.0).any()) throw InputError("weights_override has a negative entry; attention weights are ≥ 0");
  }

  AttentionResult r;
  r.q.noalias() = x * w_q;
  r.k.noalias() = x * w_k;
  r.v.noalias() = x * w_v;
  const double scale = 1.0 / std::sqrt(static_cast<double>(w_q.cols()));
  r.dot_products.noalias() = r.q * r.k.transpose();
  r.scores = r.dot_products * scale;
  if (!r.scores.allFinite()) {
    throw InputError("scores overflowed to a non-finite value: x, w_q and w_k are too large in magnitude");
  }
  if (options.causal) {
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = i + 1; j < n; ++j) r.scores(i, j) = -std::numeric_limits<double>::infinity();
    }
  }
  r.weights = options.weights_override ? *options.weights_override : softmax_rows(r.scores);
  r.reading.noalias() = r.weights * r.v;
  if (!r.v.allFinite() || !r.reading.allFinite()) {
    throw InputError("values overflowed to a non-finite value: x and w_v are too large in magnitude");
  }
  return r;
}

}  // namespace headlab
