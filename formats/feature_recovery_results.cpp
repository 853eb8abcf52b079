#include "formats/feature_recovery_results.hpp"

#include "formats/json.hpp"

namespace headlab::formats {

std::string write_feature_recovery_results(const FeatureRecoveryResult& r, const std::string& headlab_version) {
  const FeatureRecoverySettings& s = r.settings;
  const FeatureRecoveryEvaluation& e = r.evaluation;
  const JsonValue settings = JsonValue::Object{
      {"seed", s.seed}, {"steps", s.steps}, {"batch", s.batch_size}, {"learning_rate", s.learning_rate},
      {"optimizer", "adam"}, {"beta1", s.beta1}, {"beta2", s.beta2}, {"epsilon", s.epsilon},
      {"init_scale", s.init_scale}, {"eval_size", s.eval_size}, {"request_scale", s.request_scale},
      {"shift", s.shift}, {"learned_keys", s.learned_keys}};
  const JsonValue interventions = JsonValue::Object{{"erase_request", e.erase_request_mse},
                                                    {"erase_payload", e.erase_payload_mse},
                                                    {"irrelevant_shift_mse", e.irrelevant_shift_mse}};
  const JsonValue out = JsonValue::Object{
      {"format", kFeatureRecoveryResultsFormat}, {"headlab_version", headlab_version}, {"settings", settings},
      {"steps_done", r.steps_taken}, {"fixed_keys", matrix_to_json(r.keys)}, {"mixing", matrix_to_json(r.mixing)},
      {"w_q", matrix_to_json(r.w_q)}, {"w_v", matrix_to_json(r.w_v)},
      {"response_query", matrix_to_json(e.response_query)}, {"response_value", matrix_to_json(e.response_value)},
      {"loss_trace", r.loss_trace}, {"heldout_mse", e.heldout_mse}, {"uniform_attention_mse", e.uniform_attention_mse},
      {"query_r2", e.query_r2}, {"value_r2", e.value_r2}, {"interventions", interventions},
      {"train_seconds", r.train_seconds}};
  return dump_json(out) + "\n";
}

}  // namespace headlab::formats
