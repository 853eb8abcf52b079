// A bring-your-own model on disk: a JSON config plus a safetensors file of TransformerLens-named
// tensors (docs/own-model.md). One reader and one writer for each.
//
// Config (all sizes integers; keys other than these are refused):
//   {"n_layers": 2, "n_heads": 4, "d_model": 64, "d_head": 16, "n_ctx": 32, "d_vocab": 48,
//    "normalization": "LN" | "LNPre" | "none",          (optional, default "none"; null means "none")
//    "positional_embedding": "standard" | "none",        (optional, default "standard")
//    "eps": 1e-5,                                        (optional, LayerNorm ε)
//    "token_names": ["a", …] }                           (optional, d_vocab strings)
//
// Tensors (TransformerLens state_dict names and shapes; H heads, d = d_model, c = d_head, V = d_vocab):
//   embed.W_E [V, d]   pos_embed.W_pos [n_ctx, d]   unembed.W_U [d, V]   unembed.b_U [V]
//   blocks.{l}.attn.W_Q / W_K / W_V [H, d, c]   W_O [H, c, d]   b_Q / b_K / b_V [H, c]   b_O [d]
//   blocks.{l}.ln1.w / .b [d]   ln_final.w / .b [d]   (normalization LN only)
//   blocks.{l}.attn.mask BOOL [n_ctx, n_ctx] (must be the causal mask) and blocks.{l}.attn.IGNORE
//   (a scalar) are TransformerLens buffers: accepted and checked, not used.
// Biases are optional (zero when absent); everything else the config implies is required.
#pragma once

#include "core/transformer.hpp"
#include "formats/json.hpp"
#include "formats/safetensors.hpp"

#include <string>

namespace headlab::formats {

constexpr std::size_t kMaxConfigBytes = 4 * 1024 * 1024;

// Throws InputError starting "config: " naming the field.
transformer::TransformerConfig transformer_config_from_json(const std::string& text);
std::string transformer_config_to_json(const transformer::TransformerConfig& config);
// The same config as a compact object inside a larger document (the inspection of formats/transformer_json.hpp).
void write_transformer_config(JsonWriter& out, const transformer::TransformerConfig& config);

// Maps a safetensors file onto the config's weights. Throws InputError naming the tensor: an
// unsupported tensor (MLP, second LayerNorm, rotary, attention-with-MLP models) or an unknown name,
// a missing tensor, a shape or layer index that disagrees with the config, a non-finite value.
// Every name, dtype and shape is checked against the config before any tensor's data is converted.
transformer::TransformerWeights transformer_weights_from_safetensors(const transformer::TransformerConfig& config,
                                                                     const SafetensorsFile& file);
// The same from a file's index: each tensor converted when it is copied into the weights, so a file
// refused for its names or shapes costs no more than its header, and at most one tensor is held as
// doubles besides the weights.
transformer::TransformerWeights transformer_weights_from_safetensors(const transformer::TransformerConfig& config,
                                                                     const SafetensorsIndex& index);
// Both steps: config text and safetensors bytes.
transformer::TransformerWeights read_transformer(const std::string& config_text, const std::uint8_t* data,
                                                 std::size_t size);

// The safetensors bytes of the weights as TransformerLens names and stacks them (F64, biases
// included, plus — with `buffers` — the attn.mask / attn.IGNORE buffers so that
// HookedTransformer.load_state_dict with strict=True accepts the file).
std::string transformer_to_safetensors(const transformer::TransformerWeights& weights, bool buffers = true);

}  // namespace headlab::formats
