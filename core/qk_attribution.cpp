#include "core/qk_attribution.hpp"

#include "core/check.hpp"
#include "core/normalization.hpp"
#include "core/ordered_products.hpp"
#include "core/rotary.hpp"
#include "core/transformer_heads.hpp"

#include <cmath>

namespace headlab::transformer {

namespace {

void require_head(const TransformerConfig& c, int layer, int head) {
  if (layer < 0 || layer >= c.n_layers) {
    throw InputError("qk attribution: layer " + std::to_string(layer) + " is outside the model's layers [0, " +
                     std::to_string(c.n_layers) + ")");
  }
  if (head < 0 || head >= c.n_heads) {
    throw InputError("qk attribution: head " + std::to_string(head) + " is outside layer " + std::to_string(layer) +
                     "'s heads [0, " + std::to_string(c.n_heads) + ")");
  }
}

void require_run(const TransformerConfig& c, const TransformerActivations& run) {
  const Eigen::Index T = static_cast<Eigen::Index>(run.tokens.size());
  if (T == 0 || static_cast<int>(run.layers.size()) != c.n_layers || run.embed.rows() != T ||
      run.embed.cols() != c.d_model) {
    throw InputError("qk attribution needs the forward pass of this model (" + std::to_string(c.n_layers) +
                     " layers, d_model " + std::to_string(c.d_model) + ") on a non-empty prompt");
  }
}

// u = (x − mean(x)) / σ ⊙ w per row for LN (w = 1 for LNPre), u = x / σ ⊙ w for RMS (w = 1 for
// RMSPre: no centring), σ the forward pass's (frozen); x itself without normalisation. Both maps
// are linear in x once σ is fixed, so the u of the sources add up to x̂ minus LN's offset b.
//                                                                             T × d → T × d
Matrix frozen_normalized(const TransformerConfig& c, const Matrix& x, const Vector& scale, const Matrix& ln_w) {
  if (!normalizes(c)) return x;
  const Eigen::Index T = x.rows(), d = x.cols();
  Matrix u(T, d);
  for (Eigen::Index i = 0; i < T; ++i) {
    const double mean = centres(c) ? ordered_sum(x.data() + i * d, d) / static_cast<double>(d) : 0.0;
    u.row(i) = (x.row(i).array() - mean) / scale(i);
  }
  if (c.normalization == Normalization::layer_norm || c.normalization == Normalization::rms)
    u.array().rowwise() *= ln_w.row(0).array();
  return u;
}

// Every constant the residual stream and the normalisation add before W_Q / W_K, normalised:
// u_bias = frozen_normalized(Σ_{l' < layer} b_O^{l'}) + ln.b (LN only: RMSNorm has no offset). T × d
Matrix bias_input(const TransformerWeights& w, const LayerActivations& la, int layer, Eigen::Index T) {
  const TransformerConfig& c = w.config;
  RowVector b_O = RowVector::Zero(c.d_model);
  for (int l = 0; l < layer; ++l) b_O += w.layers[static_cast<std::size_t>(l)].b_O.row(0);
  const Matrix rows = b_O.replicate(T, 1);
  const AttentionLayerWeights& lw = w.layers[static_cast<std::size_t>(layer)];
  Matrix u = frozen_normalized(c, rows, la.scale, lw.ln_w);
  if (c.normalization == Normalization::layer_norm) u.rowwise() += lw.ln_b.row(0);
  return u;
}

// One part's score: q^a_i · k^b_j / attn_scale (√c by default), the dot product in the forward pass's order.
double part_score(const QkSourceProjections& p, std::size_t a, std::size_t b, Eigen::Index i, Eigen::Index j) {
  const Matrix& q = p.query[a];
  const Matrix& k = p.key[b];
  return ordered_dot(q.data() + i * q.cols(), k.data() + j * k.cols(), q.cols()) * p.score_scale;
}

// S × S parts of score (i, j).
Matrix parts_of(const QkSourceProjections& p, Eigen::Index i, Eigen::Index j) {
  const std::size_t S = p.names.size();
  Matrix m(static_cast<Eigen::Index>(S), static_cast<Eigen::Index>(S));
  for (std::size_t a = 0; a < S; ++a)
    for (std::size_t b = 0; b < S; ++b)
      m(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) = part_score(p, a, b, i, j);
  return m;
}

// The forward pass's scaled score s_ij: ordered_causal_product_nt's entry (Σ_k q(i, k) k(j, k),
// k ascending) times 1/attn_scale, as transformer_forward computes it before the softmax.
double model_score(const LayerActivations& la, int head, double scale, Eigen::Index i, Eigen::Index j) {
  const Matrix& q = la.q[static_cast<std::size_t>(head)];
  const Matrix& k = la.k[static_cast<std::size_t>(head)];
  return ordered_dot(q.data() + i * q.cols(), k.data() + j * k.cols(), q.cols()) * scale;
}

}  // namespace

std::vector<std::string> qk_source_names(const TransformerConfig& c, int layer) {
  std::vector<std::string> names{"embed"};
  if (has_pos_embed(c)) names.emplace_back("pos");
  for (int l = 0; l < layer; ++l)
    for (int h = 0; h < c.n_heads; ++h) names.push_back("L" + std::to_string(l) + "H" + std::to_string(h));
  names.emplace_back("bias");
  return names;
}

QkSourceProjections qk_source_projections(const TransformerWeights& w, const TransformerActivations& run, int layer,
                                          int head) {
  const TransformerConfig& c = w.config;
  require_head(c, layer, head);
  require_run(c, run);
  const Eigen::Index T = run.embed.rows();
  const LayerActivations& la = run.layers[static_cast<std::size_t>(layer)];
  const AttentionLayerWeights& lw = w.layers[static_cast<std::size_t>(layer)];
  const Matrix& W_Q = lw.W_Q[static_cast<std::size_t>(head)];
  // Query head h reads key head h / (H / G) (G = H without grouping: its own).
  const int key_head = key_value_group(c, head);
  const Matrix& W_K = lw.W_K[static_cast<std::size_t>(key_head)];
  QkSourceProjections p;
  p.names = qk_source_names(c, layer);
  p.score_scale = 1.0 / attention_scale(c);
  // Each source's u projected by W_Q and W_K (the biases join the bias source below).
  const auto add = [&](const Matrix& u) {
    p.query.push_back(ordered_product(u, W_Q));
    p.key.push_back(ordered_product(u, W_K));
  };
  add(frozen_normalized(c, run.embed, la.scale, lw.ln_w));
  // Learned positions are in the residual stream and normalised with it; shortformer positions
  // are added after the normalisation to the query and key inputs only (x̂ + W_pos[0:T]), so
  // their u is W_pos[0:T] itself, on both sides.
  if (c.positions == Positions::learned) add(frozen_normalized(c, run.pos_embed, la.scale, lw.ln_w));
  if (c.positions == Positions::shortformer) add(w.W_pos.topRows(T));
  for (int l = 0; l < layer; ++l)
    for (const Matrix& out : run.layers[static_cast<std::size_t>(l)].head_output)
      add(frozen_normalized(c, out, la.scale, lw.ln_w));
  add(bias_input(w, la, layer, T));
  p.query.back().rowwise() += lw.b_Q.row(head);
  p.key.back().rowwise() += lw.b_K.row(key_head);
  // RoPE turns q_i by R(φ_i) and k_j by R(φ_j) after the biases (core/transformer_heads.cpp). R is
  // linear, so R q_i = Σ_a R q^a_i: rotating every part keeps the split exact, and each part's
  // product R(φ_i) q^a_i · R(φ_j) k^b_j depends on the positions only through i − j.
  if (c.positions == Positions::rotary) {
    for (Matrix& q : p.query) rotate_rows(c, q);
    for (Matrix& k : p.key) rotate_rows(c, k);
  }
  return p;
}

QkAttribution qk_attribution(const TransformerWeights& w, const TransformerActivations& run, int layer, int head,
                             int position) {
  const QkSourceProjections p = qk_source_projections(w, run, layer, head);
  require_index("qk attribution: position", position, static_cast<Eigen::Index>(run.tokens.size()));
  const LayerActivations& la = run.layers[static_cast<std::size_t>(layer)];
  QkAttribution out;
  out.layer = layer;
  out.head = head;
  out.position = position;
  out.sources = p.names;
  out.scores.resize(position + 1);
  for (int j = 0; j <= position; ++j) {
    out.parts.push_back(parts_of(p, position, j));
    out.scores(j) = model_score(la, head, p.score_scale, position, j);
  }
  return out;
}

QkAttributionTable qk_attribution_table(const TransformerWeights& w, const TransformerActivations& run, int layer,
                                        int head) {
  const QkSourceProjections p = qk_source_projections(w, run, layer, head);
  const Eigen::Index T = run.embed.rows();
  const std::size_t S = p.names.size();
  const LayerActivations& la = run.layers[static_cast<std::size_t>(layer)];
  QkAttributionTable out;
  out.layer = layer;
  out.head = head;
  out.positions = static_cast<int>(T);
  out.sources = p.names;
  out.parts.assign(static_cast<std::size_t>(T * T) * S * S, 0.0);
  out.scores = Matrix::Zero(T, T);
  for (Eigen::Index i = 0; i < T; ++i) {
    for (Eigen::Index j = 0; j <= i; ++j) {
      double* cell = out.parts.data() + static_cast<std::size_t>(i * T + j) * S * S;
      for (std::size_t a = 0; a < S; ++a)
        for (std::size_t b = 0; b < S; ++b) cell[a * S + b] = part_score(p, a, b, i, j);
      out.scores(i, j) = model_score(la, head, p.score_scale, i, j);
    }
  }
  return out;
}

}  // namespace headlab::transformer
