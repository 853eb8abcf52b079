// embind: the feature-recovery experiment. A steppable trainer (class handle, wrapped by
// web/feature-recovery.js and never handed to callers) following the trainer protocol of
// docs/model-pattern.md, and plain functions for the task, evaluation and interventions with
// any W_q, W_v. Only conversion lives here: every rule is in core/feature_recovery_experiment.hpp,
// and results.json is written by formats/feature_recovery_results.hpp (returned as text).
#include "bindings/marshal.hpp"
#include "core/feature_recovery_experiment.hpp"
#include "formats/feature_recovery_results.hpp"

#include <cstring>
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

// The arguments every held-out function shares: { seed, w_q, w_v, eval_size?, request_scale?,
// shift? } → the seed's R and held-out set, and the projections to run on it.
struct HeldOut {
  FeatureRecoverySettings settings;
  const Matrix& mixing;  // the cache's (below), valid until the next held_out_from_js
  const FeatureRecoveryBatch& eval_set;
  Matrix w_q, w_v;
};

// The last held-out set drawn, by what determines it (seed, eval_size, request_scale, the
// teacher's keys), with the unintervened prediction of the last projections run on it. A reader
// sweeping one control of the interventions figure calls intervene with the same seed and
// matrices each time; drawing the 4,096 examples again (≈ 184,000 normal draws) and running the
// clean forward again were most of a call. One entry, so the heap holds at most one set
// (4,096 × 9 + 16,384 × 9 + 4,096 × 3 doubles ≈ 1.6 MB); a cache hit gives the same bits as a
// fresh draw, since the draw is a function of those four inputs alone.
struct HeldOutCache {
  bool filled = false;
  std::uint64_t seed = 0;
  int eval_size = 0;
  double request_scale = 0.0;
  Matrix task_keys;
  Matrix mixing;
  FeatureRecoveryBatch eval_set;
  bool has_prediction = false;
  Matrix w_q, w_v, prediction;  // prediction = the clean forward of (w_q, w_v) on eval_set
};
HeldOutCache& held_out_cache() {
  static HeldOutCache cache;
  return cache;
}

// Exact equality, bit for bit (a cache key, not a tolerance).
bool same_matrix(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0);
}

HeldOut held_out_from_js(ObjectReader& in) {
  FeatureRecoverySettings settings;
  if (!in.has("seed")) throw InputError("seed is required");
  in.seed("seed", settings.seed);
  in.integer("eval_size", settings.eval_size);
  in.number("request_scale", settings.request_scale);
  in.number("shift", settings.shift);
  if (in.has("fixed_keys")) settings.fixed_keys = matrix_from_js(in.get("fixed_keys"), "fixed_keys");
  settings.validate();
  HeldOutCache& c = held_out_cache();
  const Matrix task_keys = feature_recovery_task_keys(settings);
  if (!c.filled || c.seed != settings.seed || c.eval_size != settings.eval_size ||
      std::memcmp(&c.request_scale, &settings.request_scale, sizeof(double)) != 0 ||
      !same_matrix(c.task_keys, task_keys)) {
    c.filled = false;
    c.has_prediction = false;
    c.mixing = feature_recovery_mixing(settings.seed);
    c.eval_set = feature_recovery_evaluation_set(settings.seed, settings.eval_size, settings.request_scale, task_keys);
    c.seed = settings.seed;
    c.eval_size = settings.eval_size;
    c.request_scale = settings.request_scale;
    c.task_keys = task_keys;
    c.filled = true;
  }
  Matrix w_q = matrix_from_js(in.get("w_q"), "w_q");
  Matrix w_v = matrix_from_js(in.get("w_v"), "w_v");
  return HeldOut{settings, c.mixing, c.eval_set, std::move(w_q), std::move(w_v)};
}

// The clean prediction of h's projections on h's held-out set (kept with the cached set).
Matrix clean_prediction(const HeldOut& h) {
  HeldOutCache& c = held_out_cache();
  if (c.has_prediction && same_matrix(c.w_q, h.w_q) && same_matrix(c.w_v, h.w_v)) return c.prediction;
  Matrix p =
      feature_recovery_forward(h.eval_set.request * h.mixing, h.eval_set.records * h.mixing, h.w_q, h.w_v).prediction;
  c.w_q = h.w_q;
  c.w_v = h.w_v;
  c.prediction = p;
  c.has_prediction = true;
  return p;
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

 private:
  FeatureRecoveryTrainer& trained() {
    if (!trainer_) throw InputError("the trainer was not started");
    return *trainer_;
  }
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

// { seed, w_q, w_v, eval_size?, request_scale?, shift? } → the evaluation of those projections.
val feature_recovery_evaluate_js(val input) {
  return guarded([&] {
    ObjectReader in(input, "input");
    const HeldOut h = held_out_from_js(in);
    in.finish();
    return evaluation_to_js(evaluate_feature_recovery(h.eval_set, h.mixing, h.w_q, h.w_v, h.settings.shift));
  });
}

// { seed, w_q, w_v, intervention, feature?, shift?, eval_size?, request_scale?, examples? }
//   → { mse, heldout_mse, before, after, target } (the last three: first `examples` rows, B × 3)
val feature_recovery_intervene_js(val input) {
  return guarded([&] {
    ObjectReader in(input, "input");
    const HeldOut h = held_out_from_js(in);
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
    int examples = 0;
    in.integer("examples", examples);
    in.finish();
    if (examples < 0 || examples > h.settings.eval_size) {  // rows to copy out, not a setting
      throw InputError("examples must lie in [0, eval_size = " + std::to_string(h.settings.eval_size) + "], got " +
                       std::to_string(examples));
    }
    const Matrix before = clean_prediction(h);
    const Matrix after =
        feature_recovery_intervened_prediction(h.eval_set, h.mixing, h.w_q, h.w_v, kind, feature, h.settings.shift);
    val out = val::object();
    out.set("mse", mean_squared_error(after, feature_recovery_intervention_reference(kind, before, h.eval_set.target)));
    out.set("heldout_mse", mean_squared_error(before, h.eval_set.target));
    out.set("before", matrix_to_js(before.topRows(examples)));
    out.set("after", matrix_to_js(after.topRows(examples)));
    out.set("target", matrix_to_js(h.eval_set.target.topRows(examples)));
    return out;
  });
}

// { seed, w_q, w_v, keys?, index, eval_size?, request_scale? } → one held-out example traced through
// the student and the teacher (FeatureRecoveryExample; rows as Float64Array, 4-row blocks as matrices).
val feature_recovery_example_js(val input) {
  return guarded([&] {
    ObjectReader in(input, "input");
    const HeldOut h = held_out_from_js(in);
    int index = 0;
    in.integer("index", index);
    const Matrix keys = in.has("keys") ? matrix_from_js(in.get("keys"), "keys") : feature_recovery_keys();
    in.finish();
    const FeatureRecoveryExample e = feature_recovery_example(h.eval_set, h.mixing, h.w_q, h.w_v, index, keys,
                                                              feature_recovery_task_keys(h.settings));
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
      .function("start", &FeatureRecoveryTrainerHandle::start)
      .function("step", &FeatureRecoveryTrainerHandle::step)
      .function("stop", &FeatureRecoveryTrainerHandle::stop)
      .function("snapshot", &FeatureRecoveryTrainerHandle::snapshot)
      .function("evaluate", &FeatureRecoveryTrainerHandle::evaluate)
      .function("result", &FeatureRecoveryTrainerHandle::result);
  emscripten::function("feature_recovery_task", &headlab::web::feature_recovery_task_js);
  emscripten::function("feature_recovery_evaluate", &headlab::web::feature_recovery_evaluate_js);
  emscripten::function("feature_recovery_intervene", &headlab::web::feature_recovery_intervene_js);
  emscripten::function("feature_recovery_example", &headlab::web::feature_recovery_example_js);
  emscripten::function("feature_recovery_replay_steps", &headlab::web::feature_recovery_replay_steps_js);
  emscripten::function("feature_recovery_lost_directions", &headlab::web::feature_recovery_lost_directions_js);
  emscripten::function("feature_recovery_live_trainers", &headlab::web::feature_recovery_live_trainers_js);
}
