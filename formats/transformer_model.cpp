#include "formats/transformer_model.hpp"

#include "core/check.hpp"

#include "formats/json.hpp"

#include <cmath>
#include <set>

namespace headlab::formats {

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
  if (!is_signed && v->kind() != JsonValue::Kind::unsigned_integer) config_fail(std::string(key) + " must be an integer");
  const std::string shown = is_signed ? std::to_string(v->as_integer()) : std::to_string(v->as_unsigned());
  if ((is_signed && v->as_integer() < 1) || (!is_signed && (v->as_unsigned() < 1 || v->as_unsigned() > 1000000))) {
    config_fail(std::string(key) + " = " + shown + " is out of range");
  }
  return static_cast<int>(is_signed ? v->as_integer() : static_cast<long long>(v->as_unsigned()));
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
    config_fail("the file has " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxConfigBytes));
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
  static const std::set<std::string> known{"n_layers", "n_heads", "d_model", "d_head", "n_ctx", "d_vocab",
                                           "normalization", "positional_embedding", "eps", "token_names"};
  for (const auto& member : doc.members()) {
    if (!known.count(member.first)) {
      config_fail("unknown field \"" + short_text(member.first) +
                  "\" (known: n_layers, n_heads, d_model, d_head, n_ctx, d_vocab, normalization, positional_embedding, "
                  "eps, token_names)");
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
    else if (s == "none") c.normalization = Normalization::none;
    else config_fail("normalization must be \"LN\", \"LNPre\" or \"none\" (other normalisations are not supported)");
  }
  if (const JsonValue* v = doc.find("positional_embedding")) {
    const std::string s = v->is_string() ? v->as_string() : "";
    if (s == "standard") c.positional_embedding = true;
    else if (s == "none") c.positional_embedding = false;
    else config_fail("positional_embedding must be \"standard\" or \"none\" (rotary and others are not supported)");
  }
  if (const JsonValue* v = doc.find("eps")) {
    if (!v->is_number()) config_fail("eps must be a number");
    c.layer_norm_eps = v->as_double();
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
      {"positional_embedding", json_scalar(c.positional_embedding ? "standard" : "none")},
      {"eps", json_scalar(c.layer_norm_eps)}};
  if (!c.token_names.empty()) {
    std::string names = "[";
    for (std::size_t i = 0; i < c.token_names.size(); ++i) names += (i ? ",\n    " : "\n    ") + json_scalar(c.token_names[i]);
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
  out.key("positional_embedding").value(c.positional_embedding ? "standard" : "none");
  out.key("eps").value(c.layer_norm_eps);
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
  if (t.dtype == DType::BOOL) throw InputError(t.name + " has dtype BOOL; it needs F32 or F64");
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

}  // namespace

namespace {

// The file's tensors in two passes over the same rules. Pass 0 reads only what the header says
// (names, dtypes, shapes; layers; the required tensors), so a file is refused for a tensor the
// model has no place for before any value is converted (a 60M-element BOOL tensor of an unknown
// name once became 480 MB of doubles first). Pass 1 converts each tensor (source.tensor(i)) and
// checks and copies its values. Source: size(), name(i), dtype(i), shape(i), tensor(i).
template <class Source>
TransformerWeights weights_from(const TransformerConfig& c, const Source& source) {
  TransformerWeights w;
  const std::int64_t d = c.d_model, H = c.n_heads, dh = c.d_head, V = c.d_vocab, n_ctx = c.n_ctx;
  const bool ln = c.normalization == Normalization::layer_norm;
  std::set<std::string> seen;
  for (int pass = 0; pass < 2; ++pass) {
    const bool fill = pass == 1;
    if (fill) w = transformer::zero_weights(c);
    for (std::size_t i = 0; i < source.size(); ++i) {
      const std::string& name = source.name(i);
      const Meta t{name, source.dtype(i), source.shape(i)};
      // The safetensors reader refuses a repeated name; a file built in code is checked here too.
      if (!seen.insert(name).second && !fill) throw InputError(short_text(name) + " appears twice");
      if (name == "embed.W_E") {
        require_shape(t, {V, d}, "[d_vocab, d_model]");
        require_dtype(t);
        if (fill) {
          const Tensor& v = source.tensor(i);
          require_float(v);
          w.W_E = block(v, 0, V, d);
        }
      } else if (name == "pos_embed.W_pos") {
        if (!c.positional_embedding) throw InputError(name + " is present but config.positional_embedding is \"none\"");
        require_shape(t, {n_ctx, d}, "[n_ctx, d_model]");
        require_dtype(t);
        if (fill) {
          const Tensor& v = source.tensor(i);
          require_float(v);
          w.W_pos = block(v, 0, n_ctx, d);
        }
      } else if (name == "unembed.W_U") {
        require_shape(t, {d, V}, "[d_model, d_vocab]");
        require_dtype(t);
        if (fill) {
          const Tensor& v = source.tensor(i);
          require_float(v);
          w.W_U = block(v, 0, d, V);
        }
      } else if (name == "unembed.b_U") {
        require_shape(t, {V}, "[d_vocab]");
        require_dtype(t);
        if (fill) {
          const Tensor& v = source.tensor(i);
          require_float(v);
          w.b_U = block(v, 0, 1, V);
        }
      } else if (name == "ln_final.w" || name == "ln_final.b") {
        if (!ln) {
          throw InputError(name + " is present but config.normalization is \"" +
                           transformer::normalization_name(c.normalization) + "\" (LayerNorm weights need \"LN\")");
        }
        require_shape(t, {d}, "[d_model]");
        require_dtype(t);
        if (fill) {
          const Tensor& v = source.tensor(i);
          require_float(v);
          (name == "ln_final.w" ? w.ln_final_w : w.ln_final_b) = block(v, 0, 1, d);
        }
      } else if (name.rfind("blocks.", 0) == 0) {
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
          throw InputError(short_text(name) + ": the layer index " + name.substr(7, digits) +
                           " has a leading zero; layer " + std::to_string(layer) + " is written blocks." +
                           std::to_string(layer) + ".");
        }
        const std::string rest = name.substr(pos + 1);
        if (rest.rfind("mlp.", 0) == 0) unsupported(name, "MLP blocks are");
        if (rest.rfind("ln2.", 0) == 0) unsupported(name, "the LayerNorm before an MLP block is");
        if (rest.find("rotary") != std::string::npos) unsupported(name, "rotary embeddings are");
        if (layer >= c.n_layers) {
          throw InputError(short_text(name) + " belongs to layer " + std::to_string(layer) + "; config.n_layers = " +
                           std::to_string(c.n_layers));
        }
        // Pass 0 has no weights yet (they are allocated once the header is accepted): only pass 1 writes through L.
        auto* L = fill ? &w.layers[static_cast<std::size_t>(layer)] : nullptr;
        if (rest == "attn.W_Q" || rest == "attn.W_K" || rest == "attn.W_V") {
          require_shape(t, {H, d, dh}, "[n_heads, d_model, d_head]");
          require_dtype(t);
          if (fill) {
            const Tensor& v = source.tensor(i);
            require_float(v);
            auto& stack = rest == "attn.W_Q" ? L->W_Q : rest == "attn.W_K" ? L->W_K : L->W_V;
            for (std::int64_t h = 0; h < H; ++h) stack[h] = block(v, static_cast<std::size_t>(h * d * dh), d, dh);
          }
        } else if (rest == "attn.W_O") {
          require_shape(t, {H, dh, d}, "[n_heads, d_head, d_model]");
          require_dtype(t);
          if (fill) {
            const Tensor& v = source.tensor(i);
            require_float(v);
            for (std::int64_t h = 0; h < H; ++h) L->W_O[h] = block(v, static_cast<std::size_t>(h * dh * d), dh, d);
          }
        } else if (rest == "attn.b_Q" || rest == "attn.b_K" || rest == "attn.b_V") {
          require_shape(t, {H, dh}, "[n_heads, d_head]");
          require_dtype(t);
          if (fill) {
            const Tensor& v = source.tensor(i);
            require_float(v);
            (rest == "attn.b_Q" ? L->b_Q : rest == "attn.b_K" ? L->b_K : L->b_V) = block(v, 0, H, dh);
          }
        } else if (rest == "attn.b_O") {
          require_shape(t, {d}, "[d_model]");
          require_dtype(t);
          if (fill) {
            const Tensor& v = source.tensor(i);
            require_float(v);
            L->b_O = block(v, 0, 1, d);
          }
        } else if (rest == "ln1.w" || rest == "ln1.b") {
          if (!ln) {
            throw InputError(name + " is present but config.normalization is \"" +
                             transformer::normalization_name(c.normalization) + "\" (LayerNorm weights need \"LN\")");
          }
          require_shape(t, {d}, "[d_model]");
          require_dtype(t);
          if (fill) {
            const Tensor& v = source.tensor(i);
            require_float(v);
            (rest == "ln1.w" ? L->ln_w : L->ln_b) = block(v, 0, 1, d);
          }
        } else if (rest == "attn.mask") {
          // TransformerLens's causal mask buffer: 1 on and below the diagonal. Any other mask
          // would describe a model this forward does not compute.
          require_shape(t, {n_ctx, n_ctx}, "[n_ctx, n_ctx]");
          if (fill) {
            const Tensor& v = source.tensor(i);
            for (std::int64_t r = 0; r < n_ctx; ++r)
              for (std::int64_t j = 0; j < n_ctx; ++j)
                if (v.values[static_cast<std::size_t>(r * n_ctx + j)] != (j <= r ? 1.0 : 0.0)) {
                  throw InputError(name + " is not the causal mask at (" + std::to_string(r) + ", " + std::to_string(j) +
                                   "); only causal attention is supported");
                }
          }
        } else if (rest == "attn.IGNORE") {
          require_shape(t, {}, "a scalar");  // the masked-score fill value (−inf or −1e5); unused here
        } else {
          throw InputError("unknown tensor " + short_text(name) +
                           " (an attention-only transformer has blocks.L.attn.{W_Q,W_K,W_V,W_O,b_Q,b_K,b_V,b_O}, "
                           "blocks.L.ln1.{w,b})");
        }
      } else {
        const bool mlp_like = name.find("mlp") != std::string::npos;
        if (mlp_like) unsupported(name, "MLP blocks are");
        throw InputError("unknown tensor " + short_text(name) +
                         " (expected TransformerLens names: embed.W_E, pos_embed.W_pos, blocks.L.attn.*, blocks.L.ln1.*, "
                         "ln_final.*, unembed.W_U, unembed.b_U)");
      }
    }
    if (fill) break;
    const auto require_present = [&](const std::string& name) {
      if (!seen.count(name)) throw InputError(name + " is missing from the safetensors file");
    };
    require_present("embed.W_E");
    require_present("unembed.W_U");
    if (c.positional_embedding) require_present("pos_embed.W_pos");
    if (ln) {
      require_present("ln_final.w");
      require_present("ln_final.b");
    }
    for (int l = 0; l < c.n_layers; ++l) {
      const std::string p = "blocks." + std::to_string(l) + ".";
      for (const char* s : {"attn.W_Q", "attn.W_K", "attn.W_V", "attn.W_O"}) require_present(p + s);
      if (ln) {
        require_present(p + "ln1.w");
        require_present(p + "ln1.b");
      }
    }
  }
  transformer::validate_weights(w);
  return w;
}

}  // namespace

TransformerWeights transformer_weights_from_safetensors(const TransformerConfig& c, const SafetensorsFile& file) {
  struct Decoded {
    const SafetensorsFile& file;
    std::size_t size() const { return file.tensors.size(); }
    const std::string& name(std::size_t i) const { return file.tensors[i].name; }
    DType dtype(std::size_t i) const { return file.tensors[i].dtype; }
    const std::vector<std::int64_t>& shape(std::size_t i) const { return file.tensors[i].shape; }
    const Tensor& tensor(std::size_t i) const { return file.tensors[i]; }
  };
  return weights_from(c, Decoded{file});
}

TransformerWeights transformer_weights_from_safetensors(const TransformerConfig& c, const SafetensorsIndex& index) {
  // One tensor converted at a time (the last one kept until the next is asked for).
  struct Lazy {
    const SafetensorsIndex& index;
    mutable Tensor current;
    mutable std::size_t at = static_cast<std::size_t>(-1);
    std::size_t size() const { return index.entries.size(); }
    const std::string& name(std::size_t i) const { return index.entries[i].name; }
    DType dtype(std::size_t i) const { return index.entries[i].dtype; }
    const std::vector<std::int64_t>& shape(std::size_t i) const { return index.entries[i].shape; }
    const Tensor& tensor(std::size_t i) const {
      if (at != i) {
        current = decode_tensor(index, index.entries[i]);
        at = i;
      }
      return current;
    }
  };
  return weights_from(c, Lazy{index, {}, static_cast<std::size_t>(-1)});
}

TransformerWeights read_transformer(const std::string& config_text, const std::uint8_t* data, std::size_t size) {
  const TransformerConfig c = transformer_config_from_json(config_text);
  return transformer_weights_from_safetensors(c, index_safetensors(data, size));
}

std::string transformer_to_safetensors(const TransformerWeights& w, bool buffers) {
  transformer::validate_weights(w);
  const auto& c = w.config;
  const std::int64_t d = c.d_model, H = c.n_heads, dh = c.d_head, V = c.d_vocab, n_ctx = c.n_ctx;
  std::vector<Tensor> out;
  const auto flat = [](const Matrix& m, std::vector<double>& into) {
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j) into.push_back(m(i, j));
  };
  const auto add = [&](const std::string& name, std::vector<std::int64_t> shape, const std::vector<const Matrix*>& parts) {
    Tensor t;
    t.name = name;
    t.dtype = DType::F64;
    t.shape = std::move(shape);
    for (const Matrix* m : parts) flat(*m, t.values);
    out.push_back(std::move(t));
  };
  const auto stack = [](const std::vector<Matrix>& heads) {
    std::vector<const Matrix*> parts;
    for (const auto& m : heads) parts.push_back(&m);
    return parts;
  };
  add("embed.W_E", {V, d}, {&w.W_E});
  if (c.positional_embedding) add("pos_embed.W_pos", {n_ctx, d}, {&w.W_pos});
  const bool ln = c.normalization == Normalization::layer_norm;
  for (int l = 0; l < c.n_layers; ++l) {
    const auto& L = w.layers[l];
    const std::string p = "blocks." + std::to_string(l) + ".";
    if (ln) {
      add(p + "ln1.w", {d}, {&L.ln_w});
      add(p + "ln1.b", {d}, {&L.ln_b});
    }
    add(p + "attn.W_Q", {H, d, dh}, stack(L.W_Q));
    add(p + "attn.W_O", {H, dh, d}, stack(L.W_O));
    add(p + "attn.b_Q", {H, dh}, {&L.b_Q});
    add(p + "attn.b_O", {d}, {&L.b_O});
    add(p + "attn.W_K", {H, d, dh}, stack(L.W_K));
    add(p + "attn.W_V", {H, d, dh}, stack(L.W_V));
    add(p + "attn.b_K", {H, dh}, {&L.b_K});
    add(p + "attn.b_V", {H, dh}, {&L.b_V});
    if (!buffers) continue;
    Tensor mask;
    mask.name = p + "attn.mask";
    mask.dtype = DType::BOOL;
    mask.shape = {n_ctx, n_ctx};
    for (std::int64_t i = 0; i < n_ctx; ++i)
      for (std::int64_t j = 0; j < n_ctx; ++j) mask.values.push_back(j <= i ? 1.0 : 0.0);
    out.push_back(std::move(mask));
    Tensor ignore;
    ignore.name = p + "attn.IGNORE";
    ignore.dtype = DType::F64;
    ignore.values = {-INFINITY};
    out.push_back(std::move(ignore));
  }
  if (ln) {
    add("ln_final.w", {d}, {&w.ln_final_w});
    add("ln_final.b", {d}, {&w.ln_final_b});
  }
  add("unembed.W_U", {d, V}, {&w.W_U});
  add("unembed.b_U", {V}, {&w.b_U});
  return write_safetensors(out, {{"format", "pt"}, {"producer", "headlab"}});
}

}  // namespace headlab::formats
