#include "formats/transformer_json.hpp"

#include "core/check.hpp"
#include "core/top_tokens.hpp"
#include "formats/json.hpp"
#include "formats/transformer_model.hpp"

namespace headlab::formats {

using namespace headlab::transformer;

// The documents keep the reading order they were first written in (transformer_json.hpp), not
// sorted keys: KeyOrder::as_written.

namespace {

void patterns(JsonWriter& out, const TransformerActivations& run) {
  out.begin_array();
  for (const auto& layer : run.layers) {
    out.begin_array();
    for (const auto& p : layer.pattern) out.matrix(p);
    out.end_array();
  }
  out.end_array();
}

// [L][H] of matrices stored in row l·H + h order.
void per_head(JsonWriter& out, const TransformerConfig& c, const std::vector<Matrix>& matrices) {
  out.begin_array();
  for (int l = 0; l < c.n_layers; ++l) {
    out.begin_array();
    for (int h = 0; h < c.n_heads; ++h) out.matrix(matrices[static_cast<std::size_t>(l * c.n_heads + h)]);
    out.end_array();
  }
  out.end_array();
}

void ints(JsonWriter& out, const std::vector<int>& values) {
  out.begin_array();
  for (int v : values) out.value(v);
  out.end_array();
}

// The members the run and analysis documents share, inside an open object.
void run_members(JsonWriter& out, const TransformerWeights& w, const TransformerActivations& run) {
  out.key("tokens");
  ints(out, run.tokens);
  if (!w.config.token_names.empty()) {
    out.key("token_names").begin_array();
    for (int t : run.tokens) out.value(w.config.token_names[static_cast<std::size_t>(t)]);
    out.end_array();
  }
  // The documents hold every position's logits (a page's run of fewer rows goes as arrays instead).
  if (run.logits_from != 0)
    throw InputError("the document holds the logits of every position: logits_from must be 0, got " +
                     std::to_string(run.logits_from));
  out.key("logits").matrix(run.logits);
  out.key("patterns");
  patterns(out, run);
}

std::string finish(JsonWriter& out) { return std::move(out.text()) + "\n"; }

// "composition": every (later, earlier) pair of heads in different layers; matrices indexed
// [later l·H + h][earlier l·H + h], named by "heads".
void composition_member(JsonWriter& out, const TransformerConfig& c, const CompositionScores& s) {
  out.key("composition").begin_object();
  out.key("heads").begin_array();
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h) out.value(std::to_string(l) + "." + std::to_string(h));
  out.end_array();
  out.key("q").matrix(s.q);
  out.key("k").matrix(s.k);
  out.key("v").matrix(s.v);
  out.key("baseline").begin_object();
  out.key("mean").value(s.baseline_mean);
  out.key("std").value(s.baseline_std);
  out.key("samples").value(s.baseline_samples);
  out.key("seed").value(static_cast<unsigned long long>(s.seed));
  out.end_object();
  out.end_object();
}

void int_matrix(JsonWriter& out, const Matrix& m) {
  out.begin_array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    out.begin_array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) out.value(static_cast<long long>(m(i, j)));
    out.end_array();
  }
  out.end_array();
}

void logit_lens_member(JsonWriter& out, const LogitLens& lens) {
  out.key("logit_lens").begin_object();
  out.key("top").value(lens.top);
  out.key("answers");
  ints(out, lens.answers);
  out.key("answer_probability").matrix(lens.answer_probability);
  out.key("answer_rank");
  int_matrix(out, lens.answer_rank);
  out.key("top_tokens").begin_array();
  for (const auto& m : lens.top_tokens) int_matrix(out, m);
  out.end_array();
  out.key("top_probability").begin_array();
  for (const auto& m : lens.top_probability) out.matrix(m);
  out.end_array();
  out.end_object();
}

// One token-space reading (directions × V) as its `top` largest tokens per direction.
void reading_member(JsonWriter& out, const char* name, const Matrix& reading, int top) {
  out.key(name).begin_object();
  Matrix tokens(reading.rows(), top), values(reading.rows(), top);
  for (Eigen::Index i = 0; i < reading.rows(); ++i) {
    const auto best = top_indices(reading.row(i).data(), static_cast<int>(reading.cols()), top);
    for (int r = 0; r < top; ++r) {
      tokens(i, r) = best[static_cast<std::size_t>(r)];
      values(i, r) = reading(i, best[static_cast<std::size_t>(r)]);
    }
  }
  out.key("tokens");
  int_matrix(out, tokens);
  out.key("values").matrix(values);
  out.end_object();
}

void head_svd_member(JsonWriter& out, const TransformerConfig& c, const std::vector<HeadSvd>& svds, int directions,
                     int top) {
  out.key("head_svd").begin_object();
  out.key("directions").value(directions);
  out.key("top").value(top);
  out.key("heads").begin_array();
  for (int l = 0; l < c.n_layers; ++l) {
    out.begin_array();
    for (int h = 0; h < c.n_heads; ++h) {
      const HeadSvd& s = svds[static_cast<std::size_t>(l * c.n_heads + h)];
      out.begin_object();
      out.key("ov_singular_values")
          .numbers(s.ov_singular_values.data(), static_cast<std::size_t>(s.ov_singular_values.size()));
      out.key("qk_singular_values")
          .numbers(s.qk_singular_values.data(), static_cast<std::size_t>(s.qk_singular_values.size()));
      out.key("copying").value(s.copying);
      out.key("ov_eigenvalues").begin_array();
      for (const auto& e : s.ov_eigenvalues) {
        const double pair[2] = {e.real(), e.imag()};
        out.numbers(pair, 2);
      }
      out.end_array();
      reading_member(out, "ov_input", s.ov_input, top);
      reading_member(out, "ov_output", s.ov_output, top);
      reading_member(out, "qk_query", s.qk_query, top);
      reading_member(out, "qk_key", s.qk_key, top);
      out.end_object();
    }
    out.end_array();
  }
  out.end_array();
  out.end_object();
}

// The members "composition", "logit_lens", "head_svd" that were asked for, inside an open object.
void head_circuit_members(JsonWriter& out, const TransformerConfig& c, const AnalysisRequest& r,
                          const TransformerAnalysis& a) {
  if (a.composition) composition_member(out, c, *a.composition);
  if (a.lens) logit_lens_member(out, *a.lens);
  if (!a.svd.empty()) head_svd_member(out, c, a.svd, a.directions, r.top);
}

}  // namespace

std::string write_head_circuits(const TransformerWeights& w, const AnalysisRequest& r, const TransformerAnalysis& a) {
  JsonWriter out(KeyOrder::as_written);
  out.begin_object();
  head_circuit_members(out, w.config, r, a);
  out.end_object();
  return finish(out);
}

std::string write_transformer_run(const TransformerWeights& w, const TransformerActivations& run) {
  JsonWriter out(KeyOrder::as_written);
  out.begin_object();
  run_members(out, w, run);
  out.end_object();
  return finish(out);
}

std::string write_transformer_run(const TransformerWeights& w, const TransformerActivations& run,
                                  const PromptAblation& losses, Ablation mode, const MeanSource& means) {
  JsonWriter out(KeyOrder::as_written);
  out.begin_object();
  run_members(out, w, run);
  out.key("head_losses").begin_object();
  out.key("mode").value(mode == Ablation::zero ? "zero" : "mean");
  out.key("means").value(means.reference.empty() ? "repeated random sequences" : "reference");
  out.key("sequences").value(means.reference.empty() ? means.sequences : static_cast<int>(means.reference.size()));
  if (means.reference.empty()) out.key("seed").value(static_cast<unsigned long long>(means.seed));
  out.key("clean_loss").value(losses.clean_loss);
  out.key("loss").matrix(losses.loss);
  out.end_object();
  out.end_object();
  return finish(out);
}

std::string write_transformer_analysis(const TransformerWeights& w, const AnalysisRequest& r,
                                       const TransformerAnalysis& a) {
  const auto& c = w.config;
  JsonWriter out(KeyOrder::as_written);
  out.begin_object();
  run_members(out, w, a.run);
  out.key("position").value(a.position);
  out.key("token").value(a.token);
  const auto& d = a.attribution;
  out.key("direct_logit_attribution").begin_object();
  out.key("embed").value(d.embed);
  out.key("pos_embed").value(d.pos_embed);
  out.key("heads").matrix(d.heads);
  out.key("attention_bias").numbers(d.attention_bias.data(), static_cast<std::size_t>(d.attention_bias.size()));
  out.key("constant").value(d.constant);
  out.key("logit").value(d.logit);
  out.end_object();
  if (r.sequences == 0) {
    // No repeated sequences were asked for (AnalysisRequest::sequences 0).
    out.key("ablation").value(nullptr);
    out.key("induction").value(nullptr);
  } else {
    out.key("ablation").begin_object();
    out.key("mode").value(r.ablation == Ablation::zero ? "zero" : "mean");
    out.key("sequences").value(r.sequences);
    out.key("seed").value(static_cast<unsigned long long>(r.seed));
    out.key("clean_loss").value(a.clean_loss);
    out.key("loss").matrix(a.ablation_loss);
    out.end_object();
    out.key("induction").begin_object();
    out.key("previous_token").matrix(a.induction.previous_token);
    out.key("induction").matrix(a.induction.induction);
    out.key("in_context_loss").value(a.induction.in_context_loss);
    out.end_object();
  }
  if (a.has_patching) {
    // normalised is (L·H) × T; written [L][H][T].
    const Matrix& n = a.patching.normalised;
    out.key("patching").begin_object();
    out.key("answer").value(r.answer);
    out.key("wrong").value(r.wrong);
    out.key("corrupted");
    ints(out, r.corrupted);
    out.key("clean_logit_difference").value(a.patching.clean_logit_difference);
    out.key("corrupted_logit_difference").value(a.patching.corrupted_logit_difference);
    out.key("normalised").begin_array();
    for (int l = 0; l < c.n_layers; ++l) {
      out.begin_array();
      for (int h = 0; h < c.n_heads; ++h)
        out.numbers(n.data() + (l * c.n_heads + h) * n.cols(), static_cast<std::size_t>(n.cols()));
      out.end_array();
    }
    out.end_array();
    out.end_object();
  }
  if (!a.qk.empty()) {
    out.key("circuits").begin_object();
    out.key("qk");
    per_head(out, c, a.qk);
    out.key("ov");
    per_head(out, c, a.ov);
    out.end_object();
  }
  if (a.has_qk_attribution) {
    const QkAttribution& q = a.qk_attribution;
    out.key("qk_attribution").begin_object();
    out.key("layer").value(q.layer);
    out.key("head").value(q.head);
    out.key("position").value(q.position);
    out.key("sources").begin_array();
    for (const auto& name : q.sources) out.value(name);
    out.end_array();
    out.key("parts").begin_array();  // [j][a][b]: key j, query-side source a, key-side source b
    for (const Matrix& p : q.parts) out.matrix(p);
    out.end_array();
    out.key("scores").numbers(q.scores.data(), static_cast<std::size_t>(q.scores.size()));
    out.end_object();
  }
  head_circuit_members(out, c, r, a);
  out.end_object();
  return finish(out);
}

std::string write_transformer_inspection(const TransformerWeights& w, const SafetensorsFile& file) {
  JsonWriter out(KeyOrder::as_written);
  out.begin_object();
  out.key("config");
  write_transformer_config(out, w.config);
  out.key("parameters").value(parameter_count(w.config));
  out.key("tensors").begin_array();
  for (const auto& t : file.tensors) {
    out.begin_object();
    out.key("name").value(t.name);
    out.key("dtype").value(dtype_name(t.dtype));
    out.key("shape").begin_array();
    for (auto n : t.shape) out.value(static_cast<long long>(n));
    out.end_array();
    out.end_object();
  }
  out.end_array();
  out.key("checks").value("ok");
  out.end_object();
  return finish(out);
}
std::vector<int> parse_prompt(const TransformerConfig& c, const std::string& text) {
  std::vector<int> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == '\t' || text[i] == '\n')) ++i;
    if (i >= text.size()) break;
    std::size_t j = i;
    while (j < text.size() && !(text[j] == ' ' || text[j] == ',' || text[j] == '\t' || text[j] == '\n')) ++j;
    const std::string piece = text.substr(i, j - i);
    const std::size_t index = tokens.size();
    if (tokens.size() >= static_cast<std::size_t>(kMaxContext)) {
      throw InputError("the prompt has more than " + std::to_string(kMaxContext) + " tokens");
    }
    bool numeric = !piece.empty() && piece.size() <= 9;
    for (std::size_t k = 0; k < piece.size(); ++k) {
      if (!(piece[k] >= '0' && piece[k] <= '9') && !(k == 0 && piece[k] == '-' && piece.size() > 1)) numeric = false;
    }
    int token = -1;
    if (numeric) {
      token = std::stoi(piece);
    } else {
      bool found = false;
      for (std::size_t n = 0; n < c.token_names.size(); ++n) {
        if (c.token_names[n] == piece) {
          token = static_cast<int>(n);
          found = true;
          break;
        }
      }
      if (!found) {
        const std::string shown = piece.size() > 20 ? piece.substr(0, 20) + "…" : piece;
        throw InputError("prompt token \"" + shown + "\" at position " + std::to_string(index) +
                         " is neither a token id nor one of the model's token names");
      }
    }
    tokens.push_back(token);
    i = j;
  }
  require_tokens(c, tokens);
  return tokens;
}


std::string write_training_history(const TransformerTrainingSettings& s, int every, int score_sequences,
                                   const std::vector<TrainingCheckpoint>& points) {
  JsonWriter out(KeyOrder::as_written);
  out.begin_object();
  out.key("task").value("induction");
  out.key("seed").value(static_cast<unsigned long long>(s.seed));
  out.key("steps").value(s.steps);
  out.key("batch").value(s.batch_size);
  out.key("learning_rate").value(s.learning_rate);
  out.key("weight_decay").value(s.weight_decay);
  out.key("warmup_steps").value(s.warmup_steps);
  out.key("final_learning_rate_fraction").value(s.final_learning_rate_fraction);
  out.key("every").value(every);
  out.key("score_sequences").value(score_sequences);
  out.key("points").begin_array();
  for (const auto& p : points) {
    out.begin_object();
    out.key("step").value(p.step);
    if (p.step > 0) out.key("loss").value(p.loss);  // no step, no loss (NaN is not JSON)
    out.key("in_context_loss").value(p.in_context_loss);
    out.key("previous_token").matrix(p.previous_token);
    out.key("induction").matrix(p.induction);
    out.end_object();
  }
  out.end_array();
  out.end_object();
  return finish(out);
}

}  // namespace headlab::formats
