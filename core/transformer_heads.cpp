#include "core/transformer_heads.hpp"

#include "core/ordered_products.hpp"
#include "core/rotary.hpp"

namespace headlab::transformer {

namespace {

// Every product in one summation order on every target (core/ordered_products.hpp), then the bias.
Matrix project(const Matrix& x, const Matrix& W, const Matrix& b, int row) {
  Matrix out = ordered_product(x, W);
  out.rowwise() += b.row(row);
  return out;
}

void rotate(const TransformerConfig& c, Matrix& m, RowPositions at) {
  if (c.positions != Positions::rotary) return;
  for (Eigen::Index r = 0; r < m.rows(); ++r) apply_rotary(c, m.row(r).data(), at.first + at.step * r);
}

}  // namespace

int key_value_group(const TransformerConfig& c, int head) { return head / (c.n_heads / key_value_heads(c)); }

Matrix query_key_input(const TransformerWeights& w, const Matrix& x, RowPositions at) {
  Matrix out = x;
  if (w.config.positions != Positions::shortformer) return out;
  for (Eigen::Index r = 0; r < out.rows(); ++r) out.row(r) += w.W_pos.row(at.first + at.step * r);
  return out;
}

Matrix head_queries(const TransformerWeights& w, int layer, int head, const Matrix& qk_input, RowPositions at) {
  const auto& lw = w.layers[static_cast<std::size_t>(layer)];
  Matrix q = project(qk_input, lw.W_Q[head], lw.b_Q, head);
  rotate(w.config, q, at);
  return q;
}

Matrix head_keys(const TransformerWeights& w, int layer, int head, const Matrix& qk_input, RowPositions at) {
  const auto& lw = w.layers[static_cast<std::size_t>(layer)];
  const int g = key_value_group(w.config, head);
  Matrix k = project(qk_input, lw.W_K[g], lw.b_K, g);
  rotate(w.config, k, at);
  return k;
}

Matrix head_values(const TransformerWeights& w, int layer, int head, const Matrix& x) {
  const auto& lw = w.layers[static_cast<std::size_t>(layer)];
  const int g = key_value_group(w.config, head);
  return project(x, lw.W_V[g], lw.b_V, g);
}

}  // namespace headlab::transformer
