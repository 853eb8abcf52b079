#include "formats/feature_recovery_results.hpp"

#include "formats/json.hpp"

namespace headlab::formats {

// Streamed with JsonWriter (keys in sorted order) rather than built as a JsonValue: the
// headlab_feature_recovery WASM module, which carries this writer, stays smaller (its page's budget).
std::string write_feature_recovery_results(const FeatureRecoveryResult& r, const std::string& headlab_version) {
  const FeatureRecoverySettings& s = r.settings;
  const FeatureRecoveryEvaluation& e = r.evaluation;
  JsonWriter w;
  w.begin_object();
  w.key("fixed_keys").matrix(r.keys).key("format").value(kFeatureRecoveryResultsFormat);
  w.key("headlab_version").value(headlab_version).key("heldout_mse").value(e.heldout_mse);
  w.key("interventions").begin_object();
  w.key("erase_payload")
      .numbers(e.erase_payload_mse.data(), 3)
      .key("erase_request")
      .numbers(e.erase_request_mse.data(), 3);
  w.key("irrelevant_shift_mse").value(e.irrelevant_shift_mse).end_object();
  w.key("loss_trace").numbers(r.loss_trace.data(), r.loss_trace.size()).key("mixing").matrix(r.mixing);
  // partial: the run stopped (Stop on the page, Ctrl-C in the CLI) before settings.steps; its
  // numbers describe the steps taken, not the recipe's run.
  w.key("partial").value(r.steps_taken < s.steps);
  w.key("query_r2").numbers(e.query_r2.data(), 3);
  w.key("response_query").matrix(e.response_query).key("response_value").matrix(e.response_value);
  w.key("settings").begin_object();
  w.key("batch").value(s.batch_size).key("beta1").value(s.beta1).key("beta2").value(s.beta2);
  w.key("epsilon").value(s.epsilon).key("eval_size").value(s.eval_size).key("init_scale").value(s.init_scale);
  w.key("learned_keys").value(s.learned_keys).key("learning_rate").value(s.learning_rate);
  w.key("optimizer").value("adam").key("request_scale").value(s.request_scale).key("seed").value(s.seed);
  w.key("shift").value(s.shift).key("steps").value(s.steps).end_object();
  w.key("steps_done").value(r.steps_taken).key("train_seconds").value(r.train_seconds);
  w.key("uniform_attention_mse").value(e.uniform_attention_mse).key("value_r2").numbers(e.value_r2.data(), 3);
  w.key("w_q").matrix(r.w_q).key("w_v").matrix(r.w_v).end_object();
  return w.text() + "\n";
}

}  // namespace headlab::formats
