// TransformerLens's own config, as a TransformerLens user holds it: `json.dump(model.cfg.to_dict(),
// f, default=str)` — every field of the config object, `dtype` written as the string
// "torch.float32". Two kinds, told apart by their fields:
//
//   HookedTransformerConfig (TransformerLens ≤ 3, a HookedTransformer's cfg): the dataclass's
//   fields after __post_init__ (n_heads, d_vocab_out, attn_scale = √d_head, rotary_dim, d_mlp
//   filled in), transformer_lens/config/hooked_transformer_config.py;
//   TransformerBridgeConfig (TransformerLens 4, the cfg of TransformerBridge.boot_native): the
//   same fields plus the bridge's own (architecture "TransformerLensNative", tokenizer_appends_eos,
//   …), transformer_lens/config/transformer_bridge_config.py; the model it describes is
//   transformer_lens/model_bridge/sources/native/model.py (NativeModel).
//
// Each field is read, accepted or refused:
//   read      the sizes, normalization_type, positional_embedding_type, eps, attn_only,
//             attention_dir, n_key_value_heads, use_attn_scale / attn_scale, rotary_dim /
//             rotary_base / rotary_adjacent_pairs, final_rms, d_vocab_out, dtype, architecture;
//   accepted  a field with no effect on an attention-only forward pass (the MLP's d_mlp, act_fn,
//             gated_mlp; hooks; device, seed, init; tokenizer settings; checkpoint labels; …),
//             type-checked, its value otherwise unused;
//   refused   a value asking for what the core does not compute, naming the field and its value:
//             attn_only false (MLP blocks), a soft cap > 0, local attention, ALiBi, NTK-by-parts or
//             YaRN rotary scaling, QK norm, a post-embedding LayerNorm, …
// A field this reader does not know is refused, naming it: it may change the forward pass.
//
// Where TransformerLens 3 and 4 compute different models from the same field, the reader follows
// the model that config builds:
//   attention scale  HookedTransformer divides scores by cfg.attn_scale (to_dict holds √d_head
//                    already) when use_attn_scale, else by 1; NativeAttention by attn_scale when
//                    use_attn_scale and attn_scale > 0, else by √d_head;
//   normalisation    NativeModel gives "LNPre" a LayerNorm with weights (nn.LayerNorm) and "RMSPre"
//                    an RMSNorm with a weight, and accepts the names in any case;
//   rotary           NativeRotary always rotates adjacent pairs (GPT-J), whatever
//                    rotary_adjacent_pairs says; HookedTransformer follows rotary_adjacent_pairs
//                    (false: GPT-NeoX, the first half of the rotary dimensions against the second);
//   final_rms        HookedTransformer makes the final norm RMS under "LN"/"LNPre" only;
//                    NativeModel under every normalization_type.
#pragma once

#include "core/transformer.hpp"
#include "formats/json.hpp"

namespace headlab::formats {

enum class TransformerLensConfigKind {
  none,    // not a TransformerLens config (headlab's own model.json)
  hooked,  // HookedTransformerConfig.to_dict(), TransformerLens ≤ 3
  bridge,  // TransformerBridgeConfig.to_dict(), TransformerLens 4
};

// Which config a parsed JSON object is: bridge when it has a field only TransformerBridgeConfig
// writes (architecture, tokenizer_appends_eos, …); hooked when it has a TransformerLens field that
// headlab's own config does not share (normalization_type, attn_only, act_fn, …); else none.
TransformerLensConfigKind transformerlens_config_kind(const JsonValue& doc);

// The core's config for a TransformerLens config object (kind hooked or bridge). Throws InputError
// starting "config: " naming the field and its value.
transformer::TransformerConfig transformer_config_from_transformerlens(const JsonValue& doc);
// The same config before validate_config: what the fields ask of the core, the checks above made
// but not the core's own bounds (and not whether the core computes each setting yet).
transformer::TransformerConfig transformerlens_config_fields(const JsonValue& doc);

}  // namespace headlab::formats
