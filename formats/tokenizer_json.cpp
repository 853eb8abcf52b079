#include "formats/tokenizer_json.hpp"

#include "core/check.hpp"
#include "formats/json.hpp"

#include <cmath>

namespace headlab::formats {

using tokenizer::Tokenizer;

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  std::size_t n = 0;
  for (const char ch : s) {
    if (++n > 40) return out + "…\"";
    const auto b = static_cast<unsigned char>(ch);
    if (b < 0x20 || ch == '"' || ch == '\\') {
      out += "\\x";
      out += "0123456789abcdef"[b >> 4];
      out += "0123456789abcdef"[b & 15];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

struct Reader {
  std::string what;
  [[noreturn]] void fail(const std::string& message) const { throw InputError(what + ": " + message); }

  const JsonValue* member(const JsonValue& object, const char* name, const std::string& path) const {
    if (!object.is_object()) fail(path + " must be an object");
    return object.find(name);
  }
  // A member that must be null, absent, or (allowed) false / "" / 0.
  bool is_off(const JsonValue* v) const {
    return v == nullptr || v->is_null() || (v->is_boolean() && !v->as_bool()) ||
           (v->is_string() && v->as_string().empty()) || (v->is_number() && v->as_double() == 0);
  }
  bool flag(const JsonValue& object, const char* name, const std::string& path, bool fallback) const {
    const JsonValue* v = member(object, name, path);
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_boolean()) fail(path + "." + name + " must be true or false");
    return v->as_bool();
  }
  std::string type_of(const JsonValue& object, const std::string& path) const {
    const JsonValue* t = member(object, "type", path);
    if (t == nullptr) fail(path + " has no \"type\"");
    if (!t->is_string()) fail(path + ".type must be a string");
    return t->as_string();
  }
  void check_token(const std::string& s, const std::string& path) const {
    if (s.empty()) fail(path + " is an empty string");
    if (s.size() > kMaxTokenBytes) {
      fail(path + " " + quoted(s) + " has " + std::to_string(s.size()) + " bytes; a token has at most " +
           std::to_string(kMaxTokenBytes));
    }
  }
  int id_of(const JsonValue& v, const std::string& path) const {
    if (!v.is_number() || v.kind() == JsonValue::Kind::number || v.as_double() < 0 ||
        v.as_double() >= static_cast<double>(kMaxTokenizerVocab)) {
      fail(path + " must be an integer id in [0, " + std::to_string(kMaxTokenizerVocab - 1) + "]");
    }
    return static_cast<int>(v.as_double());
  }
};

void refuse_type(const Reader& r, const std::string& path, const std::string& type, const char* reads) {
  r.fail(path + " type " + quoted(type) + " is not implemented (headlab reads " + reads + ")");
}

}  // namespace

Tokenizer read_tokenizer_json(std::string_view text, const std::string& what) {
  const Reader r{what};
  if (text.size() > kMaxTokenizerBytes) {
    r.fail("the file has " + std::to_string(text.size()) + " bytes; the limit is " +
           std::to_string(kMaxTokenizerBytes));
  }
  JsonLimits limits;
  limits.max_bytes = kMaxTokenizerBytes;
  limits.max_depth = kMaxTokenizerDepth;
  const JsonValue doc = parse_json(text, what, limits);
  if (!doc.is_object()) r.fail("the document must be a JSON object (a Hugging Face tokenizer.json)");
  Tokenizer tk;

  // truncation, padding: they change a single text's ids; refused when set.
  for (const char* name : {"truncation", "padding"}) {
    const JsonValue* v = doc.find(name);
    if (v != nullptr && !v->is_null())
      r.fail(std::string(name) + " is set; headlab reads tokenizers without it (null)");
  }
  if (const JsonValue* v = doc.find("normalizer"); v != nullptr && !v->is_null()) {
    refuse_type(r, "normalizer", r.type_of(*v, "normalizer"), "null");
  }
  if (const JsonValue* v = doc.find("post_processor"); v != nullptr && !v->is_null()) {
    const std::string type = r.type_of(*v, "post_processor");
    if (type != "ByteLevel") refuse_type(r, "post_processor", type, "null or ByteLevel");
  }

  // model
  const JsonValue* model = doc.find("model");
  if (model == nullptr || !model->is_object()) r.fail("missing field \"model\" (an object)");
  const std::string model_type = r.type_of(*model, "model");
  if (model_type == "BPE") {
    tk.model = tokenizer::Model::bpe;
  } else if (model_type == "WordLevel") {
    tk.model = tokenizer::Model::word_level;
  } else {
    refuse_type(r, "model", model_type, "BPE or WordLevel");
  }
  if (tk.model == tokenizer::Model::bpe) {
    for (const char* name : {"dropout", "continuing_subword_prefix", "end_of_word_suffix", "byte_fallback"}) {
      const JsonValue* v = model->find(name);
      if (!r.is_off(v)) {
        r.fail(std::string("model.") + name + " is set (" + dump_json(*v).substr(0, 40) +
               "); headlab's BPE reads it off (null)");
      }
    }
    tk.ignore_merges = r.flag(*model, "ignore_merges", "model", false);
  }

  // pre_tokenizer
  const JsonValue* pre = doc.find("pre_tokenizer");
  if (pre == nullptr || pre->is_null()) {
    if (tk.model == tokenizer::Model::bpe) r.fail("pre_tokenizer is null; headlab's BPE reads ByteLevel");
    tk.pre_tokenizer = tokenizer::PreTokenizer::whitespace_split;
  } else {
    const std::string type = r.type_of(*pre, "pre_tokenizer");
    if (type == "ByteLevel") {
      tk.pre_tokenizer = tokenizer::PreTokenizer::byte_level;
      tk.add_prefix_space = r.flag(*pre, "add_prefix_space", "pre_tokenizer", true);
      tk.use_regex = r.flag(*pre, "use_regex", "pre_tokenizer", true);
    } else if (type == "Whitespace") {
      tk.pre_tokenizer = tokenizer::PreTokenizer::whitespace;
    } else if (type == "WhitespaceSplit") {
      tk.pre_tokenizer = tokenizer::PreTokenizer::whitespace_split;
    } else {
      refuse_type(r, "pre_tokenizer", type, "ByteLevel, Whitespace or WhitespaceSplit");
    }
    if (tk.model == tokenizer::Model::bpe && tk.pre_tokenizer != tokenizer::PreTokenizer::byte_level) {
      r.fail("pre_tokenizer type " + quoted(type) + " with a BPE model is not implemented (headlab reads ByteLevel)");
    }
  }

  // vocab
  const JsonValue* vocab = model->find("vocab");
  if (vocab == nullptr || !vocab->is_object()) r.fail("missing field \"model.vocab\" (an object of token: id)");
  if (vocab->size() > kMaxTokenizerVocab) {
    r.fail("model.vocab has " + std::to_string(vocab->size()) + " entries; the limit is " +
           std::to_string(kMaxTokenizerVocab));
  }
  tk.vocab.reserve(vocab->size());
  for (const auto& [token, id_value] : vocab->members()) {
    const std::string path = "model.vocab[" + quoted(token) + "]";
    r.check_token(token, "model.vocab key");
    const int id = r.id_of(id_value, path);
    if (static_cast<std::size_t>(id) >= tk.tokens.size()) tk.tokens.resize(static_cast<std::size_t>(id) + 1);
    if (!tk.tokens[static_cast<std::size_t>(id)].empty()) {
      r.fail(path + ": id " + std::to_string(id) + " is also " + quoted(tk.tokens[static_cast<std::size_t>(id)]));
    }
    tk.tokens[static_cast<std::size_t>(id)] = token;
    tk.vocab.emplace(token, id);
  }
  if (tk.model == tokenizer::Model::bpe && tk.pre_tokenizer == tokenizer::PreTokenizer::byte_level &&
      !tk.vocab.empty()) {
    // Every byte must be spelled, or some texts cannot be encoded at all.
    for (int b = 0; b < 256; ++b) {
      std::string s;
      tokenizer::append_utf8(s, tokenizer::byte_char(static_cast<std::uint8_t>(b)));
      if (!tk.vocab.count(s)) {
        r.fail("model.vocab has no token for the byte 0x" + std::string(1, "0123456789abcdef"[b >> 4]) +
               "0123456789abcdef"[b & 15] + " (" + quoted(s) + "); a byte-level vocabulary spells all 256");
      }
    }
  }

  // unk_token
  if (const JsonValue* unk = model->find("unk_token"); unk != nullptr && !unk->is_null()) {
    if (!unk->is_string()) r.fail("model.unk_token must be a string or null");
    const auto it = tk.vocab.find(unk->as_string());
    if (it == tk.vocab.end()) r.fail("model.unk_token " + quoted(unk->as_string()) + " is not in model.vocab");
    tk.unk_id = it->second;
  }
  if (tk.model == tokenizer::Model::word_level && tk.unk_id < 0) {
    r.fail("model.unk_token is missing; a WordLevel model needs one (a word not in the vocabulary becomes it)");
  }

  // merges
  if (tk.model == tokenizer::Model::bpe) {
    const JsonValue* merges = model->find("merges");
    if (merges == nullptr || !merges->is_array()) r.fail("missing field \"model.merges\" (an array)");
    if (merges->size() > kMaxTokenizerMerges) {
      r.fail("model.merges has " + std::to_string(merges->size()) + " entries; the limit is " +
             std::to_string(kMaxTokenizerMerges));
    }
    tk.merges.reserve(merges->size());
    for (std::size_t rank = 0; rank < merges->size(); ++rank) {
      const JsonValue& m = (*merges)[rank];
      const std::string path = "model.merges[" + std::to_string(rank) + "]";
      std::string a, b;
      if (m.is_string()) {
        // "a b": a token has no space in a byte-level vocabulary (the space is Ġ).
        const std::string& s = m.as_string();
        const auto space = s.find(' ');
        if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
          r.fail(path + " " + quoted(s) + " must be two tokens separated by one space");
        }
        a = s.substr(0, space);
        b = s.substr(space + 1);
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        a = m[0].as_string();
        b = m[1].as_string();
      } else {
        r.fail(path + " must be a string \"a b\" or a pair [\"a\", \"b\"]");
      }
      const auto ia = tk.vocab.find(a);
      const auto ib = tk.vocab.find(b);
      const auto iab = tk.vocab.find(a + b);
      for (const auto& [it, s] : {std::pair{ia, a}, std::pair{ib, b}, std::pair{iab, a + b}}) {
        if (it == tk.vocab.end()) r.fail(path + ": " + quoted(s) + " is not in model.vocab");
      }
      const std::uint64_t key = static_cast<std::uint64_t>(ia->second) << 32 | static_cast<std::uint32_t>(ib->second);
      // A pair listed twice keeps its first (lowest) rank, as the tokenizers library does.
      tk.merges.emplace(key, Tokenizer::Merge{static_cast<int>(rank), iab->second});
    }
  }

  // added_tokens
  if (const JsonValue* added = doc.find("added_tokens"); added != nullptr && !added->is_null()) {
    if (!added->is_array()) r.fail("added_tokens must be an array");
    if (added->size() > kMaxAddedTokens) {
      r.fail("added_tokens has " + std::to_string(added->size()) + " entries; the limit is " +
             std::to_string(kMaxAddedTokens));
    }
    for (std::size_t k = 0; k < added->size(); ++k) {
      const JsonValue& a = (*added)[k];
      const std::string path = "added_tokens[" + std::to_string(k) + "]";
      if (!a.is_object()) r.fail(path + " must be an object");
      const JsonValue* content = a.find("content");
      const JsonValue* id = a.find("id");
      if (content == nullptr || !content->is_string()) r.fail(path + ".content must be a string");
      if (id == nullptr) r.fail(path + " has no id");
      tokenizer::AddedToken t;
      t.content = content->as_string();
      r.check_token(t.content, path + ".content");
      t.id = r.id_of(*id, path + ".id");
      t.special = r.flag(a, "special", path, false);
      for (const char* name : {"single_word", "lstrip", "rstrip"}) {
        if (r.flag(a, name, path, false))
          r.fail(path + "." + name + " is true; headlab matches added tokens as written");
      }
      if (static_cast<std::size_t>(t.id) < tk.tokens.size() && !tk.tokens[static_cast<std::size_t>(t.id)].empty() &&
          tk.tokens[static_cast<std::size_t>(t.id)] != t.content) {
        r.fail(path + ": id " + std::to_string(t.id) + " is " + quoted(tk.tokens[static_cast<std::size_t>(t.id)]) +
               " in model.vocab, not " + quoted(t.content));
      }
      if (static_cast<std::size_t>(t.id) >= tk.tokens.size()) tk.tokens.resize(static_cast<std::size_t>(t.id) + 1);
      tk.tokens[static_cast<std::size_t>(t.id)] = t.content;
      tk.added.push_back(std::move(t));
    }
  }
  if (tk.tokens.empty()) r.fail("model.vocab is empty");
  return tk;
}

}  // namespace headlab::formats
