// embind: the max-digit transformer — weights, training (a steppable trainer class in the
// trainer protocol of docs/model-pattern.md, whose handle stays inside web/max-digit.js), a model
// class holding weights copied in once, and the analyses as plain JS objects (of a model handle,
// or of weights given at each call). Only conversion lives here: the weights file is read and
// analysis.json written by formats/ (text across the boundary), every rule is in core/.
// Weights in memory cross as { format_version, unit_norm_unembedding, E, W_Q: [4], W_K: [4],
// W_V: [4], W_O: [4], W_U } with every matrix { rows, cols, data: Float64Array }.
#include "bindings/marshal.hpp"
#include "core/max_digit_analysis.hpp"
#include "core/max_digit_training.hpp"
#include "formats/max_digit_analysis.hpp"
#include "formats/max_digit_weights.hpp"

#include <memory>

namespace headlab::web {
namespace {
namespace md = headlab::max_digit;

val field(const val& object, const std::string& name) {
  if (!has(object, name.c_str())) throw InputError("missing field \"" + name + "\"");
  return object[name];
}

std::vector<Matrix> heads_from_js(const val& weights, const std::string& name) {
  return array_from_js(field(weights, name), name, "an array of " + std::to_string(md::kHeads) + " matrices",
                       matrix_from_js);
}

// Weights in memory (what maxDigitWeightsFromJson returned); the checks are the core's.
md::MaxDigitWeights weights_from_js(const val& weights) {
  if (weights.isUndefined() || weights.isNull() || weights.typeOf().as<std::string>() != "object") {
    throw InputError("weights must be an object (see maxDigitWeightsFromJson)");
  }
  const val version = field(weights, "format_version");
  md::require_format_version(number_arg(version, "format_version"));
  const val unit = field(weights, "unit_norm_unembedding");
  if (unit.typeOf().as<std::string>() != "boolean") throw InputError("unit_norm_unembedding must be true or false");
  md::MaxDigitWeights w;
  w.unit_norm_unembedding = unit.as<bool>();
  w.E = matrix_from_js(field(weights, "E"), "E");
  for (const auto& [name, heads] : formats::kMaxDigitHeadFields) w.*heads = heads_from_js(weights, name);
  w.W_U = matrix_from_js(field(weights, "W_U"), "W_U");
  md::validate_weights(w);
  return w;
}

val heads_to_js(const std::vector<Matrix>& ms) {
  val out = val::array();
  for (const auto& m : ms) out.call<void>("push", matrix_to_js(m));
  return out;
}

val weights_to_js(const md::MaxDigitWeights& w) {
  val out = val::object();
  out.set("format_version", md::kFormatVersion);
  val vocab = val::array();
  for (const auto& name : md::vocab_names()) vocab.call<void>("push", name);
  out.set("vocab", vocab);
  out.set("d_model", md::kDModel);
  out.set("n_heads", md::kHeads);
  out.set("d_head", md::kDHead);
  out.set("unit_norm_unembedding", w.unit_norm_unembedding);
  out.set("E", matrix_to_js(w.E));
  for (const auto& [name, heads] : formats::kMaxDigitHeadFields) out.set(name, heads_to_js(w.*heads));
  out.set("W_U", matrix_to_js(w.W_U));
  return out;
}

std::vector<int> digits_from_js(const val& v) {
  return array_from_js(v, "digits", "an array of 1 to 6 digits", int_arg);
}

md::MaxDigitTrainingSettings settings_from_js(const val& s) {
  return trainer_settings_from_js<md::MaxDigitTrainingSettings>(
      s, [](ObjectReader& in, md::MaxDigitTrainingSettings& out) {
        in.number("weight_decay", out.weight_decay);
        in.number("init_scale", out.init_scale);
        in.boolean("unit_norm_unembedding", out.unit_norm_unembedding);
      });
}

val doubles(const double* begin, std::size_t n) { return vector_to_js(std::vector<double>(begin, begin + n)); }

val ints(const std::vector<int>& v) {
  val out = val::array();
  for (int x : v) out.call<void>("push", x);
  return out;
}

val plain_array(const double* begin, std::size_t n) {
  val out = val::array();
  for (std::size_t i = 0; i < n; ++i) out.call<void>("push", begin[i]);
  return out;
}

val report_js(const md::AccuracyReport& r) {
  val out = val::object();
  out.set("accuracy", r.accuracy);
  out.set("correct", static_cast<double>(r.correct));
  out.set("total", static_cast<double>(r.total));
  out.set("accuracy_by_max", plain_array(r.by_max.data(), r.by_max.size()));
  return out;
}

val patch_js(const md::PatchResult& r) {
  val out = val::object();
  out.set("logits", doubles(r.logits.data(), md::kVocab));
  out.set("answer", r.answer);
  out.set("original_logits", doubles(r.original_logits.data(), md::kVocab));
  out.set("original_answer", r.original_answer);
  return out;
}

// --- the trainer: a class handle that only web/max-digit.js ever holds ---
int live_trainers = 0;

class MaxDigitTrainerHandle {
 public:
  MaxDigitTrainerHandle() { ++live_trainers; }
  ~MaxDigitTrainerHandle() { --live_trainers; }
  MaxDigitTrainerHandle(const MaxDigitTrainerHandle&) = delete;
  MaxDigitTrainerHandle& operator=(const MaxDigitTrainerHandle&) = delete;

  val start(val settings) {
    return guarded([&] {
      trainer_ = std::make_unique<md::MaxDigitTrainer>(settings_from_js(settings));
      return progress_to_js(trainer_->progress());
    });
  }
  val step(val n) {
    return guarded([&] { return with_divergence(started().step(int_arg(n, "step count"))); });
  }
  val stop() {
    return guarded([&] {
      started().stop();
      return progress_to_js(trainer_->progress());
    });
  }
  val weights() {
    return guarded([&] { return weights_to_js(started().weights()); });
  }
  // { steps_taken, final_batch_loss, weights } of the run so far.
  val result() {
    return guarded([&] {
      const md::MaxDigitTrainingResult r = started().result();
      val out = val::object();
      out.set("steps_taken", static_cast<double>(r.steps_taken));
      out.set("final_batch_loss", r.final_batch_loss);
      out.set("weights", weights_to_js(r.weights));
      return out;
    });
  }

 private:
  val with_divergence(const TrainingProgress& p) { return progress_with_divergence_to_js(p, *trainer_); }
  md::MaxDigitTrainer& started() {
    if (!trainer_) throw InputError("the trainer was not started");
    return *trainer_;
  }
  std::unique_ptr<md::MaxDigitTrainer> trainer_;
};

int live_trainers_js() { return live_trainers; }

// --- free functions ---
// A weights file's text, read by its one reader (formats/max_digit_weights.hpp).
val check_weights_js(val text) {
  return guarded([&] {
    if (text.typeOf().as<std::string>() != "string") throw InputError("the weights file must be given as text");
    return weights_to_js(formats::read_max_digit_weights(text.as<std::string>()));
  });
}

val train_js(val settings) {
  return guarded([&] { return weights_to_js(md::train_max_digit(settings_from_js(settings))); });
}

val initial_weights_js(val settings) {
  return guarded([&] { return weights_to_js(md::initial_weights(settings_from_js(settings))); });
}

val logits_js(const md::MaxDigitWeights& w, val digits) {
  return guarded([&] {
    const auto logits = md::forward_logits(w, digits_from_js(digits));
    val out = val::object();
    out.set("logits", doubles(logits.data(), md::kVocab));
    out.set("answer", md::answer_of(logits));
    return out;
  });
}

val ans_attention_js(const md::MaxDigitWeights& w, val digits) {
  return guarded([&] { return matrix_to_js(md::ans_attention(w, digits_from_js(digits))); });
}

val head_logits_js(const md::MaxDigitWeights& w, val digits) {
  return guarded([&] { return matrix_to_js(md::head_logits(w, digits_from_js(digits))); });
}

val score_table_js(const md::MaxDigitWeights& w) {
  return guarded([&] { return matrix_to_js(md::score_table(w)); });
}

val attention_by_max_js(const md::MaxDigitWeights& w) {
  return guarded([&] {
    val out = val::array();
    for (const auto& m : md::attention_by_max(w)) out.call<void>("push", matrix_to_js(m));
    return out;
  });
}

val patch_js_entry(const md::MaxDigitWeights& w, val digits, val patches) {
  return guarded([&] {
    const auto list =
        array_from_js(patches, "patches", "an array of { head, position }", [](const val& p, const std::string& name) {
          if (p.isUndefined() || p.isNull() || p.typeOf().as<std::string>() != "object") {
            throw InputError(name + " must be { head, position }");
          }
          return md::AttentionPatch{int_arg(p["head"], name + ".head"), int_arg(p["position"], name + ".position")};
        });
    return patch_js(md::patch_attention(w, digits_from_js(digits), list));
  });
}

val ablation_js(const md::MaxDigitWeights& w, val heads) {
  return guarded([&] {
    std::array<bool, md::kHeads> ablated{};
    for (const int h : array_from_js(heads, "heads", "an array of head indices 0–3", int_arg)) {
      require_index("heads[i]", h, md::kHeads);  // an index into `ablated`
      ablated[h] = true;
    }
    return report_js(md::ablation_accuracy(w, ablated));
  });
}

val residual_free_js(const md::MaxDigitWeights& w) {
  return guarded([&] { return report_js(md::residual_free_accuracy(w)); });
}

md::Basis basis_arg(const val& b) {
  if (b.typeOf().as<std::string>() != "string") throw InputError("basis must be \"w_o\" or \"w_u\"");
  return md::basis_from_name(b.as<std::string>());
}

val principal_directions_js(const md::MaxDigitWeights& w, val basis) {
  return guarded([&] {
    const md::PrincipalDirections p = md::principal_directions(w, basis_arg(basis));
    val out = val::object();
    out.set("directions", matrix_to_js(p.directions));
    out.set("variance", vector_to_js(p.variance));
    out.set("variance_ratio", vector_to_js(p.variance_ratio));
    return out;
  });
}

val subspace_accuracy_js(const md::MaxDigitWeights& w, val basis, val k) {
  return guarded([&] { return report_js(md::subspace_accuracy(w, basis_arg(basis), int_arg(k, "k"))); });
}

val cosine_top3_js(const md::MaxDigitWeights& w) {
  return guarded([&] { return matrix_to_js(md::cosine_top3(w)); });
}

val contributions_js(const md::MaxDigitWeights& w, val digits, val basis, val k) {
  return guarded([&] {
    const md::Contributions c = md::contributions(w, digits_from_js(digits), basis_arg(basis), int_arg(k, "k"));
    val out = val::object();
    out.set("head_outputs", matrix_to_js(c.head_outputs));
    out.set("head_sum", matrix_to_js(c.head_sum));
    out.set("default_outputs", matrix_to_js(c.default_outputs));
    out.set("default_sum", matrix_to_js(c.default_sum));
    out.set("corrections", matrix_to_js(c.corrections));
    out.set("residual", matrix_to_js(c.residual));
    out.set("unembedding", matrix_to_js(c.unembedding));
    out.set("logits", doubles(c.logits.data(), md::kVocab));
    out.set("answer", c.answer);
    return out;
  });
}

val angle_vs_dot_to_js(const md::AngleVsDot& a) {
  val out = val::object();
  out.set("mean_output", matrix_to_js(a.mean_output));
  out.set("cosine", matrix_to_js(a.cosine));
  out.set("dot", matrix_to_js(a.dot));
  out.set("best_by_cosine", ints(std::vector<int>(a.best_by_cosine.begin(), a.best_by_cosine.end())));
  out.set("best_by_dot", ints(std::vector<int>(a.best_by_dot.begin(), a.best_by_dot.end())));
  return out;
}

val angle_vs_dot_js(const md::MaxDigitWeights& w, val basis, val k) {
  return guarded([&] { return angle_vs_dot_to_js(md::angle_vs_dot(w, basis_arg(basis), int_arg(k, "k"))); });
}

val runner_up_js(const md::MaxDigitWeights& w, val maximum, val runner_up) {
  return guarded([&] {
    const md::RunnerUpSplit r = md::runner_up_split(w, int_arg(maximum, "maximum"), int_arg(runner_up, "runner_up"));
    val out = val::object();
    out.set("maximum", r.maximum);
    out.set("runner_up", r.runner_up);
    out.set("gap", plain_array(r.gap.data(), md::kHeads));
    out.set("on_maximum", plain_array(r.on_maximum.data(), md::kHeads));
    out.set("on_runner_up", plain_array(r.on_runner_up.data(), md::kHeads));
    out.set("two_token_share", plain_array(r.two_token_share.data(), md::kHeads));
    return out;
  });
}

// analysis.json's text, written by its one writer (formats/max_digit_analysis.hpp).
val analyze_js(const md::MaxDigitWeights& w) {
  return guarded([&] { return val(formats::write_max_digit_analysis(md::analyze_max_digit(w))); });
}

// --- the model: a class handle holding checked weights, copied into the heap once ---
// A page's figures call the analyses on it, so a figure update copies only its inputs (digits,
// heads) into WASM, never the 18,176 weights (≈ 145 KB) again. Only web/max-digit.js holds it.
int live_models = 0;

class MaxDigitModelHandle {
 public:
  MaxDigitModelHandle() { ++live_models; }
  ~MaxDigitModelHandle() { --live_models; }
  MaxDigitModelHandle(const MaxDigitModelHandle&) = delete;
  MaxDigitModelHandle& operator=(const MaxDigitModelHandle&) = delete;

  // Copies and checks `weights` (weights in memory, as maxDigitWeightsFromJson returns them).
  val load(val weights) {
    return guarded([&] {
      weights_ = weights_from_js(weights);
      loaded_ = true;
      return val(true);
    });
  }
  const md::MaxDigitWeights& weights() const {
    if (!loaded_) throw InputError("the model was not loaded");
    return weights_;
  }

 private:
  md::MaxDigitWeights weights_;
  bool loaded_ = false;
};

int live_models_js() { return live_models; }

// Each analysis `F(weights, args…)` twice: a free function of weights given in memory (copied
// into the heap at every call), and a method of a MaxDigitModelHandle (copied once, at load).
template <auto F, class... A>
val of_weights(val w, A... a) {
  return guarded([&] { return F(weights_from_js(w), a...); });
}
template <auto F, class... A>
val of_model(MaxDigitModelHandle& model, A... a) {
  return guarded([&] { return F(model.weights(), a...); });
}

}  // namespace
}  // namespace headlab::web

EMSCRIPTEN_BINDINGS(headlab_max_digit) {
  using namespace headlab::web;
  emscripten::class_<MaxDigitTrainerHandle>("MaxDigitTrainerHandle")
      .constructor<>()
      .function("start", &MaxDigitTrainerHandle::start)
      .function("step", &MaxDigitTrainerHandle::step)
      .function("stop", &MaxDigitTrainerHandle::stop)
      .function("weights", &MaxDigitTrainerHandle::weights)
      .function("result", &MaxDigitTrainerHandle::result);
  emscripten::class_<MaxDigitModelHandle>("MaxDigitModelHandle")
      .constructor<>()
      .function("load", &MaxDigitModelHandle::load)
      .function("logits", &of_model<&logits_js, val>)
      .function("ans_attention", &of_model<&ans_attention_js, val>)
      .function("score_table", &of_model<&score_table_js>)
      .function("attention_by_max", &of_model<&attention_by_max_js>)
      .function("patch", &of_model<&patch_js_entry, val, val>)
      .function("ablation", &of_model<&ablation_js, val>)
      .function("residual_free", &of_model<&residual_free_js>)
      .function("principal_directions", &of_model<&principal_directions_js, val>)
      .function("subspace_accuracy", &of_model<&subspace_accuracy_js, val, val>)
      .function("cosine_top3", &of_model<&cosine_top3_js>)
      .function("contributions", &of_model<&contributions_js, val, val, val>)
      .function("angle_vs_dot", &of_model<&angle_vs_dot_js, val, val>)
      .function("analyze", &of_model<&analyze_js>)
      .function("runner_up", &of_model<&runner_up_js, val, val>)
      .function("head_logits", &of_model<&head_logits_js, val>);
  emscripten::function("max_digit_live_models", &live_models_js);
  emscripten::function("max_digit_live_trainers", &live_trainers_js);
  emscripten::function("max_digit_check_weights", &check_weights_js);
  emscripten::function("max_digit_train", &train_js);
  emscripten::function("max_digit_initial_weights", &initial_weights_js);
  emscripten::function("max_digit_logits", &of_weights<&logits_js, val>);
  emscripten::function("max_digit_ans_attention", &of_weights<&ans_attention_js, val>);
  emscripten::function("max_digit_score_table", &of_weights<&score_table_js>);
  emscripten::function("max_digit_attention_by_max", &of_weights<&attention_by_max_js>);
  emscripten::function("max_digit_patch", &of_weights<&patch_js_entry, val, val>);
  emscripten::function("max_digit_ablation", &of_weights<&ablation_js, val>);
  emscripten::function("max_digit_residual_free", &of_weights<&residual_free_js>);
  emscripten::function("max_digit_principal_directions", &of_weights<&principal_directions_js, val>);
  emscripten::function("max_digit_subspace_accuracy", &of_weights<&subspace_accuracy_js, val, val>);
  emscripten::function("max_digit_cosine_top3", &of_weights<&cosine_top3_js>);
  emscripten::function("max_digit_contributions", &of_weights<&contributions_js, val, val, val>);
  emscripten::function("max_digit_angle_vs_dot", &of_weights<&angle_vs_dot_js, val, val>);
  emscripten::function("max_digit_analyze", &of_weights<&analyze_js>);
  emscripten::function("max_digit_runner_up", &of_weights<&runner_up_js, val, val>);
  emscripten::function("max_digit_head_logits", &of_weights<&head_logits_js, val>);
}
