// A bring-your-own model on disk: a JSON config plus a safetensors file of TransformerLens-named
// tensors (docs/own-model.md). One reader and one writer for each.
//
// Config (all sizes integers; keys other than these are refused):
//   {"n_layers": 2, "n_heads": 4, "d_model": 64, "d_head": 16, "n_ctx": 32, "d_vocab": 48,
//    "normalization": "LN" | "LNPre" | "RMS" | "RMSPre" | "none",  (optional, default "none"; null means "none")
//    "positional_embedding": "standard" | "shortformer" | "rotary" | "none",  (optional, default "standard")
//    "eps": 1e-5,                                        (optional, LayerNorm / RMSNorm ε)
//    "rotary_dim": 8, "rotary_base": 10000, "rotary_adjacent_pairs": false,  (rotary only; rotary_dim required)
//    "n_key_value_heads": 2,                             (optional, 0 or absent: no grouping)
//    "attn_scale": 4.0,                                  (optional, default √d_head)
//    "token_names": ["a", …] }                           (optional, d_vocab strings)
//
// Tensors: TransformerLens state_dict names and shapes, one row each in the table of
// core/transformer_layout.hpp (kTransformerLayout), which both the reader and the writer walk.
// Parameters the config gives the model are required, biases optional (zero when absent); a
// tensor the config does not give the model is refused. The blocks.{l}.attn.mask (must be the
// causal mask) and blocks.{l}.attn.IGNORE buffers are accepted and checked, not used.
#pragma once

#include "core/transformer.hpp"
#include "formats/json.hpp"
#include "formats/safetensors.hpp"

#include <memory>
#include <string>

namespace headlab::formats {

constexpr std::size_t kMaxConfigBytes = 4 * 1024 * 1024;

// Throws InputError starting "config: " naming the field.
transformer::TransformerConfig transformer_config_from_json(const std::string& text);
std::string transformer_config_to_json(const transformer::TransformerConfig& config);
// The same config as a compact object inside a larger document (the inspection of formats/transformer_json.hpp).
void write_transformer_config(JsonWriter& out, const transformer::TransformerConfig& config);

// Maps a safetensors file onto the config's weights: W_E and W_U are held as float32 when the file
// stores both as F32, F16 or BF16 (core/transformer_config.hpp, TransformerWeights), as float64
// otherwise; every other tensor as float64. Throws InputError naming the tensor: an
// unsupported tensor (MLP, second LayerNorm, rotary, attention-with-MLP models) or an unknown name,
// a missing tensor, a shape or layer index that disagrees with the config, a non-finite value.
// Every name, dtype and shape is checked against the config before any tensor's data is converted.
transformer::TransformerWeights transformer_weights_from_safetensors(const transformer::TransformerConfig& config,
                                                                     const SafetensorsFile& file);
// The same from a file's index: each tensor converted when it is copied into the weights, so a file
// refused for its names or shapes costs no more than its header, and at most one tensor is held as
// doubles besides the weights.
// With `owner` (what keeps the index's bytes alive), F32 W_E and W_U held as float32 read the file's
// bytes in place (core/transformer_config.hpp Float32Matrix: the weights then keep `owner`) where
// they are 4-byte aligned, rather than a copy; without it they are copied.
transformer::TransformerWeights transformer_weights_from_safetensors(const transformer::TransformerConfig& config,
                                                                     const SafetensorsIndex& index,
                                                                     std::shared_ptr<const void> owner = nullptr);
// A weights file of either format, told apart by its first bytes (not its name): a torch.save
// checkpoint (a ZIP archive, formats/torch_checkpoint.hpp) or a safetensors file, each from its
// index: names, dtypes and shapes checked before any tensor is converted, then one tensor at a
// time. `listing` receives the file's tensors without their values (what an inspection lists).
// Messages as the reader's ("torch checkpoint: …", "safetensors: …", or the tensor's).
// `owner`: as for transformer_weights_from_safetensors (a checkpoint's float32 storages are read in
// place when a tensor is its storage's contiguous row-major elements).
transformer::TransformerWeights transformer_weights_from_file(const transformer::TransformerConfig& config,
                                                              const std::uint8_t* data, std::size_t size,
                                                              SafetensorsFile& listing,
                                                              std::shared_ptr<const void> owner = nullptr);
// Both steps: config text and the weights file's bytes (either format).
transformer::TransformerWeights read_transformer(const std::string& config_text, const std::uint8_t* data,
                                                 std::size_t size);

// The safetensors bytes of the weights as TransformerLens names and stacks them (F64; W_E and W_U
// held as float32 are written F32, the same values; biases included, plus — with `buffers` — the attn.mask / attn.IGNORE buffers so that
// HookedTransformer.load_state_dict with strict=True accepts the file).
std::string transformer_to_safetensors(const transformer::TransformerWeights& weights, bool buffers = true);

}  // namespace headlab::formats
