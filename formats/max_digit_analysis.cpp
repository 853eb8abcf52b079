#include "formats/max_digit_analysis.hpp"

#include "formats/json.hpp"

namespace headlab::formats {
namespace md = headlab::max_digit;

namespace {

using Object = JsonValue::Object;

JsonValue report_json(const md::AccuracyReport& r) {
  return Object{{"accuracy", r.accuracy}, {"correct", r.correct}, {"total", r.total}, {"accuracy_by_max", r.by_max}};
}

Object logits_answer(const std::array<double, md::kVocab>& logits, int answer) {
  return Object{{"answer", answer}, {"logits", logits}};
}

JsonValue mechanism_json(const md::Mechanism& m) {
  return Object{{"score_slope", m.score_slope},
                {"score_monotone", m.score_monotone},
                {"marker_gap", m.marker_gap},
                {"embedding_norm", m.embedding_norm},
                {"unembedding_norm", m.unembedding_norm},
                {"default_logits", m.default_logits},
                {"default_answer", m.default_answer},
                {"default_answer_residual_free", m.default_answer_residual_free},
                {"one_hot_answer", m.one_hot_answer},
                {"recruited_one_hot_answer", m.recruited_one_hot_answer}};
}

JsonValue claims_json(const md::SeedClaims& c) {
  JsonValue pairs = JsonValue::array();
  for (const auto& p : c.pair_flips) pairs.push_back(p);
  return Object{{"accuracy", c.accuracy},
                {"single_head_accuracy", c.single_head_accuracy},
                {"min_single_head_accuracy", c.min_single_head_accuracy},
                {"single_heads_perfect", c.single_heads_perfect},
                {"min_one_ablated_accuracy", c.min_one_ablated_accuracy},
                {"directions_w_o", c.directions_w_o},
                {"directions_w_u", c.directions_w_u},
                {"angle_dot_agree", c.angle_dot_agree},
                {"dot_correct", c.dot_correct},
                {"single_flips", c.single_flips},
                {"pair_flips", std::move(pairs)},
                {"all_heads_answer", c.all_heads_answer},
                {"one_hot_exceptions", c.one_hot_exceptions},
                {"default_answer", c.default_answer},
                {"recruited_cells", c.recruited_cells},
                {"scores_monotone", c.scores_monotone},
                {"markers_below_digits", c.markers_below_digits}};
}

JsonValue patching_json(const md::MaxDigitAnalysis& a) {
  JsonValue single = JsonValue::array(), pairs = JsonValue::array();
  for (const auto& p : a.patch_single) {
    Object row = logits_answer(p.result.logits, p.result.answer);
    row["head"] = p.head;
    single.push_back(std::move(row));
  }
  for (const auto& p : a.patch_pairs) {
    Object row = logits_answer(p.result.logits, p.result.answer);
    row["heads"] = p.heads;
    pairs.push_back(std::move(row));
  }
  return Object{{"digits", a.patch_digits},
                {"position", a.patch_position},
                {"original_answer", a.patch_all.original_answer},
                {"original_logits", a.patch_all.original_logits},
                {"single_head", std::move(single)},
                {"all_heads", logits_answer(a.patch_all.logits, a.patch_all.answer)},
                {"pairs", std::move(pairs)}};
}

JsonValue matrices_json(const std::vector<Matrix>& ms) {
  JsonValue out = JsonValue::array();
  for (const auto& m : ms) out.push_back(matrix_to_json(m));
  return out;
}

}  // namespace

std::string write_max_digit_analysis(const md::MaxDigitAnalysis& a) {
  JsonValue ablation = JsonValue::array(), recruited = JsonValue::array();
  for (const auto& h : a.head_ablation) {
    JsonValue row = report_json(h.report);
    row["heads"] = h.heads;
    ablation.push_back(std::move(row));
  }
  for (const auto& heads : a.recruited) recruited.push_back(heads);
  std::vector<double> sub_o, sub_u;
  for (const auto& r : a.subspace_w_o) sub_o.push_back(r.accuracy);
  for (const auto& r : a.subspace_w_u) sub_u.push_back(r.accuracy);
  const md::AngleVsDot& angle = a.angle;
  const JsonValue out = Object{
      {"format_version", md::kFormatVersion},
      {"unit_norm_unembedding", a.unit_norm_unembedding},
      {"evaluation", Object{{"lists", a.evaluation_lists}, {"lists_by_max", a.evaluation_lists_by_max}}},
      {"accuracy", a.accuracy.accuracy},
      {"accuracy_by_max", a.accuracy.by_max},
      {"residual_free_accuracy", a.residual_free.accuracy},
      {"residual_free_accuracy_by_max", a.residual_free.by_max},
      {"residual_only_accuracy", a.residual_only.accuracy},
      {"head_ablation", std::move(ablation)},
      {"subspace_accuracy", Object{{"k", std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}}, {"w_o", sub_o}, {"w_u", sub_u}}},
      {"variance_explained", Object{{"w_o", a.variance_w_o}, {"w_u", a.variance_w_u}}},
      {"principal_directions",
       Object{{"w_o", matrix_to_json(a.directions_w_o)}, {"w_u", matrix_to_json(a.directions_w_u)}}},
      {"cosine_top3", matrix_to_json(a.cosine)},
      {"scores", matrix_to_json(a.scores)},
      {"attention_by_max", matrices_json(a.attention_by_max)},
      {"recruited_heads", std::move(recruited)},
      {"patching", patching_json(a)},
      {"mechanism", mechanism_json(a.mechanism_figures)},
      {"claims", claims_json(md::seed_claims(a))},
      {"angle_vs_dot", Object{{"basis", "w_o"},
                              {"k", 3},
                              {"mean_output", matrix_to_json(angle.mean_output)},
                              {"cosine", matrix_to_json(angle.cosine)},
                              {"dot", matrix_to_json(angle.dot)},
                              {"best_by_cosine", angle.best_by_cosine},
                              {"best_by_dot", angle.best_by_dot}}}};
  return dump_json(out) + "\n";
}

std::string write_max_digit_seeds(const md::MaxDigitTrainingSettings& s, const std::vector<MaxDigitSeedRow>& rows) {
  JsonValue seeds = JsonValue::array();
  for (const auto& r : rows) {
    seeds.push_back(
        Object{{"seed", r.seed}, {"final_batch_loss", r.final_batch_loss}, {"claims", claims_json(r.claims)}});
  }
  const JsonValue settings = Object{{"steps", s.steps},
                                    {"batch_size", s.batch_size},
                                    {"learning_rate", s.learning_rate},
                                    {"weight_decay", s.weight_decay},
                                    {"init_scale", s.init_scale},
                                    {"unit_norm_unembedding", s.unit_norm_unembedding}};
  return dump_json(
             Object{{"format_version", md::kFormatVersion}, {"settings", settings}, {"seeds", std::move(seeds)}}) +
         "\n";
}

}  // namespace headlab::formats
