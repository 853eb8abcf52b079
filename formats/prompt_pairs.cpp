#include "formats/prompt_pairs.hpp"

#include "core/check.hpp"
#include "formats/json.hpp"
#include "formats/transformer_json.hpp"

namespace headlab::formats {

namespace {

// An integer JSON value as a long long (non-negative integers parse as unsigned, as nlohmann's do);
// false for anything else or beyond the range of long long.
bool integer_of(const JsonValue& v, long long& out) {
  if (v.kind() == JsonValue::Kind::integer) {
    out = v.as_integer();
    return true;
  }
  if (v.kind() == JsonValue::Kind::unsigned_integer && v.as_unsigned() <= 0x7fffffffffffffffULL) {
    out = static_cast<long long>(v.as_unsigned());
    return true;
  }
  return false;
}

std::vector<int> prompt_of(const transformer::TransformerConfig& c, const JsonValue& v, const std::string& where) {
  if (v.is_string()) {
    try {
      return parse_prompt(c, v.as_string());
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
  }
  if (!v.is_array()) throw InputError(where + " must be a prompt string or an array of token ids");
  std::vector<int> tokens;
  if (v.size() > static_cast<std::size_t>(transformer::kMaxContext)) {
    throw InputError(where + " has more than " + std::to_string(transformer::kMaxContext) + " tokens");
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    long long t = -1;
    if (!integer_of(v[i], t) || t < 0 || t >= c.d_vocab) {
      throw InputError(where + "[" + std::to_string(i) + "] must be a token id in [0, " + std::to_string(c.d_vocab) +
                       ")");
    }
    tokens.push_back(static_cast<int>(t));
  }
  return tokens;
}

int token_of(const transformer::TransformerConfig& c, const JsonValue& v, const std::string& where) {
  long long t = -1;
  if (integer_of(v, t)) {
    if (t < 0 || t >= c.d_vocab) {
      throw InputError(where + " = " + std::to_string(t) + " is outside [0, " + std::to_string(c.d_vocab) + ")");
    }
    return static_cast<int>(t);
  }
  if (v.is_string()) {
    for (std::size_t n = 0; n < c.token_names.size(); ++n)
      if (c.token_names[n] == v.as_string()) return static_cast<int>(n);
    const std::string& s = v.as_string();
    throw InputError(where + " \"" + (s.size() > 20 ? s.substr(0, 20) + "…" : s) +
                     "\" is not one of the model's token names");
  }
  throw InputError(where + " must be a token id or a token name");
}

}  // namespace

std::vector<PromptPair> read_prompt_pairs(const transformer::TransformerConfig& c, std::string_view text,
                                          const std::string& what) {
  JsonLimits limits;
  limits.max_bytes = kMaxPromptPairsBytes;
  const JsonValue doc = parse_json(text, what, limits);
  try {
    if (!doc.is_object()) throw InputError("must be a JSON object {\"pairs\": [...]}");
    for (const auto& [key, value] : doc.members()) {
      (void)value;
      if (key != "pairs") throw InputError("unknown field \"" + excerpt(key) + "\" (the file holds only \"pairs\")");
    }
    const JsonValue& list = field(doc, "pairs");
    if (!list.is_array()) throw InputError("\"pairs\" must be an array");
    if (list.size() > static_cast<std::size_t>(kMaxPromptPairs)) {
      throw InputError("a batch holds at most " + std::to_string(kMaxPromptPairs) + " prompt pairs, got " +
                       std::to_string(list.size()));
    }
    std::vector<PromptPair> pairs;
    pairs.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const JsonValue& item = list[i];
      const std::string name = "pair " + std::to_string(i);
      if (!item.is_object()) throw InputError(name + " must be an object {clean, corrupted, answer, wrong}");
      for (const auto& [key, value] : item.members()) {
        (void)value;
        if (key != "clean" && key != "corrupted" && key != "answer" && key != "wrong") {
          throw InputError(name + ": unknown field \"" + excerpt(key) + "\"");
        }
      }
      const auto member = [&](const char* key) -> const JsonValue& {
        const JsonValue* v = item.find(key);
        if (!v) throw InputError(name + ": missing field \"" + key + "\"");
        return *v;
      };
      PromptPair p;
      p.clean = prompt_of(c, member("clean"), name + " clean");
      p.corrupted = prompt_of(c, member("corrupted"), name + " corrupted");
      p.answer = token_of(c, member("answer"), name + " answer");
      p.wrong = token_of(c, member("wrong"), name + " wrong");
      pairs.push_back(std::move(p));
    }
    require_prompt_pairs(pairs, c.d_vocab, c.n_ctx);
    return pairs;
  } catch (const InputError& e) {
    throw InputError(what + ": " + e.what());
  }
}

std::string write_prompt_pairs(const std::vector<PromptPair>& pairs) {
  JsonWriter out;
  out.begin_object().key("pairs").begin_array();
  for (const auto& p : pairs) {
    out.begin_object().key("answer").value(p.answer);
    out.key("clean").begin_array();
    for (int t : p.clean) out.value(t);
    out.end_array().key("corrupted").begin_array();
    for (int t : p.corrupted) out.value(t);
    out.end_array().key("wrong").value(p.wrong).end_object();
  }
  out.end_array().end_object();
  return std::move(out.text());
}

}  // namespace headlab::formats
