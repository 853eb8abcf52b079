#include "formats/max_digit_analysis.hpp"

#include "formats/json.hpp"

namespace headlab::formats {
namespace md = headlab::max_digit;

namespace {

JsonValue report_json(const md::AccuracyReport& r) {
  JsonValue out = JsonValue::object();
  out["accuracy"] = r.accuracy;
  out["correct"] = r.correct;
  out["total"] = r.total;
  out["accuracy_by_max"] = JsonValue(r.by_max);
  return out;
}

JsonValue logits_answer(const std::array<double, md::kVocab>& logits, int answer) {
  JsonValue out = JsonValue::object();
  out["answer"] = answer;
  out["logits"] = JsonValue(logits);
  return out;
}

JsonValue mechanism_json(const md::Mechanism& m) {
  JsonValue out = JsonValue::object();
  out["score_slope"] = JsonValue(m.score_slope);
  out["score_monotone"] = JsonValue(m.score_monotone);
  out["marker_gap"] = JsonValue(m.marker_gap);
  out["embedding_norm"] = JsonValue(m.embedding_norm);
  out["unembedding_norm"] = JsonValue(m.unembedding_norm);
  out["default_logits"] = JsonValue(m.default_logits);
  out["default_answer"] = m.default_answer;
  out["default_answer_residual_free"] = m.default_answer_residual_free;
  out["one_hot_answer"] = JsonValue(m.one_hot_answer);
  out["recruited_one_hot_answer"] = JsonValue(m.recruited_one_hot_answer);
  return out;
}

JsonValue claims_json(const md::SeedClaims& c) {
  JsonValue pairs = JsonValue::array();
  for (const auto& p : c.pair_flips) pairs.push_back(JsonValue(std::vector<int>{p[0], p[1]}));
  JsonValue out = JsonValue::object();
  out["accuracy"] = c.accuracy;
  out["single_head_accuracy"] = JsonValue(c.single_head_accuracy);
  out["min_single_head_accuracy"] = c.min_single_head_accuracy;
  out["single_heads_perfect"] = c.single_heads_perfect;
  out["min_one_ablated_accuracy"] = c.min_one_ablated_accuracy;
  out["directions_w_o"] = c.directions_w_o;
  out["directions_w_u"] = c.directions_w_u;
  out["angle_dot_agree"] = c.angle_dot_agree;
  out["dot_correct"] = c.dot_correct;
  out["single_flips"] = JsonValue(c.single_flips);
  out["pair_flips"] = std::move(pairs);
  out["all_heads_answer"] = c.all_heads_answer;
  out["one_hot_exceptions"] = JsonValue(c.one_hot_exceptions);
  out["default_answer"] = c.default_answer;
  out["recruited_cells"] = c.recruited_cells;
  out["scores_monotone"] = c.scores_monotone;
  out["markers_below_digits"] = c.markers_below_digits;
  return out;
}

JsonValue patching_json(const md::MaxDigitAnalysis& a) {
  JsonValue single = JsonValue::array();
  for (const auto& p : a.patch_single) {
    JsonValue row = logits_answer(p.result.logits, p.result.answer);
    row["head"] = p.head;
    single.push_back(std::move(row));
  }
  JsonValue pairs = JsonValue::array();
  for (const auto& p : a.patch_pairs) {
    JsonValue row = logits_answer(p.result.logits, p.result.answer);
    row["heads"] = JsonValue(p.heads);
    pairs.push_back(std::move(row));
  }
  JsonValue out = JsonValue::object();
  out["digits"] = JsonValue(a.patch_digits);
  out["position"] = a.patch_position;
  out["original_answer"] = a.patch_all.original_answer;
  out["original_logits"] = JsonValue(a.patch_all.original_logits);
  out["single_head"] = std::move(single);
  out["all_heads"] = logits_answer(a.patch_all.logits, a.patch_all.answer);
  out["pairs"] = std::move(pairs);
  return out;
}

JsonValue basis_pair(JsonValue w_o, JsonValue w_u) {
  JsonValue out = JsonValue::object();
  out["w_o"] = std::move(w_o);
  out["w_u"] = std::move(w_u);
  return out;
}

}  // namespace

std::string write_max_digit_analysis(const md::MaxDigitAnalysis& a) {
  JsonValue out = JsonValue::object();
  out["format_version"] = md::kFormatVersion;
  out["unit_norm_unembedding"] = a.unit_norm_unembedding;
  out["evaluation"]["lists"] = a.evaluation_lists;
  out["evaluation"]["lists_by_max"] = JsonValue(a.evaluation_lists_by_max);
  out["accuracy"] = a.accuracy.accuracy;
  out["accuracy_by_max"] = JsonValue(a.accuracy.by_max);
  out["residual_free_accuracy"] = a.residual_free.accuracy;
  out["residual_free_accuracy_by_max"] = JsonValue(a.residual_free.by_max);
  out["residual_only_accuracy"] = a.residual_only.accuracy;
  JsonValue ablation = JsonValue::array();
  for (const auto& h : a.head_ablation) {
    JsonValue row = report_json(h.report);
    row["heads"] = JsonValue(h.heads);
    ablation.push_back(std::move(row));
  }
  out["head_ablation"] = std::move(ablation);
  std::vector<double> sub_o, sub_u;
  for (const auto& r : a.subspace_w_o) sub_o.push_back(r.accuracy);
  for (const auto& r : a.subspace_w_u) sub_u.push_back(r.accuracy);
  out["subspace_accuracy"] = basis_pair(JsonValue(sub_o), JsonValue(sub_u));
  out["subspace_accuracy"]["k"] = JsonValue(std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8});
  out["variance_explained"] = basis_pair(JsonValue(a.variance_w_o), JsonValue(a.variance_w_u));
  out["principal_directions"] = basis_pair(matrix_to_json(a.directions_w_o), matrix_to_json(a.directions_w_u));
  out["cosine_top3"] = matrix_to_json(a.cosine);
  out["scores"] = matrix_to_json(a.scores);
  JsonValue by_max = JsonValue::array();
  for (const auto& m : a.attention_by_max) by_max.push_back(matrix_to_json(m));
  out["attention_by_max"] = std::move(by_max);
  JsonValue recruited = JsonValue::array();
  for (const auto& heads : a.recruited) recruited.push_back(JsonValue(heads));
  out["recruited_heads"] = std::move(recruited);
  out["patching"] = patching_json(a);
  out["mechanism"] = mechanism_json(a.mechanism_figures);
  out["claims"] = claims_json(md::seed_claims(a));
  JsonValue angle = JsonValue::object();
  angle["basis"] = "w_o";
  angle["k"] = 3;
  angle["mean_output"] = matrix_to_json(a.angle.mean_output);
  angle["cosine"] = matrix_to_json(a.angle.cosine);
  angle["dot"] = matrix_to_json(a.angle.dot);
  angle["best_by_cosine"] = JsonValue(a.angle.best_by_cosine);
  angle["best_by_dot"] = JsonValue(a.angle.best_by_dot);
  out["angle_vs_dot"] = std::move(angle);
  return dump_json(out) + "\n";
}

std::string write_max_digit_seeds(const md::MaxDigitTrainingSettings& s, const std::vector<MaxDigitSeedRow>& rows) {
  JsonValue settings = JsonValue::object();
  settings["steps"] = s.steps;
  settings["batch_size"] = s.batch_size;
  settings["learning_rate"] = s.learning_rate;
  settings["weight_decay"] = s.weight_decay;
  settings["init_scale"] = s.init_scale;
  settings["unit_norm_unembedding"] = s.unit_norm_unembedding;
  JsonValue seeds = JsonValue::array();
  for (const auto& r : rows) {
    JsonValue row = JsonValue::object();
    row["seed"] = r.seed;
    row["final_batch_loss"] = r.final_batch_loss;
    row["claims"] = claims_json(r.claims);
    seeds.push_back(std::move(row));
  }
  JsonValue out = JsonValue::object();
  out["format_version"] = md::kFormatVersion;
  out["settings"] = std::move(settings);
  out["seeds"] = std::move(seeds);
  return dump_json(out) + "\n";
}

}  // namespace headlab::formats
