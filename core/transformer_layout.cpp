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
    default: return "d_vocab";
  }
}

const char* presence_name(Presence presence) {
  switch (presence) {
    case Presence::positional_embedding: return "positional_embedding";
    case Presence::layer_norm_weights: return "layer_norm_weights";
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
    default: return c.d_vocab;
  }
}

bool present(const TransformerConfig& c, Presence presence) {
  switch (presence) {
    case Presence::positional_embedding: return c.positional_embedding;
    case Presence::layer_norm_weights: return c.normalization == Normalization::layer_norm;
    default: return true;
  }
}

std::string absence_reason(const TransformerConfig& c, Presence presence) {
  if (presence == Presence::positional_embedding) return "config.positional_embedding is \"none\"";
  return std::string("config.normalization is \"") + normalization_name(c.normalization) +
         "\" (LayerNorm weights need \"LN\")";
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
