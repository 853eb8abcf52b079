#include "formats/feature_recovery_results.hpp"

#include "formats/json.hpp"

namespace headlab::formats {

std::string write_feature_recovery_results(const FeatureRecoveryResult& r, const std::string& headlab_version) {
  const FeatureRecoverySettings& s = r.settings;
  const FeatureRecoveryEvaluation& e = r.evaluation;
  JsonValue settings = JsonValue::object();
  settings["seed"] = s.seed;
  settings["steps"] = s.steps;
  settings["batch"] = s.batch_size;
  settings["learning_rate"] = s.learning_rate;
  settings["optimizer"] = "adam";
  settings["beta1"] = s.beta1;
  settings["beta2"] = s.beta2;
  settings["epsilon"] = s.epsilon;
  settings["init_scale"] = s.init_scale;
  settings["eval_size"] = s.eval_size;
  settings["request_scale"] = s.request_scale;
  settings["shift"] = s.shift;
  settings["learned_keys"] = s.learned_keys;
  JsonValue interventions = JsonValue::object();
  interventions["erase_request"] = JsonValue(e.erase_request_mse);
  interventions["erase_payload"] = JsonValue(e.erase_payload_mse);
  interventions["irrelevant_shift_mse"] = e.irrelevant_shift_mse;
  JsonValue out = JsonValue::object();
  out["format"] = kFeatureRecoveryResultsFormat;
  out["headlab_version"] = headlab_version;
  out["settings"] = std::move(settings);
  out["steps_done"] = r.steps_taken;
  out["fixed_keys"] = matrix_to_json(r.keys);
  out["mixing"] = matrix_to_json(r.mixing);
  out["w_q"] = matrix_to_json(r.w_q);
  out["w_v"] = matrix_to_json(r.w_v);
  out["response_query"] = matrix_to_json(e.response_query);
  out["response_value"] = matrix_to_json(e.response_value);
  out["loss_trace"] = JsonValue(r.loss_trace);
  out["heldout_mse"] = e.heldout_mse;
  out["uniform_attention_mse"] = e.uniform_attention_mse;
  out["query_r2"] = JsonValue(e.query_r2);
  out["value_r2"] = JsonValue(e.value_r2);
  out["interventions"] = std::move(interventions);
  out["train_seconds"] = r.train_seconds;
  return dump_json(out) + "\n";
}

}  // namespace headlab::formats
