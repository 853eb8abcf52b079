#!/usr/bin/env python3
"""TransformerLens config fixtures for formats/transformerlens_config.hpp (not run in CI).

TransformerLens is not installable here, so this script rebuilds what `json.dump(cfg.to_dict(), f,
default=str)` writes from TransformerLens's source (v3.5.1 and dev-4.x):
  - transformer_lens/config/transformer_lens_config.py   TransformerLensConfig (the base dataclass)
  - transformer_lens/config/hooked_transformer_config.py HookedTransformerConfig (TransformerLens ≤ 3)
  - transformer_lens/config/transformer_bridge_config.py TransformerBridgeConfig (TransformerLens 4)
  - transformer_lens/model_bridge/sources/native/        boot_native, NativeModel (sets d_mlp)
  - transformer_lens/model_bridge/sources/_bridge_builder.py  build_bridge_from_module (sets
                                                         architecture, model_name, dtype, device)
to_dict() is the object's __dict__: every field in the order __init__ first assigned it (a
dataclass assigns its fields in declaration order, a base class's first; a field a subclass
redeclares keeps the base's place), with the values __post_init__ leaves (n_heads, d_mlp,
d_vocab_out, attn_scale = √d_head, initializer_range, rotary_dim, n_params, device). dtype is a
torch.dtype, which json.dump writes through default=str: "torch.float32".

Writes:
  hooked_ln.json            HookedTransformerConfig, attn_only, LN, standard positions
                            (headlab's induction shape: 2 layers × 4 heads, d_model 32)
  hooked_ln_shortformer.json  the same with shortformer positions: the config of headlab's
                            default induction model (site/pages/data/induction-seed0.json)
  hooked_arena_induction.json  ARENA's two-layer attention-only induction model (chapter 1.2):
                            shortformer positions, no normalisation, 2 × 12 heads, d_model 768,
                            d_vocab 50,278, n_ctx 2,048
  hooked_rotary_rms_gqa.json   HookedTransformerConfig: rotary (GPT-NeoX halves, rotary_dim 4 of
                            d_head 8, base 500), RMSNorm, 2 key-value heads for 4 query heads, no
                            attention scale (use_attn_scale False)
  bridge_native.json        TransformerBridgeConfig of TransformerBridge.boot_native: attn_only,
                            rotary, RMS, seed 0
  bridge_native_ln.json     the same of a LayerNorm, learned-position model (2 layers × 3 heads,
                            d_model 8, d_head 4, n_ctx 7, d_vocab 11: the model of
                            tests/data/transformerlens_names/)
  hooked_mlp.json           HookedTransformerConfig of a model with MLP blocks (refused)
Regenerate: /usr/bin/python3 tests/data/transformerlens_config/make_fixtures.py
"""
import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))

# TransformerLensConfig's fields in declaration order, with their defaults.
BASE_FIELDS = [
    ("d_model", None), ("d_head", None), ("n_layers", None), ("n_ctx", None), ("n_heads", -1),
    ("d_mlp", None), ("d_vocab", -1), ("device", None), ("use_attn_result", False),
    ("use_split_qkv_input", False), ("default_prepend_bos", True), ("positional_embedding_type", "standard"),
    ("n_key_value_heads", None), ("attn_only", False), ("gated_mlp", False), ("uses_rms_norm", False),
    ("eps", 1e-5), ("layer_norm_folding", False), ("act_fn", "relu"), ("normalization_type", "LN"),
    ("num_experts", None), ("experts_per_token", None), ("final_rms", False), ("dtype", torch.float32),
]

# HookedTransformerConfig's own fields in declaration order (v3.5.1), with their defaults; the
# ones it redeclares from the base (act_fn, eps, normalization_type, attn_only, final_rms,
# gated_mlp, dtype, num_experts, experts_per_token) keep the base's place.
HOOKED_FIELDS = [
    ("model_name", "custom"), ("act_fn", "relu"), ("eps", 1e-5), ("use_attn_scale", True), ("attn_scale", -1.0),
    ("use_hook_mlp_in", False), ("use_attn_in", False), ("use_qk_norm", False), ("use_local_attn", False),
    ("ungroup_grouped_query_attention", False), ("original_architecture", None), ("from_checkpoint", False),
    ("checkpoint_index", None), ("checkpoint_label_type", None), ("checkpoint_value", None),
    ("tokenizer_name", None), ("window_size", None), ("attn_types", None), ("init_mode", "gpt2"),
    ("normalization_type", "LN"), ("n_devices", 1), ("attention_dir", "causal"), ("attn_only", False),
    ("seed", None), ("initializer_range", -1.0), ("init_weights", True), ("scale_attn_by_inverse_layer_idx", False),
    ("final_rms", False), ("d_vocab_out", -1), ("parallel_attn_mlp", False), ("rotary_dim", None),
    ("n_params", None), ("use_hook_tokens", False), ("gated_mlp", False), ("dtype", torch.float32),
    ("tokenizer_prepends_bos", None), ("post_embedding_ln", False), ("rotary_base", 10000),
    ("rotary_base_local", None), ("rotary_scaling_factor", 1.0), ("trust_remote_code", False),
    ("rotary_adjacent_pairs", False), ("load_in_4bit", False), ("num_experts", None), ("experts_per_token", None),
    ("relative_attention_max_distance", None), ("relative_attention_num_buckets", None),
    ("decoder_start_token_id", None), ("tie_word_embeddings", False), ("use_normalization_before_and_after", False),
    ("attn_scores_soft_cap", -1.0), ("output_logits_soft_cap", -1.0), ("use_NTK_by_parts_rope", False),
    ("NTK_by_parts_low_freq_factor", 1.0), ("NTK_by_parts_high_freq_factor", 4.0), ("NTK_by_parts_factor", 8.0),
    ("NTK_original_ctx_len", 8192), ("use_yarn_rope", False), ("yarn_factor", 1.0), ("yarn_attention_factor", 1.0),
    ("yarn_beta_fast", 32.0), ("yarn_beta_slow", 1.0), ("yarn_original_max_position_embeddings", 4096),
    ("norm_topk_prob", False),
]

# TransformerBridgeConfig.__init__'s assignments after super().__init__, in order (dev-4.x).
BRIDGE_FIELDS = [
    ("architecture", None), ("tokenizer_prepends_bos", True), ("tokenizer_appends_eos", False),
    ("default_padding_side", None), ("split_attention_weights", False), ("model_name", "custom"),
    ("act_fn", "relu"), ("eps", 1e-5), ("use_attn_scale", True), ("attn_scale", -1.0), ("use_hook_mlp_in", False),
    ("use_attn_in", False), ("use_qk_norm", False), ("use_local_attn", False),
    ("ungroup_grouped_query_attention", False), ("original_architecture", None), ("from_checkpoint", False),
    ("checkpoint_index", None), ("checkpoint_label_type", None), ("checkpoint_value", None),
    ("tokenizer_name", None), ("window_size", None), ("attn_types", None), ("init_mode", "gpt2"),
    ("normalization_type", "LN"), ("n_devices", 1), ("attention_dir", "causal"), ("attn_only", False),
    ("seed", None), ("initializer_range", -1.0), ("init_weights", True), ("scale_attn_by_inverse_layer_idx", False),
    ("final_rms", False), ("d_vocab_out", -1), ("parallel_attn_mlp", False), ("rotary_dim", None),
    ("n_params", None), ("use_hook_tokens", False), ("gated_mlp", False), ("dtype", torch.float32),
    ("post_embedding_ln", False), ("rotary_base", 10000), ("trust_remote_code", False),
    ("rotary_adjacent_pairs", False), ("load_in_4bit", False), ("num_experts", None), ("experts_per_token", None),
    ("n_key_value_heads", None), ("relative_attention_max_distance", None),
    ("relative_attention_num_buckets", None), ("decoder_start_token_id", None), ("tie_word_embeddings", False),
    ("use_normalization_before_and_after", False), ("attn_scores_soft_cap", -1.0),
    ("output_logits_soft_cap", -1.0), ("use_NTK_by_parts_rope", False), ("NTK_by_parts_low_freq_factor", 1.0),
    ("NTK_by_parts_high_freq_factor", 4.0), ("NTK_by_parts_factor", 8.0), ("rmsnorm_uses_offset", False),
    ("attn_implementation", None), ("is_audio_model", False), ("is_stateful", False), ("is_multimodal", False),
    ("vision_hidden_size", None), ("vision_num_layers", None), ("vision_num_heads", None),
    ("mm_tokens_per_image", None),
]


def assign(fields, given, out):
    for name, default in fields:
        out[name] = given.get(name, default)


def base_post_init(d):
    # TransformerLensConfig.__post_init__
    if d["n_heads"] == -1:
        d["n_heads"] = d["d_model"] // d["d_head"]
    if d["device"] is None:
        d["device"] = "cpu"
    if d["d_mlp"] is None:
        d["d_mlp"] = d["d_model"] * 4


def hooked_to_dict(**given):
    d = {}
    assign(BASE_FIELDS, given, d)
    assign(HOOKED_FIELDS, given, d)
    base_post_init(d)
    # HookedTransformerConfig.__post_init__
    if d["initializer_range"] < 0:
        d["initializer_range"] = 0.8 / math.sqrt(d["d_model"]) if d["init_mode"] == "gpt2" else 1.0
    if d["d_vocab_out"] == -1:
        d["d_vocab_out"] = d["d_vocab"]
    if d["positional_embedding_type"] == "rotary" and d["rotary_dim"] is None:
        d["rotary_dim"] = d["d_head"]
    d["n_params"] = d["n_layers"] * d["d_model"] * d["d_head"] * d["n_heads"] * 4
    if not d["attn_only"]:
        d["n_params"] += d["n_layers"] * d["d_model"] * d["d_mlp"] * (2 + d["gated_mlp"])
    if d["use_attn_scale"] and d["attn_scale"] == -1.0:
        d["attn_scale"] = math.sqrt(d["d_head"])  # np.sqrt: the same correctly rounded double
    return d


def bridge_native_to_dict(**given):
    d = {}
    # super().__init__ gets d_model, d_head, n_layers, n_ctx, d_vocab, n_heads and **kwargs (the
    # arguments __init__ does not name: positional_embedding_type, d_mlp, use_attn_result, …); the
    # base's other fields take their defaults, then __init__ assigns its own.
    own = {name for name, _ in BRIDGE_FIELDS}
    assign(BASE_FIELDS, {k: v for k, v in given.items() if k not in own}, d)
    assign(BRIDGE_FIELDS, given, d)
    d["rotary_base"] = int(d["rotary_base"])
    base_post_init(d)
    # build_bridge_from_module: architecture, model_name, dtype (the first parameter's), device
    d["architecture"] = "TransformerLensNative"
    d["model_name"] = "native"
    d["dtype"] = given.get("dtype", torch.float32)
    d["device"] = "cpu"
    return d


def write(name, d):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(d, f, indent=2, default=str)
        f.write("\n")


def main():
    write("hooked_ln.json", hooked_to_dict(
        n_layers=2, n_heads=4, d_model=32, d_head=8, n_ctx=24, d_vocab=32, attn_only=True,
        normalization_type="LN", positional_embedding_type="standard", act_fn=None))
    write("hooked_ln_shortformer.json", hooked_to_dict(
        n_layers=2, n_heads=4, d_model=32, d_head=8, n_ctx=24, d_vocab=32, attn_only=True,
        normalization_type="LN", positional_embedding_type="shortformer", act_fn=None))
    write("hooked_arena_induction.json", hooked_to_dict(
        d_model=768, d_head=64, n_heads=12, n_layers=2, n_ctx=2048, d_vocab=50278, attention_dir="causal",
        attn_only=True, tokenizer_name="EleutherAI/gpt-neox-20b", seed=398, use_attn_result=True,
        normalization_type=None, positional_embedding_type="shortformer"))
    write("hooked_rotary_rms_gqa.json", hooked_to_dict(
        n_layers=2, n_heads=4, d_model=16, d_head=8, n_ctx=12, d_vocab=10, attn_only=True,
        normalization_type="RMS", positional_embedding_type="rotary", rotary_dim=4, rotary_base=500,
        n_key_value_heads=2, use_attn_scale=False, dtype=torch.float64))
    write("bridge_native.json", bridge_native_to_dict(
        n_layers=2, n_heads=4, d_model=16, d_head=4, n_ctx=12, d_vocab=10, attn_only=True,
        normalization_type="RMS", positional_embedding_type="rotary", seed=0))
    write("bridge_native_ln.json", bridge_native_to_dict(
        n_layers=2, n_heads=3, d_model=8, d_head=4, n_ctx=7, d_vocab=11, attn_only=True,
        normalization_type="LN", positional_embedding_type="standard", seed=1))
    write("hooked_mlp.json", hooked_to_dict(
        n_layers=1, n_heads=2, d_model=8, d_head=4, n_ctx=6, d_vocab=5, act_fn="gelu"))


if __name__ == "__main__":
    main()
