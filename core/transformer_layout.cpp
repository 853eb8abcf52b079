#include "core/transformer_layout.hpp"

namespace headlab::transformer {

namespace {

constexpr std::size_t kPrefixLength = sizeof(kLayerPrefix) - 1;

constexpr bool starts_with_prefix(const char* name) {
  for (std::size_t i = 0; i < kPrefixLength; ++i)
    if (name[i] != kLayerPrefix[i]) return false;
  return true;
}

// for_each_tensor walks the per-layer rows as one run: they must be adjacent in the table.
constexpr bool layer_rows_adjacent() {
  int runs = 0;
  bool previous = false;
  for (const TensorLayout& row : kTransformerLayout) {
    const bool mine = starts_with_prefix(row.name);
    if (mine && !previous) ++runs;
    previous = mine;
  }
  return runs <= 1;
}
static_assert(layer_rows_adjacent(), "the blocks.{l}. rows of kTransformerLayout must be adjacent");

}  // namespace

const char* dim_name(Dim dim) {
  switch (dim) {
    case Dim::n_heads: return "n_heads";
    case Dim::d_model: return "d_model";
    case Dim::d_head: return "d_head";
    case Dim::n_ctx: return "n_ctx";
    case Dim::n_key_value_heads: return "n_key_value_heads";
    case Dim::rotary_dim: return "rotary_dim";
    default: return "d_vocab";
  }
}

const char* presence_name(Presence presence) {
  switch (presence) {
    case Presence::positional_embedding: return "positional_embedding";
    case Presence::normalization_weight: return "normalization_weight";
    case Presence::layer_norm_bias: return "layer_norm_bias";
    case Presence::ungrouped: return "ungrouped";
    case Presence::grouped: return "grouped";
    case Presence::rotary: return "rotary";
    default: return "always";
  }
}

const char* role_name(Role role) {
  switch (role) {
    case Role::optional: return "optional";
    case Role::buffer: return "buffer";
    default: return "required";
  }
}

long long dim_size(const TransformerConfig& c, Dim dim) {
  switch (dim) {
    case Dim::n_heads: return c.n_heads;
    case Dim::d_model: return c.d_model;
    case Dim::d_head: return c.d_head;
    case Dim::n_ctx: return c.n_ctx;
    case Dim::n_key_value_heads: return key_value_heads(c);
    case Dim::rotary_dim: return c.rotary_dim;
    default: return c.d_vocab;
  }
}

bool present(const TransformerConfig& c, Presence presence) {
  switch (presence) {
    case Presence::positional_embedding: return has_pos_embed(c);
    case Presence::normalization_weight:
      return c.normalization == Normalization::layer_norm || c.normalization == Normalization::rms;
    case Presence::layer_norm_bias: return c.normalization == Normalization::layer_norm;
    case Presence::ungrouped: return c.n_key_value_heads == 0;
    case Presence::grouped: return c.n_key_value_heads > 0;
    case Presence::rotary: return c.positions == Positions::rotary;
    default: return true;
  }
}

std::string absence_reason(const TransformerConfig& c, Presence presence) {
  const std::string normalization = std::string("config.normalization is \"") + normalization_name(c.normalization);
  switch (presence) {
    case Presence::normalization_weight: return normalization + "\" (ln*.w needs \"LN\" or \"RMS\")";
    case Presence::layer_norm_bias: return normalization + "\" (ln*.b needs \"LN\")";
    case Presence::ungrouped:
      return "config.n_key_value_heads is " + std::to_string(c.n_key_value_heads) +
             " (grouped heads are stored as attn._W_K, _W_V, _b_K, _b_V)";
    case Presence::grouped: return "config.n_key_value_heads is 0 (no grouped key-value heads)";
    default: return std::string("config.positional_embedding is \"") + positions_name(c.positions) + "\"";
  }
}

bool stored_by_other_row(const TransformerConfig& c, const TensorLayout& row) {
  for (const TensorLayout& other : kTransformerLayout) {
    if (&other == &row || other.role == Role::buffer || !present(c, other.presence)) continue;
    if ((row.model && other.model == row.model) || (row.layer && other.layer == row.layer) ||
        (row.heads && other.heads == row.heads))
      return true;
  }
  return false;
}

bool per_layer(const TensorLayout& row) { return starts_with_prefix(row.name); }

const char* layer_suffix(const TensorLayout& row) { return per_layer(row) ? row.name + kPrefixLength : row.name; }

std::string tensor_name(const TensorLayout& row, int layer) {
  if (!per_layer(row)) return row.name;
  return "blocks." + std::to_string(layer) + "." + layer_suffix(row);
}

std::string shape_text(const TensorLayout& row) {
  std::string out = "[";
  for (int i = 0; i < row.shape.rank; ++i) out += (i ? ", " : "") + std::string(dim_name(row.shape.dims[i]));
  return out + "]";
}

std::vector<std::int64_t> tensor_shape(const TransformerConfig& c, const TensorLayout& row) {
  std::vector<std::int64_t> out;
  for (int i = 0; i < row.shape.rank; ++i) out.push_back(dim_size(c, row.shape.dims[i]));
  return out;
}

long long stack_size(const TransformerConfig& c, const TensorLayout& row) {
  return row.shape.rank == 3 ? dim_size(c, row.shape.dims[0]) : 0;
}

// [n] → 1 × n, [r, c] → r × c, [H, r, c] → each head r × c.
Eigen::Index matrix_rows(const TransformerConfig& c, const TensorLayout& row) {
  const int rank = row.shape.rank;
  return rank < 2 ? 1 : static_cast<Eigen::Index>(dim_size(c, row.shape.dims[rank - 2]));
}

Eigen::Index matrix_cols(const TransformerConfig& c, const TensorLayout& row) {
  const int rank = row.shape.rank;
  return rank < 1 ? 1 : static_cast<Eigen::Index>(dim_size(c, row.shape.dims[rank - 1]));
}

Matrix* matrix_of(TransformerWeights& w, const TensorLayout& row, int layer) {
  if (row.model) return &(w.*row.model);
  if (row.layer) return &(w.layers[static_cast<std::size_t>(layer)].*row.layer);
  return nullptr;
}

const Matrix* matrix_of(const TransformerWeights& w, const TensorLayout& row, int layer) {
  return matrix_of(const_cast<TransformerWeights&>(w), row, layer);
}

std::vector<Matrix>* heads_of(TransformerWeights& w, const TensorLayout& row, int layer) {
  return row.heads ? &(w.layers[static_cast<std::size_t>(layer)].*row.heads) : nullptr;
}

const std::vector<Matrix>* heads_of(const TransformerWeights& w, const TensorLayout& row, int layer) {
  return heads_of(const_cast<TransformerWeights&>(w), row, layer);
}

}  // namespace headlab::transformer
