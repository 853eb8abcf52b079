#include "core/transformer.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/normalization.hpp"
#include "core/rotary.hpp"
#include "core/transformer_heads.hpp"
#include "core/ordered_products.hpp"
#include "core/softmax.hpp"
#include "core/transformer_layout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace headlab::transformer {

namespace {

// "config.<name> must lie in [low, high], got <value>": the config's fields named as in its file.
void require_range(const char* name, long long value, long long low, long long high) {
  require_integer_in((std::string("config.") + name).c_str(), value, low, high);
}

// Shape and finiteness of one tensor, the message naming it in TransformerLens terms.
void require_tensor(const std::string& name, const Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() != rows || m.cols() != cols) {
    throw InputError(name + " must be " + std::to_string(rows) + " × " + std::to_string(cols) + ", got " + shape_of(m));
  }
  require_finite(name.c_str(), m);
}

// A double field in [low, high] (finite), the message naming field, value and bound.
void require_real_range(const char* name, double value, double low, double high) {
  if (!(std::isfinite(value) && value >= low && value <= high)) {
    throw InputError(std::string("config.") + name + " must lie in [" + number_text(low) + ", " + number_text(high) +
                     "], got " + number_text(value));
  }
}

// The rotary, grouping and scale fields against each other and the sizes.
void validate_architecture(const TransformerConfig& c) {
  if (c.positions == Positions::rotary) {
    if (c.rotary_dim < 2 || c.rotary_dim > c.d_head || c.rotary_dim % 2 != 0) {
      throw InputError("config.rotary_dim must be even and lie in [2, d_head = " + std::to_string(c.d_head) +
                       "] for rotary positions, got " + std::to_string(c.rotary_dim));
    }
    require_real_range("rotary_base", c.rotary_base, kMinRotaryBase, kMaxRotaryBase);
  } else if (c.rotary_dim != 0) {
    throw InputError("config.rotary_dim = " + std::to_string(c.rotary_dim) +
                     " is only for rotary positions; config.positional_embedding is \"" + positions_name(c.positions) +
                     "\" (rotary_dim must be 0)");
  }
  if (c.n_key_value_heads != 0 &&
      (c.n_key_value_heads < 1 || c.n_key_value_heads > c.n_heads || c.n_heads % c.n_key_value_heads != 0)) {
    throw InputError("config.n_key_value_heads = " + std::to_string(c.n_key_value_heads) +
                     " must divide n_heads = " + std::to_string(c.n_heads) + " (or be 0: no grouping)");
  }
  if (c.attn_scale != 0) require_real_range("attn_scale", c.attn_scale, kMinAttnScale, kMaxAttnScale);
}

}  // namespace

// Σ over the layout's parameters the config has of the product of their dimensions (× n_layers
// for a per-layer tensor): V·d (W_E) + n_ctx·d (W_pos) + n_layers·(4·H·d·c + 3·H·c + d (+ 2·d with
// ln1)) (+ 2·d, ln_final) + d·V + V (W_U, b_U).
long long parameter_count(const TransformerConfig& c) {
  long long n = 0;
  for (const TensorLayout& row : kTransformerLayout) {
    if (row.role == Role::buffer || !present(c, row.presence)) continue;
    long long size = per_layer(row) ? c.n_layers : 1;
    for (int i = 0; i < row.shape.rank; ++i) size *= dim_size(c, row.shape.dims[i]);
    n += size;
  }
  return n;
}

void validate_config(const TransformerConfig& c) {
  require_range("n_layers", c.n_layers, 1, kMaxLayers);
  require_range("n_heads", c.n_heads, 1, kMaxHeads);
  require_range("d_model", c.d_model, 1, kMaxDModel);
  require_range("d_head", c.d_head, 1, kMaxDHead);
  require_range("n_ctx", c.n_ctx, 1, kMaxContext);
  require_range("d_vocab", c.d_vocab, 1, kMaxVocab);
  require_positive("config.eps", c.layer_norm_eps);
  validate_architecture(c);
  if (!c.token_names.empty() && static_cast<int>(c.token_names.size()) != c.d_vocab) {
    throw InputError("config.token_names has " + std::to_string(c.token_names.size()) +
                     " names; it needs d_vocab = " + std::to_string(c.d_vocab) + " (or none)");
  }
  const long long n = parameter_count(c);
  if (n > kMaxParameters) {
    throw InputError("the model has " + std::to_string(n) + " parameters; at most " + std::to_string(kMaxParameters) +
                     " are supported");
  }
}

namespace {

TransformerWeights zero_weights_stored(const TransformerConfig& c, bool without_embeddings) {
  validate_config(c);
  TransformerWeights w;
  w.config = c;
  w.layers.resize(c.n_layers);
  for_each_tensor(c, [&](const TensorLayout& row, int layer) {
    if (row.role == Role::buffer || !present(c, row.presence)) return;  // absent: left 0 × 0
    if (without_embeddings && (row.model == &TransformerWeights::W_E || row.model == &TransformerWeights::W_U)) return;
    const Matrix zero = Matrix::Zero(matrix_rows(c, row), matrix_cols(c, row));
    if (auto* heads = heads_of(w, row, layer)) heads->assign(static_cast<std::size_t>(stack_size(c, row)), zero);
    else *matrix_of(w, row, layer) = zero;
  });
  return w;
}

}  // namespace

TransformerWeights zero_weights(const TransformerConfig& c) { return zero_weights_stored(c, false); }

TransformerWeights zero_weights_without_embeddings(const TransformerConfig& c) { return zero_weights_stored(c, true); }

namespace {

// One parameter of the layout against the config: its shape (0 × 0 when the config does not give
// the model the tensor), the head count of a per-head stack, and finiteness.
void require_layout_tensor(const TransformerWeights& w, const TensorLayout& row, int layer) {
  const TransformerConfig& c = w.config;
  const bool has = present(c, row.presence);
  if (!has && stored_by_other_row(c, row)) return;  // checked as the present row
  const Eigen::Index rows = has ? matrix_rows(c, row) : 0, cols = has ? matrix_cols(c, row) : 0;
  const std::string name = tensor_name(row, layer);
  const std::vector<Matrix>* heads = heads_of(w, row, layer);
  const bool stored_f32 = row.model == &TransformerWeights::W_E   ? w.W_E_f32.size() > 0
                          : row.model == &TransformerWeights::W_U ? w.W_U_f32.size() > 0
                                                                  : false;
  if (stored_f32) {
    const Float32Matrix& f = row.model == &TransformerWeights::W_E ? w.W_E_f32 : w.W_U_f32;
    if (f.rows() != rows || f.cols() != cols) {
      throw InputError(name + " must be " + std::to_string(rows) + " × " + std::to_string(cols) + ", got " +
                       std::to_string(f.rows()) + " × " + std::to_string(f.cols()));
    }
    if (matrix_of(w, row, layer)->size() != 0)
      throw InputError(name + " is held twice (float64 and float32); one storage must be empty");
    if (!f.all_finite()) throw InputError(name + " has a non-finite entry");
    return;
  }
  if (!heads) {
    require_tensor(name, *matrix_of(w, row, layer), rows, cols);
    return;
  }
  const int H = has ? static_cast<int>(stack_size(c, row)) : 0;
  if (static_cast<int>(heads->size()) != H) {
    throw InputError(name + " has " + std::to_string(heads->size()) + " heads; config." + dim_name(row.shape.dims[0]) +
                     " = " + std::to_string(H));
  }
  for (int h = 0; h < H; ++h) require_tensor(name + "[" + std::to_string(h) + "]", (*heads)[h], rows, cols);
}

}  // namespace

void validate_weights(const TransformerWeights& w) {
  const TransformerConfig& c = w.config;
  validate_config(c);
  if ((w.W_E_f32.size() > 0) != (w.W_U_f32.size() > 0))
    throw InputError("W_E and W_U must both be stored as float32, or neither");
  if (static_cast<int>(w.layers.size()) != c.n_layers) {
    throw InputError("the weights have " + std::to_string(w.layers.size()) +
                     " layers; config.n_layers = " + std::to_string(c.n_layers));
  }
  for_each_tensor(c, [&](const TensorLayout& row, int layer) {
    if (row.role != Role::buffer) require_layout_tensor(w, row, layer);
  });
}

std::vector<NamedParameter> named_parameters(TransformerWeights& w) {
  std::vector<NamedParameter> out;
  for_each_tensor(w.config, [&](const TensorLayout& row, int layer) {
    if (row.role == Role::buffer || !present(w.config, row.presence)) return;
    const std::string name = tensor_name(row, layer);
    if (auto* heads = heads_of(w, row, layer)) {
      for (std::size_t h = 0; h < heads->size(); ++h)
        out.push_back({name + "[" + std::to_string(h) + "]", &(*heads)[h]});
    } else {
      out.push_back({name, matrix_of(w, row, layer)});
    }
  });
  return out;
}

std::vector<Matrix*> parameter_list(TransformerWeights& w) {
  std::vector<Matrix*> out;
  for (auto& p : named_parameters(w)) out.push_back(p.value);
  return out;
}

std::vector<const Matrix*> parameter_list(const TransformerWeights& w) {
  std::vector<const Matrix*> out;
  for (auto& p : named_parameters(const_cast<TransformerWeights&>(w))) out.push_back(p.value);
  return out;
}

namespace {

// Columns or rows converted from float32 at a time: 256 columns of W_U (d × 256 doubles, 1.5 MB at
// d = 768) or 256 rows of W_E. Each output entry's sum is over d, whole inside every chunk, so
// chunking changes no bit.
constexpr Eigen::Index kFloat32Chunk = 256;

// The chunks of `count` rows or columns: convert(chunk, first, n) fills `chunk` with n of them
// from a float32 matrix as doubles, fill(first, n, chunk) writes the product they give.
template <class Convert, class Fill>
void by_float32_chunks(Eigen::Index count, Convert&& convert, Fill&& fill) {
  Matrix chunk;
  for (Eigen::Index first = 0; first < count; first += kFloat32Chunk) {
    const Eigen::Index n = std::min(kFloat32Chunk, count - first);
    convert(chunk, first, n);
    fill(first, n, chunk);
  }
}

}  // namespace

void embedding_row(const TransformerWeights& w, int token, double* out) {
  const Eigen::Index d = w.config.d_model;
  if (float32_embeddings(w)) {
    const float* row = w.W_E_f32.data() + static_cast<Eigen::Index>(token) * d;
    for (Eigen::Index k = 0; k < d; ++k) out[k] = row[k];
  } else {
    const double* row = w.W_E.data() + static_cast<Eigen::Index>(token) * d;
    std::copy(row, row + d, out);
  }
}

RowVector unembedding_column(const TransformerWeights& w, int token) {
  if (float32_embeddings(w)) return w.W_U_f32.map().col(token).transpose().cast<double>();
  return w.W_U.col(token).transpose();
}

Matrix unembed_product(const Matrix& x, const TransformerWeights& w) {
  if (!float32_embeddings(w)) return ordered_product(x, w.W_U);
  const Eigen::Index V = w.W_U_f32.cols(), d = w.W_U_f32.rows();
  if (x.cols() != d) return ordered_product(x, Matrix(d, V));  // the product's own message
  Matrix out(x.rows(), V);
  by_float32_chunks(
      V,
      [&](Matrix& chunk, Eigen::Index j, Eigen::Index n) { chunk = w.W_U_f32.map().middleCols(j, n).cast<double>(); },
      [&](Eigen::Index j, Eigen::Index n, const Matrix& chunk) { out.middleCols(j, n) = ordered_product(x, chunk); });
  return out;
}

Matrix embedding_product(const TransformerWeights& w, const Matrix& b) {
  if (!float32_embeddings(w)) return ordered_product(w.W_E, b);
  const Eigen::Index V = w.W_E_f32.rows(), d = w.W_E_f32.cols();
  if (b.rows() != d) return ordered_product(Matrix(V, d), b);  // the product's own message
  Matrix out(V, b.cols());
  by_float32_chunks(
      V,
      [&](Matrix& chunk, Eigen::Index i, Eigen::Index n) { chunk = w.W_E_f32.map().middleRows(i, n).cast<double>(); },
      [&](Eigen::Index i, Eigen::Index n, const Matrix& chunk) { out.middleRows(i, n) = ordered_product(chunk, b); });
  return out;
}

Matrix product_embedding_t(const Matrix& a, const TransformerWeights& w) {
  if (!float32_embeddings(w)) return ordered_product_nt(a, w.W_E);
  const Eigen::Index V = w.W_E_f32.rows(), d = w.W_E_f32.cols();
  if (a.cols() != d) return ordered_product_nt(a, Matrix(V, d));  // the product's own message
  Matrix out(a.rows(), V);
  by_float32_chunks(
      V,
      [&](Matrix& chunk, Eigen::Index j, Eigen::Index n) { chunk = w.W_E_f32.map().middleRows(j, n).cast<double>(); },
      [&](Eigen::Index j, Eigen::Index n, const Matrix& chunk) {
        out.middleCols(j, n) = ordered_product_nt(a, chunk);
      });
  return out;
}

const Matrix& embedding_f64(const TransformerWeights& w, Matrix& scratch) {
  if (!float32_embeddings(w)) return w.W_E;
  scratch = w.W_E_f32.map().cast<double>();
  return scratch;
}

const Matrix& unembedding_f64(const TransformerWeights& w, Matrix& scratch) {
  if (!float32_embeddings(w)) return w.W_U;
  scratch = w.W_U_f32.map().cast<double>();
  return scratch;
}

void require_tokens(const TransformerConfig& c, const std::vector<int>& tokens) {
  if (tokens.empty()) throw InputError("the prompt is empty; it needs at least one token");
  if (static_cast<long long>(tokens.size()) > c.n_ctx) {
    throw InputError("the prompt has " + std::to_string(tokens.size()) +
                     " tokens; the model's context n_ctx = " + std::to_string(c.n_ctx));
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || tokens[i] >= c.d_vocab) {
      throw InputError("token " + std::to_string(tokens[i]) + " at position " + std::to_string(i) +
                       " is outside the vocabulary [0, " + std::to_string(c.d_vocab) + ")");
    }
  }
}

// The core's one softmax (core/softmax.hpp) over the kept columns of each row (contiguous: Matrix
// is row-major), with exp_nonpositive, so the same bits natively and in WASM (core/deterministic_math.hpp).
void causal_softmax(Matrix& s, Eigen::Index first_query) {
  const Eigen::Index T = s.cols();
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    const Eigen::Index kept = first_query + r + 1;
    double* row = s.row(r).data();
    softmax(row, row, static_cast<int>(kept), exp_nonpositive);
    std::fill(row + kept, row + T, 0.0);
  }
}

Matrix head_output_from(const TransformerWeights& w, int l, int h, const Matrix& q, const Matrix& k, const Matrix& v) {
  Matrix pattern = ordered_causal_product_nt(q, k) * (1.0 / attention_scale(w.config));
  causal_softmax(pattern);
  return ordered_product(ordered_causal_product(pattern, v), w.layers[static_cast<std::size_t>(l)].W_O[h]);
}

TransformerActivations transformer_forward_unchecked(const TransformerWeights& w, const std::vector<int>& tokens,
                                                     const HeadHook& hook, Eigen::Index logits_from) {
  const TransformerConfig& c = w.config;
  const Eigen::Index T = static_cast<Eigen::Index>(tokens.size());
  const int H = c.n_heads;
  const double inv_sqrt_dh = 1.0 / attention_scale(c);
  TransformerActivations a;
  a.tokens = tokens;
  a.embed.resize(T, c.d_model);
  for (Eigen::Index i = 0; i < T; ++i) embedding_row(w, tokens[i], a.embed.row(i).data());
  a.pos_embed = c.positions == Positions::learned ? Matrix(w.W_pos.topRows(T)) : Matrix::Zero(T, c.d_model);
  Matrix resid = a.embed + a.pos_embed;
  a.layers.resize(c.n_layers);
  for (int l = 0; l < c.n_layers; ++l) {
    const auto& lw = w.layers[l];
    auto& la = a.layers[l];
    la.resid_pre = resid;
    la.normalized = normalize(c, resid, lw.ln_w, lw.ln_b, la.scale);
    if (c.positions == Positions::shortformer) la.qk_input = query_key_input(w, la.normalized, {});
    const Matrix& qk_input = c.positions == Positions::shortformer ? la.qk_input : la.normalized;
    la.q.resize(H);
    la.k.resize(H);
    la.v.resize(H);
    la.pattern.resize(H);
    la.z.resize(H);
    la.head_output.resize(H);
    for (int h = 0; h < H; ++h) {
      la.q[h] = head_queries(w, l, h, qk_input, {});
      la.k[h] = head_keys(w, l, h, qk_input, {});
      la.v[h] = head_values(w, l, h, la.normalized);
      // Scores and pattern × values below the diagonal only (the causal zeros add nothing: the same
      // bits as the full products, core/ordered_products.hpp).
      la.pattern[h] = ordered_causal_product_nt(la.q[h], la.k[h]) * inv_sqrt_dh;
      causal_softmax(la.pattern[h]);
      la.z[h] = ordered_causal_product(la.pattern[h], la.v[h]);
      la.head_output[h] = ordered_product(la.z[h], lw.W_O[h]);
      if (hook) hook(l, h, la.head_output[h]);
      resid += la.head_output[h];
    }
    resid.rowwise() += lw.b_O.row(0);
    la.resid_post = resid;
  }
  a.final_normalized = normalize(c, resid, w.ln_final_w, w.ln_final_b, a.final_scale);
  a.logits_from = T > 0 ? std::clamp<Eigen::Index>(logits_from, 0, T - 1) : 0;
  a.logits = unembed_product(a.final_normalized.bottomRows(T - a.logits_from), w);
  a.logits.rowwise() += w.b_U.row(0);
  return a;
}

namespace {

// pattern (n × T) times the values v (T × c) whose rows [first_row, first_row + fresh.rows()) are
// `fresh` and the others `clean`'s: each entry Σ_j pattern(i, j) v(j, col), j ascending from 0.0, each
// product and sum rounded on its own — ordered_product's order, without assembling v.
Matrix mixed_values_product(const Matrix& pattern, const Matrix& clean, const Matrix& fresh, Eigen::Index first_row) {
  const Eigen::Index T = clean.rows(), c = clean.cols(), fresh_end = first_row + fresh.rows();
  if (first_row == 0 && fresh_end == T) return ordered_product(pattern, fresh);
  Matrix z = Matrix::Zero(pattern.rows(), c);
  for (Eigen::Index i = 0; i < pattern.rows(); ++i) {
    double* zi = z.data() + i * c;
    for (Eigen::Index j = 0; j < T; ++j) {
      const double* vj = j >= first_row && j < fresh_end ? fresh.data() + (j - first_row) * c : clean.data() + j * c;
      const double pij = pattern(i, j);
      for (Eigen::Index col = 0; col < c; ++col) zi[col] += pij * vj[col];
    }
  }
  return z;
}

// One head h of a resumed layer: its write into the residual stream, z_h W_O^h, for query rows
// [q0, T) ((T − q0) × d). x (rows [first_row, changed_end), each d wide) is the layer's normalized
// input where it differs from the clean run `la`; every other row is the clean run's.
Matrix resumed_head_output(const TransformerWeights& w, int l, const LayerActivations& la, const Matrix& x, int h,
                           Eigen::Index first_row, Eigen::Index changed_end, Eigen::Index q0, double inv_sqrt_dh) {
  const AttentionLayerWeights& lw = w.layers[static_cast<std::size_t>(l)];
  const Eigen::Index T = la.q[h].rows(), changed = changed_end - first_row;
  // Keys and values: the clean run's, with rows [first_row, changed_end) recomputed.
  const Matrix qk_input = query_key_input(w, x, {first_row, 1});
  Matrix k = head_keys(w, l, h, qk_input, {first_row, 1});
  Matrix v = head_values(w, l, h, x);
  // Query rows [q0, T): recomputed where the input changed (rows < changed_end), else the clean run's.
  const Eigen::Index q_changed = std::max<Eigen::Index>(0, changed_end - q0);
  Matrix q = la.q[h].bottomRows(T - q0);
  if (q_changed > 0) {
    q.topRows(q_changed) = head_queries(w, l, h, qk_input.middleRows(q0 - first_row, q_changed), {q0, 1});
  }
  // Scores q kᵀ / √c: each entry one dot product, so the clean columns and the recomputed ones can be
  // formed apart.
  Matrix pattern;
  if (changed == T) {
    pattern = ordered_product_nt(q, k);
  } else {
    pattern = ordered_product_nt(q, la.k[h]);
    pattern.middleCols(first_row, changed) = ordered_product_nt(q, k);
  }
  pattern *= inv_sqrt_dh;
  causal_softmax(pattern, q0);
  return ordered_product(mixed_values_product(pattern, la.v[h], v, first_row), lw.W_O[h]);
}

}  // namespace

Matrix resume_final_normalized(const TransformerWeights& w, const TransformerActivations& clean, int first_layer,
                               const Matrix& changed_rows, Eigen::Index first_row, Eigen::Index logit_row) {
  const TransformerConfig& c = w.config;
  const Eigen::Index T = static_cast<Eigen::Index>(clean.tokens.size());
  Eigen::Index changed_end = first_row + changed_rows.rows();
  if (first_layer < 0 || first_layer > c.n_layers || static_cast<int>(clean.layers.size()) != c.n_layers ||
      first_row < 0 || changed_rows.rows() < 1 || changed_end > T || changed_rows.cols() != c.d_model ||
      first_row > logit_row || logit_row >= T) {
    throw InputError("resume_forward: inconsistent layer, rows or residual shape");
  }
  const double inv_sqrt_dh = 1.0 / attention_scale(c);
  // The clean residual stream entering first_layer supplies the rows from changed_end on until a layer
  // has been recomputed; after that `*resid` holds every row from first_row.
  const Matrix& clean_resid =
      first_layer < c.n_layers ? clean.layers[first_layer].resid_pre : clean.layers.back().resid_post;
  const Matrix* resid = &changed_rows;  // rows [first_row, changed_end)
  // Rows [from, T) of the current residual stream (from ≥ first_row).
  const auto rows_from = [&](Eigen::Index from) {
    Matrix out(T - from, c.d_model);
    const Eigen::Index mine = std::max<Eigen::Index>(0, changed_end - from);
    if (mine > 0) out.topRows(mine) = resid->middleRows(from - first_row, mine);
    if (mine < T - from) out.bottomRows(T - from - mine) = clean_resid.bottomRows(T - from - mine);
    return out;
  };
  Matrix resid_next;
  for (int l = first_layer; l < c.n_layers; ++l) {
    const auto& lw = w.layers[l];
    const auto& la = clean.layers[l];
    // Queries needed: every row from first_row, or in the last layer only those whose logits are asked for.
    const Eigen::Index q0 = l + 1 == c.n_layers ? logit_row : first_row;
    Vector scale;
    const Matrix x = normalize(c, *resid, lw.ln_w, lw.ln_b, scale);
    Matrix next = rows_from(q0);  // resid_pre of the query rows, heads added below in head order
    for (int h = 0; h < c.n_heads; ++h)
      next += resumed_head_output(w, l, la, x, h, first_row, changed_end, q0, inv_sqrt_dh);
    next.rowwise() += lw.b_O.row(0);
    resid_next = std::move(next);
    resid = &resid_next;
    first_row = q0;
    changed_end = T;  // after a layer every query row may have changed
  }
  const Matrix rows = rows_from(logit_row);
  Vector scale;
  return normalize(c, rows, w.ln_final_w, w.ln_final_b, scale);
}

Matrix resume_forward(const TransformerWeights& w, const TransformerActivations& clean, int first_layer,
                      const Matrix& changed_rows, Eigen::Index first_row, Eigen::Index logit_row) {
  Matrix logits =
      unembed_product(resume_final_normalized(w, clean, first_layer, changed_rows, first_row, logit_row), w);
  logits.rowwise() += w.b_U.row(0);
  return logits;
}

TransformerActivations transformer_forward(const TransformerWeights& w, const std::vector<int>& tokens,
                                           const HeadHook& hook, Eigen::Index logits_from) {
  validate_weights(w);
  require_tokens(w.config, tokens);
  return transformer_forward_unchecked(w, tokens, hook, logits_from);
}

HeadInputGradients head_input_gradients(const TransformerConfig& c, const AttentionLayerWeights& lw,
                                        const LayerActivations& la, int h, const Matrix& dresid) {
  const Eigen::Index T = dresid.rows();
  // head_output = z W_O
  const Matrix dz = ordered_product_nt(dresid, lw.W_O[h]);
  // z = pattern v
  Matrix dpattern = ordered_product_nt(dz, la.v[h]);
  HeadInputGradients d;
  d.dv = ordered_product_tn(la.pattern[h], dz);
  // pattern = softmax(scores) per row over j ≤ i: dscores = pattern ⊙ (dpattern − Σ_j dpattern ⊙ pattern)
  Matrix dscores(T, T);
  for (Eigen::Index i = 0; i < T; ++i) {
    const double inner = ordered_dot(dpattern.data() + i * T, la.pattern[h].data() + i * T, T);
    dscores.row(i) = la.pattern[h].row(i).array() * (dpattern.row(i).array() - inner);
  }
  dscores *= 1.0 / attention_scale(c);  // scores = q kᵀ / attn_scale
  d.dq = ordered_product(dscores, la.k[h]);
  d.dk = ordered_product_tn(dscores, la.q[h]);
  // q = rotate(qk_input W_Q + b_Q), k alike: a rotation's transpose is the rotation back.
  if (c.positions == Positions::rotary) {
    rotate_rows(c, d.dq, 0, true);
    rotate_rows(c, d.dk, 0, true);
  }
  return d;
}

namespace {

// Backward of one head h of a layer, given dresid (T × d, dL/d resid_post): adds the head's
// gradients to lg (the key and value ones to its key-value head g) and its three terms of dL/dx̂ to
// dnormalized (T × d), q's, k's, v's in that order; with shortformer positions the q and k terms
// are dL/d qk_input, which W_pos[0:T] receives too (into dpos, T × d).
void head_backward(const TransformerConfig& c, const AttentionLayerWeights& lw, const LayerActivations& la, int h,
                   const Matrix& dresid, AttentionLayerWeights& lg, Matrix& dnormalized, Matrix& dpos) {
  // head_output = z W_O
  add_ordered_product_tn(lg.W_O[h], la.z[h], dresid);
  const HeadInputGradients d = head_input_gradients(c, lw, la, h, dresid);
  // q, k read qk_input (x̂, or x̂ + W_pos for shortformer), v reads x̂; k and v use key-value head g.
  const Matrix& qk_input = c.positions == Positions::shortformer ? la.qk_input : la.normalized;
  const int g = h / (c.n_heads / key_value_heads(c));
  add_ordered_product_tn(lg.W_Q[h], qk_input, d.dq);
  add_ordered_product_tn(lg.W_K[g], qk_input, d.dk);
  add_ordered_product_tn(lg.W_V[g], la.normalized, d.dv);
  lg.b_Q.row(h) += ordered_column_sums(d.dq);
  lg.b_K.row(g) += ordered_column_sums(d.dk);
  lg.b_V.row(g) += ordered_column_sums(d.dv);
  if (c.positions != Positions::shortformer) {
    dnormalized += ordered_product_nt(d.dq, lw.W_Q[h]);
    dnormalized += ordered_product_nt(d.dk, lw.W_K[g]);
  } else {
    const Matrix dq_input = ordered_product_nt(d.dq, lw.W_Q[h]), dk_input = ordered_product_nt(d.dk, lw.W_K[g]);
    dnormalized += dq_input;
    dnormalized += dk_input;
    dpos += dq_input;
    dpos += dk_input;
  }
  dnormalized += ordered_product_nt(d.dv, lw.W_V[g]);
}

}  // namespace

void transformer_backward(const TransformerWeights& w, const TransformerActivations& a, const Matrix& dlogits,
                          TransformerWeights& dw) {
  const TransformerConfig& c = w.config;
  const Eigen::Index T = a.logits.rows();
  require_shape("dlogits", dlogits, T, c.d_vocab);
  // logits = x̂_final W_U + b_U
  add_ordered_product_tn(dw.W_U, a.final_normalized, dlogits);
  dw.b_U.row(0) += ordered_column_sums(dlogits);
  Matrix W_U_scratch;
  Matrix dfinal = ordered_product_nt(dlogits, unembedding_f64(w, W_U_scratch));
  const Matrix& resid_last = c.n_layers > 0 ? a.layers.back().resid_post : a.embed;
  Matrix dresid = normalize_backward(c, resid_last, a.final_scale, w.ln_final_w, dfinal, dw.ln_final_w, dw.ln_final_b);
  // dL/dW_pos[0:T] through the queries and keys of every layer (shortformer), summed over layers.
  Matrix dpos = c.positions == Positions::shortformer ? Matrix::Zero(T, c.d_model) : Matrix();
  for (int l = c.n_layers - 1; l >= 0; --l) {
    const auto& la = a.layers[l];
    auto& lg = dw.layers[l];
    // resid_post = resid_pre + Σ_h z_h W_O^h + b_O: dresid flows to resid_pre and to every head.
    lg.b_O.row(0) += ordered_column_sums(dresid);
    Matrix dnormalized = Matrix::Zero(T, c.d_model);
    for (int h = 0; h < c.n_heads; ++h) head_backward(c, w.layers[l], la, h, dresid, lg, dnormalized, dpos);
    dresid += normalize_backward(c, la.resid_pre, la.scale, w.layers[l].ln_w, dnormalized, lg.ln_w, lg.ln_b);
  }
  if (c.positions == Positions::shortformer) dw.W_pos.topRows(T) += dpos;
  // resid_0 = W_E[tokens] + W_pos[0:T]
  for (Eigen::Index i = 0; i < T; ++i) {
    dw.W_E.row(a.tokens[i]) += dresid.row(i);
    if (c.positions == Positions::learned) dw.W_pos.row(i) += dresid.row(i);
  }
}

void require_batch(const TransformerConfig& c, const std::vector<TokenSequence>& batch) {
  if (batch.empty()) throw InputError("the batch is empty");
  for (std::size_t b = 0; b < batch.size(); ++b) {
    require_tokens(c, batch[b].tokens);
    const int T = static_cast<int>(batch[b].tokens.size());
    if (batch[b].loss_from < 0 || batch[b].loss_from > T - 2) {
      throw InputError("sequence " + std::to_string(b) + ": loss_from = " + std::to_string(batch[b].loss_from) +
                       " leaves no position to predict in a sequence of " + std::to_string(T) + " tokens");
    }
  }
}

namespace {

// Cross-entropy of one sequence's counted positions; when dlogits is given, writes
// dL/dlogits for a loss divided by `count` (softmax − one-hot at counted rows, zero elsewhere).
double sequence_loss(const Matrix& logits, const TokenSequence& s, double count, Matrix* dlogits) {
  const Eigen::Index T = logits.rows();
  double total = 0.0;
  if (dlogits) *dlogits = Matrix::Zero(T, logits.cols());
  for (Eigen::Index p = s.loss_from; p + 1 < T; ++p) {
    const double top = logits.row(p).maxCoeff();
    // exp, log and the sum in one order on every target (core/deterministic_math.hpp).
    RowVector e(logits.cols());
    for (Eigen::Index j = 0; j < logits.cols(); ++j) e(j) = exp_nonpositive(logits(p, j) - top);
    const double sum = ordered_sum(e.data(), e.size());
    const int target = s.tokens[p + 1];
    total += deterministic_log(sum) - (logits(p, target) - top);
    if (dlogits) {
      dlogits->row(p) = e / (sum * count);
      (*dlogits)(p, target) -= 1.0 / count;
    }
  }
  return total;
}

}  // namespace

double counted_positions(const std::vector<TokenSequence>& batch) {
  double n = 0;
  for (const auto& s : batch) n += static_cast<double>(s.tokens.size()) - 1 - s.loss_from;
  return n;
}

double sequence_cross_entropy(const Matrix& logits, const TokenSequence& s) {
  return sequence_loss(logits, s, 1.0, nullptr);
}

double transformer_loss(const TransformerWeights& w, const std::vector<TokenSequence>& batch) {
  validate_weights(w);
  require_batch(w.config, batch);
  const double count = counted_positions(batch);
  double total = 0.0;
  for (const auto& s : batch)
    total += sequence_loss(transformer_forward_unchecked(w, s.tokens).logits, s, count, nullptr);
  return total / count;
}

double transformer_loss_backward(const TransformerWeights& w, const std::vector<TokenSequence>& batch,
                                 TransformerWeights& dw) {
  validate_weights(w);
  require_batch(w.config, batch);
  const double count = counted_positions(batch);
  double total = 0.0;
  Matrix dlogits;
  for (const auto& s : batch) {
    const TransformerActivations a = transformer_forward_unchecked(w, s.tokens);
    total += sequence_loss(a.logits, s, count, &dlogits);
    transformer_backward(w, a, dlogits, dw);
  }
  return total / count;
}

}  // namespace headlab::transformer
