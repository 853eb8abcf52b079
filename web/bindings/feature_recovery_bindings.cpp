// embind: the feature-recovery experiment. A steppable trainer (class handle, wrapped by
// web/feature-recovery.js and never handed to callers) following the trainer protocol of
// docs/model-pattern.md, and plain functions for the task, evaluation and interventions with
// any W_q, W_v. Only conversion lives here: every rule is in core/feature_recovery_experiment.hpp,
// and results.json is written by formats/feature_recovery_results.hpp (returned as text).
#include "bindings/marshal.hpp"
#include "core/feature_recovery_experiment.hpp"
#include "formats/feature_recovery_results.hpp"

#include <memory>
#include <utility>
#include <string>

namespace headlab::web {
namespace {

using emscripten::val;

val triple_to_js(const std::array<double, 3>& v) {
  val out = val::array();
  for (int j = 0; j < 3; ++j) out.call<void>("push", v[j]);
  return out;
}

FeatureRecoverySettings settings_from_js(const val& s) {
  return trainer_settings_from_js<FeatureRecoverySettings>(s, [](ObjectReader& in, FeatureRecoverySettings& out) {
    in.integer("eval_size", out.eval_size);
    in.number("request_scale", out.request_scale);
    in.number("shift", out.shift);
    in.boolean("learned_keys", out.learned_keys);
    if (in.has("fixed_keys")) out.fixed_keys = matrix_from_js(in.get("fixed_keys"), "fixed_keys");
  });
}

val settings_to_js(const FeatureRecoverySettings& s) {
  val out = val::object();
  out.set("seed", static_cast<double>(s.seed));
  out.set("steps", s.steps);
  out.set("batch_size", s.batch_size);
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

// { seed, w_q, w_v, eval_size?, request_scale?, shift?, fixed_keys? } → the model those projections
// make with the seed's R and held-out set (core FeatureRecoveryModel, which validates them).
FeatureRecoveryModel model_from_js(ObjectReader& in) {
  FeatureRecoverySettings settings;
  if (!in.has("seed")) throw InputError("seed is required");
  in.seed("seed", settings.seed);
  in.integer("eval_size", settings.eval_size);
  in.number("request_scale", settings.request_scale);
  in.number("shift", settings.shift);
  if (in.has("fixed_keys")) settings.fixed_keys = matrix_from_js(in.get("fixed_keys"), "fixed_keys");
  return FeatureRecoveryModel(settings, matrix_from_js(in.get("w_q"), "w_q"), matrix_from_js(in.get("w_v"), "w_v"));
}

// { intervention, feature?, shift?, examples? } of an intervention on `model`
//   → { mse, heldout_mse, before, after, target } (the last three: first `examples` rows, B × 3).
// `in` may hold more (the free function's model fields, read before); finish() is the caller's.
val intervene_js(FeatureRecoveryModel& model, ObjectReader& in) {
  const val name = in.get("intervention");
  if (name.typeOf().as<std::string>() != "string") {
    throw InputError("intervention must be \"erase_request\", \"erase_payload\" or \"irrelevant_shift\"");
  }
  const FeatureRecoveryIntervention kind = feature_recovery_intervention_from_name(name.as<std::string>());
  int feature = 0;
  if (kind != FeatureRecoveryIntervention::irrelevant_shift) {
    if (!in.has("feature")) throw InputError("feature (0, 1 or 2) is required for " + name.as<std::string>());
    in.integer("feature", feature);
  } else {
    in.has("feature");  // ignored by the shift
  }
  double shift = model.settings().shift;
  in.number("shift", shift);
  int examples = 0;
  in.integer("examples", examples);
  in.finish();
  const int size = model.settings().eval_size;
  if (examples < 0 || examples > size) {  // rows to copy out, not a setting
    throw InputError("examples must lie in [0, eval_size = " + std::to_string(size) + "], got " +
                     std::to_string(examples));
  }
  const FeatureRecoveryInterventionResult r = model.intervene(kind, feature, shift);
  val out = val::object();
  out.set("mse", r.mse);
  out.set("heldout_mse", r.heldout_mse);
  out.set("before", matrix_to_js(model.clean_prediction().topRows(examples)));
  out.set("after", matrix_to_js(r.after.topRows(examples)));
  out.set("target", matrix_to_js(model.eval_set().target.topRows(examples)));
  return out;
}

// { index, keys? } → one held-out example traced through the student and the teacher
// (FeatureRecoveryExample; rows as Float64Array, 4-row blocks as matrices). keys: the student's
// keys for this trace (default: the model's).
val example_js(FeatureRecoveryModel& model, ObjectReader& in) {
  int index = 0;
  in.integer("index", index);
  const bool own_keys = !in.has("keys");
  const Matrix keys = own_keys ? model.keys() : matrix_from_js(in.get("keys"), "keys");
  in.finish();
  const FeatureRecoveryExample e = own_keys ? model.example(index)
                                            : feature_recovery_example(model.eval_set(), model.mixing(), model.w_q(),
                                                                       model.w_v(), index, keys, model.task_keys());
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
}

class FeatureRecoveryTrainerHandle {
 public:
  FeatureRecoveryTrainerHandle() { ++live_; }
  ~FeatureRecoveryTrainerHandle() { --live_; }
  FeatureRecoveryTrainerHandle(const FeatureRecoveryTrainerHandle&) = delete;
  FeatureRecoveryTrainerHandle& operator=(const FeatureRecoveryTrainerHandle&) = delete;

  // → { progress, settings (defaults filled in) }
  val start(val settings) {
    return guarded([&] {
      trainer_ = std::make_unique<FeatureRecoveryTrainer>(settings_from_js(settings));
      val out = val::object();
      out.set("progress", progress_js());
      out.set("settings", settings_to_js(trainer_->settings()));
      return out;
    });
  }

  // → { steps_taken, steps_total, loss, done, diverged_at } with diverged_at the 1-based step
  // whose loss or parameters stopped being finite (0: none).
  val step(val n) {
    return guarded([&] {
      trained().step(int_arg(n, "step count"));
      return progress_js();
    });
  }

  val stop() {
    return guarded([&] {
      trained().stop();
      return progress_js();
    });
  }

  val snapshot() {
    return guarded([&] {
      const FeatureRecoveryTrainer& t = trained();
      val out = val::object();
      out.set("settings", settings_to_js(t.settings()));
      out.set("steps_taken", static_cast<double>(t.steps_taken()));
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
    return guarded([&] { return evaluation_to_js(trained().result().evaluation); });
  }

  // The run so far as results.json text (formats/feature_recovery_results.hpp).
  val result() {
    return guarded([&] { return val(formats::write_feature_recovery_results(trained().result(), HEADLAB_VERSION)); });
  }

  static int live_count() { return live_; }

  // The trainer (the model handle reads it in the heap); InputError before start().
  FeatureRecoveryTrainer& trained() {
    if (!trainer_) throw InputError("the trainer was not started");
    return *trainer_;
  }

 private:
  val progress_js() const {
    val out = progress_to_js(trainer_->progress());
    out.set("diverged_at", trainer_->diverged_at());
    return out;
  }
  std::unique_ptr<FeatureRecoveryTrainer> trainer_;
  static int live_;
};
int FeatureRecoveryTrainerHandle::live_ = 0;

// { seed } → { mixing, fixed_keys, known_w_q, known_w_v }
val feature_recovery_task_js(val input) {
  return guarded([&] {
    ObjectReader in(input, "input");
    std::uint64_t seed = 0;
    if (!in.has("seed")) throw InputError("seed is required");
    in.seed("seed", seed);
    in.finish();
    const Matrix mixing = feature_recovery_mixing(seed);
    val out = val::object();
    out.set("mixing", matrix_to_js(mixing));
    out.set("fixed_keys", matrix_to_js(feature_recovery_keys()));
    out.set("known_w_q", matrix_to_js(known_query_projection(mixing)));
    out.set("known_w_v", matrix_to_js(known_value_projection(mixing)));
    return out;
  });
}

// The free functions: each makes the model of its arguments for the one call (R and the held-out
// set drawn again every time); a page's figures ask a FeatureRecoveryModelHandle instead.

// { seed, w_q, w_v, eval_size?, request_scale?, shift? } → the evaluation of those projections.
val feature_recovery_evaluate_js(val input) {
  return guarded([&] {
    ObjectReader in(input, "input");
    FeatureRecoveryModel model = model_from_js(in);
    in.finish();
    return evaluation_to_js(model.evaluate());
  });
}

// { seed, w_q, w_v, intervention, feature?, shift?, eval_size?, request_scale?, examples? } → intervene_js.
val feature_recovery_intervene_js(val input) {
  return guarded([&] {
    ObjectReader in(input, "input");
    FeatureRecoveryModel model = model_from_js(in);
    return intervene_js(model, in);
  });
}

// { seed, w_q, w_v, keys?, index, eval_size?, request_scale?, fixed_keys? } → example_js.
val feature_recovery_example_js(val input) {
  return guarded([&] {
    ObjectReader in(input, "input");
    FeatureRecoveryModel model = model_from_js(in);
    return example_js(model, in);
  });
}

// --- the model a source holds: W_q, W_v with their R, held-out set and clean prediction ---
// Made once per run (from the trainer in the same module, or from its matrices once), then every
// figure's request reads it: no matrix crosses into the heap per request, and the held-out set is
// drawn once. Only web/feature-recovery.js holds it.
int live_models = 0;

class FeatureRecoveryModelHandle {
 public:
  FeatureRecoveryModelHandle() { ++live_models; }
  ~FeatureRecoveryModelHandle() { --live_models; }
  FeatureRecoveryModelHandle(const FeatureRecoveryModelHandle&) = delete;
  FeatureRecoveryModelHandle& operator=(const FeatureRecoveryModelHandle&) = delete;

  // { seed, w_q, w_v, eval_size?, request_scale?, shift?, fixed_keys? }: copied in and checked once.
  val load(val input) {
    return guarded([&] {
      ObjectReader in(input, "input");
      FeatureRecoveryModel model = model_from_js(in);
      in.finish();
      model_ = std::make_unique<FeatureRecoveryModel>(std::move(model));
      return val(true);
    });
  }
  // The run of `trainer` so far, copied within the heap.
  val load_trainer(FeatureRecoveryTrainerHandle& trainer) {
    return guarded([&] {
      model_ = std::make_unique<FeatureRecoveryModel>(trainer.trained());
      return val(true);
    });
  }
  val evaluate() {
    return guarded([&] { return evaluation_to_js(held().evaluate()); });
  }
  val intervene(val input) {
    return guarded([&] {
      ObjectReader in(input, "input");
      return intervene_js(held(), in);
    });
  }
  val example(val input) {
    return guarded([&] {
      ObjectReader in(input, "input");
      return example_js(held(), in);
    });
  }
  // { seed, eval_size, request_scale, shift }: what the model was made with.
  val settings() {
    return guarded([&] { return settings_to_js(held().settings()); });
  }

 private:
  FeatureRecoveryModel& held() {
    if (!model_) throw InputError("the model was not loaded");
    return *model_;
  }
  std::unique_ptr<FeatureRecoveryModel> model_;
};

int feature_recovery_live_models_js() { return live_models; }

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
      .function("start", &FeatureRecoveryTrainerHandle::start)
      .function("step", &FeatureRecoveryTrainerHandle::step)
      .function("stop", &FeatureRecoveryTrainerHandle::stop)
      .function("snapshot", &FeatureRecoveryTrainerHandle::snapshot)
      .function("evaluate", &FeatureRecoveryTrainerHandle::evaluate)
      .function("result", &FeatureRecoveryTrainerHandle::result);
  using headlab::web::FeatureRecoveryModelHandle;
  emscripten::class_<FeatureRecoveryModelHandle>("FeatureRecoveryModelHandle")
      .constructor<>()
      .function("load", &FeatureRecoveryModelHandle::load)
      .function("load_trainer", &FeatureRecoveryModelHandle::load_trainer)
      .function("evaluate", &FeatureRecoveryModelHandle::evaluate)
      .function("intervene", &FeatureRecoveryModelHandle::intervene)
      .function("example", &FeatureRecoveryModelHandle::example)
      .function("settings", &FeatureRecoveryModelHandle::settings);
  emscripten::function("feature_recovery_live_models", &headlab::web::feature_recovery_live_models_js);
  emscripten::function("feature_recovery_task", &headlab::web::feature_recovery_task_js);
  emscripten::function("feature_recovery_evaluate", &headlab::web::feature_recovery_evaluate_js);
  emscripten::function("feature_recovery_intervene", &headlab::web::feature_recovery_intervene_js);
  emscripten::function("feature_recovery_example", &headlab::web::feature_recovery_example_js);
  emscripten::function("feature_recovery_replay_steps", &headlab::web::feature_recovery_replay_steps_js);
  emscripten::function("feature_recovery_lost_directions", &headlab::web::feature_recovery_lost_directions_js);
  emscripten::function("feature_recovery_live_trainers", &headlab::web::feature_recovery_live_trainers_js);
}
