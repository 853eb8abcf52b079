#include "core/transformer_analysis.hpp"

#include "core/check.hpp"
#include "core/transformer_training.hpp"

#include <cmath>

namespace headlab::transformer {

namespace {

// The frozen-scale map of the final LayerNorm followed by W_U[:, token]: c ↦ ((c − mean c)/σ ⊙ w) · u.
struct LogitDirection {
  RowVector direction;  // w ⊙ u (or u)
  double inv_scale = 1.0;
  bool centre = false;
  double of(const RowVector& c) const {
    if (!centre) return c.dot(direction);
    const double mean = c.sum() / static_cast<double>(c.size());
    return ((c.array() - mean).matrix().dot(direction)) * inv_scale;
  }
};

}  // namespace

LogitAttribution direct_logit_attribution(const TransformerWeights& w, const std::vector<int>& tokens, int position,
                                          int token) {
  const auto a = transformer_forward(w, tokens);
  require_index("position", position, static_cast<Eigen::Index>(tokens.size()));
  require_index("token", token, w.config.d_vocab);
  const auto& c = w.config;
  LogitDirection dir;
  dir.direction = w.W_U.col(token).transpose();
  if (c.normalization != Normalization::none) {
    dir.centre = true;
    dir.inv_scale = 1.0 / a.final_scale(position);
    if (c.normalization == Normalization::layer_norm) dir.direction.array() *= w.ln_final_w.row(0).array();
  }
  LogitAttribution out;
  out.embed = dir.of(a.embed.row(position));
  out.pos_embed = c.positional_embedding ? dir.of(a.pos_embed.row(position)) : 0.0;
  out.heads = Matrix::Zero(c.n_layers, c.n_heads);
  out.attention_bias = RowVector::Zero(c.n_layers);
  for (int l = 0; l < c.n_layers; ++l) {
    for (int h = 0; h < c.n_heads; ++h) out.heads(l, h) = dir.of(a.layers[l].head_output[h].row(position));
    out.attention_bias(l) = dir.of(w.layers[l].b_O.row(0));
  }
  out.constant = w.b_U(0, token);
  if (c.normalization == Normalization::layer_norm) out.constant += w.ln_final_b.row(0).dot(w.W_U.col(token).transpose());
  out.logit = a.logits(position, token);
  return out;
}

Matrix head_ablation_loss(const TransformerWeights& w, const std::vector<TokenSequence>& batch, Ablation mode,
                          double* clean_loss) {
  const double clean = transformer_loss(w, batch);  // validates weights and batch
  if (clean_loss) *clean_loss = clean;
  const auto& c = w.config;
  const std::size_t T = batch[0].tokens.size();
  // Mean head outputs per position over the batch (mean ablation).
  std::vector<std::vector<Matrix>> mean_output;
  if (mode == Ablation::mean) {
    for (std::size_t b = 0; b < batch.size(); ++b) {
      if (batch[b].tokens.size() != T) {
        throw InputError("mean ablation needs sequences of one length; sequence " + std::to_string(b) + " has " +
                         std::to_string(batch[b].tokens.size()) + " tokens, sequence 0 has " + std::to_string(T));
      }
    }
    mean_output.assign(c.n_layers, std::vector<Matrix>(c.n_heads, Matrix::Zero(T, c.d_model)));
    for (const auto& s : batch) {
      const auto a = transformer_forward_unchecked(w, s.tokens);
      for (int l = 0; l < c.n_layers; ++l)
        for (int h = 0; h < c.n_heads; ++h) mean_output[l][h] += a.layers[l].head_output[h];
    }
    for (auto& layer : mean_output)
      for (auto& m : layer) m /= static_cast<double>(batch.size());
  }
  Matrix losses(c.n_layers, c.n_heads);
  for (int l = 0; l < c.n_layers; ++l) {
    for (int h = 0; h < c.n_heads; ++h) {
      const HeadHook hook = [&](int layer, int head, Matrix& out) {
        if (layer != l || head != h) return;
        if (mode == Ablation::zero) out.setZero();
        else out = mean_output[l][h].topRows(out.rows());
      };
      double total = 0.0, count = 0.0;
      for (const auto& s : batch) {
        const auto a = transformer_forward_unchecked(w, s.tokens, hook);
        for (std::size_t p = s.loss_from; p + 1 < s.tokens.size(); ++p) {
          const auto row = a.logits.row(static_cast<Eigen::Index>(p));
          const double top = row.maxCoeff();
          total += std::log((row.array() - top).exp().sum()) - (row(s.tokens[p + 1]) - top);
          count += 1.0;
        }
      }
      losses(l, h) = total / count;
    }
  }
  return losses;
}

PatchingResult head_position_patching(const TransformerWeights& w, const std::vector<int>& clean,
                                      const std::vector<int>& corrupted, int answer, int wrong) {
  const auto clean_run = transformer_forward(w, clean);
  const auto corrupted_run = transformer_forward(w, corrupted);
  if (clean.size() != corrupted.size()) {
    throw InputError("the corrupted prompt has " + std::to_string(corrupted.size()) + " tokens; the clean prompt has " +
                     std::to_string(clean.size()) + " (patching needs equal lengths)");
  }
  require_index("answer", answer, w.config.d_vocab);
  require_index("wrong", wrong, w.config.d_vocab);
  const auto& c = w.config;
  const Eigen::Index T = static_cast<Eigen::Index>(clean.size()), last = T - 1;
  const auto ld = [&](const Matrix& logits) { return logits(last, answer) - logits(last, wrong); };
  PatchingResult r;
  r.clean_logit_difference = ld(clean_run.logits);
  r.corrupted_logit_difference = ld(corrupted_run.logits);
  const double span = r.clean_logit_difference - r.corrupted_logit_difference;
  if (!(std::abs(span) > 0)) {
    throw InputError("the clean and corrupted prompts give the same logit difference; there is nothing to normalise by");
  }
  r.normalised = Matrix::Zero(c.n_layers * c.n_heads, T);
  for (int l = 0; l < c.n_layers; ++l) {
    for (int h = 0; h < c.n_heads; ++h) {
      for (Eigen::Index p = 0; p < T; ++p) {
        const HeadHook hook = [&](int layer, int head, Matrix& out) {
          if (layer == l && head == h) out.row(p) = corrupted_run.layers[l].head_output[h].row(p);
        };
        const auto patched = transformer_forward_unchecked(w, clean, hook);
        r.normalised(l * c.n_heads + h, p) = (ld(patched.logits) - r.corrupted_logit_difference) / span;
      }
    }
  }
  return r;
}

namespace {

void require_circuit(const TransformerWeights& w, int layer, int head) {
  validate_weights(w);
  require_index("layer", layer, w.config.n_layers);
  require_index("head", head, w.config.n_heads);
  if (w.config.d_vocab > kMaxCircuitVocab) {
    throw InputError("token-space circuits are V × V; d_vocab = " + std::to_string(w.config.d_vocab) +
                     " exceeds the limit of " + std::to_string(kMaxCircuitVocab));
  }
}

}  // namespace

Matrix qk_circuit(const TransformerWeights& w, int layer, int head) {
  require_circuit(w, layer, head);
  const Matrix q = w.W_E * w.layers[layer].W_Q[head];
  const Matrix k = w.W_E * w.layers[layer].W_K[head];
  return q * k.transpose();
}

Matrix ov_circuit(const TransformerWeights& w, int layer, int head) {
  require_circuit(w, layer, head);
  const Matrix v = w.W_E * w.layers[layer].W_V[head];
  return (v * w.layers[layer].W_O[head]) * w.W_U;
}

InductionScores induction_scores(const TransformerWeights& w, int count, std::uint64_t seed) {
  validate_weights(w);
  const auto& c = w.config;
  if (c.n_ctx < 4) throw InputError("induction scores need n_ctx ≥ 4, got " + std::to_string(c.n_ctx));
  if (count < 1 || count > 100000) throw InputError("count must be in [1, 100000], got " + std::to_string(count));
  Random rng = Random(seed).stream(kEvaluationStream);
  const auto batch = repeated_batch(c, rng, count);
  InductionScores s;
  s.previous_token = Matrix::Zero(c.n_layers, c.n_heads);
  s.induction = Matrix::Zero(c.n_layers, c.n_heads);
  const int T = c.n_ctx, m = T / 2;
  double positions = 0.0;
  for (const auto& seq : batch) {
    const auto a = transformer_forward_unchecked(w, seq.tokens);
    for (int p = seq.loss_from; p < T; ++p) {
      for (int l = 0; l < c.n_layers; ++l) {
        for (int h = 0; h < c.n_heads; ++h) {
          s.previous_token(l, h) += a.layers[l].pattern[h](p, p - 1);
          s.induction(l, h) += a.layers[l].pattern[h](p, p - m + 1);
        }
      }
      positions += 1.0;
    }
  }
  s.previous_token /= positions;
  s.induction /= positions;
  s.in_context_loss = transformer_loss(w, batch);
  return s;
}

TransformerAnalysis analyze_transformer(const TransformerWeights& w, const AnalysisRequest& r) {
  TransformerAnalysis out;
  out.run = transformer_forward(w, r.prompt);
  const int T = static_cast<int>(r.prompt.size());
  out.position = r.position < 0 ? T - 1 : r.position;
  require_index("position", out.position, T);
  if (r.token < 0) {
    Eigen::Index best = 0;
    out.run.logits.row(out.position).maxCoeff(&best);
    out.token = static_cast<int>(best);
  } else {
    out.token = r.token;
  }
  out.attribution = direct_logit_attribution(w, r.prompt, out.position, out.token);
  if (r.sequences < 1 || r.sequences > 10000) {
    throw InputError("sequences must be in [1, 10000], got " + std::to_string(r.sequences));
  }
  out.induction = induction_scores(w, r.sequences, r.seed);
  Random rng = Random(r.seed).stream(kEvaluationStream);
  out.ablation_loss = head_ablation_loss(w, repeated_batch(w.config, rng, r.sequences), r.ablation, &out.clean_loss);
  if (!r.corrupted.empty()) {
    if (r.answer < 0 || r.wrong < 0) throw InputError("patching needs answer and wrong tokens with the corrupted prompt");
    out.patching = head_position_patching(w, r.prompt, r.corrupted, r.answer, r.wrong);
    out.has_patching = true;
  }
  if (r.circuits) {
    for (int l = 0; l < w.config.n_layers; ++l) {
      for (int h = 0; h < w.config.n_heads; ++h) {
        out.qk.push_back(qk_circuit(w, l, h));
        out.ov.push_back(ov_circuit(w, l, h));
      }
    }
  }
  return out;
}

TransformerActivations ablated_forward(const TransformerWeights& w, const std::vector<int>& tokens,
                                       const std::vector<HeadIndex>& heads, Ablation mode, int sequences,
                                       std::uint64_t seed) {
  validate_weights(w);
  require_tokens(w.config, tokens);
  const auto& c = w.config;
  std::vector<std::vector<bool>> ablate(c.n_layers, std::vector<bool>(c.n_heads, false));
  for (const auto& hi : heads) {
    if (hi.layer < 0 || hi.layer >= c.n_layers || hi.head < 0 || hi.head >= c.n_heads) {
      throw InputError("head " + std::to_string(hi.layer) + "." + std::to_string(hi.head) + " is not in the model (" +
                       std::to_string(c.n_layers) + " layers × " + std::to_string(c.n_heads) +
                       " heads, numbered from 0)");
    }
    if (ablate[hi.layer][hi.head]) {
      throw InputError("head " + std::to_string(hi.layer) + "." + std::to_string(hi.head) + " is named twice");
    }
    ablate[hi.layer][hi.head] = true;
  }
  std::vector<std::vector<Matrix>> mean_output;
  if (mode == Ablation::mean && !heads.empty()) {
    if (sequences < 1 || sequences > 10000) {
      throw InputError("sequences must be in [1, 10000], got " + std::to_string(sequences));
    }
    Random rng = Random(seed).stream(kEvaluationStream);
    const auto batch = repeated_batch(c, rng, sequences);
    const Eigen::Index T = static_cast<Eigen::Index>(tokens.size());
    mean_output.assign(c.n_layers, std::vector<Matrix>(c.n_heads, Matrix::Zero(T, c.d_model)));
    for (const auto& s : batch) {
      const auto a = transformer_forward_unchecked(w, s.tokens);
      for (int l = 0; l < c.n_layers; ++l)
        for (int h = 0; h < c.n_heads; ++h)
          if (ablate[l][h]) mean_output[l][h] += a.layers[l].head_output[h].topRows(T);
    }
    for (auto& layer : mean_output)
      for (auto& m : layer) m /= static_cast<double>(batch.size());
  }
  const HeadHook hook = [&](int layer, int head, Matrix& out) {
    if (!ablate[layer][head]) return;
    if (mode == Ablation::zero) out.setZero();
    else out = mean_output[layer][head];
  };
  return transformer_forward_unchecked(w, tokens, hook);
}

}  // namespace headlab::transformer
