// embind: the feature-recovery experiment. A steppable trainer (class handle,
// wrapped by web/feature-recovery.js and never handed to callers) and plain
// functions for the task, evaluation and interventions with any W_q, W_v.
#include "bindings/marshal.hpp"
#include "core/feature_recovery_experiment.hpp"

#include <memory>
#include <string>

namespace headlab::web {
namespace {

using emscripten::val;

val triple_to_js(const std::array<double, 3>& v) {
  val out = val::array();
  for (int j = 0; j < 3; ++j) out.call<void>("push", v[j]);
  return out;
}

bool has(const val& object, const char* key) {
  if (object.isUndefined() || object.isNull()) return false;
  const val v = object[key];
  return !v.isUndefined() && !v.isNull();
}

// Rejects keys outside `known` so a misspelt setting is an error, not a silent default.
void require_known_keys(const val& object, const char* what, std::initializer_list<const char*> known) {
  if (object.isUndefined() || object.isNull()) return;
  if (object.typeOf().as<std::string>() != "object") throw InputError(std::string(what) + " must be an object");
  const val keys = val::global("Object").call<val>("keys", object);
  const int n = keys["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const std::string key = keys[i].as<std::string>();
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok) throw InputError(std::string(what) + " has an unknown field \"" + key + "\"");
  }
}

std::uint64_t seed_arg(const val& v) {
  const double x = number_arg(v, "seed");
  // Integers up to 2^53 are exact in a JS number.
  if (x < 0 || x != std::floor(x) || x > 9007199254740992.0) {
    throw InputError("seed must be an integer in [0, 2^53], got " + std::to_string(x));
  }
  return static_cast<std::uint64_t>(x);
}

FeatureRecoverySettings settings_from_js(const val& s) {
  require_known_keys(s, "settings",
                     {"seed", "steps", "batch", "learning_rate", "eval_size", "request_scale", "shift", "learned_keys",
                      "fixed_keys"});
  FeatureRecoverySettings out;
  if (has(s, "seed")) out.seed = seed_arg(s["seed"]);
  if (has(s, "steps")) out.steps = int_arg(s["steps"], "steps");
  if (has(s, "batch")) out.batch = int_arg(s["batch"], "batch");
  if (has(s, "learning_rate")) out.learning_rate = number_arg(s["learning_rate"], "learning_rate");
  if (has(s, "eval_size")) out.eval_size = int_arg(s["eval_size"], "eval_size");
  if (has(s, "request_scale")) out.request_scale = number_arg(s["request_scale"], "request_scale");
  if (has(s, "shift")) out.shift = number_arg(s["shift"], "shift");
  out.learned_keys = optional_bool(s, "learned_keys", false);
  if (has(s, "fixed_keys")) out.fixed_keys = matrix_from_js(s["fixed_keys"], "fixed_keys");
  validate_feature_recovery_settings(out);
  return out;
}

val settings_to_js(const FeatureRecoverySettings& s) {
  val out = val::object();
  out.set("seed", static_cast<double>(s.seed));
  out.set("steps", s.steps);
  out.set("batch", s.batch);
  out.set("learning_rate", s.learning_rate);
  out.set("optimizer", std::string("adam"));
  out.set("beta1", s.beta1);
  out.set("beta2", s.beta2);
  out.set("epsilon", s.epsilon);
  out.set("init_scale", s.init_scale);
  out.set("eval_size", s.eval_size);
  out.set("request_scale", s.request_scale);
  out.set("shift", s.shift);
  out.set("learned_keys", s.learned_keys);
  return out;
}

val evaluation_to_js(const FeatureRecoveryEvaluation& e) {
  val out = val::object();
  out.set("heldout_mse", e.heldout_mse);
  out.set("uniform_attention_mse", e.uniform_attention_mse);
  out.set("query_r2", triple_to_js(e.query_r2));
  out.set("value_r2", triple_to_js(e.value_r2));
  val interventions = val::object();
  interventions.set("erase_request", triple_to_js(e.erase_request_mse));
  interventions.set("erase_payload", triple_to_js(e.erase_payload_mse));
  interventions.set("irrelevant_shift_mse", e.irrelevant_shift_mse);
  out.set("interventions", interventions);
  out.set("response_query", matrix_to_js(e.response_query));
  out.set("response_value", matrix_to_js(e.response_value));
  return out;
}

// The held-out set and R of a seed: { seed, eval_size?, request_scale? }.
struct HeldOut {
  Matrix mixing;
  FeatureRecoveryBatch eval_set;
};
HeldOut held_out_from_js(const val& input, FeatureRecoverySettings& s) {
  if (!has(input, "seed")) throw InputError("seed is required");
  s.seed = seed_arg(input["seed"]);
  if (has(input, "eval_size")) s.eval_size = int_arg(input["eval_size"], "eval_size");
  if (has(input, "request_scale")) s.request_scale = number_arg(input["request_scale"], "request_scale");
  if (has(input, "shift")) s.shift = number_arg(input["shift"], "shift");
  if (has(input, "fixed_keys")) s.fixed_keys = matrix_from_js(input["fixed_keys"], "fixed_keys");
  validate_feature_recovery_settings(s);
  return {feature_recovery_mixing(s.seed), feature_recovery_evaluation_set(s.seed, s.eval_size, s.request_scale,
                                                                           feature_recovery_task_keys(s))};
}

class FeatureRecoveryTrainerHandle {
 public:
  FeatureRecoveryTrainerHandle() { ++live_; }
  ~FeatureRecoveryTrainerHandle() { --live_; }
  FeatureRecoveryTrainerHandle(const FeatureRecoveryTrainerHandle&) = delete;
  FeatureRecoveryTrainerHandle& operator=(const FeatureRecoveryTrainerHandle&) = delete;

  val init(val settings) {
    return guarded([&] {
      trainer_ = std::make_unique<FeatureRecoveryTrainer>(settings_from_js(settings));
      val out = val::object();
      out.set("settings", settings_to_js(trainer_->settings()));
      return out;
    });
  }

  // { taken, steps_done, steps, loss, diverged_at } with loss the last step's (NaN before the
  // first step) and diverged_at the 1-based step whose loss or parameters stopped being finite (0: none).
  val step(val n) {
    return guarded([&] {
      const int taken = trained().step(int_arg(n, "step count"));
      val out = val::object();
      out.set("taken", taken);
      out.set("steps_done", trainer_->steps_done());
      out.set("steps", trainer_->settings().steps);
      out.set("loss", trainer_->loss_trace().empty() ? std::nan("") : trainer_->loss_trace().back());
      out.set("diverged_at", trainer_->diverged_at());
      return out;
    });
  }

  val snapshot() {
    return guarded([&] {
      const FeatureRecoveryTrainer& t = trained();
      val out = val::object();
      out.set("settings", settings_to_js(t.settings()));
      out.set("steps_done", t.steps_done());
      out.set("mixing", matrix_to_js(t.mixing()));
      out.set("fixed_keys", matrix_to_js(feature_recovery_task_keys(t.settings())));
      out.set("keys", matrix_to_js(t.keys()));
      out.set("w_q", matrix_to_js(t.w_q()));
      out.set("w_v", matrix_to_js(t.w_v()));
      out.set("response_query", matrix_to_js(t.response_query()));
      out.set("response_value", matrix_to_js(t.response_value()));
      out.set("loss_trace", vector_to_js(t.loss_trace()));
      out.set("diverged_at", t.diverged_at());
      return out;
    });
  }

  val evaluate() {
    return guarded([&] {
      const FeatureRecoveryTrainer& t = trained();
      const FeatureRecoverySettings& s = t.settings();
      const FeatureRecoveryBatch eval_set =
          feature_recovery_evaluation_set(s.seed, s.eval_size, s.request_scale, feature_recovery_task_keys(s));
      return evaluation_to_js(evaluate_feature_recovery(eval_set, t.mixing(), t.w_q(), t.w_v(), s.shift, t.keys()));
    });
  }

  static int live_count() { return live_; }

 private:
  FeatureRecoveryTrainer& trained() {
    if (!trainer_) throw InputError("the trainer was not initialised");
    return *trainer_;
  }
  std::unique_ptr<FeatureRecoveryTrainer> trainer_;
  static int live_;
};
int FeatureRecoveryTrainerHandle::live_ = 0;

// { seed } → { mixing, fixed_keys, known_w_q, known_w_v }
val feature_recovery_task_js(val input) {
  return guarded([&] {
    require_known_keys(input, "input", {"seed"});
    if (!has(input, "seed")) throw InputError("seed is required");
    const Matrix mixing = feature_recovery_mixing(seed_arg(input["seed"]));
    val out = val::object();
    out.set("mixing", matrix_to_js(mixing));
    out.set("fixed_keys", matrix_to_js(feature_recovery_keys()));
    out.set("known_w_q", matrix_to_js(known_query_projection(mixing)));
    out.set("known_w_v", matrix_to_js(known_value_projection(mixing)));
    return out;
  });
}

// { seed, w_q, w_v, eval_size?, request_scale?, shift? } → the evaluation of those projections.
val feature_recovery_evaluate_js(val input) {
  return guarded([&] {
    require_known_keys(input, "input", {"seed", "w_q", "w_v", "eval_size", "request_scale", "shift"});
    FeatureRecoverySettings s;
    const HeldOut h = held_out_from_js(input, s);
    return evaluation_to_js(evaluate_feature_recovery(h.eval_set, h.mixing, matrix_from_js(input["w_q"], "w_q"),
                                                      matrix_from_js(input["w_v"], "w_v"), s.shift));
  });
}

// { seed, w_q, w_v, intervention, feature?, shift?, eval_size?, request_scale?, examples? }
//   → { mse, heldout_mse, before, after, target } (the last three: first `examples` rows, B × 3)
val feature_recovery_intervene_js(val input) {
  return guarded([&] {
    require_known_keys(input, "input",
                       {"seed", "w_q", "w_v", "intervention", "feature", "shift", "eval_size", "request_scale",
                        "examples"});
    FeatureRecoverySettings s;
    const HeldOut h = held_out_from_js(input, s);
    if (!has(input, "intervention") || input["intervention"].typeOf().as<std::string>() != "string") {
      throw InputError("intervention must be \"erase_request\", \"erase_payload\" or \"irrelevant_shift\"");
    }
    const std::string name = input["intervention"].as<std::string>();
    FeatureRecoveryIntervention kind;
    if (name == "erase_request") {
      kind = FeatureRecoveryIntervention::erase_request;
    } else if (name == "erase_payload") {
      kind = FeatureRecoveryIntervention::erase_payload;
    } else if (name == "irrelevant_shift") {
      kind = FeatureRecoveryIntervention::irrelevant_shift;
    } else {
      throw InputError("intervention must be \"erase_request\", \"erase_payload\" or \"irrelevant_shift\", got \"" +
                       name + "\"");
    }
    int feature = 0;
    if (kind != FeatureRecoveryIntervention::irrelevant_shift) {
      if (!has(input, "feature")) throw InputError("feature (0, 1 or 2) is required for " + name);
      feature = int_arg(input["feature"], "feature");
    }
    const int examples = has(input, "examples") ? int_arg(input["examples"], "examples") : 0;
    if (examples < 0 || examples > s.eval_size) {
      throw InputError("examples must be in [0, eval_size = " + std::to_string(s.eval_size) + "], got " +
                       std::to_string(examples));
    }
    const Matrix w_q = matrix_from_js(input["w_q"], "w_q"), w_v = matrix_from_js(input["w_v"], "w_v");
    const Matrix before =
        feature_recovery_forward(h.eval_set.request * h.mixing, h.eval_set.records * h.mixing, w_q, w_v).prediction;
    const Matrix after = feature_recovery_intervened_prediction(h.eval_set, h.mixing, w_q, w_v, kind, feature, s.shift);
    val out = val::object();
    // The shift is measured against the unintervened prediction, the erasures against the kept target.
    out.set("mse", mean_squared_error(after, kind == FeatureRecoveryIntervention::irrelevant_shift ? before
                                                                                                : h.eval_set.target));
    out.set("heldout_mse", mean_squared_error(before, h.eval_set.target));
    out.set("before", matrix_to_js(before.topRows(examples)));
    out.set("after", matrix_to_js(after.topRows(examples)));
    out.set("target", matrix_to_js(h.eval_set.target.topRows(examples)));
    return out;
  });
}

// { seed, w_q, w_v, index, eval_size?, request_scale? } → one held-out example traced through
// the student and the teacher (FeatureRecoveryExample; rows as Float64Array, 4-row blocks as matrices).
val feature_recovery_example_js(val input) {
  return guarded([&] {
    require_known_keys(input, "input",
                       {"seed", "w_q", "w_v", "keys", "fixed_keys", "index", "eval_size", "request_scale"});
    FeatureRecoverySettings s;
    const HeldOut h = held_out_from_js(input, s);
    const int index = has(input, "index") ? int_arg(input["index"], "index") : 0;
    const Matrix keys = has(input, "keys") ? matrix_from_js(input["keys"], "keys") : feature_recovery_keys();
    const FeatureRecoveryExample e = feature_recovery_example(h.eval_set, h.mixing, matrix_from_js(input["w_q"], "w_q"),
                                                              matrix_from_js(input["w_v"], "w_v"), index, keys,
                                                              feature_recovery_task_keys(s));
    val out = val::object();
    out.set("request_features", matrix_to_js(e.request_features));
    out.set("payloads", matrix_to_js(e.payloads));
    out.set("query", matrix_to_js(e.query));
    out.set("scores", matrix_to_js(e.scores));
    out.set("weights", matrix_to_js(e.weights));
    out.set("values", matrix_to_js(e.values));
    out.set("prediction", matrix_to_js(e.prediction));
    out.set("teacher_weights", matrix_to_js(e.teacher_weights));
    out.set("target", matrix_to_js(e.target));
    out.set("keys", matrix_to_js(keys));
    return out;
  });
}

val feature_recovery_replay_steps_js(val steps, val count) {
  return guarded([&] {
    const std::vector<int> t = feature_recovery_replay_steps(int_arg(steps, "steps"), int_arg(count, "snapshot count"));
    val out = val::array();
    for (int x : t) out.call<void>("push", x);
    return out;
  });
}

// keys (4 × 3, or any m × 3) → the query directions they cannot see (lost_query_directions), m × 3.
val feature_recovery_lost_directions_js(val keys) {
  return guarded([&] { return matrix_to_js(lost_query_directions(matrix_from_js(keys, "keys"))); });
}

int feature_recovery_live_trainers_js() { return FeatureRecoveryTrainerHandle::live_count(); }

}  // namespace
}  // namespace headlab::web

EMSCRIPTEN_BINDINGS(headlab_feature_recovery) {
  using headlab::web::FeatureRecoveryTrainerHandle;
  emscripten::class_<FeatureRecoveryTrainerHandle>("FeatureRecoveryTrainerHandle")
      .constructor<>()
      .function("init", &FeatureRecoveryTrainerHandle::init)
      .function("step", &FeatureRecoveryTrainerHandle::step)
      .function("snapshot", &FeatureRecoveryTrainerHandle::snapshot)
      .function("evaluate", &FeatureRecoveryTrainerHandle::evaluate);
  emscripten::function("feature_recovery_task", &headlab::web::feature_recovery_task_js);
  emscripten::function("feature_recovery_evaluate", &headlab::web::feature_recovery_evaluate_js);
  emscripten::function("feature_recovery_intervene", &headlab::web::feature_recovery_intervene_js);
  emscripten::function("feature_recovery_example", &headlab::web::feature_recovery_example_js);
  emscripten::function("feature_recovery_replay_steps", &headlab::web::feature_recovery_replay_steps_js);
  emscripten::function("feature_recovery_lost_directions", &headlab::web::feature_recovery_lost_directions_js);
  emscripten::function("feature_recovery_live_trainers", &headlab::web::feature_recovery_live_trainers_js);
}
