// embind: the max-digit transformer — weights, training (a steppable trainer class whose
// handle stays inside web/max-digit.js), and the analyses of issue 6 as plain JS objects.
// Weights cross as { format_version, unit_norm_unembedding, E, W_Q: [4], W_K: [4], W_V: [4],
// W_O: [4], W_U } with every matrix { rows, cols, data: Float64Array }.
#include "bindings/marshal.hpp"
#include "core/max_digit_analysis.hpp"
#include "core/max_digit_training.hpp"

#include <memory>

namespace headlab::web {
namespace {
namespace md = headlab::max_digit;

val field(const val& object, const std::string& name) {
  const val v = object[name];
  if (v.isUndefined() || v.isNull()) throw InputError("missing field \"" + name + "\"");
  return v;
}

std::vector<Matrix> heads_from_js(const val& weights, const std::string& name) {
  const val v = field(weights, name);
  if (!v.isArray()) throw InputError(name + " must be an array of " + std::to_string(md::kHeads) + " matrices");
  std::vector<Matrix> out;
  const int n = v["length"].as<int>();
  for (int h = 0; h < n; ++h) out.push_back(matrix_from_js(v[h], name + "[" + std::to_string(h) + "]"));
  return out;
}

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
  w.W_Q = heads_from_js(weights, "W_Q");
  w.W_K = heads_from_js(weights, "W_K");
  w.W_V = heads_from_js(weights, "W_V");
  w.W_O = heads_from_js(weights, "W_O");
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
  out.set("W_Q", heads_to_js(w.W_Q));
  out.set("W_K", heads_to_js(w.W_K));
  out.set("W_V", heads_to_js(w.W_V));
  out.set("W_O", heads_to_js(w.W_O));
  out.set("W_U", matrix_to_js(w.W_U));
  return out;
}

std::vector<int> digits_from_js(const val& v) {
  if (v.isUndefined() || v.isNull() || !v.isArray()) throw InputError("digits must be an array of 1 to 6 digits");
  std::vector<int> out;
  const int n = v["length"].as<int>();
  for (int i = 0; i < n; ++i) out.push_back(int_arg(v[i], "digits[" + std::to_string(i) + "]"));
  return out;
}

md::MaxDigitTrainingSettings settings_from_js(const val& s) {
  md::MaxDigitTrainingSettings out;
  if (s.isUndefined() || s.isNull()) return out;
  auto number = [&](const char* key, double fallback) {
    const val v = s[key];
    return v.isUndefined() || v.isNull() ? fallback : number_arg(v, key);
  };
  const double seed = number("seed", 0);
  if (seed < 0 || seed != std::floor(seed) || seed > 9007199254740991.0) {
    throw InputError("seed must be an integer in [0, 2^53 − 1], got " + std::to_string(seed));
  }
  out.seed = static_cast<std::uint64_t>(seed);
  const double steps = number("steps", static_cast<double>(out.steps));
  if (steps != std::floor(steps) || steps < 0 || steps > 1e7) throw InputError("steps must be an integer in [0, 10000000]");
  out.steps = static_cast<long>(steps);
  const double batch = number("batch_size", out.batch_size);
  if (batch != std::floor(batch) || batch < 1 || batch > 1e6) throw InputError("batch_size must be an integer in [1, 1000000]");
  out.batch_size = static_cast<int>(batch);
  out.learning_rate = number("learning_rate", out.learning_rate);
  out.weight_decay = number("weight_decay", out.weight_decay);
  out.init_scale = number("init_scale", out.init_scale);
  out.unit_norm_unembedding = optional_bool(s, "unit_norm_unembedding", false);
  md::validate_settings(out);
  return out;
}

val doubles(const double* begin, std::size_t n) { return vector_to_js(std::vector<double>(begin, begin + n)); }

val ints(const std::vector<int>& v) {
  val out = val::array();
  for (int x : v) out.call<void>("push", x);
  return out;
}

// Nested arrays of rows, the layout of analysis.json.
val rows_js(const Matrix& m) {
  val out = val::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    val row = val::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.call<void>("push", m(i, j));
    out.call<void>("push", row);
  }
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
  out.set("accuracy_by_max", plain_array(r.by_max.data(), 10));
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
      return progress();
    });
  }
  val step(val n) {
    return guarded([&] {
      require_started();
      const double count = number_arg(n, "step count");
      if (count < 0 || count != std::floor(count) || count > 1e7) throw InputError("step count must be an integer in [0, 10000000]");
      trainer_->step(static_cast<long>(count));
      return progress();
    });
  }
  val weights() {
    return guarded([&] {
      require_started();
      return weights_to_js(trainer_->weights());
    });
  }

 private:
  void require_started() const {
    if (!trainer_) throw InputError("the trainer was not started");
  }
  val progress() const {
    val out = val::object();
    out.set("steps_taken", static_cast<double>(trainer_->steps_taken()));
    out.set("total_steps", static_cast<double>(trainer_->total_steps()));
    out.set("done", trainer_->done());
    out.set("loss", trainer_->last_loss());
    return out;
  }
  std::unique_ptr<md::MaxDigitTrainer> trainer_;
};

int live_trainers_js() { return live_trainers; }

// --- free functions ---
// A whole weights file: the fields beside the matrices must be present and match too.
val check_weights_js(val w) {
  return guarded([&] {
    md::MaxDigitWeights weights = weights_from_js(w);
    for (const auto& [name, expected] : {std::pair<const char*, int>{"d_model", md::kDModel},
                                         {"n_heads", md::kHeads}, {"d_head", md::kDHead}}) {
      const val v = field(w, name);
      if (v.typeOf().as<std::string>() != "number" || v.as<double>() != expected) {
        throw InputError(std::string(name) + " must be " + std::to_string(expected));
      }
    }
    const val vocab = field(w, "vocab");
    const auto& names = md::vocab_names();
    if (!vocab.isArray() || vocab["length"].as<int>() != md::kVocab) throw InputError("vocab must list the 14 token names");
    for (int t = 0; t < md::kVocab; ++t) {
      if (vocab[t].typeOf().as<std::string>() != "string" || vocab[t].as<std::string>() != names[t]) {
        throw InputError("vocab[" + std::to_string(t) + "] must be \"" + names[t] + "\"");
      }
    }
    return weights_to_js(weights);
  });
}

val train_js(val settings) {
  return guarded([&] { return weights_to_js(md::train_max_digit(settings_from_js(settings))); });
}

val initial_weights_js(val settings) {
  return guarded([&] { return weights_to_js(md::initial_weights(settings_from_js(settings))); });
}

val logits_js(val w, val digits) {
  return guarded([&] {
    const auto logits = md::forward_logits(weights_from_js(w), digits_from_js(digits));
    val out = val::object();
    out.set("logits", doubles(logits.data(), md::kVocab));
    out.set("answer", md::answer_of(logits));
    return out;
  });
}

val ans_attention_js(val w, val digits) {
  return guarded([&] { return matrix_to_js(md::ans_attention(weights_from_js(w), digits_from_js(digits))); });
}

val head_logits_js(val w, val digits) {
  return guarded([&] { return matrix_to_js(md::head_logits(weights_from_js(w), digits_from_js(digits))); });
}

val score_table_js(val w) {
  return guarded([&] { return matrix_to_js(md::score_table(weights_from_js(w))); });
}

val attention_by_max_js(val w) {
  return guarded([&] {
    val out = val::array();
    for (const auto& m : md::attention_by_max(weights_from_js(w))) out.call<void>("push", matrix_to_js(m));
    return out;
  });
}

val patch_js_entry(val w, val digits, val patches) {
  return guarded([&] {
    if (!patches.isArray()) throw InputError("patches must be an array of { head, position }");
    std::vector<md::AttentionPatch> list;
    const int n = patches["length"].as<int>();
    for (int i = 0; i < n; ++i) {
      const val p = patches[i];
      if (p.isUndefined() || p.isNull() || p.typeOf().as<std::string>() != "object") {
        throw InputError("patches[" + std::to_string(i) + "] must be { head, position }");
      }
      list.push_back({int_arg(p["head"], "patches[" + std::to_string(i) + "].head"),
                      int_arg(p["position"], "patches[" + std::to_string(i) + "].position")});
    }
    return patch_js(md::patch_attention(weights_from_js(w), digits_from_js(digits), list));
  });
}

val ablation_js(val w, val heads) {
  return guarded([&] {
    if (!heads.isArray()) throw InputError("heads must be an array of head indices 0–3");
    std::array<bool, md::kHeads> ablated{};
    const int n = heads["length"].as<int>();
    for (int i = 0; i < n; ++i) {
      const int h = int_arg(heads[i], "heads[" + std::to_string(i) + "]");
      require_index("heads[i]", h, md::kHeads);
      ablated[h] = true;
    }
    return report_js(md::ablation_accuracy(weights_from_js(w), ablated));
  });
}

val residual_free_js(val w) {
  return guarded([&] { return report_js(md::residual_free_accuracy(weights_from_js(w))); });
}

md::Basis basis_arg(const val& b) {
  if (b.typeOf().as<std::string>() != "string") throw InputError("basis must be \"w_o\" or \"w_u\"");
  return md::basis_from_name(b.as<std::string>());
}

val principal_directions_js(val w, val basis) {
  return guarded([&] {
    const md::PrincipalDirections p = md::principal_directions(weights_from_js(w), basis_arg(basis));
    val out = val::object();
    out.set("directions", matrix_to_js(p.directions));
    out.set("variance", vector_to_js(p.variance));
    out.set("variance_ratio", vector_to_js(p.variance_ratio));
    return out;
  });
}

val subspace_accuracy_js(val w, val basis, val k) {
  return guarded([&] { return report_js(md::subspace_accuracy(weights_from_js(w), basis_arg(basis), int_arg(k, "k"))); });
}

val cosine_top3_js(val w) {
  return guarded([&] { return matrix_to_js(md::cosine_top3(weights_from_js(w))); });
}

val contributions_js(val w, val digits, val basis, val k) {
  return guarded([&] {
    const md::Contributions c =
        md::contributions(weights_from_js(w), digits_from_js(digits), basis_arg(basis), int_arg(k, "k"));
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

val angle_vs_dot_to_js(const md::AngleVsDot& a, bool nested) {
  val out = val::object();
  out.set("mean_output", nested ? rows_js(a.mean_output) : matrix_to_js(a.mean_output));
  out.set("cosine", nested ? rows_js(a.cosine) : matrix_to_js(a.cosine));
  out.set("dot", nested ? rows_js(a.dot) : matrix_to_js(a.dot));
  out.set("best_by_cosine", ints(std::vector<int>(a.best_by_cosine.begin(), a.best_by_cosine.end())));
  out.set("best_by_dot", ints(std::vector<int>(a.best_by_dot.begin(), a.best_by_dot.end())));
  return out;
}

val angle_vs_dot_js(val w, val basis, val k) {
  return guarded([&] {
    return angle_vs_dot_to_js(md::angle_vs_dot(weights_from_js(w), basis_arg(basis), int_arg(k, "k")), false);
  });
}

template <std::size_t N>
val int_array(const std::array<int, N>& a) { return ints(std::vector<int>(a.begin(), a.end())); }

val bools(const std::array<bool, md::kHeads>& a) {
  val out = val::array();
  for (bool b : a) out.call<void>("push", b);
  return out;
}

val mechanism_js(const md::Mechanism& m) {
  val out = val::object();
  out.set("score_slope", plain_array(m.score_slope.data(), md::kHeads));
  out.set("score_monotone", bools(m.score_monotone));
  out.set("marker_gap", plain_array(m.marker_gap.data(), md::kHeads));
  out.set("embedding_norm", plain_array(m.embedding_norm.data(), md::kVocab));
  out.set("unembedding_norm", plain_array(m.unembedding_norm.data(), md::kVocab));
  out.set("default_logits", plain_array(m.default_logits.data(), md::kVocab));
  out.set("default_answer", m.default_answer);
  out.set("default_answer_residual_free", m.default_answer_residual_free);
  out.set("one_hot_answer", int_array(m.one_hot_answer));
  out.set("recruited_one_hot_answer", int_array(m.recruited_one_hot_answer));
  return out;
}

// The same fields as cli/max_digit_json.cpp's max_digit_claims_to_json.
val claims_js(const md::SeedClaims& c) {
  val out = val::object();
  out.set("accuracy", c.accuracy);
  out.set("single_head_accuracy", plain_array(c.single_head_accuracy.data(), md::kHeads));
  out.set("min_single_head_accuracy", c.min_single_head_accuracy);
  out.set("single_heads_perfect", c.single_heads_perfect);
  out.set("min_one_ablated_accuracy", c.min_one_ablated_accuracy);
  out.set("directions_w_o", c.directions_w_o);
  out.set("directions_w_u", c.directions_w_u);
  out.set("angle_dot_agree", c.angle_dot_agree);
  out.set("dot_correct", c.dot_correct);
  out.set("single_flips", ints(c.single_flips));
  val pairs = val::array();
  for (const auto& p : c.pair_flips) pairs.call<void>("push", ints({p[0], p[1]}));
  out.set("pair_flips", pairs);
  out.set("all_heads_answer", c.all_heads_answer);
  out.set("one_hot_exceptions", ints(c.one_hot_exceptions));
  out.set("default_answer", c.default_answer);
  out.set("recruited_cells", c.recruited_cells);
  out.set("scores_monotone", c.scores_monotone);
  out.set("markers_below_digits", c.markers_below_digits);
  return out;
}

val runner_up_js(val w, val maximum, val runner_up) {
  return guarded([&] {
    const md::RunnerUpSplit r = md::runner_up_split(weights_from_js(w), int_arg(maximum, "maximum"), int_arg(runner_up, "runner_up"));
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

// The whole analysis in the layout of analysis.json (docs/max-digit-analysis.md).
val analyze_js(val w) {
  return guarded([&] {
    const md::MaxDigitAnalysis a = md::analyze_max_digit(weights_from_js(w));
    val out = val::object();
    out.set("format_version", md::kFormatVersion);
    out.set("unit_norm_unembedding", a.unit_norm_unembedding);
    val evaluation = val::object();
    evaluation.set("lists", static_cast<double>(a.evaluation_lists));
    std::vector<double> by_max(a.evaluation_lists_by_max.begin(), a.evaluation_lists_by_max.end());
    evaluation.set("lists_by_max", plain_array(by_max.data(), 10));
    out.set("evaluation", evaluation);
    out.set("accuracy", a.accuracy.accuracy);
    out.set("accuracy_by_max", plain_array(a.accuracy.by_max.data(), 10));
    out.set("residual_free_accuracy", a.residual_free.accuracy);
    out.set("residual_free_accuracy_by_max", plain_array(a.residual_free.by_max.data(), 10));
    out.set("residual_only_accuracy", a.residual_only.accuracy);
    val ablation = val::array();
    for (const auto& h : a.head_ablation) {
      val row = report_js(h.report);
      row.set("heads", ints(h.heads));
      ablation.call<void>("push", row);
    }
    out.set("head_ablation", ablation);
    val subspace = val::object();
    std::vector<double> ks{1, 2, 3, 4, 5, 6, 7, 8}, so, su;
    for (const auto& r : a.subspace_w_o) so.push_back(r.accuracy);
    for (const auto& r : a.subspace_w_u) su.push_back(r.accuracy);
    subspace.set("k", plain_array(ks.data(), ks.size()));
    subspace.set("w_o", plain_array(so.data(), so.size()));
    subspace.set("w_u", plain_array(su.data(), su.size()));
    out.set("subspace_accuracy", subspace);
    val variance = val::object();
    variance.set("w_o", plain_array(a.variance_w_o.data(), a.variance_w_o.size()));
    variance.set("w_u", plain_array(a.variance_w_u.data(), a.variance_w_u.size()));
    out.set("variance_explained", variance);
    val directions = val::object();
    directions.set("w_o", rows_js(a.directions_w_o));
    directions.set("w_u", rows_js(a.directions_w_u));
    out.set("principal_directions", directions);
    out.set("cosine_top3", rows_js(a.cosine));
    out.set("scores", rows_js(a.scores));
    val by_max_attention = val::array();
    for (const auto& m : a.attention_by_max) by_max_attention.call<void>("push", rows_js(m));
    out.set("attention_by_max", by_max_attention);
    val recruited = val::array();
    for (const auto& heads : a.recruited) recruited.call<void>("push", ints(heads));
    out.set("recruited_heads", recruited);
    val patching = val::object();
    patching.set("digits", ints(a.patch_digits));
    patching.set("position", a.patch_position);
    patching.set("original_answer", a.patch_all.original_answer);
    patching.set("original_logits", plain_array(a.patch_all.original_logits.data(), md::kVocab));
    val single = val::array();
    for (const auto& p : a.patch_single) {
      val row = val::object();
      row.set("head", p.head);
      row.set("answer", p.result.answer);
      row.set("logits", plain_array(p.result.logits.data(), md::kVocab));
      single.call<void>("push", row);
    }
    patching.set("single_head", single);
    val all = val::object();
    all.set("answer", a.patch_all.answer);
    all.set("logits", plain_array(a.patch_all.logits.data(), md::kVocab));
    patching.set("all_heads", all);
    val pairs = val::array();
    for (const auto& p : a.patch_pairs) {
      val row = val::object();
      row.set("heads", ints({p.heads[0], p.heads[1]}));
      row.set("answer", p.result.answer);
      row.set("logits", plain_array(p.result.logits.data(), md::kVocab));
      pairs.call<void>("push", row);
    }
    patching.set("pairs", pairs);
    out.set("patching", patching);
    val angle = angle_vs_dot_to_js(a.angle, true);
    angle.set("basis", std::string("w_o"));
    angle.set("k", 3);
    out.set("angle_vs_dot", angle);
    out.set("mechanism", mechanism_js(a.mechanism_figures));
    out.set("claims", claims_js(md::seed_claims(a)));
    return out;
  });
}

}  // namespace
}  // namespace headlab::web

EMSCRIPTEN_BINDINGS(headlab_max_digit) {
  using namespace headlab::web;
  emscripten::class_<MaxDigitTrainerHandle>("MaxDigitTrainerHandle")
      .constructor<>()
      .function("start", &MaxDigitTrainerHandle::start)
      .function("step", &MaxDigitTrainerHandle::step)
      .function("weights", &MaxDigitTrainerHandle::weights);
  emscripten::function("max_digit_live_trainers", &live_trainers_js);
  emscripten::function("max_digit_check_weights", &check_weights_js);
  emscripten::function("max_digit_train", &train_js);
  emscripten::function("max_digit_initial_weights", &initial_weights_js);
  emscripten::function("max_digit_logits", &logits_js);
  emscripten::function("max_digit_ans_attention", &ans_attention_js);
  emscripten::function("max_digit_score_table", &score_table_js);
  emscripten::function("max_digit_attention_by_max", &attention_by_max_js);
  emscripten::function("max_digit_patch", &patch_js_entry);
  emscripten::function("max_digit_ablation", &ablation_js);
  emscripten::function("max_digit_residual_free", &residual_free_js);
  emscripten::function("max_digit_principal_directions", &principal_directions_js);
  emscripten::function("max_digit_subspace_accuracy", &subspace_accuracy_js);
  emscripten::function("max_digit_cosine_top3", &cosine_top3_js);
  emscripten::function("max_digit_contributions", &contributions_js);
  emscripten::function("max_digit_angle_vs_dot", &angle_vs_dot_js);
  emscripten::function("max_digit_analyze", &analyze_js);
  emscripten::function("max_digit_runner_up", &runner_up_js);
  emscripten::function("max_digit_head_logits", &head_logits_js);
}
