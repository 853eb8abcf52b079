// TransformerLens 4's tensor names: the state_dict of a TransformerBridge over a native model
// (TransformerBridge.boot_native) as TransformerLens ≤ 3 names (core/transformer_layout.hpp,
// kTransformerLayout), in one table. The weights reader (formats/transformer_model.cpp) reads a
// file under either naming through it, safetensors and torch checkpoints alike; a file mixing them
// is refused.
//
// TransformerBridge.state_dict() renames NativeModel's modules to the bridge's slots
// (transformer_lens/model_bridge/supported_architectures/native.py: tok_embed → embed, pos →
// pos_embed, layers → blocks, ln_out → ln_final, head → unembed) and keeps torch's parameter
// names and shapes: nn.Linear(in, out).weight is [out, in], nn.Embedding(n, d).weight [n, d],
// nn.LayerNorm / RMSNorm weight and bias [d]. So, with H heads (H_kv key-value heads) of width c:
//   embed.weight            [V, d]       = embed.W_E
//   pos_embed.weight        [n_ctx, d]   = pos_embed.W_pos
//   blocks.{l}.ln1.weight   [d]          = blocks.{l}.ln1.w      (.bias = .b)
//   blocks.{l}.attn.q.weight [H·c, d]    : W_Q[h][i][j] = q.weight[h·c + j][i]   (k, v: H_kv; _W_K, _W_V
//   blocks.{l}.attn.q.bias  [H·c]        : b_Q[h][j]    = q.bias[h·c + j]         when grouped)
//   blocks.{l}.attn.o.weight [d, H·c]    : W_O[h][j][i] = o.weight[i][h·c + j]
//   blocks.{l}.attn.o.bias  [d]          = blocks.{l}.attn.b_O
//   ln_final.weight         [d]          = ln_final.w            (.bias = .b)
//   unembed.weight          [V, d]       : W_U[i][t]    = unembed.weight[t][i]
//   unembed.bias            [V]          = unembed.b_U           (NativeModel's head has none)
#pragma once

#include "core/transformer.hpp"
#include "formats/safetensors.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace headlab::formats {

// How a bridge tensor's elements sit relative to the layout tensor's (shapes as above).
enum class Rearrange {
  same,          // the same shape and order
  split_heads,   // [X·b] ↔ [X, b]: the same order
  heads_out_in,  // [X·b, a] ↔ [X, a, b]: an nn.Linear weight, output rows per head
  heads_in_out,  // [a, X·b] ↔ [X, b, a]: an nn.Linear weight, input columns per head
  transpose,     // [b, a] ↔ [a, b]
};

struct BridgeName {
  const char* bridge;  // TransformerLens 4 name; "blocks.{l}." is one tensor per layer
  const char* layout;  // the kTransformerLayout row it is
  Rearrange rearrange;
  // The row it is with grouped key-value heads (n_key_value_heads > 0: TransformerLens 3's _W_K,
  // _W_V, _b_K, _b_V, of n_key_value_heads heads), or nullptr when the same.
  const char* grouped_layout = nullptr;
};

// clang-format off
inline constexpr BridgeName kBridgeNames[] = {
    {"embed.weight",              "embed.W_E",           Rearrange::same},
    {"pos_embed.weight",          "pos_embed.W_pos",     Rearrange::same},
    {"blocks.{l}.ln1.weight",     "blocks.{l}.ln1.w",    Rearrange::same},
    {"blocks.{l}.ln1.bias",       "blocks.{l}.ln1.b",    Rearrange::same},
    {"blocks.{l}.attn.q.weight",  "blocks.{l}.attn.W_Q", Rearrange::heads_out_in},
    {"blocks.{l}.attn.k.weight",  "blocks.{l}.attn.W_K", Rearrange::heads_out_in, "blocks.{l}.attn._W_K"},
    {"blocks.{l}.attn.v.weight",  "blocks.{l}.attn.W_V", Rearrange::heads_out_in, "blocks.{l}.attn._W_V"},
    {"blocks.{l}.attn.o.weight",  "blocks.{l}.attn.W_O", Rearrange::heads_in_out},
    {"blocks.{l}.attn.q.bias",    "blocks.{l}.attn.b_Q", Rearrange::split_heads},
    {"blocks.{l}.attn.k.bias",    "blocks.{l}.attn.b_K", Rearrange::split_heads,  "blocks.{l}.attn._b_K"},
    {"blocks.{l}.attn.v.bias",    "blocks.{l}.attn.b_V", Rearrange::split_heads,  "blocks.{l}.attn._b_V"},
    {"blocks.{l}.attn.o.bias",    "blocks.{l}.attn.b_O", Rearrange::same},
    {"ln_final.weight",           "ln_final.w",          Rearrange::same},
    {"ln_final.bias",             "ln_final.b",          Rearrange::same},
    {"unembed.weight",            "unembed.W_U",         Rearrange::transpose},
    {"unembed.bias",              "unembed.b_U",         Rearrange::same},
};
// clang-format on

// A file's name as a bridge name: its row of kBridgeNames and the layout name it stands for
// ("blocks.1.attn.q.weight" → "blocks.1.attn.W_Q"; with `grouped` key-value heads
// "blocks.1.attn.k.weight" → "blocks.1.attn._W_K"; the layer index is copied as written), or row
// nullptr when the name is not one.
struct BridgeMatch {
  const BridgeName* row = nullptr;
  std::string layout_name;
};
BridgeMatch match_bridge_name(const std::string& name, bool grouped = false);
// The layout name back as its bridge name, for a message ("" when the table has no such row).
std::string bridge_name_of(const std::string& layout_name);

// The bridge tensor's shape for a layout shape (what the config implies, in bridge terms).
std::vector<std::int64_t> bridge_shape(Rearrange rearrange, const std::vector<std::int64_t>& layout_shape);
// A bridge tensor (name, dtype, values) as the layout tensor of that shape: `layout_name`, the
// values rearranged into the layout's row-major order. The tensor's shape must be
// bridge_shape(rearrange, layout_shape).
Tensor to_layout_tensor(const Tensor& bridge, Rearrange rearrange, const std::string& layout_name,
                        const std::vector<std::int64_t>& layout_shape);

}  // namespace headlab::formats
