// TransformerLens's own configs (formats/transformerlens_config.hpp) through the config reader's
// entry point, transformer_config_from_json. The fixtures are to_dict() as TransformerLens 3 and 4
// write it (tests/data/transformerlens_config/make_fixtures.py).
#include "formats/transformerlens_config.hpp"

#include "core/check.hpp"
#include "formats/file_io.hpp"
#include "formats/transformer_model.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::InputError;
using namespace headlab::formats;
using namespace headlab::transformer;

namespace {

std::string fixture(const std::string& name) {
  return read_text_file(std::string(HEADLAB_TEST_DATA) + "/transformerlens_config/" + name, "fixture",
                        std::size_t{1} << 20);
}

JsonValue fixture_json(const std::string& name) { return parse_json(fixture(name), name); }

// The fixture with one field set (or removed, for a null JsonValue and `remove`).
std::string with_field(const std::string& name, const std::string& key, const JsonValue& value, bool remove = false) {
  JsonValue doc = fixture_json(name);
  JsonValue::Object members = doc.members();
  if (remove) members.erase(key);
  else members[key] = value;
  return dump_json(JsonValue(members));
}

std::string refusal(const std::string& text) {
  try {
    transformer_config_from_json(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("transformerlens config: which config a document is", "[formats]") {
  CHECK(transformerlens_config_kind(fixture_json("hooked_ln.json")) == TransformerLensConfigKind::hooked);
  CHECK(transformerlens_config_kind(fixture_json("hooked_arena_induction.json")) == TransformerLensConfigKind::hooked);
  CHECK(transformerlens_config_kind(fixture_json("bridge_native.json")) == TransformerLensConfigKind::bridge);
  // headlab's own config, and the fields both share, are not TransformerLens's.
  CHECK(transformerlens_config_kind(parse_json(R"({"n_layers": 1, "n_heads": 1, "d_model": 4, "d_head": 4,
      "n_ctx": 3, "d_vocab": 5, "normalization": "LN", "eps": 1e-5})",
                                               "own")) == TransformerLensConfigKind::none);
  // One field only TransformerLens writes makes it TransformerLens's (and the rest is held to that).
  const std::string mixed = R"({"n_layers": 1, "n_heads": 1, "d_model": 4, "d_head": 4, "n_ctx": 3, "d_vocab": 5,
      "normalization": "LN", "attn_only": true})";
  CHECK(transformerlens_config_kind(parse_json(mixed, "mixed")) == TransformerLensConfigKind::hooked);
  CHECK(refusal(mixed) ==
        "config: unknown TransformerLens field \"normalization\" (headlab reads the fields "
        "HookedTransformerConfig and TransformerBridgeConfig write; a field it does not know may "
        "change the model)");
}

TEST_CASE("transformerlens config: HookedTransformerConfig.to_dict() of an attention-only model", "[formats]") {
  const TransformerConfig c = transformer_config_from_json(fixture("hooked_ln.json"));
  CHECK(c.n_layers == 2);
  CHECK(c.n_heads == 4);
  CHECK(c.d_model == 32);
  CHECK(c.d_head == 8);
  CHECK(c.n_ctx == 24);
  CHECK(c.d_vocab == 32);
  CHECK(c.normalization == Normalization::layer_norm);
  CHECK(c.positions == Positions::learned);
  CHECK(c.layer_norm_eps == 1e-5);
  CHECK(c.token_names.empty());
  // LNPre and no normalisation; eps as written.
  CHECK(transformer_config_from_json(with_field("hooked_ln.json", "normalization_type", "LNPre")).normalization ==
        Normalization::layer_norm_pre);
  CHECK(transformer_config_from_json(with_field("hooked_ln.json", "normalization_type", nullptr)).normalization ==
        Normalization::none);
  CHECK(transformer_config_from_json(with_field("hooked_ln.json", "eps", 1e-6)).layer_norm_eps == 1e-6);
  // attn_scale as __post_init__ leaves it (√d_head) and as before it (−1) are the core's default.
  CHECK(refusal(with_field("hooked_ln.json", "attn_scale", -1.0)) == "(accepted)");
}

TEST_CASE("transformerlens config: fields with no effect on an attention-only forward pass are accepted", "[formats]") {
  const TransformerConfig base = transformer_config_from_json(fixture("hooked_ln.json"));
  const std::vector<std::pair<const char*, JsonValue>> edits = {
      {"act_fn", "gelu"},
      {"d_mlp", nullptr},
      {"gated_mlp", true},
      {"seed", 398},
      {"device", "cuda"},
      {"use_attn_result", true},
      {"tokenizer_name", "gpt2"},
      {"init_mode", "xavier_uniform"},
      {"n_params", 1},
      {"dtype", "torch.bfloat16"},
      {"dtype", "torch.float64"},
      {"rotary_base", 500},
      {"window_size", 256},
      {"attn_types", JsonValue(JsonValue::Array{"global", "global"})},
      {"attn_scores_soft_cap", -1.0},
      {"output_logits_soft_cap", 0},
      {"final_rms", false},
      {"d_vocab_out", -1},
      {"n_heads", -1},
      {"uses_rms_norm", true}};
  for (const auto& [key, value] : edits) {
    INFO(key << " = " << dump_json(value));
    const TransformerConfig c = transformer_config_from_json(with_field("hooked_ln.json", key, value));
    CHECK(c.n_heads == base.n_heads);
    CHECK(c.d_model == base.d_model);
    CHECK(c.d_vocab == base.d_vocab);
    CHECK(c.normalization == base.normalization);
    CHECK(c.positions == base.positions);
    CHECK(c.attn_scale == base.attn_scale);
  }
  // A field TransformerLens gives a default may be absent (a dict written by hand).
  for (const char* key : {"act_fn", "eps", "dtype", "device", "n_heads", "attn_scale", "positional_embedding_type"}) {
    INFO(key);
    CHECK(refusal(with_field("hooked_ln.json", key, nullptr, true)) == "(accepted)");
  }
}

TEST_CASE("transformerlens config: a field asking for what the core does not compute is refused by name", "[formats]") {
  const std::vector<std::tuple<const char*, JsonValue, const char*>> cases = {
      {"attn_only", false, "config: attn_only = false asks for MLP blocks of d_mlp = 128, which headlab does not"},
      {"attn_scores_soft_cap", 50.0, "config: attn_scores_soft_cap = 50.0 asks for soft-capped attention scores"},
      {"output_logits_soft_cap", 30, "config: output_logits_soft_cap = 30 asks for soft-capped logits"},
      {"use_local_attn", true, "config: use_local_attn = true asks for local (windowed) attention"},
      {"attn_types", JsonValue(JsonValue::Array{"global", "local"}),
       "config: attn_types = [\"global\",\"local\"] asks for per-layer attention types"},
      {"use_NTK_by_parts_rope", true, "config: use_NTK_by_parts_rope = true asks for NTK-by-parts rotary scaling"},
      {"use_yarn_rope", true, "config: use_yarn_rope = true asks for YaRN rotary scaling"},
      {"rotary_scaling_factor", 8.0, "config: rotary_scaling_factor = 8.0 asks for linearly scaled rotary"},
      {"rotary_base_local", 10000, "config: rotary_base_local = 10000 asks for a second rotary base"},
      {"use_qk_norm", true, "config: use_qk_norm = true asks for RMSNorm of the queries and keys"},
      {"post_embedding_ln", true, "config: post_embedding_ln = true asks for a LayerNorm after the embedding"},
      {"use_normalization_before_and_after", true, "config: use_normalization_before_and_after = true asks for"},
      {"scale_attn_by_inverse_layer_idx", true, "config: scale_attn_by_inverse_layer_idx = true asks for scores"},
      {"parallel_attn_mlp", true, "config: parallel_attn_mlp = true asks for attention and MLP in parallel"},
      {"load_in_4bit", true, "config: load_in_4bit = true asks for 4-bit quantised weights"},
      {"relative_attention_num_buckets", 32, "config: relative_attention_num_buckets = 32 asks for relative"},
      {"positional_embedding_type", "alibi", "config: positional_embedding_type = \"alibi\" asks for ALiBi"},
      {"positional_embedding_type", "relative_positional_bias",
       "config: positional_embedding_type = \"relative_positional_bias\" is not one of \"standard\", "
       "\"shortformer\", \"rotary\""},
      {"attention_dir", "bidirectional", "config: attention_dir = \"bidirectional\": headlab computes causal"},
      {"final_rms", true, "config: final_rms = true with normalization_type = \"LN\" asks for an RMSNorm before"},
      {"d_vocab_out", 7, "config: d_vocab_out = 7 differs from d_vocab = 32"},
      {"normalization_type", "BatchNorm", "config: normalization_type = \"BatchNorm\" is not one of null, \"LN\""},
      {"dtype", "torch.int8", "config: dtype = \"torch.int8\" is not a float dtype headlab reads"},
  };
  for (const auto& [key, value, expected] : cases) {
    INFO(key << " = " << dump_json(value));
    const std::string message = refusal(with_field("hooked_ln.json", key, value));
    CHECK(message.rfind(expected, 0) == 0);
    if (message.rfind(expected, 0) != 0) WARN(message);
  }
  // attn_only absent is TransformerLens's default, false.
  CHECK(refusal(with_field("hooked_ln.json", "attn_only", nullptr, true))
            .rfind("config: attn_only = false (TransformerLens's default) asks for MLP blocks", 0) == 0);
  CHECK(refusal(fixture("hooked_mlp.json"))
            .rfind("config: attn_only = false asks for MLP blocks of d_mlp = 32, which headlab does not compute", 0) ==
        0);
}

TEST_CASE("transformerlens config: hostile and malformed values are named", "[formats]") {
  const std::vector<std::tuple<const char*, JsonValue, bool, const char*>> cases = {
      {"n_layers", "2", false, "config: n_layers = \"2\" must be an integer"},
      {"n_layers", 2.5, false, "config: n_layers = 2.5 must be an integer"},
      {"n_layers", -5, false, "config: n_layers = -5 is out of range"},
      {"n_ctx", 1000000000000LL, false, "config: n_ctx = 1000000000000 is out of range"},
      {"n_ctx", 100000, false, "config: config.n_ctx must lie in [1, 4096], got 100000"},
      {"d_model", nullptr, true, "config: d_model is missing"},
      {"d_vocab", -1, false, "config: d_vocab = -1 (not set: TransformerLens takes it from the tokenizer)"},
      {"eps", 0, false, "config: config.eps must be finite and > 0, got 0"},
      {"eps", "1e-5", false, "config: eps = \"1e-5\" must be a number"},
      {"attn_only", "true", false, "config: attn_only = \"true\" must be true/false"},
      {"device", JsonValue(JsonValue::Object{}), false, "config: device = {} must be a string or null"},
      {"attn_scale", 0, false, "config: attn_scale = 0 must be a positive number"},
      {"attn_scale", -3, false, "config: attn_scale = -3 must be a positive number"},
      {"n_key_value_heads", 3, false, "config: n_key_value_heads = 3 must divide n_heads = 4"},
      {"n_key_value_heads", 0, false, "config: n_key_value_heads = 0 is out of range"},
      {"\xff\xfe", 1, false, "config: the config is not valid JSON"},
      {"foo", 1, false, "config: unknown TransformerLens field \"foo\""},
  };
  for (const auto& [key, value, remove, expected] : cases) {
    INFO(key << " = " << dump_json(value));
    std::string text;
    try {
      text = with_field("hooked_ln.json", key, value, remove);
    } catch (const InputError&) {
      // A key that is not UTF-8 cannot be written by the JSON layer: write it by hand.
      text = fixture("hooked_ln.json");
      text.insert(text.find('{') + 1, std::string("\"") + key + "\": 1,");
    }
    const std::string message = refusal(text);
    CHECK(message.find(expected) != std::string::npos);
    if (message.find(expected) == std::string::npos) WARN(message);
  }
  // n_heads = −1 is d_model / d_head, which must divide.
  JsonValue doc = fixture_json("hooked_ln.json");
  JsonValue::Object m = doc.members();
  m["n_heads"] = -1;
  m["d_head"] = 5;
  CHECK(refusal(dump_json(JsonValue(m)))
            .rfind("config: n_heads = -1 (d_model / d_head) but d_model = 32 is not a multiple of d_head = 5", 0) == 0);
  m["d_head"] = 16;
  m["attn_scale"] = -1.0;  // √d_head of the new d_head
  CHECK(transformer_config_from_json(dump_json(JsonValue(m))).n_heads == 2);
}

TEST_CASE("transformerlens config: the bridge config of another architecture is refused", "[formats]") {
  CHECK(refusal(with_field("bridge_native.json", "architecture", "GPT2LMHeadModel"))
            .rfind("config: architecture = \"GPT2LMHeadModel\": headlab reads the TransformerBridge config of a "
                   "native model",
                   0) == 0);
  CHECK(refusal(with_field("bridge_native.json", "positional_embedding_type", "shortformer"))
            .rfind("config: positional_embedding_type = \"shortformer\" is not one of \"standard\", \"rotary\" "
                   "(TransformerBridge.boot_native's)",
                   0) == 0);
  CHECK(refusal(with_field("bridge_native.json", "rmsnorm_uses_offset", true))
            .rfind("config: rmsnorm_uses_offset = true asks for RMSNorm scaled by (1 + weight)", 0) == 0);
  CHECK(refusal(with_field("bridge_native.json", "attn_scale", 1.0))
            .rfind("config: attn_scale = 1 with d_head = 4 is unscaled attention", 0) == 0);
}

TEST_CASE("transformerlens config: positions, normalisations, grouping and scale as each version builds them",
          "[formats]") {
  // ARENA's induction model: shortformer, no normalisation, attn_scale = √64 written as 8.0.
  TransformerConfig c = transformerlens_config_fields(fixture_json("hooked_arena_induction.json"));
  CHECK(c.n_heads == 12);
  CHECK(c.d_model == 768);
  CHECK(c.d_head == 64);
  CHECK(c.n_ctx == 2048);
  CHECK(c.d_vocab == 50278);
  CHECK(c.normalization == Normalization::none);
  CHECK(c.positions == Positions::shortformer);
  CHECK(c.attn_scale == 0);
  CHECK(c.rotary_dim == 0);
  // HookedTransformer: GPT-NeoX halves (rotary_adjacent_pairs false), rotary_dim 4 of 8, base 500,
  // 2 key-value heads kept as written, use_attn_scale false: scores divided by 1.
  c = transformerlens_config_fields(fixture_json("hooked_rotary_rms_gqa.json"));
  CHECK(c.normalization == Normalization::rms);
  CHECK(c.positions == Positions::rotary);
  CHECK(c.rotary_dim == 4);
  CHECK(c.rotary_base == 500);
  CHECK_FALSE(c.rotary_adjacent_pairs);
  CHECK(c.n_key_value_heads == 2);
  CHECK(c.attn_scale == 1.0);
  const auto hooked = [](const char* key, const JsonValue& v) {
    return transformerlens_config_fields(parse_json(with_field("hooked_rotary_rms_gqa.json", key, v), "edited"));
  };
  CHECK(hooked("rotary_adjacent_pairs", true).rotary_adjacent_pairs);
  CHECK(hooked("rotary_dim", nullptr).rotary_dim == 8);  // None: d_head
  CHECK(hooked("normalization_type", "RMSPre").normalization == Normalization::rms_pre);
  CHECK(hooked("n_key_value_heads", 4).n_key_value_heads == 4);          // set: TransformerLens keeps _W_K, _W_V
  CHECK(hooked("final_rms", true).normalization == Normalization::rms);  // RMS already: no effect
  CHECK(hooked("use_attn_scale", true).attn_scale == 0);                 // attn_scale −1: √d_head
  CHECK(refusal(with_field("hooked_rotary_rms_gqa.json", "rotary_dim", 3))
            .rfind("config: rotary_dim = 3 must be even and between 2 and d_head = 8", 0) == 0);

  // TransformerBridge.boot_native: adjacent pairs always, rotary_dim None = d_head, −1 scale = √d_head.
  c = transformerlens_config_fields(fixture_json("bridge_native.json"));
  CHECK(c.normalization == Normalization::rms);
  CHECK(c.positions == Positions::rotary);
  CHECK(c.rotary_dim == 4);
  CHECK(c.rotary_base == 10000);
  CHECK(c.rotary_adjacent_pairs);
  CHECK(c.n_key_value_heads == 0);
  CHECK(c.attn_scale == 0);
  const auto bridge = [](const char* key, const JsonValue& v) {
    return transformerlens_config_fields(parse_json(with_field("bridge_native.json", key, v), "edited"));
  };
  CHECK(bridge("rotary_adjacent_pairs", false).rotary_adjacent_pairs);
  CHECK(bridge("normalization_type", "LNPre").normalization == Normalization::layer_norm);  // nn.LayerNorm
  CHECK(bridge("normalization_type", "rmspre").normalization == Normalization::rms);        // NativeRMSNorm
  CHECK(bridge("normalization_type", "ln").normalization == Normalization::layer_norm);
  CHECK(bridge("use_attn_scale", false).attn_scale == 0);  // NativeAttention: √d_head
  CHECK(bridge("attn_scale", 2.5).attn_scale == 2.5);
  CHECK(bridge("attn_scale", 2.0).attn_scale == 0);              // √4
  CHECK(bridge("n_key_value_heads", 4).n_key_value_heads == 0);  // k, v of n_heads · d_head: no grouping
  CHECK(bridge("n_key_value_heads", 2).n_key_value_heads == 2);
  CHECK(bridge("final_rms", true).normalization == Normalization::rms);
  const std::string ln = with_field("bridge_native.json", "normalization_type", "LN");
  JsonValue::Object m = parse_json(ln, "ln").members();
  m["final_rms"] = true;
  CHECK(refusal(dump_json(JsonValue(m)))
            .rfind("config: final_rms = true with normalization_type = \"LN\" asks for an RMSNorm before the "
                   "unembedding",
                   0) == 0);
  m["normalization_type"] = nullptr;
  CHECK(refusal(dump_json(JsonValue(m))).rfind("config: final_rms = true with normalization_type = null", 0) == 0);
  // HookedTransformer has no final norm without normalization_type: final_rms has no effect there.
  JsonValue::Object h = fixture_json("hooked_ln.json").members();
  h["final_rms"] = true;
  h["normalization_type"] = nullptr;
  CHECK(transformer_config_from_json(dump_json(JsonValue(h))).normalization == Normalization::none);
}
