#include "core/head_matrices.hpp"

#include "core/check.hpp"
#include "core/ordered_products.hpp"
#include "core/transformer.hpp"
#include "core/transformer_heads.hpp"

namespace headlab::transformer {

Matrix fold_normalization(const Matrix& reading, const Matrix& ln_w, Normalization normalization) {
  if (normalization == Normalization::none) return reading;
  Matrix folded = reading;
  if (normalization == Normalization::layer_norm || normalization == Normalization::rms) {
    require_shape("ln_w", ln_w, 1, reading.rows());
    for (Eigen::Index i = 0; i < folded.rows(); ++i) folded.row(i) *= ln_w(0, i);
  }
  // RMSNorm does not centre: diag(w) W is all there is to fold.
  if (normalization == Normalization::rms || normalization == Normalization::rms_pre) return folded;
  // P W: subtract each column's mean over the d rows.
  const RowVector mean = ordered_column_sums(folded) / static_cast<double>(folded.rows());
  folded.rowwise() -= mean;
  return folded;
}

FoldedHead folded_head(const TransformerWeights& w, int layer, int head) {
  const auto& c = w.config;
  require_integer_in("layer", layer, 0, c.n_layers - 1);
  require_integer_in("head", head, 0, c.n_heads - 1);
  const auto& l = w.layers[static_cast<std::size_t>(layer)];
  const auto h = static_cast<std::size_t>(head);
  const auto g = static_cast<std::size_t>(key_value_group(c, head));  // the key-value head h reads
  return {fold_normalization(l.W_Q[h], l.ln_w, c.normalization), fold_normalization(l.W_K[g], l.ln_w, c.normalization),
          fold_normalization(l.W_V[g], l.ln_w, c.normalization), l.W_O[h]};
}

Matrix folded_unembedding(const TransformerWeights& w) {
  Matrix scratch;
  return fold_normalization(unembedding_f64(w, scratch), w.ln_final_w, w.config.normalization);
}

}  // namespace headlab::transformer
