#include "formats/transformer_model.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/rotary.hpp"
#include "core/transformer_layout.hpp"

#include "formats/json.hpp"
#include "formats/torch_checkpoint.hpp"
#include "formats/transformerlens_config.hpp"
#include "formats/transformerlens_names.hpp"

#include <cmath>
#include <set>

namespace headlab::formats {

using transformer::Float32Matrix;
using transformer::Normalization;
using transformer::TransformerConfig;
using transformer::TransformerWeights;

namespace {

std::string short_text(const std::string& s) {
  std::string out;
  for (char ch : s.substr(0, 60)) out += (ch >= 32 && ch < 127) ? ch : '?';
  return s.size() > 60 ? out + "…" : out;
}

[[noreturn]] void config_fail(const std::string& message) { throw InputError("config: " + message); }

int config_size(const JsonValue& doc, const char* key) {
  const JsonValue* v = doc.find(key);
  if (!v) config_fail(std::string(key) + " is missing");
  const bool is_signed = v->kind() == JsonValue::Kind::integer;
  if (!is_signed && v->kind() != JsonValue::Kind::unsigned_integer)
    config_fail(std::string(key) + " must be an integer");
  const std::string shown = is_signed ? std::to_string(v->as_integer()) : std::to_string(v->as_unsigned());
  if ((is_signed && v->as_integer() < 1) || (!is_signed && (v->as_unsigned() < 1 || v->as_unsigned() > 1000000))) {
    config_fail(std::string(key) + " = " + shown + " is out of range");
  }
  return static_cast<int>(is_signed ? v->as_integer() : static_cast<long long>(v->as_unsigned()));
}

// A value for a message: a string quoted, anything else as its kind.
std::string shown(const JsonValue& v) {
  if (v.is_string()) return "\"" + short_text(v.as_string()) + "\"";
  if (v.is_number()) return number_text(v.as_double());
  return v.is_null() ? "null" : "a non-string value";
}

// An optional number field (absent: `fallback`).
double config_number(const JsonValue& doc, const char* key, double fallback) {
  const JsonValue* v = doc.find(key);
  if (!v) return fallback;
  if (!v->is_number()) config_fail(std::string(key) + " must be a number");
  return v->as_double();
}

// One scalar as the JSON layer writes it (strings escaped, doubles shortest round-trip).
template <class T>
std::string json_scalar(const T& x) {
  JsonWriter w;
  w.value(x);
  return w.text();
}

}  // namespace

TransformerConfig transformer_config_from_json(const std::string& text) {
  if (text.size() > kMaxConfigBytes) {
    config_fail("the file has " + std::to_string(text.size()) + " bytes; the limit is " +
                std::to_string(kMaxConfigBytes));
  }
  // Depth bound before parsing: a config nests 2 deep (object → token_names).
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '{' || ch == '[') {
      if (++depth > 2) config_fail("nests deeper than 2 levels");
    } else if (ch == '}' || ch == ']') {
      --depth;
    }
  }
  JsonLimits limits;
  limits.max_bytes = kMaxConfigBytes;
  limits.max_depth = 2;
  JsonValue doc;
  try {
    doc = parse_json(text, "the config", limits);
  } catch (const InputError& e) {
    config_fail(e.what());  // "the config is not valid JSON: <reason> at line L, column C near "<excerpt>""
  }
  if (!doc.is_object()) config_fail("must be a JSON object");
  // TransformerLens's own config (cfg.to_dict() as JSON) has its own reader.
  if (transformerlens_config_kind(doc) != TransformerLensConfigKind::none) {
    return transformer_config_from_transformerlens(doc);
  }
  static const char* const known_fields[] = {"n_layers",
                                             "n_heads",
                                             "d_model",
                                             "d_head",
                                             "n_ctx",
                                             "d_vocab",
                                             "normalization",
                                             "positional_embedding",
                                             "eps",
                                             "rotary_dim",
                                             "rotary_base",
                                             "rotary_adjacent_pairs",
                                             "n_key_value_heads",
                                             "attn_scale",
                                             "token_names"};
  for (const auto& member : doc.members()) {
    bool known = false;
    for (const char* field : known_fields) known = known || member.first == field;
    if (!known) {
      std::string list;
      for (const char* field : known_fields) list += (list.empty() ? "" : ", ") + std::string(field);
      config_fail("unknown field \"" + short_text(member.first) + "\" (known: " + list + ")");
    }
  }
  TransformerConfig c;
  c.n_layers = config_size(doc, "n_layers");
  c.n_heads = config_size(doc, "n_heads");
  c.d_model = config_size(doc, "d_model");
  c.d_head = config_size(doc, "d_head");
  c.n_ctx = config_size(doc, "n_ctx");
  c.d_vocab = config_size(doc, "d_vocab");
  if (const JsonValue* v = doc.find("normalization"); v && !v->is_null()) {
    const std::string s = v->is_string() ? v->as_string() : "";
    if (s == "LN") c.normalization = Normalization::layer_norm;
    else if (s == "LNPre") c.normalization = Normalization::layer_norm_pre;
    else if (s == "RMS") c.normalization = Normalization::rms;
    else if (s == "RMSPre") c.normalization = Normalization::rms_pre;
    else if (s == "none") c.normalization = Normalization::none;
    else config_fail("normalization must be \"LN\", \"LNPre\", \"RMS\", \"RMSPre\" or \"none\", got " + shown(*v));
  }
  if (const JsonValue* v = doc.find("positional_embedding")) {
    const std::string s = v->is_string() ? v->as_string() : "";
    if (s == "standard") c.positions = transformer::Positions::learned;
    else if (s == "shortformer") c.positions = transformer::Positions::shortformer;
    else if (s == "rotary") c.positions = transformer::Positions::rotary;
    else if (s == "none") c.positions = transformer::Positions::none;
    else
      config_fail("positional_embedding must be \"standard\", \"shortformer\", \"rotary\" or \"none\", got " +
                  shown(*v));
  }
  c.layer_norm_eps = config_number(doc, "eps", c.layer_norm_eps);
  c.rotary_base = config_number(doc, "rotary_base", c.rotary_base);
  c.attn_scale = config_number(doc, "attn_scale", c.attn_scale);
  if (const JsonValue* v = doc.find("rotary_dim"); v && !v->is_null()) c.rotary_dim = config_size(doc, "rotary_dim");
  if (const JsonValue* v = doc.find("n_key_value_heads"); v && !v->is_null())
    c.n_key_value_heads = config_size(doc, "n_key_value_heads");
  if (const JsonValue* v = doc.find("rotary_adjacent_pairs")) {
    if (!v->is_boolean()) config_fail("rotary_adjacent_pairs must be true or false, got " + shown(*v));
    c.rotary_adjacent_pairs = v->as_bool();
  }
  if (const JsonValue* names = doc.find("token_names")) {
    if (!names->is_array()) config_fail("token_names must be an array of strings");
    for (const auto& n : names->items()) {
      if (!n.is_string()) config_fail("token_names must be an array of strings");
      const std::string& s = n.as_string();
      if (s.size() > 64) config_fail("a token name is longer than 64 bytes: \"" + short_text(s) + "\"");
      c.token_names.push_back(s);
    }
  }
  try {
    transformer::validate_config(c);
  } catch (const InputError& e) {
    config_fail(e.what());
  }
  return c;
}

// Indented two spaces per level, one member or array element per line: the layout
// nlohmann::ordered_json::dump(2) gave this file, kept so configs written before regenerate unchanged.
std::string transformer_config_to_json(const TransformerConfig& c) {
  std::vector<std::pair<const char*, std::string>> members{
      {"n_layers", json_scalar(c.n_layers)},
      {"n_heads", json_scalar(c.n_heads)},
      {"d_model", json_scalar(c.d_model)},
      {"d_head", json_scalar(c.d_head)},
      {"n_ctx", json_scalar(c.n_ctx)},
      {"d_vocab", json_scalar(c.d_vocab)},
      {"normalization", json_scalar(transformer::normalization_name(c.normalization))},
      {"positional_embedding", json_scalar(transformer::positions_name(c.positions))},
      {"eps", json_scalar(c.layer_norm_eps)}};
  if (c.positions == transformer::Positions::rotary) {
    members.emplace_back("rotary_dim", json_scalar(c.rotary_dim));
    members.emplace_back("rotary_base", json_scalar(c.rotary_base));
    members.emplace_back("rotary_adjacent_pairs", json_scalar(c.rotary_adjacent_pairs));
  }
  if (c.n_key_value_heads > 0) members.emplace_back("n_key_value_heads", json_scalar(c.n_key_value_heads));
  if (c.attn_scale != 0) members.emplace_back("attn_scale", json_scalar(c.attn_scale));
  if (!c.token_names.empty()) {
    std::string names = "[";
    for (std::size_t i = 0; i < c.token_names.size(); ++i)
      names += (i ? ",\n    " : "\n    ") + json_scalar(c.token_names[i]);
    members.emplace_back("token_names", names + "\n  ]");
  }
  std::string out = "{";
  for (std::size_t i = 0; i < members.size(); ++i) {
    out += (i ? ",\n  " : "\n  ") + json_scalar(members[i].first) + ": " + members[i].second;
  }
  return out + "\n}\n";
}

void write_transformer_config(JsonWriter& out, const TransformerConfig& c) {
  out.begin_object();
  out.key("n_layers").value(c.n_layers);
  out.key("n_heads").value(c.n_heads);
  out.key("d_model").value(c.d_model);
  out.key("d_head").value(c.d_head);
  out.key("n_ctx").value(c.n_ctx);
  out.key("d_vocab").value(c.d_vocab);
  out.key("normalization").value(transformer::normalization_name(c.normalization));
  out.key("positional_embedding").value(transformer::positions_name(c.positions));
  out.key("eps").value(c.layer_norm_eps);
  if (c.positions == transformer::Positions::rotary) {
    out.key("rotary_dim").value(c.rotary_dim);
    out.key("rotary_base").value(c.rotary_base);
    out.key("rotary_adjacent_pairs").value(c.rotary_adjacent_pairs);
  }
  if (c.n_key_value_heads > 0) out.key("n_key_value_heads").value(c.n_key_value_heads);
  if (c.attn_scale != 0) out.key("attn_scale").value(c.attn_scale);
  if (!c.token_names.empty()) {
    out.key("token_names").begin_array();
    for (const auto& name : c.token_names) out.value(name);
    out.end_array();
  }
  out.end_object();
}

namespace {

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// What the header says of a tensor: enough to place it or refuse it before converting its data.
struct Meta {
  const std::string& name;
  DType dtype;
  const std::vector<std::int64_t>& shape;
};

void require_shape(const Meta& t, const std::vector<std::int64_t>& expected, const char* meaning) {
  if (t.shape != expected) {
    throw InputError(t.name + " has shape " + shape_text(t.shape) + "; the config implies " + meaning + " = " +
                     shape_text(expected));
  }
}

void require_dtype(const Meta& t) {
  if (t.dtype == DType::BOOL) throw InputError(t.name + " has dtype BOOL; it needs F64, F32, F16 or BF16");
}

void require_float(const Tensor& t) {
  if (t.first_non_finite >= 0) {
    throw InputError(t.name + " has a non-finite value (" + std::to_string(t.values[t.first_non_finite]) +
                     ") at flat index " + std::to_string(t.first_non_finite));
  }
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    if (std::abs(t.values[i]) > kMaxWeightMagnitude) {
      throw InputError(t.name + " has an entry " + number_text(t.values[i]) + " at flat index " + std::to_string(i) +
                       " beyond the magnitude limit ±" + number_text(kMaxWeightMagnitude));
    }
  }
}

// The same checks of a tensor held as float32 (values[0 … n), first non-finite index as decoded).
void require_float32(const std::string& name, const float* values, std::size_t n, std::int64_t first_non_finite) {
  if (first_non_finite >= 0) {
    throw InputError(name + " has a non-finite value (" + std::to_string(values[first_non_finite]) +
                     ") at flat index " + std::to_string(first_non_finite));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (std::abs(static_cast<double>(values[i])) > kMaxWeightMagnitude) {
      throw InputError(name + " has an entry " + number_text(values[i]) + " at flat index " + std::to_string(i) +
                       " beyond the magnitude limit ±" + number_text(kMaxWeightMagnitude));
    }
  }
}

// The flat index of the first non-finite of n floats, or −1.
std::int64_t first_non_finite(const float* x, Eigen::Index n) {
  for (Eigen::Index i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return static_cast<std::int64_t>(i);
  return -1;
}

// Whether a dtype's every value is a float32 (F32, F16, BF16).
bool float32_dtype(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

// Rows × cols block starting at flat index `offset` of a row-major tensor.
Matrix block(const Tensor& t, std::size_t offset, Eigen::Index rows, Eigen::Index cols) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = t.values[offset + static_cast<std::size_t>(i * cols + j)];
  return m;
}

[[noreturn]] void unsupported(const std::string& name, const std::string& what) {
  throw InputError(name + ": " + what +
                   " not supported; headlab reads attention-only transformers (TransformerLens attn_only=True)");
}

// The parameter names of the layout, grouped by module, for a message: model-level
// "embed.W_E, pos_embed.W_pos, blocks.L.ln1.*, blocks.L.attn.*, ln_final.*, unembed.*"
// (a module of one tensor by its name, of more by "module.*"), or per layer (`braced`)
// "blocks.L.ln1.{w,b}, blocks.L.attn.{W_Q,W_O,…}".
std::string layout_names(bool only_layers, bool braced) {
  std::vector<std::pair<std::string, std::vector<std::string>>> modules;  // "blocks.L.attn" → {"W_Q", …}
  for (const auto& row : transformer::kTransformerLayout) {
    if (row.role == transformer::Role::buffer || (only_layers && !transformer::per_layer(row))) continue;
    std::string name =
        transformer::per_layer(row) ? std::string("blocks.L.") + transformer::layer_suffix(row) : row.name;
    const std::size_t dot = name.rfind('.');
    const std::string module = name.substr(0, dot), leaf = name.substr(dot + 1);
    if (modules.empty() || modules.back().first != module) modules.push_back({module, {}});
    modules.back().second.push_back(leaf);
  }
  std::string out;
  for (const auto& [module, leaves] : modules) {
    out += out.empty() ? "" : ", ";
    if (leaves.size() == 1) {
      out += module + "." + leaves[0];
    } else if (!braced) {
      out += module + ".*";
    } else {
      out += module + ".{";
      for (std::size_t i = 0; i < leaves.size(); ++i) out += (i ? "," : "") + leaves[i];
      out += "}";
    }
  }
  return out;
}

// A name's row of the layout and its layer (−1 for a model-level tensor).
struct Placed {
  const transformer::TensorLayout* row;
  int layer;
};

// The layer of a "blocks.N.rest" name; `rest` receives what follows "blocks.N.".
int layer_of(const TransformerConfig& c, const std::string& name, std::string& rest) {
  std::size_t pos = 7;
  long long layer = 0;
  std::size_t digits = 0;
  while (pos < name.size() && name[pos] >= '0' && name[pos] <= '9' && digits < 4) {
    layer = layer * 10 + (name[pos] - '0');
    ++pos;
    ++digits;
  }
  if (digits == 0 || pos >= name.size() || name[pos] != '.') throw InputError("unknown tensor " + short_text(name));
  // One spelling per layer: "blocks.00." would alias "blocks.0." (both parse to layer 0), so
  // the second tensor would silently replace the first. TransformerLens writes no leading zero.
  if (digits > 1 && name[7] == '0') {
    throw InputError(short_text(name) + ": the layer index " + name.substr(7, digits) + " has a leading zero; layer " +
                     std::to_string(layer) + " is written blocks." + std::to_string(layer) + ".");
  }
  rest = name.substr(pos + 1);
  if (rest.rfind("mlp.", 0) == 0) unsupported(name, "MLP blocks are");
  if (rest.rfind("ln2.", 0) == 0) unsupported(name, "the LayerNorm before an MLP block is");
  if (layer >= c.n_layers) {
    throw InputError(short_text(name) + " belongs to layer " + std::to_string(layer) +
                     "; config.n_layers = " + std::to_string(c.n_layers));
  }
  return static_cast<int>(layer);
}

// Where a tensor of the file belongs; throws InputError on a name the model has no place for.
Placed place(const TransformerConfig& c, const std::string& name) {
  const bool in_block = name.rfind("blocks.", 0) == 0;
  std::string rest;
  const int layer = in_block ? layer_of(c, name, rest) : -1;
  for (const auto& row : transformer::kTransformerLayout) {
    if (transformer::per_layer(row) == in_block && (in_block ? rest : name) == transformer::layer_suffix(row)) {
      return {&row, layer};
    }
  }
  if (in_block) {
    throw InputError("unknown tensor " + short_text(name) + " (an attention-only transformer has " +
                     layout_names(true, true) + ")");
  }
  if (name.find("mlp") != std::string::npos) unsupported(name, "MLP blocks are");
  throw InputError("unknown tensor " + short_text(name) +
                   " (expected TransformerLens names: " + layout_names(false, false) + ")");
}

// The buffer that is TransformerLens's causal mask (the other buffer, IGNORE, is a scalar fill value).
bool is_causal_mask(const transformer::TensorLayout& row) {
  return row.role == transformer::Role::buffer && std::string(transformer::layer_suffix(row)) == "attn.mask";
}

// TransformerLens from 3.5 keeps the mask as an empty [0, 0] placeholder (it builds the causal mask
// for each forward pass) and its rotary tables with min(n_ctx, 2048) rows (ROTARY_INITIAL_CACHE_SIZE
// in components/abstract_attention.py), so a file saved from it holds buffers of other shapes than
// the layout's [n_ctx, n_ctx] and [n_ctx, rotary_dim]. Buffers are checked, never used: those shapes
// are read as the layout's are; any other is refused with the layout's shape.
bool newer_buffer_shape(const TransformerConfig& c, const transformer::TensorLayout& row,
                        const std::vector<std::int64_t>& shape) {
  if (is_causal_mask(row)) return shape == std::vector<std::int64_t>{0, 0};
  const std::string suffix = transformer::layer_suffix(row);
  if (suffix != "attn.rotary_sin" && suffix != "attn.rotary_cos") return false;
  const auto full = transformer::tensor_shape(c, row);  // [n_ctx, rotary_dim]
  return shape.size() == 2 && shape[1] == full[1] && shape[0] >= 1 && shape[0] < full[0];
}

// What the header may say of a placed tensor: present in the config's model, the layout's shape, a
// float dtype for a parameter.
void check_header(const TransformerConfig& c, const Placed& p, const Meta& t) {
  const auto& row = *p.row;
  if (!transformer::present(c, row.presence)) {
    throw InputError(t.name + " is present but " + transformer::absence_reason(c, row.presence));
  }
  const std::string meaning = row.shape.rank == 0 ? "a scalar" : transformer::shape_text(row);
  if (row.role == transformer::Role::buffer && newer_buffer_shape(c, row, t.shape)) return;
  require_shape(t, transformer::tensor_shape(c, row), meaning.c_str());
  if (row.role != transformer::Role::buffer) require_dtype(t);
}

// A buffer's values: the mask must be TransformerLens's causal mask (1 on and below the diagonal),
// any other mask would describe a model this forward does not compute; IGNORE (the masked-score
// fill value) is unused.
void check_buffer(const TransformerConfig& c, const Placed& p, const Tensor& v) {
  if (!is_causal_mask(*p.row) || v.values.empty()) return;  // empty: TransformerLens ≥ 3.5's [0, 0] placeholder
  const std::int64_t n_ctx = c.n_ctx;
  for (std::int64_t r = 0; r < n_ctx; ++r)
    for (std::int64_t j = 0; j < n_ctx; ++j)
      if (v.values[static_cast<std::size_t>(r * n_ctx + j)] != (j <= r ? 1.0 : 0.0)) {
        throw InputError(v.name + " is not the causal mask at (" + std::to_string(r) + ", " + std::to_string(j) +
                         "); only causal attention is supported");
      }
}

// Copies a parameter's checked values into the weights: [n] → 1 × n, [r, c] → r × c, [H, r, c]
// → head h from flat index h·r·c.
void fill(TransformerWeights& w, const Placed& p, const Tensor& v) {
  require_float(v);
  const auto& row = *p.row;
  const Eigen::Index rows = transformer::matrix_rows(w.config, row), cols = transformer::matrix_cols(w.config, row);
  if (auto* heads = transformer::heads_of(w, row, p.layer)) {
    for (std::size_t h = 0; h < heads->size(); ++h)
      (*heads)[h] = block(v, h * static_cast<std::size_t>(rows * cols), rows, cols);
  } else {
    *transformer::matrix_of(w, row, p.layer) = block(v, 0, rows, cols);
  }
}

// Every required tensor the config gives the model must be in the file (named as the file names
// its tensors: TransformerLens 4 bridge names when `bridge`).
void require_complete(const TransformerConfig& c, const std::set<std::string>& seen, bool bridge) {
  transformer::for_each_tensor(c, [&](const transformer::TensorLayout& row, int layer) {
    if (row.role != transformer::Role::required || !transformer::present(c, row.presence)) return;
    const std::string name = transformer::tensor_name(row, layer);
    if (seen.count(name)) return;
    const std::string shown = bridge ? bridge_name_of(name) : std::string();
    throw InputError((shown.empty() ? name : shown + " (" + name + ")") + " is missing from the file");
  });
}

// Whether a name is one of the layout's (TransformerLens ≤ 3), in any layer.
bool is_layout_name(const std::string& name) {
  const std::size_t dot = name.rfind("blocks.", 0) == 0 ? name.find('.', 7) : std::string::npos;
  const std::string rest = dot == std::string::npos ? name : name.substr(dot + 1);
  for (const auto& row : transformer::kTransformerLayout)
    if ((dot != std::string::npos) == transformer::per_layer(row) && rest == transformer::layer_suffix(row))
      return true;
  return false;
}

// A file's tensor as the layout knows it: its own name, or the layout name a TransformerLens 4
// bridge name stands for (formats/transformerlens_names.hpp) with its arrangement.
struct Named {
  std::string layout_name;
  const BridgeName* bridge = nullptr;
};

// Where a bridge tensor belongs; a refusal names the file's tensor and the layout tensor it is.
Placed place_bridge(const TransformerConfig& c, const std::string& name, const std::string& layout_name) {
  try {
    return place(c, layout_name);
  } catch (const InputError& e) {
    throw InputError(short_text(name) + " is TransformerLens 4's name of " + layout_name + ": " + e.what());
  }
}

// The shape a bridge tensor has, in config sizes ("[n_heads·d_head, d_model]"), for a message.
std::string bridge_shape_text(const transformer::TensorLayout& row, Rearrange r) {
  std::vector<std::string> d;
  for (int k = 0; k < row.shape.rank; ++k) d.push_back(transformer::dim_name(row.shape.dims[k]));
  std::vector<std::string> b = d;
  if (r == Rearrange::split_heads) b = {d[0] + "·" + d[1]};
  else if (r == Rearrange::heads_out_in) b = {d[0] + "·" + d[2], d[1]};
  else if (r == Rearrange::heads_in_out) b = {d[2], d[0] + "·" + d[1]};
  else if (r == Rearrange::transpose) b = {d[1], d[0]};
  std::string out = "[";
  for (std::size_t k = 0; k < b.size(); ++k) out += (k ? ", " : "") + b[k];
  return out + "]";
}

// What the header may say of a bridge tensor: as check_header, the shape in bridge terms.
void check_bridge_header(const TransformerConfig& c, const Placed& p, const BridgeName& bridge, const Meta& t) {
  const auto& row = *p.row;
  if (!transformer::present(c, row.presence)) {
    throw InputError(t.name + " is present but " + transformer::absence_reason(c, row.presence));
  }
  const std::string meaning = bridge_shape_text(row, bridge.rearrange);
  require_shape(t, bridge_shape(bridge.rearrange, transformer::tensor_shape(c, row)), meaning.c_str());
  require_dtype(t);
}

// The file's tensors in two passes. Pass 0 reads only what the header says (names, dtypes, shapes;
// layers; the required tensors), so a file is refused for a tensor the model has no place for
// before any value is converted (a 60M-element BOOL tensor of an unknown name once became 480 MB of
// doubles first). Pass 1 converts each tensor (source.tensor(i)) and checks and copies its values.
// Source: size(), name(i), dtype(i), shape(i), tensor(i).
// A file holds TransformerLens ≤ 3 names or TransformerLens 4 bridge names, not both: the naming is
// the bridge's when any name is a bridge name, and then a layout name is refused.
template <class Source>
TransformerWeights weights_from(const TransformerConfig& c, const Source& source) {
  const std::string* bridge_example = nullptr;
  std::vector<Named> named(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    const BridgeMatch m = match_bridge_name(source.name(i), c.n_key_value_heads > 0);
    if (m.row) named[i] = {m.layout_name, m.row};
    else named[i].layout_name = source.name(i);
    if (m.row && !bridge_example) bridge_example = &source.name(i);
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const std::string& name = source.name(i);
    if (bridge_example && !named[i].bridge && is_layout_name(name)) {
      throw InputError("the file mixes TransformerLens 4 names (" + short_text(*bridge_example) +
                       ") and TransformerLens ≤ 3 names (" + short_text(name) +
                       "); a file holds one model's state_dict under one naming");
    }
    // The safetensors reader refuses a repeated name; a file built in code is checked here too.
    if (!seen.insert(named[i].layout_name).second) throw InputError(short_text(name) + " appears twice");
    const Meta meta{name, source.dtype(i), source.shape(i)};
    if (named[i].bridge) check_bridge_header(c, place_bridge(c, name, named[i].layout_name), *named[i].bridge, meta);
    else check_header(c, place(c, name), meta);
  }
  require_complete(c, seen, bridge_example != nullptr);
  // W_E and W_U (V·d values each, most of a large vocabulary's parameters) stay float32 when the
  // file stores both in 32 bits or fewer: exactly the file's values, in half the memory of doubles
  // (core/transformer_config.hpp, TransformerWeights).
  int narrow_embeddings = 0;
  for (std::size_t i = 0; i < source.size(); ++i)
    if ((named[i].layout_name == "embed.W_E" || named[i].layout_name == "unembed.W_U") &&
        float32_dtype(source.dtype(i)))
      ++narrow_embeddings;
  const bool float32_embeddings = narrow_embeddings == 2;
  TransformerWeights w =
      float32_embeddings ? transformer::zero_weights_without_embeddings(c) : transformer::zero_weights(c);
  for (std::size_t i = 0; i < source.size(); ++i) {
    const Placed p = place(c, named[i].layout_name);
    Float32Matrix* to_float32 = !float32_embeddings                        ? nullptr
                                : p.row->model == &TransformerWeights::W_E ? &w.W_E_f32
                                : p.row->model == &TransformerWeights::W_U ? &w.W_U_f32
                                                                           : nullptr;
    // A bridge name whose tensor is laid out as the layout's (embed.weight) reads as its own name does.
    const bool as_laid = !named[i].bridge || named[i].bridge->rearrange == Rearrange::same;
    const float* in_file = to_float32 && as_laid ? source.float32_view(i) : nullptr;
    if (to_float32) {
      const Eigen::Index rows = transformer::matrix_rows(c, *p.row), cols = transformer::matrix_cols(c, *p.row);
      // The file's own F32 bytes read in place (row-major V × d and d × V, the weights' layout), or
      // storage of its own to convert them into.
      *to_float32 =
          in_file ? Float32Matrix::view(source.owner(), in_file, rows, cols) : Float32Matrix::zero(rows, cols);
    }
    if (in_file) {
      require_float32(source.name(i), in_file, static_cast<std::size_t>(to_float32->size()),
                      first_non_finite(in_file, to_float32->size()));
    } else if (to_float32 && as_laid) {
      // Straight from the file's bytes into the float32 matrix.
      const std::int64_t first = source.narrow(i, to_float32->owned_data());
      require_float32(source.name(i), to_float32->data(), static_cast<std::size_t>(to_float32->size()), first);
    } else if (to_float32) {
      const Tensor& t = source.tensor(i);
      require_float(t);
      const Tensor laid =
          to_layout_tensor(t, named[i].bridge->rearrange, named[i].layout_name, transformer::tensor_shape(c, *p.row));
      float* out = to_float32->owned_data();
      for (std::size_t k = 0; k < laid.values.size(); ++k) out[k] = static_cast<float>(laid.values[k]);
    } else if (p.row->role == transformer::Role::buffer) {
      check_buffer(c, p, source.tensor(i));
    } else if (named[i].bridge) {
      const Tensor& t = source.tensor(i);
      require_float(t);  // a refusal names the file's tensor and its own flat index
      fill(w, p,
           to_layout_tensor(t, named[i].bridge->rearrange, named[i].layout_name, transformer::tensor_shape(c, *p.row)));
    } else {
      fill(w, p, source.tensor(i));
    }
  }
  transformer::validate_weights(w);
  return w;
}

// The tensors of an indexed file, converted one at a time (the last one kept until the next is
// asked for); an F32 tensor is read where it lies when `keep` holds the file's bytes. `Format`
// names the index and its three readers: decode, decode_float32 and float32_view.
template <class Format>
struct LazyTensors {
  LazyTensors(const typename Format::Index& index, std::shared_ptr<const void> keep)
      : index(index), keep(std::move(keep)) {}
  const typename Format::Index& index;
  std::shared_ptr<const void> keep;
  mutable Tensor current;
  mutable std::size_t at = static_cast<std::size_t>(-1);
  std::size_t size() const { return index.entries.size(); }
  const std::string& name(std::size_t i) const { return index.entries[i].name; }
  DType dtype(std::size_t i) const { return index.entries[i].dtype; }
  const std::vector<std::int64_t>& shape(std::size_t i) const { return index.entries[i].shape; }
  const Tensor& tensor(std::size_t i) const {
    if (at != i) {
      current = Format::decode(index, index.entries[i]);
      at = i;
    }
    return current;
  }
  std::int64_t narrow(std::size_t i, float* out) const { return Format::decode_float32(index, index.entries[i], out); }
  const float* float32_view(std::size_t i) const {
    return keep ? Format::float32_view(index, index.entries[i]) : nullptr;
  }
  std::shared_ptr<const void> owner() const { return keep; }
};

struct SafetensorsFormat {
  using Index = SafetensorsIndex;
  static Tensor decode(const Index& index, const TensorEntry& e) { return decode_tensor(index, e); }
  static std::int64_t decode_float32(const Index& index, const TensorEntry& e, float* out) {
    return decode_tensor_float32(index, e, out);
  }
  // An F32 tensor's bytes as floats where they lie, when the machine is little-endian (as the
  // format) and the address is 4-byte aligned; else nullptr.
  static const float* float32_view(const Index& index, const TensorEntry& e) {
    if (e.dtype != DType::F32) return nullptr;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const std::uint8_t* at = index.buffer + e.begin;
    if (reinterpret_cast<std::uintptr_t>(at) % alignof(float) != 0) return nullptr;
    return reinterpret_cast<const float*>(at);
#else
    (void)index;
    return nullptr;
#endif
  }
};

struct TorchCheckpointFormat {
  using Index = TorchCheckpointIndex;
  static Tensor decode(const Index& index, const TorchTensorEntry& e) { return decode_torch_tensor(index, e); }
  static std::int64_t decode_float32(const Index& index, const TorchTensorEntry& e, float* out) {
    return decode_torch_tensor_float32(index, e, out);
  }
  static const float* float32_view(const Index& index, const TorchTensorEntry& e) {
    return torch_tensor_float32_view(index, e);
  }
};

}  // namespace

TransformerWeights transformer_weights_from_safetensors(const TransformerConfig& c, const SafetensorsFile& file) {
  struct Decoded {
    const SafetensorsFile& file;
    std::size_t size() const { return file.tensors.size(); }
    const std::string& name(std::size_t i) const { return file.tensors[i].name; }
    DType dtype(std::size_t i) const { return file.tensors[i].dtype; }
    const std::vector<std::int64_t>& shape(std::size_t i) const { return file.tensors[i].shape; }
    const Tensor& tensor(std::size_t i) const { return file.tensors[i]; }
    // A float32-dtype tensor's values (doubles that are each exactly a float32) as float32.
    std::int64_t narrow(std::size_t i, float* out) const {
      const Tensor& t = file.tensors[i];
      for (std::size_t k = 0; k < t.values.size(); ++k) out[k] = static_cast<float>(t.values[k]);
      return t.first_non_finite;
    }
    const float* float32_view(std::size_t) const { return nullptr; }
    std::shared_ptr<const void> owner() const { return nullptr; }
  };
  return weights_from(c, Decoded{file});
}

TransformerWeights transformer_weights_from_safetensors(const TransformerConfig& c, const SafetensorsIndex& index,
                                                        std::shared_ptr<const void> owner) {
  return weights_from(c, LazyTensors<SafetensorsFormat>{index, std::move(owner)});
}

TransformerWeights transformer_weights_from_file(const TransformerConfig& c, const std::uint8_t* data, std::size_t size,
                                                 SafetensorsFile& listing, std::shared_ptr<const void> owner) {
  if (looks_like_zip(data, size)) {
    // As a safetensors index: every bound and name first, then one tensor converted at a time
    // (contiguous F32 W_E and W_U read in place when `owner` keeps the bytes).
    const TorchCheckpointIndex index = index_torch_checkpoint(data, size);
    TransformerWeights w = weights_from(c, LazyTensors<TorchCheckpointFormat>{index, std::move(owner)});
    listing = without_values(index);
    return w;
  }
  const SafetensorsIndex index = index_safetensors(data, size);
  TransformerWeights w = transformer_weights_from_safetensors(c, index, std::move(owner));
  listing = without_values(index);
  return w;
}

TransformerWeights read_transformer(const std::string& config_text, const std::uint8_t* data, std::size_t size) {
  const TransformerConfig c = transformer_config_from_json(config_text);
  SafetensorsFile listing;
  return transformer_weights_from_file(c, data, size, listing);
}

namespace {

// A buffer as TransformerLens holds it: the causal mask (BOOL, 1 on and below the diagonal),
// IGNORE, the masked-score fill value −inf, and the rotary tables (n_ctx × R): column j of position p
// holds sin or cos of the angle of pair k = j / 2 (GPT-J) or j mod R/2 (GPT-NeoX), as
// AbstractAttention.calculate_sin_cos_rotary repeats each frequency "(d 2)" or "(2 d)".
Tensor buffer_tensor(const TransformerConfig& c, const transformer::TensorLayout& row, int layer) {
  Tensor t;
  t.name = transformer::tensor_name(row, layer);
  t.shape = transformer::tensor_shape(c, row);
  const std::string suffix = transformer::layer_suffix(row);
  if (is_causal_mask(row)) {
    t.dtype = DType::BOOL;
    for (std::int64_t i = 0; i < c.n_ctx; ++i)
      for (std::int64_t j = 0; j < c.n_ctx; ++j) t.values.push_back(j <= i ? 1.0 : 0.0);
  } else if (suffix == "attn.rotary_sin" || suffix == "attn.rotary_cos") {
    t.dtype = DType::F64;
    const int R = c.rotary_dim;
    for (std::int64_t p = 0; p < c.n_ctx; ++p)
      for (int j = 0; j < R; ++j) {
        double sine = 0, cosine = 0;
        deterministic_sin_cos(transformer::rotary_angle(c, c.rotary_adjacent_pairs ? j / 2 : j % (R / 2), p), sine,
                              cosine);
        t.values.push_back(suffix == "attn.rotary_sin" ? sine : cosine);
      }
  } else {
    t.dtype = DType::F64;
    t.values = {-INFINITY};
  }
  return t;
}

// A parameter as F64, its matrices (one, or one per head in head order) flattened row-major.
Tensor parameter_tensor(const TransformerWeights& w, const transformer::TensorLayout& row, int layer) {
  Tensor t;
  t.name = transformer::tensor_name(row, layer);
  t.dtype = DType::F64;
  t.shape = transformer::tensor_shape(w.config, row);
  const auto flat = [&](const Matrix& m) {
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j) t.values.push_back(m(i, j));
  };
  const Float32Matrix* float32 = !transformer::float32_embeddings(w)     ? nullptr
                                 : row.model == &TransformerWeights::W_E ? &w.W_E_f32
                                 : row.model == &TransformerWeights::W_U ? &w.W_U_f32
                                                                         : nullptr;
  if (float32) {
    // Held as float32: written as F32 (the same values; read back, they are held as float32 again).
    t.dtype = DType::F32;
    t.values.assign(float32->data(), float32->data() + float32->size());
  } else if (const auto* heads = transformer::heads_of(w, row, layer)) {
    for (const Matrix& m : *heads) flat(m);
  } else {
    flat(*transformer::matrix_of(w, row, layer));
  }
  return t;
}

}  // namespace

std::string transformer_to_safetensors(const TransformerWeights& w, bool buffers) {
  transformer::validate_weights(w);
  std::vector<Tensor> out;
  transformer::for_each_tensor(w.config, [&](const transformer::TensorLayout& row, int layer) {
    if (!transformer::present(w.config, row.presence)) return;
    if (row.role != transformer::Role::buffer) out.push_back(parameter_tensor(w, row, layer));
    else if (buffers) out.push_back(buffer_tensor(w.config, row, layer));
  });
  return write_safetensors(out, {{"format", "pt"}, {"producer", "headlab"}});
}

}  // namespace headlab::formats
