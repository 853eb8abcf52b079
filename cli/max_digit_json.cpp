#include "cli/max_digit_json.hpp"

#include "cli/json_matrix.hpp"
#include "core/check.hpp"

namespace headlab::cli {
namespace md = headlab::max_digit;
using nlohmann::json;

namespace {

json heads_to_json(const std::vector<Matrix>& ms) {
  json out = json::array();
  for (const auto& m : ms) out.push_back(matrix_to_json(m));
  return out;
}

const json& field(const json& file, const std::string& name) {
  const auto it = file.find(name);
  if (it == file.end()) throw InputError("missing field \"" + name + "\"");
  return *it;
}

std::vector<Matrix> heads_from_json(const json& file, const std::string& name) {
  const json& v = field(file, name);
  if (!v.is_array()) throw InputError(name + " must be an array of " + std::to_string(md::kHeads) + " matrices");
  std::vector<Matrix> out;
  for (std::size_t h = 0; h < v.size(); ++h) out.push_back(matrix_from_json(v[h], name + "[" + std::to_string(h) + "]"));
  return out;
}

void require_dimension(const json& file, const std::string& name, int expected) {
  const json& v = field(file, name);
  if (!v.is_number() || v.get<double>() != expected) {
    throw InputError(name + " must be " + std::to_string(expected) + ", got " + v.dump());
  }
}

json array_of(const std::array<double, 10>& a) { return json(std::vector<double>(a.begin(), a.end())); }
json logits_json(const std::array<double, md::kVocab>& a) { return json(std::vector<double>(a.begin(), a.end())); }

json report_json(const md::AccuracyReport& r) {
  return {{"accuracy", r.accuracy}, {"correct", r.correct}, {"total", r.total}, {"accuracy_by_max", array_of(r.by_max)}};
}

template <std::size_t N>
json ints_json(const std::array<int, N>& a) { return json(std::vector<int>(a.begin(), a.end())); }
template <std::size_t N>
json doubles_json(const std::array<double, N>& a) { return json(std::vector<double>(a.begin(), a.end())); }

json mechanism_json(const md::Mechanism& m) {
  return {{"score_slope", doubles_json(m.score_slope)},
          {"score_monotone", std::vector<bool>(m.score_monotone.begin(), m.score_monotone.end())},
          {"marker_gap", doubles_json(m.marker_gap)},
          {"embedding_norm", doubles_json(m.embedding_norm)},
          {"unembedding_norm", doubles_json(m.unembedding_norm)},
          {"default_logits", doubles_json(m.default_logits)},
          {"default_answer", m.default_answer},
          {"default_answer_residual_free", m.default_answer_residual_free},
          {"one_hot_answer", ints_json(m.one_hot_answer)},
          {"recruited_one_hot_answer", ints_json(m.recruited_one_hot_answer)}};
}

}  // namespace

json max_digit_claims_to_json(const md::SeedClaims& c) {
  json pairs = json::array();
  for (const auto& p : c.pair_flips) pairs.push_back({p[0], p[1]});
  return {{"accuracy", c.accuracy},
          {"single_head_accuracy", doubles_json(c.single_head_accuracy)},
          {"min_single_head_accuracy", c.min_single_head_accuracy},
          {"single_heads_perfect", c.single_heads_perfect},
          {"min_one_ablated_accuracy", c.min_one_ablated_accuracy},
          {"directions_w_o", c.directions_w_o},
          {"directions_w_u", c.directions_w_u},
          {"angle_dot_agree", c.angle_dot_agree},
          {"dot_correct", c.dot_correct},
          {"single_flips", c.single_flips},
          {"pair_flips", pairs},
          {"all_heads_answer", c.all_heads_answer},
          {"one_hot_exceptions", c.one_hot_exceptions},
          {"default_answer", c.default_answer},
          {"recruited_cells", c.recruited_cells},
          {"scores_monotone", c.scores_monotone},
          {"markers_below_digits", c.markers_below_digits}};
}

json max_digit_weights_to_json(const md::MaxDigitWeights& w, const md::MaxDigitTrainingSettings* training,
                               double final_loss) {
  json out;
  out["format_version"] = md::kFormatVersion;
  out["vocab"] = md::vocab_names();
  out["d_model"] = md::kDModel;
  out["n_heads"] = md::kHeads;
  out["d_head"] = md::kDHead;
  out["unit_norm_unembedding"] = w.unit_norm_unembedding;
  if (training) {
    out["training"] = {{"seed", training->seed},
                       {"steps", training->steps},
                       {"batch_size", training->batch_size},
                       {"learning_rate", training->learning_rate},
                       {"weight_decay", training->weight_decay},
                       {"init_scale", training->init_scale},
                       {"final_batch_loss", final_loss}};
  }
  out["E"] = matrix_to_json(w.E);
  out["W_Q"] = heads_to_json(w.W_Q);
  out["W_K"] = heads_to_json(w.W_K);
  out["W_V"] = heads_to_json(w.W_V);
  out["W_O"] = heads_to_json(w.W_O);
  out["W_U"] = matrix_to_json(w.W_U);
  return out;
}

md::MaxDigitWeights max_digit_weights_from_json(const json& file) {
  if (!file.is_object()) throw InputError("the weights file must be a JSON object");
  const json& version = field(file, "format_version");
  if (!version.is_number()) throw InputError("format_version must be a number, got " + version.dump());
  md::require_format_version(version.get<double>());
  require_dimension(file, "d_model", md::kDModel);
  require_dimension(file, "n_heads", md::kHeads);
  require_dimension(file, "d_head", md::kDHead);
  const json& vocab = field(file, "vocab");
  const auto& names = md::vocab_names();
  if (!vocab.is_array() || vocab.size() != names.size()) throw InputError("vocab must list the 14 token names");
  for (std::size_t t = 0; t < names.size(); ++t) {
    if (vocab[t] != names[t]) {
      throw InputError("vocab[" + std::to_string(t) + "] must be \"" + names[t] + "\", got " + vocab[t].dump());
    }
  }
  const json& unit = field(file, "unit_norm_unembedding");
  if (!unit.is_boolean()) throw InputError("unit_norm_unembedding must be true or false");
  md::MaxDigitWeights w;
  w.unit_norm_unembedding = unit.get<bool>();
  w.E = matrix_from_json(field(file, "E"), "E");
  w.W_Q = heads_from_json(file, "W_Q");
  w.W_K = heads_from_json(file, "W_K");
  w.W_V = heads_from_json(file, "W_V");
  w.W_O = heads_from_json(file, "W_O");
  w.W_U = matrix_from_json(field(file, "W_U"), "W_U");
  md::validate_weights(w);
  return w;
}

json max_digit_analysis_to_json(const md::MaxDigitAnalysis& a) {
  json out;
  out["format_version"] = md::kFormatVersion;
  out["unit_norm_unembedding"] = a.unit_norm_unembedding;
  out["evaluation"] = {{"lists", a.evaluation_lists},
                       {"lists_by_max", std::vector<long>(a.evaluation_lists_by_max.begin(), a.evaluation_lists_by_max.end())}};
  out["accuracy"] = a.accuracy.accuracy;
  out["accuracy_by_max"] = array_of(a.accuracy.by_max);
  out["residual_free_accuracy"] = a.residual_free.accuracy;
  out["residual_free_accuracy_by_max"] = array_of(a.residual_free.by_max);
  out["residual_only_accuracy"] = a.residual_only.accuracy;
  json ablation = json::array();
  for (const auto& h : a.head_ablation) {
    json row = report_json(h.report);
    row["heads"] = h.heads;
    ablation.push_back(row);
  }
  out["head_ablation"] = ablation;
  json sub_o = json::array(), sub_u = json::array();
  for (const auto& r : a.subspace_w_o) sub_o.push_back(r.accuracy);
  for (const auto& r : a.subspace_w_u) sub_u.push_back(r.accuracy);
  out["subspace_accuracy"] = {{"k", {1, 2, 3, 4, 5, 6, 7, 8}}, {"w_o", sub_o}, {"w_u", sub_u}};
  out["variance_explained"] = {{"w_o", a.variance_w_o}, {"w_u", a.variance_w_u}};
  out["principal_directions"] = {{"w_o", matrix_to_json(a.directions_w_o)}, {"w_u", matrix_to_json(a.directions_w_u)}};
  out["cosine_top3"] = matrix_to_json(a.cosine);
  out["scores"] = matrix_to_json(a.scores);
  json by_max = json::array();
  for (const auto& m : a.attention_by_max) by_max.push_back(matrix_to_json(m));
  out["attention_by_max"] = by_max;
  json recruited = json::array();
  for (const auto& heads : a.recruited) recruited.push_back(heads);
  out["recruited_heads"] = recruited;
  json single = json::array();
  for (const auto& p : a.patch_single) {
    single.push_back({{"head", p.head}, {"answer", p.result.answer}, {"logits", logits_json(p.result.logits)}});
  }
  out["patching"] = {{"digits", a.patch_digits},
                     {"position", a.patch_position},
                     {"original_answer", a.patch_all.original_answer},
                     {"original_logits", logits_json(a.patch_all.original_logits)},
                     {"single_head", single},
                     {"all_heads", {{"answer", a.patch_all.answer}, {"logits", logits_json(a.patch_all.logits)}}}};
  json pairs = json::array();
  for (const auto& p : a.patch_pairs) {
    pairs.push_back({{"heads", {p.heads[0], p.heads[1]}}, {"answer", p.result.answer}, {"logits", logits_json(p.result.logits)}});
  }
  out["patching"]["pairs"] = pairs;
  out["mechanism"] = mechanism_json(a.mechanism_figures);
  out["claims"] = max_digit_claims_to_json(md::seed_claims(a));
  out["angle_vs_dot"] = {{"basis", "w_o"},
                         {"k", 3},
                         {"mean_output", matrix_to_json(a.angle.mean_output)},
                         {"cosine", matrix_to_json(a.angle.cosine)},
                         {"dot", matrix_to_json(a.angle.dot)},
                         {"best_by_cosine", a.angle.best_by_cosine},
                         {"best_by_dot", a.angle.best_by_dot}};
  return out;
}

}  // namespace headlab::cli
