// The TransformerLens layout of an attention-only transformer: every tensor of its state_dict, in
// state_dict order, one row each — its name, its shape in sizes of the config, the config setting
// that gives the model the tensor, whether a file must hold it, and where TransformerWeights keeps
// it. This one table drives zero_weights, validate_weights, named_parameters and parameter_count
// (core/transformer.cpp), the safetensors reader and writer (formats/transformer_model.cpp), the
// web binding transformerLayout() and the table of docs/own-model.md (which points here).
//
// A model with more tensor kinds (an MLP with d_mlp, say) extends this table: a Dim for each new
// size, a Presence for each new config setting, a row for each tensor.
#pragma once

#include "core/transformer_config.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace headlab::transformer {

// A size of the config, as one dimension of a tensor.
// n_key_value_heads is G (key_value_heads(config)), rotary_dim the rotated width.
enum class Dim { n_heads, d_model, d_head, n_ctx, d_vocab, n_key_value_heads, rotary_dim };

// The config setting that gives the model a tensor.
enum class Presence {
  always,
  positional_embedding,  // learned W_pos: positions "standard" or "shortformer"
  normalization_weight,  // the scale w: normalization "LN" or "RMS" ("LNPre", "RMSPre" have none)
  layer_norm_bias,       // the shift b: normalization "LN" only (RMSNorm has no b)
  ungrouped,             // one key/value per head: n_key_value_heads = 0 (W_K, W_V, b_K, b_V)
  grouped,               // grouped key-value heads: n_key_value_heads > 0 (_W_K, _W_V, _b_K, _b_V)
  rotary,                // positions "rotary" (the rotary_sin / rotary_cos buffers)
};

// What a file does with a tensor the config gives the model.
enum class Role {
  required,  // a parameter the file must hold
  optional,  // a parameter the file may leave out: zero when absent (the biases)
  buffer,    // a TransformerLens buffer, not a parameter: written, and checked when read, never stored
};

struct Shape {
  int rank;     // 0 (a scalar) … 3
  Dim dims[3];  // the first `rank` are the tensor's shape
};

// One tensor. Exactly one of model / layer / heads is set for a parameter, none for a buffer.
// In TransformerWeights a rank-1 tensor [n] is a 1 × n Matrix, a rank-2 tensor [r, c] an r × c
// Matrix, a rank-3 tensor [H, r, c] H Matrices of r × c (one per head); a tensor the config does not
// give the model is 0 × 0 (or no Matrices).
struct TensorLayout {
  const char* name;  // TransformerLens name; a name starting "blocks.{l}." is one tensor per layer l
  Shape shape;
  Presence presence;
  Role role;
  Matrix TransformerWeights::*model;
  Matrix AttentionLayerWeights::*layer;
  std::vector<Matrix> AttentionLayerWeights::*heads;
};

constexpr const char kLayerPrefix[] = "blocks.{l}.";

// The table's vocabulary: sizes, settings, roles and the two structs that keep the weights.
namespace layout_terms {
constexpr Dim H = Dim::n_heads, d = Dim::d_model, c = Dim::d_head, n_ctx = Dim::n_ctx, V = Dim::d_vocab,
              G = Dim::n_key_value_heads, r = Dim::rotary_dim;
constexpr Presence always = Presence::always, pos = Presence::positional_embedding, nw = Presence::normalization_weight,
                   nb = Presence::layer_norm_bias, mha = Presence::ungrouped, gqa = Presence::grouped,
                   rot = Presence::rotary;
constexpr Role required = Role::required, optional = Role::optional, buffer = Role::buffer;
using W = TransformerWeights;
using A = AttentionLayerWeights;

// TransformerLens's state_dict order (HookedTransformer with attn_only=True): embedding, then each
// layer's tensors (layer 0 first), then the final LayerNorm and the unembedding. Within a layer's
// attention a module's parameters come before its buffers: W_Q, W_O, b_Q, b_O (AbstractAttention),
// then W_K, W_V, b_K, b_V (Attention) or the grouped _W_K, _W_V, _b_K, _b_V (GroupedQueryAttention,
// G heads each; head h reads group h / (H / G)), then the buffers. The mask (BOOL, 1 on and below the
// diagonal), IGNORE (the masked-score fill value, −inf or −1e5) and, for rotary positions,
// rotary_sin / rotary_cos (n_ctx × rotary_dim tables of sin and cos of position × frequency) are the
// buffers HookedTransformer.load_state_dict(strict=True) wants. RMSNorm (normalization "RMS") has
// ln1.w and ln_final.w only.
// clang-format off
inline constexpr TensorLayout kTransformerLayout[] = {
    // name                      shape                presence role     TransformerWeights layer    per head
    {"embed.W_E",                  {2, {V, d}},         always, required, &W::W_E,        nullptr,  nullptr},
    {"pos_embed.W_pos",            {2, {n_ctx, d}},     pos,    required, &W::W_pos,      nullptr,  nullptr},
    {"blocks.{l}.ln1.w",           {1, {d}},            nw,     required, nullptr,        &A::ln_w, nullptr},
    {"blocks.{l}.ln1.b",           {1, {d}},            nb,     required, nullptr,        &A::ln_b, nullptr},
    {"blocks.{l}.attn.W_Q",        {3, {H, d, c}},      always, required, nullptr,        nullptr,  &A::W_Q},
    {"blocks.{l}.attn.W_O",        {3, {H, c, d}},      always, required, nullptr,        nullptr,  &A::W_O},
    {"blocks.{l}.attn.b_Q",        {2, {H, c}},         always, optional, nullptr,        &A::b_Q,  nullptr},
    {"blocks.{l}.attn.b_O",        {1, {d}},            always, optional, nullptr,        &A::b_O,  nullptr},
    {"blocks.{l}.attn.W_K",        {3, {H, d, c}},      mha,    required, nullptr,        nullptr,  &A::W_K},
    {"blocks.{l}.attn.W_V",        {3, {H, d, c}},      mha,    required, nullptr,        nullptr,  &A::W_V},
    {"blocks.{l}.attn.b_K",        {2, {H, c}},         mha,    optional, nullptr,        &A::b_K,  nullptr},
    {"blocks.{l}.attn.b_V",        {2, {H, c}},         mha,    optional, nullptr,        &A::b_V,  nullptr},
    {"blocks.{l}.attn._W_K",       {3, {G, d, c}},      gqa,    required, nullptr,        nullptr,  &A::W_K},
    {"blocks.{l}.attn._W_V",       {3, {G, d, c}},      gqa,    required, nullptr,        nullptr,  &A::W_V},
    {"blocks.{l}.attn._b_K",       {2, {G, c}},         gqa,    optional, nullptr,        &A::b_K,  nullptr},
    {"blocks.{l}.attn._b_V",       {2, {G, c}},         gqa,    optional, nullptr,        &A::b_V,  nullptr},
    {"blocks.{l}.attn.mask",       {2, {n_ctx, n_ctx}}, always, buffer,   nullptr,        nullptr,  nullptr},
    {"blocks.{l}.attn.IGNORE",     {0, {}},            always, buffer,   nullptr,        nullptr,  nullptr},
    {"blocks.{l}.attn.rotary_sin", {2, {n_ctx, r}},     rot,    buffer,   nullptr,        nullptr,  nullptr},
    {"blocks.{l}.attn.rotary_cos", {2, {n_ctx, r}},     rot,    buffer,   nullptr,        nullptr,  nullptr},
    {"ln_final.w",                 {1, {d}},            nw,     required, &W::ln_final_w, nullptr,  nullptr},
    {"ln_final.b",                 {1, {d}},            nb,     required, &W::ln_final_b, nullptr,  nullptr},
    {"unembed.W_U",                {2, {d, V}},         always, required, &W::W_U,        nullptr,  nullptr},
    {"unembed.b_U",                {1, {V}},            always, optional, &W::b_U,        nullptr,  nullptr},
};
// clang-format on
}  // namespace layout_terms
using layout_terms::kTransformerLayout;

// "n_heads", "d_model", …: the config field a dimension is.
const char* dim_name(Dim dim);
// "always", "positional_embedding", "normalization_weight", "layer_norm_bias", "ungrouped", "grouped",
// "rotary"; "required", "optional", "buffer".
const char* presence_name(Presence presence);
const char* role_name(Role role);
long long dim_size(const TransformerConfig& config, Dim dim);
// True when the config gives the model the tensors of this presence.
bool present(const TransformerConfig& config, Presence presence);
// Why a tensor of this presence is not part of the config's model, for a message:
// `config.positional_embedding is "rotary"`, `config.normalization is "LNPre" (ln*.w needs "LN" or "RMS")`.
std::string absence_reason(const TransformerConfig& config, Presence presence);

// Whether another row the config does give the model keeps its values where this row would (W_K
// and the grouped _W_K share AttentionLayerWeights::W_K): such an absent row says nothing of the weights.
bool stored_by_other_row(const TransformerConfig& config, const TensorLayout& row);
// Whether the row is one tensor per layer (its name starts "blocks.{l}.").
bool per_layer(const TensorLayout& row);
// The name after "blocks.{l}." ("attn.W_Q"); the whole name for a model-level row.
const char* layer_suffix(const TensorLayout& row);
// The tensor's name in a file: "blocks.1.attn.W_Q" for layer 1 (layer is ignored for a model-level row).
std::string tensor_name(const TensorLayout& row, int layer);
// The shape in config sizes, "[n_heads, d_model, d_head]" ("[]" for a scalar).
std::string shape_text(const TensorLayout& row);
// The shape in numbers for a config: {4, 32, 8}.
std::vector<std::int64_t> tensor_shape(const TransformerConfig& config, const TensorLayout& row);
// The number of Matrices of a rank-3 row (its first dimension: n_heads, or G for a grouped row).
long long stack_size(const TransformerConfig& config, const TensorLayout& row);
// Rows × cols of the Matrix (or of each head's Matrix) TransformerWeights keeps the tensor in.
Eigen::Index matrix_rows(const TransformerConfig& config, const TensorLayout& row);
Eigen::Index matrix_cols(const TransformerConfig& config, const TensorLayout& row);

// Where the weights keep a parameter of a row of rank ≤ 2 (nullptr for a rank-3 row or a buffer),
// and the per-head Matrices of a rank-3 row (nullptr otherwise). `layer` picks the layer of a
// per-layer row.
Matrix* matrix_of(TransformerWeights& weights, const TensorLayout& row, int layer);
const Matrix* matrix_of(const TransformerWeights& weights, const TensorLayout& row, int layer);
std::vector<Matrix>* heads_of(TransformerWeights& weights, const TensorLayout& row, int layer);
const std::vector<Matrix>* heads_of(const TransformerWeights& weights, const TensorLayout& row, int layer);

// Every (row, layer) of a config's tensors in state_dict order: model-level rows with layer −1,
// the per-layer rows once for each layer 0 … n_layers − 1 (layer outermost). Rows the config does
// not give the model are visited too; callers test present(config, row.presence).
template <class Visit>
void for_each_tensor(const TransformerConfig& config, Visit&& visit) {
  const int rows = static_cast<int>(sizeof(kTransformerLayout) / sizeof(kTransformerLayout[0]));
  for (int r = 0; r < rows; ++r) {
    if (!per_layer(kTransformerLayout[r])) {
      visit(kTransformerLayout[r], -1);
      continue;
    }
    int end = r;  // the per-layer rows are one run (checked in core/transformer_layout.cpp)
    while (end < rows && per_layer(kTransformerLayout[end])) ++end;
    for (int l = 0; l < config.n_layers; ++l)
      for (int i = r; i < end; ++i) visit(kTransformerLayout[i], l);
    r = end - 1;
  }
}

}  // namespace headlab::transformer
