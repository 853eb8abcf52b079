#include "formats/transformerlens_config.hpp"

#include "core/check.hpp"

#include <cmath>
#include <string>

namespace headlab::formats {

using transformer::Normalization;
using transformer::Positions;
using transformer::TransformerConfig;
using Kind = TransformerLensConfigKind;

namespace {

// JSON types a field may hold.
enum Types : unsigned {
  t_null = 1,
  t_bool = 2,
  t_int = 4,     // an integer
  t_number = 8,  // any number (integers too: Python writes 10000 for rotary_base = 10000)
  t_string = 16,
  t_list = 32,
  t_object = 64,
};

enum class Use {
  read,      // the reader maps it (config_from below)
  accepted,  // no effect on an attention-only forward pass: type-checked, otherwise unused
  refused,   // refused when `asks` says the value asks for something the core does not compute
};

// What a refused field's value asks for, or nullptr when it asks for nothing (TransformerLens's
// default, or a value with the default's meaning).
using Asks = const char* (*)(const JsonValue&);

struct Field {
  const char* name;
  unsigned types;
  Use use;
  Asks asks = nullptr;
  bool bridge_only = false;  // written only by TransformerBridgeConfig
};

const char* when_true(const JsonValue& v, const char* what) { return v.is_boolean() && v.as_bool() ? what : nullptr; }
// TransformerLens's soft caps are on for a value > 0 (off: −1, 0 or None).
const char* when_positive(const JsonValue& v, const char* what) {
  return v.is_number() && v.as_double() > 0 ? what : nullptr;
}
const char* when_set(const JsonValue& v, const char* what) { return v.is_null() ? nullptr : what; }

// clang-format off
// Every field HookedTransformerConfig (TransformerLens 2.x and 3.x, with its base
// TransformerLensConfig) and TransformerBridgeConfig (TransformerLens 4) write in to_dict().
const Field kFields[] = {
    // sizes and the settings the core computes
    {"n_layers", t_int, Use::read},
    {"n_heads", t_int, Use::read},
    {"d_model", t_int, Use::read},
    {"d_head", t_int, Use::read},
    {"n_ctx", t_int, Use::read},
    {"d_vocab", t_int, Use::read},
    {"d_vocab_out", t_int, Use::read},
    {"eps", t_number, Use::read},
    {"normalization_type", t_string | t_null, Use::read},
    {"positional_embedding_type", t_string, Use::read},
    {"attn_only", t_bool, Use::read},
    {"attention_dir", t_string, Use::read},
    {"n_key_value_heads", t_int | t_null, Use::read},
    {"use_attn_scale", t_bool, Use::read},
    {"attn_scale", t_number, Use::read},
    {"rotary_dim", t_int | t_null, Use::read},
    {"rotary_base", t_number, Use::read},
    {"rotary_adjacent_pairs", t_bool, Use::read},
    {"final_rms", t_bool, Use::read},
    {"dtype", t_string | t_null, Use::read},
    {"architecture", t_string | t_null, Use::read, nullptr, true},
    // the MLP's settings: no effect in an attention-only model (attn_only false is refused)
    {"d_mlp", t_int | t_null, Use::accepted},
    {"act_fn", t_string | t_null, Use::accepted},
    {"gated_mlp", t_bool, Use::accepted},
    {"num_experts", t_int | t_null, Use::accepted},
    {"experts_per_token", t_int | t_null, Use::accepted},
    {"norm_topk_prob", t_bool, Use::accepted},
    {"use_hook_mlp_in", t_bool, Use::accepted},
    // hooks, devices, initialisation, tokenizer and checkpoint labels
    {"model_name", t_string | t_null, Use::accepted},
    {"device", t_string | t_null, Use::accepted},
    {"n_devices", t_int, Use::accepted},
    {"use_attn_result", t_bool, Use::accepted},
    {"use_split_qkv_input", t_bool, Use::accepted},
    {"use_attn_in", t_bool, Use::accepted},
    {"use_hook_tokens", t_bool, Use::accepted},
    {"ungroup_grouped_query_attention", t_bool, Use::accepted},
    {"default_prepend_bos", t_bool, Use::accepted},
    {"tokenizer_prepends_bos", t_bool | t_null, Use::accepted},
    {"tokenizer_name", t_string | t_null, Use::accepted},
    {"original_architecture", t_string | t_null, Use::accepted},
    {"from_checkpoint", t_bool, Use::accepted},
    {"checkpoint_index", t_int | t_null, Use::accepted},
    {"checkpoint_label_type", t_string | t_null, Use::accepted},
    {"checkpoint_value", t_int | t_null, Use::accepted},
    {"init_mode", t_string, Use::accepted},
    {"seed", t_int | t_null, Use::accepted},
    {"initializer_range", t_number, Use::accepted},
    {"init_weights", t_bool, Use::accepted},
    {"n_params", t_int | t_null, Use::accepted},
    {"trust_remote_code", t_bool, Use::accepted},
    {"uses_rms_norm", t_bool, Use::accepted},        // TransformerLensConfig's; normalization_type decides
    {"layer_norm_folding", t_bool, Use::accepted},   // a processing flag; the weights are what they are
    {"window_size", t_int | t_null, Use::accepted},  // read only with use_local_attn (refused)
    {"decoder_start_token_id", t_int | t_null, Use::accepted},  // encoder-decoder models
    {"tie_word_embeddings", t_bool, Use::accepted},  // W_E and W_U are both in the state_dict
    // the parameters of rotary scalings whose switches are refused below
    {"NTK_by_parts_low_freq_factor", t_number, Use::accepted},
    {"NTK_by_parts_high_freq_factor", t_number, Use::accepted},
    {"NTK_by_parts_factor", t_number, Use::accepted},
    {"NTK_original_ctx_len", t_int, Use::accepted},
    {"yarn_factor", t_number, Use::accepted},
    {"yarn_attention_factor", t_number, Use::accepted},
    {"yarn_beta_fast", t_number, Use::accepted},
    {"yarn_beta_slow", t_number, Use::accepted},
    {"yarn_original_max_position_embeddings", t_int, Use::accepted},
    // what the core does not compute
    {"use_local_attn", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "local (windowed) attention"); }},
    {"attn_types", t_list | t_null, Use::refused,
     [](const JsonValue& v) -> const char* {
       if (!v.is_array()) return nullptr;
       for (const auto& t : v.items())
         if (!t.is_string() || t.as_string() != "global") return "per-layer attention types other than \"global\"";
       return nullptr;
     }},
    {"attn_scores_soft_cap", t_number | t_null, Use::refused,
     [](const JsonValue& v) { return when_positive(v, "soft-capped attention scores (c·tanh(score / c))"); }},
    {"output_logits_soft_cap", t_number | t_null, Use::refused,
     [](const JsonValue& v) { return when_positive(v, "soft-capped logits (c·tanh(logit / c))"); }},
    {"use_NTK_by_parts_rope", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "NTK-by-parts rotary scaling"); }},
    {"use_yarn_rope", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "YaRN rotary scaling"); }},
    {"rotary_scaling_factor", t_number, Use::refused,
     [](const JsonValue& v) -> const char* {
       return v.is_number() && v.as_double() != 1.0 ? "linearly scaled rotary frequencies" : nullptr;
     }},
    {"rotary_base_local", t_number | t_null, Use::refused,
     [](const JsonValue& v) { return when_set(v, "a second rotary base for local layers"); }},
    {"rope_scaling", t_object | t_null, Use::refused,
     [](const JsonValue& v) { return when_set(v, "scaled rotary frequencies"); }},
    {"use_qk_norm", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "RMSNorm of the queries and keys"); }},
    {"post_embedding_ln", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "a LayerNorm after the embedding"); }},
    {"use_normalization_before_and_after", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "a normalisation after each attention layer too"); }},
    {"scale_attn_by_inverse_layer_idx", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "scores divided by the layer number too"); }},
    {"parallel_attn_mlp", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "attention and MLP in parallel"); }},
    {"load_in_4bit", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "4-bit quantised weights"); }},
    {"relative_attention_max_distance", t_int | t_null, Use::refused,
     [](const JsonValue& v) { return when_set(v, "relative attention (T5)"); }},
    {"relative_attention_num_buckets", t_int | t_null, Use::refused,
     [](const JsonValue& v) { return when_set(v, "relative attention (T5)"); }},
    // TransformerBridgeConfig's own fields
    {"tokenizer_appends_eos", t_bool, Use::accepted, nullptr, true},
    {"default_padding_side", t_string | t_null, Use::accepted, nullptr, true},
    {"split_attention_weights", t_bool, Use::accepted, nullptr, true},
    {"uses_split_attention", t_bool, Use::accepted, nullptr, true},
    {"attn_implementation", t_string | t_null, Use::accepted, nullptr, true},
    {"vision_hidden_size", t_int | t_null, Use::accepted, nullptr, true},
    {"vision_num_layers", t_int | t_null, Use::accepted, nullptr, true},
    {"vision_num_heads", t_int | t_null, Use::accepted, nullptr, true},
    {"mm_tokens_per_image", t_int | t_null, Use::accepted, nullptr, true},
    {"rmsnorm_uses_offset", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "RMSNorm scaled by (1 + weight)"); }, true},
    {"is_audio_model", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "an audio model"); }, true},
    {"is_stateful", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "a stateful (state-space) model"); }, true},
    {"is_multimodal", t_bool, Use::refused,
     [](const JsonValue& v) { return when_true(v, "a multimodal model"); }, true},
};
// clang-format on

// Fields headlab's own config shares with TransformerLens's (same name): their presence alone
// does not make a document a TransformerLens config.
const char* const kSharedFields[] = {
    "n_layers",          "n_heads",   "d_model",    "d_head",      "n_ctx",
    "d_vocab",           "eps",       "rotary_dim", "rotary_base", "rotary_adjacent_pairs",
    "n_key_value_heads", "attn_scale"};

const Field* find_field(const std::string& name) {
  for (const auto& f : kFields)
    if (name == f.name) return &f;
  return nullptr;
}

bool shared(const std::string& name) {
  for (const char* s : kSharedFields)
    if (name == s) return true;
  return false;
}

std::string short_text(const std::string& s) {
  std::string out;
  for (char ch : s.substr(0, 60)) out += (ch >= 32 && ch < 127) ? ch : '?';
  return s.size() > 60 ? out + "…" : out;
}

// A value as JSON text, shortened for a message.
std::string shown(const JsonValue& v) { return short_text(dump_json(v)); }

[[noreturn]] void fail(const std::string& message) { throw InputError("config: " + message); }

std::string types_text(unsigned types) {
  std::string out;
  const auto add = [&](unsigned t, const char* name) {
    if (types & t) out += (out.empty() ? "" : " or ") + std::string(name);
  };
  add(t_int, "an integer");
  add(t_number & ~t_int, "a number");
  add(t_bool, "true/false");
  add(t_string, "a string");
  add(t_list, "a list");
  add(t_object, "an object");
  add(t_null, "null");
  return out;
}

bool has_type(const JsonValue& v, unsigned types) {
  switch (v.kind()) {
    case JsonValue::Kind::null: return types & t_null;
    case JsonValue::Kind::boolean: return types & t_bool;
    case JsonValue::Kind::integer:
    case JsonValue::Kind::unsigned_integer: return types & (t_int | t_number);
    case JsonValue::Kind::number: return types & t_number;
    case JsonValue::Kind::string: return types & t_string;
    case JsonValue::Kind::array: return types & t_list;
    case JsonValue::Kind::object: return types & t_object;
  }
  return false;
}

// The document's fields, each checked against the table: known, of its type, not asking for what
// the core does not compute.
void check_fields(const JsonValue& doc) {
  for (const auto& [name, value] : doc.members()) {
    const Field* f = find_field(name);
    if (!f) {
      fail("unknown TransformerLens field \"" + short_text(name) +
           "\" (headlab reads the fields HookedTransformerConfig and TransformerBridgeConfig write; a field it "
           "does not know may change the model)");
    }
    if (!has_type(value, f->types)) {
      fail(std::string(f->name) + " = " + shown(value) + " must be " + types_text(f->types));
    }
    if (f->use == Use::refused) {
      if (const char* what = f->asks(value)) {
        fail(std::string(f->name) + " = " + shown(value) + " asks for " + what +
             ", which headlab does not compute (it reads attention-only transformers: embedding, attention "
             "layers, unembedding)");
      }
    }
  }
}

// A size: a positive integer (≤ 10⁶ here; the core's own limits are checked after). `fallback`
// is TransformerLens's default when the field is absent (0: required).
int size_field(const JsonValue& doc, const char* name, long long fallback = 0) {
  const JsonValue* v = doc.find(name);
  if (!v) {
    if (fallback == 0) fail(std::string(name) + " is missing");
    return static_cast<int>(fallback);
  }
  const long long x = v->kind() == JsonValue::Kind::integer ? v->as_integer()
                      : v->as_unsigned() > 1000000          ? 1000001
                                                            : static_cast<long long>(v->as_unsigned());
  if (x == -1) return -1;  // TransformerLens's "not set"; the caller decides
  if (x < 1 || x > 1000000) fail(std::string(name) + " = " + shown(*v) + " is out of range");
  return static_cast<int>(x);
}

bool bool_field(const JsonValue& doc, const char* name, bool fallback) {
  const JsonValue* v = doc.find(name);
  return v ? v->as_bool() : fallback;
}

// A field as a string, or `fallback` when absent (nullptr: absent or null).
const JsonValue* value_of(const JsonValue& doc, const char* name) {
  const JsonValue* v = doc.find(name);
  return v && !v->is_null() ? v : nullptr;
}

double number_field(const JsonValue& doc, const char* name, double fallback) {
  const JsonValue* v = doc.find(name);
  return v ? v->as_double() : fallback;
}

std::string upper(std::string s) {
  for (char& ch : s)
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  return s;
}

// What the config asks of the core, before it is written into a TransformerConfig.
struct Settings {
  std::string normalization;  // "", "LN", "LNPre", "RMS", "RMSPre"
  std::string positions;      // "standard", "shortformer", "rotary"
  int rotary_dim = 0;
  double rotary_base = 10000;
  bool rotary_adjacent_pairs = false;
  int n_key_value_heads = 0;  // 0: no grouping
  double attn_scale = 0;      // 0: √d_head
};

// The core's config for the settings (validate_config then names what the core does not compute).
TransformerConfig core_config(TransformerConfig c, const Settings& s) {
  c.normalization = s.normalization == "LN"       ? Normalization::layer_norm
                    : s.normalization == "LNPre"  ? Normalization::layer_norm_pre
                    : s.normalization == "RMS"    ? Normalization::rms
                    : s.normalization == "RMSPre" ? Normalization::rms_pre
                                                  : Normalization::none;
  c.positions = s.positions == "shortformer" ? Positions::shortformer
                : s.positions == "rotary"    ? Positions::rotary
                                             : Positions::learned;
  c.rotary_dim = s.rotary_dim;
  c.rotary_base = s.rotary_base;
  c.rotary_adjacent_pairs = s.rotary_adjacent_pairs;
  c.n_key_value_heads = s.n_key_value_heads;
  c.attn_scale = s.attn_scale;
  return c;
}

}  // namespace

Kind transformerlens_config_kind(const JsonValue& doc) {
  if (!doc.is_object()) return Kind::none;
  bool transformerlens = false;
  for (const auto& member : doc.members()) {
    const Field* f = find_field(member.first);
    if (f && f->bridge_only) return Kind::bridge;
    if (f && !shared(member.first)) transformerlens = true;
  }
  return transformerlens ? Kind::hooked : Kind::none;
}

TransformerConfig transformer_config_from_transformerlens(const JsonValue& doc) {
  TransformerConfig c = transformerlens_config_fields(doc);
  try {
    transformer::validate_config(c);
  } catch (const InputError& e) {
    fail(e.what());
  }
  return c;
}

TransformerConfig transformerlens_config_fields(const JsonValue& doc) {
  const Kind kind = transformerlens_config_kind(doc);
  if (kind == Kind::none) fail("is not a TransformerLens config");
  const bool bridge = kind == Kind::bridge;
  check_fields(doc);

  if (bridge) {
    if (const JsonValue* a = value_of(doc, "architecture"); a && a->as_string() != "TransformerLensNative") {
      fail("architecture = " + shown(*a) +
           ": headlab reads the TransformerBridge config of a native model (TransformerBridge.boot_native, "
           "architecture \"TransformerLensNative\"); a bridge over another architecture names its tensors its own "
           "way");
    }
  }
  if (!bool_field(doc, "attn_only", false)) {
    const JsonValue* d_mlp = value_of(doc, "d_mlp");
    fail(std::string("attn_only = false") + (doc.find("attn_only") ? "" : " (TransformerLens's default)") +
         " asks for MLP blocks" + (d_mlp ? " of d_mlp = " + shown(*d_mlp) : std::string()) +
         ", which headlab does not compute: it reads attention-only transformers (attn_only = true)");
  }
  if (const JsonValue* dir = doc.find("attention_dir"); dir && dir->as_string() != "causal") {
    fail("attention_dir = " + shown(*dir) + ": headlab computes causal attention only (\"causal\")");
  }

  TransformerConfig c;
  c.n_layers = size_field(doc, "n_layers");
  c.d_model = size_field(doc, "d_model");
  c.d_head = size_field(doc, "d_head");
  c.n_ctx = size_field(doc, "n_ctx");
  c.n_heads = size_field(doc, "n_heads", -1);
  if (c.n_heads == -1 || c.d_model == -1 || c.d_head == -1 || c.n_layers == -1 || c.n_ctx == -1) {
    if (c.d_model < 1 || c.d_head < 1 || c.n_layers < 1 || c.n_ctx < 1) {
      fail("n_layers, d_model, d_head and n_ctx must be set (−1 means \"not set\")");
    }
    // TransformerLens's default: n_heads = d_model / d_head.
    if (c.d_model % c.d_head != 0) {
      fail("n_heads = -1 (d_model / d_head) but d_model = " + std::to_string(c.d_model) +
           " is not a multiple of d_head = " + std::to_string(c.d_head));
    }
    c.n_heads = c.d_model / c.d_head;
  }
  c.d_vocab = size_field(doc, "d_vocab", -1);
  if (c.d_vocab == -1) {
    fail("d_vocab = -1 (not set: TransformerLens takes it from the tokenizer); write the vocabulary size");
  }
  if (const JsonValue* out = doc.find("d_vocab_out")) {
    const long long n =
        out->kind() == JsonValue::Kind::integer ? out->as_integer() : static_cast<long long>(out->as_unsigned());
    // TransformerLens's "not set": −1 (HookedTransformerConfig), ≤ 0 (NativeModel).
    const bool unset = bridge ? n <= 0 : n == -1;
    if (!unset && n != c.d_vocab) {
      fail("d_vocab_out = " + shown(*out) + " differs from d_vocab = " + std::to_string(c.d_vocab) +
           ": headlab's unembedding writes the input vocabulary");
    }
  }
  c.layer_norm_eps = number_field(doc, "eps", 1e-5);
  c.token_names.clear();

  Settings s;
  // normalization_type: null, "LN", "LNPre", "RMS", "RMSPre" (TransformerLens's default "LN").
  if (const JsonValue* n = doc.find("normalization_type"); !n || !n->is_null()) {
    const std::string given = n ? n->as_string() : "LN";
    const std::string key = bridge ? upper(given) : given;
    if (key == "LN") s.normalization = "LN";
    else if (key == "LNPre" || key == "LNPRE") s.normalization = bridge ? "LN" : "LNPre";  // NativeModel: nn.LayerNorm
    else if (key == "RMS") s.normalization = "RMS";
    else if (key == "RMSPre" || key == "RMSPRE") s.normalization = bridge ? "RMS" : "RMSPre";  // NativeRMSNorm
    else fail("normalization_type = " + shown(*n) + " is not one of null, \"LN\", \"LNPre\", \"RMS\", \"RMSPre\"");
  }
  if (bool_field(doc, "final_rms", false)) {
    const bool rms = s.normalization == "RMS" || s.normalization == "RMSPre";
    // HookedTransformer: RMS final norm under LN / LNPre, no effect otherwise; NativeModel: always.
    const bool changes = bridge ? !rms : (s.normalization == "LN" || s.normalization == "LNPre");
    if (changes) {
      fail("final_rms = true with normalization_type = " +
           shown(doc.find("normalization_type") ? *doc.find("normalization_type") : JsonValue("LN")) +
           " asks for an RMSNorm before the unembedding and another normalisation in the blocks; headlab uses one "
           "normalisation throughout");
    }
  }
  // positional_embedding_type: "standard", "shortformer", "rotary" (NativeModel: any case, no shortformer).
  {
    const JsonValue* p = doc.find("positional_embedding_type");
    const std::string given = p ? p->as_string() : "standard";
    std::string key = given;
    if (bridge)
      for (char& ch : key)
        if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    if (key == "standard" || key == "rotary" || (key == "shortformer" && !bridge)) {
      s.positions = key;
    } else if (key == "alibi") {
      fail("positional_embedding_type = \"alibi\" asks for ALiBi attention biases, which headlab does not compute");
    } else {
      fail("positional_embedding_type = " + shown(*p) + " is not one of " +
           (bridge ? "\"standard\", \"rotary\" (TransformerBridge.boot_native's)"
                   : "\"standard\", \"shortformer\", \"rotary\""));
    }
  }
  if (s.positions == "rotary") {
    const JsonValue* rd = value_of(doc, "rotary_dim");
    s.rotary_dim = rd ? size_field(doc, "rotary_dim") : c.d_head;  // TransformerLens: None means d_head
    if (s.rotary_dim < 2 || s.rotary_dim % 2 != 0 || s.rotary_dim > c.d_head) {
      fail("rotary_dim = " + std::to_string(s.rotary_dim) +
           " must be even and between 2 and d_head = " + std::to_string(c.d_head));
    }
    s.rotary_base = number_field(doc, "rotary_base", 10000);  // its bounds: validate_config
    // NativeRotary rotates adjacent pairs whatever the field says.
    s.rotary_adjacent_pairs = bridge || bool_field(doc, "rotary_adjacent_pairs", false);
  }
  if (const JsonValue* kv = value_of(doc, "n_key_value_heads")) {
    const int n_kv = size_field(doc, "n_key_value_heads");
    if (n_kv < 1 || c.n_heads % n_kv != 0) {
      fail("n_key_value_heads = " + shown(*kv) + " must divide n_heads = " + std::to_string(c.n_heads));
    }
    // HookedTransformer keeps grouped tensors (_W_K, _W_V) whenever the field is set; NativeModel's
    // k and v are n_key_value_heads · d_head wide either way, so n_heads groups is no grouping.
    s.n_key_value_heads = bridge && n_kv == c.n_heads ? 0 : n_kv;
  }
  {
    const bool use_scale = bool_field(doc, "use_attn_scale", true);
    const double given = number_field(doc, "attn_scale", -1.0);
    const double root = std::sqrt(static_cast<double>(c.d_head));
    double scale;  // what the scores are divided by
    if (bridge) {
      if (use_scale && given > 0 && given == 1.0 && c.d_head > 1) {
        fail("attn_scale = 1 with d_head = " + std::to_string(c.d_head) +
             " is unscaled attention, which TransformerBridge.boot_native refuses too (−1 means √d_head)");
      }
      scale = use_scale && given > 0 ? given : root;
    } else {
      // to_dict holds √d_head already (__post_init__); −1 is the value before it.
      if (use_scale && given != -1.0 && !(given > 0 && std::isfinite(given))) {
        fail("attn_scale = " + number_text(given) + " must be a positive number (the divisor of the scores)");
      }
      scale = !use_scale ? 1.0 : given == -1.0 ? root : given;
    }
    s.attn_scale = scale == root ? 0 : scale;
  }
  if (const JsonValue* d = value_of(doc, "dtype")) {
    const std::string& t = d->as_string();
    if (t != "torch.float32" && t != "torch.float64" && t != "torch.float16" && t != "torch.bfloat16") {
      fail("dtype = " + shown(*d) +
           " is not a float dtype headlab reads (\"torch.float32\", \"torch.float64\", \"torch.float16\", "
           "\"torch.bfloat16\")");
    }
  }

  return core_config(c, s);
}

}  // namespace headlab::formats
