#include "formats/max_digit_weights.hpp"

#include "core/check.hpp"
#include "formats/json.hpp"

namespace headlab::formats {
namespace md = headlab::max_digit;

namespace {

JsonValue heads_to_json(const std::vector<Matrix>& ms) {
  JsonValue out = JsonValue::array();
  for (const auto& m : ms) out.push_back(matrix_to_json(m));
  return out;
}

std::vector<Matrix> heads_from_json(const JsonValue& file, const std::string& name) {
  const JsonValue& v = field(file, name);
  if (!v.is_array()) throw InputError(name + " must be an array of " + std::to_string(md::kHeads) + " matrices");
  std::vector<Matrix> out;
  for (std::size_t h = 0; h < v.size(); ++h)
    out.push_back(matrix_from_json(v[h], name + "[" + std::to_string(h) + "]"));
  return out;
}

void require_dimension(const JsonValue& file, const std::string& name, int expected) {
  const JsonValue& v = field(file, name);
  if (!v.is_number() || v.as_double() != expected) {
    throw InputError(name + " must be " + std::to_string(expected) + ", got " + excerpt(dump_json(v)));
  }
}

}  // namespace

md::MaxDigitWeights read_max_digit_weights(std::string_view text, const std::string& what) {
  JsonLimits limits;
  limits.max_bytes = kMaxDigitWeightsMaxBytes;
  limits.max_depth = 8;  // the file nests 4 deep (object → heads → matrix → row)
  limits.max_string_bytes = 4096;
  const JsonValue file = parse_json(text, what, limits);
  if (!file.is_object()) throw InputError("the weights file must be a JSON object");
  const JsonValue& version = field(file, "format_version");
  if (!version.is_number()) throw InputError("format_version must be a number, got " + excerpt(dump_json(version)));
  md::require_format_version(version.as_double());
  require_dimension(file, "d_model", md::kDModel);
  require_dimension(file, "n_heads", md::kHeads);
  require_dimension(file, "d_head", md::kDHead);
  const JsonValue& vocab = field(file, "vocab");
  const auto& names = md::vocab_names();
  if (!vocab.is_array() || vocab.size() != names.size()) {
    throw InputError("vocab must list the " + std::to_string(names.size()) + " token names");
  }
  for (std::size_t t = 0; t < names.size(); ++t) {
    if (!vocab[t].is_string() || vocab[t].as_string() != names[t]) {
      throw InputError("vocab[" + std::to_string(t) + "] must be \"" + names[t] + "\", got " +
                       excerpt(dump_json(vocab[t])));
    }
  }
  const JsonValue& unit = field(file, "unit_norm_unembedding");
  if (!unit.is_boolean()) throw InputError("unit_norm_unembedding must be true or false");
  md::MaxDigitWeights w;
  w.unit_norm_unembedding = unit.as_bool();
  w.E = matrix_from_json(field(file, "E"), "E");
  for (const auto& [name, heads] : kMaxDigitHeadFields) w.*heads = heads_from_json(file, name);
  w.W_U = matrix_from_json(field(file, "W_U"), "W_U");
  md::validate_weights(w);
  return w;
}

std::string write_max_digit_weights(const md::MaxDigitWeights& w, const md::MaxDigitTrainingSettings* training,
                                    double final_batch_loss) {
  JsonValue out = JsonValue::Object{{"format_version", md::kFormatVersion},
                                    {"vocab", md::vocab_names()},
                                    {"d_model", md::kDModel},
                                    {"n_heads", md::kHeads},
                                    {"d_head", md::kDHead},
                                    {"unit_norm_unembedding", w.unit_norm_unembedding},
                                    {"E", matrix_to_json(w.E)},
                                    {"W_Q", heads_to_json(w.W_Q)},
                                    {"W_K", heads_to_json(w.W_K)},
                                    {"W_V", heads_to_json(w.W_V)},
                                    {"W_O", heads_to_json(w.W_O)},
                                    {"W_U", matrix_to_json(w.W_U)}};
  if (training) {
    const md::MaxDigitTrainingSettings& t = *training;
    out["training"] = JsonValue::Object{{"seed", t.seed},
                                        {"steps", t.steps},
                                        {"batch_size", t.batch_size},
                                        {"learning_rate", t.learning_rate},
                                        {"weight_decay", t.weight_decay},
                                        {"init_scale", t.init_scale},
                                        {"final_batch_loss", final_batch_loss}};
  }
  return dump_json(out) + "\n";
}

}  // namespace headlab::formats
