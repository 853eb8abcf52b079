#include "core/transformer_analysis.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/ordered_products.hpp"
#include "core/transformer_training.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace headlab::transformer {

namespace {

// The frozen-scale map of the final LayerNorm followed by W_U[:, token]: c ↦ ((c − mean c)/σ ⊙ w) · u.
struct LogitDirection {
  RowVector direction;  // w ⊙ u (or u)
  double inv_scale = 1.0;
  bool centre = false;
  double of(const RowVector& c) const {
    const Eigen::Index n = c.size();
    if (!centre) return ordered_dot(c.data(), direction.data(), n);
    const double mean = ordered_sum(c.data(), n) / static_cast<double>(n);
    const RowVector centred = (c.array() - mean).matrix();
    return ordered_dot(centred.data(), direction.data(), n) * inv_scale;
  }
};

}  // namespace

namespace {

// DLA read from a forward pass already run on the tokens (analyze_transformer has one).
LogitAttribution attribution_of(const TransformerWeights& w, const TransformerActivations& a, int position, int token) {
  require_index("position", position, static_cast<Eigen::Index>(a.tokens.size()));
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
  if (c.normalization == Normalization::layer_norm) {
    const RowVector u = w.W_U.col(token).transpose();
    out.constant += ordered_dot(w.ln_final_b.data(), u.data(), u.size());
  }
  out.logit = a.logits(position, token);
  return out;
}

PatchingResult patching_of(const TransformerWeights& w, const TransformerActivations& clean_run,
                           const std::vector<int>& corrupted, int answer, int wrong);

}  // namespace

LogitAttribution direct_logit_attribution(const TransformerWeights& w, const std::vector<int>& tokens, int position,
                                          int token) {
  return attribution_of(w, transformer_forward(w, tokens), position, token);
}

PatchingResult head_position_patching(const TransformerWeights& w, const std::vector<int>& clean,
                                      const std::vector<int>& corrupted, int answer, int wrong) {
  return patching_of(w, transformer_forward(w, clean), corrupted, answer, wrong);
}

namespace {

void require_sequences(int sequences) {
  if (sequences < 1 || sequences > 10000) {
    throw InputError("sequences must be in [1, 10000], got " + std::to_string(sequences));
  }
}

// Mean ablation averages each head's output position by position: one length for every sequence.
void require_one_length(const std::vector<TokenSequence>& batch) {
  const std::size_t T = batch[0].tokens.size();
  for (std::size_t b = 0; b < batch.size(); ++b) {
    if (batch[b].tokens.size() != T) {
      throw InputError("mean ablation needs sequences of one length; sequence " + std::to_string(b) + " has " +
                       std::to_string(batch[b].tokens.size()) + " tokens, sequence 0 has " + std::to_string(T));
    }
  }
}

// What one pass over a batch of sequences computes (analyze_transformer asks for all of it at once:
// the induction scores, the in-context loss and the ablation read the same repeated random sequences).
struct BatchPass {
  bool scores = false;    // previous-token and induction scores (repeated sequences of n_ctx tokens)
  bool ablation = false;  // the loss with each head ablated
  Ablation mode = Ablation::mean;
};
struct BatchResult {
  Matrix previous_token, induction;  // L × H (scores)
  double loss = 0.0;                 // transformer_loss of the batch, from the same forward passes
  Matrix ablation_loss;              // L × H (ablation)
};

// Mean-ablation runs are kept between the pass that averages the head outputs and the pass that
// ablates them up to this many doubles of activations (64 MB); beyond it each run is recomputed
// (the same bits, twice the forward passes).
constexpr std::size_t kKeptActivationDoubles = std::size_t{8} << 20;

std::size_t activation_doubles(const TransformerActivations& a) {
  std::size_t n = static_cast<std::size_t>(a.embed.size() + a.pos_embed.size() + a.final_normalized.size() +
                                           a.final_scale.size() + a.logits.size());
  for (const auto& la : a.layers) {
    n += static_cast<std::size_t>(la.resid_pre.size() + la.normalized.size() + la.scale.size() + la.resid_post.size());
    for (const auto* per_head : {&la.q, &la.k, &la.v, &la.pattern, &la.z, &la.head_output})
      for (const auto& m : *per_head) n += static_cast<std::size_t>(m.size());
  }
  return n;
}

// Adds one sequence's summed next-token losses with each head ablated to total[l·H + h].
// Ablating head (l, h) changes nothing before layer l: only layer l's sum of head outputs and the
// layers after it are recomputed (resume_forward, the same bits as a full forward pass with the
// head's output replaced). Per head the losses are added in the order a loop over sequences and
// positions gives.
void add_ablation_losses(const TransformerWeights& w, const TransformerActivations& clean_run, const TokenSequence& s,
                         Ablation mode, const std::vector<std::vector<Matrix>>& mean_output, std::vector<double>& total) {
  const auto& c = w.config;
  const int H = c.n_heads;
  const Eigen::Index T = static_cast<Eigen::Index>(s.tokens.size()), from = s.loss_from;
  for (int l = 0; l < c.n_layers; ++l) {
    const auto& la = clean_run.layers[l];
    for (int h = 0; h < H; ++h) {
      // resid_post of layer l as the forward pass sums it: resid_pre, each head in order, then b_O.
      Matrix resid = la.resid_pre;
      for (int g = 0; g < H; ++g) {
        if (g != h) resid += la.head_output[g];
        else if (mode == Ablation::zero) resid += Matrix::Zero(T, c.d_model);
        else resid += mean_output[l][h].topRows(T);
      }
      resid.rowwise() += w.layers[l].b_O.row(0);
      const Matrix logits = resume_forward(w, clean_run, l + 1, resid, 0, from);  // rows [from, T)
      double& sum_h = total[static_cast<std::size_t>(l * H + h)];
      for (Eigen::Index p = from; p + 1 < T; ++p) {
        const auto row = logits.row(p - from);
        const double top = row.maxCoeff();
        double sum = 0.0;
        for (Eigen::Index j = 0; j < row.size(); ++j) sum += exp_nonpositive(row(j) - top);
        sum_h += deterministic_log(sum) - (row(s.tokens[static_cast<std::size_t>(p + 1)]) - top);
      }
    }
  }
}

// One forward pass per sequence (two for mean ablation beyond kKeptActivationDoubles), read by every
// requested result. Each result adds its terms in the order its own loop over the batch would:
// scores over sequences, positions; loss over sequences (transformer_loss); ablation over sequences,
// positions per head; the mean head output over sequences.
BatchResult batch_pass(const TransformerWeights& w, const std::vector<TokenSequence>& batch, const BatchPass& o) {
  const auto& c = w.config;
  const int L = c.n_layers, H = c.n_heads;
  BatchResult r;
  r.previous_token = Matrix::Zero(L, H);
  r.induction = Matrix::Zero(L, H);
  const int m = c.n_ctx / 2;
  double positions = 0.0, loss = 0.0;
  const bool mean = o.ablation && o.mode == Ablation::mean;
  std::vector<std::vector<Matrix>> mean_output;
  if (mean) mean_output.assign(L, std::vector<Matrix>(H, Matrix::Zero(batch[0].tokens.size(), c.d_model)));
  std::vector<double> total(static_cast<std::size_t>(L * H), 0.0);
  std::vector<TransformerActivations> kept;
  bool keep = mean;
  std::size_t kept_doubles = 0;
  for (const auto& s : batch) {
    TransformerActivations a = transformer_forward_unchecked(w, s.tokens);
    if (o.scores) {
      // Over the repeated half: attention from p to p − 1 and to p − m + 1.
      const int T = static_cast<int>(s.tokens.size());
      for (int p = s.loss_from; p < T; ++p) {
        for (int l = 0; l < L; ++l) {
          for (int h = 0; h < H; ++h) {
            r.previous_token(l, h) += a.layers[l].pattern[h](p, p - 1);
            r.induction(l, h) += a.layers[l].pattern[h](p, p - m + 1);
          }
        }
        positions += 1.0;
      }
    }
    loss += sequence_cross_entropy(a.logits, s);
    if (!o.ablation) continue;
    if (!mean) {
      add_ablation_losses(w, a, s, o.mode, mean_output, total);
      continue;
    }
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h) mean_output[l][h] += a.layers[l].head_output[h];
    if (keep) {
      kept_doubles += activation_doubles(a);
      if (kept_doubles <= kKeptActivationDoubles) {
        kept.push_back(std::move(a));
      } else {
        keep = false;
        std::vector<TransformerActivations>().swap(kept);
      }
    }
  }
  if (mean) {
    for (auto& layer : mean_output)
      for (auto& mo : layer) mo /= static_cast<double>(batch.size());
    for (std::size_t b = 0; b < batch.size(); ++b) {
      if (keep) {
        add_ablation_losses(w, kept[b], batch[b], o.mode, mean_output, total);
      } else {
        add_ablation_losses(w, transformer_forward_unchecked(w, batch[b].tokens), batch[b], o.mode, mean_output, total);
      }
    }
  }
  if (o.scores) {
    r.previous_token /= positions;
    r.induction /= positions;
  }
  r.loss = loss / counted_positions(batch);
  if (o.ablation) {
    const double count = counted_positions(batch);
    r.ablation_loss.resize(L, H);
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h) r.ablation_loss(l, h) = total[static_cast<std::size_t>(l * H + h)] / count;
  }
  return r;
}

}  // namespace

Matrix head_ablation_loss(const TransformerWeights& w, const std::vector<TokenSequence>& batch, Ablation mode,
                          double* clean_loss) {
  validate_weights(w);
  require_batch(w.config, batch);
  if (mode == Ablation::mean) require_one_length(batch);
  BatchPass o;
  o.ablation = true;
  o.mode = mode;
  BatchResult r = batch_pass(w, batch, o);
  if (clean_loss) *clean_loss = r.loss;
  return std::move(r.ablation_loss);
}

namespace {

PatchingResult patching_of(const TransformerWeights& w, const TransformerActivations& clean_run,
                           const std::vector<int>& corrupted, int answer, int wrong) {
  const std::vector<int>& clean = clean_run.tokens;
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
  // The two columns of W_U the logit difference reads, contiguous for ordered_dot.
  const RowVector u_answer = w.W_U.col(answer).transpose(), u_wrong = w.W_U.col(wrong).transpose();
  const Eigen::Index d = c.d_model;
  const auto ld_final = [&](const double* x) {  // x: the last row after the final LayerNorm, d wide
    return (ordered_dot(x, u_answer.data(), d) + w.b_U(0, answer)) -
           (ordered_dot(x, u_wrong.data(), d) + w.b_U(0, wrong));
  };
  const int L = c.n_layers, H = c.n_heads;
  // Layer l's output row p with head h's replaced by the corrupted run's, summed as the forward pass
  // sums it (resid_pre, each head in order, then b_O); the other rows are the clean run's.
  const auto patched_row = [&](int l, int h, Eigen::Index p, double* out) {
    const auto& clean_layer = clean_run.layers[l];
    Eigen::Map<RowVector> row(out, d);
    row = clean_layer.resid_pre.row(p);
    for (int g = 0; g < H; ++g) row += (g == h ? corrupted_run.layers[l] : clean_layer).head_output[g].row(p);
    row += w.layers[l].b_O.row(0);
  };
  // The second-to-last layer's patches at p < last, every head at once. Row p then enters only the
  // last layer's keys and values at p; the last query and every other key and value are the clean
  // run's. So per p: the H patched rows' LayerNorm, keys and values as one H-row product (each entry
  // the sum resume_forward forms for one row), and per last-layer head g and patch h the last query's
  // scores — the clean row's dot products with column p replaced — its softmax, the values mixed as
  // mixed_values_product mixes them, then z W_O for all h at once. The same operations in the same
  // order as resume_forward(l + 1, row, p, last): the same bits, without its per-row copies.
  const auto& top = w.layers[static_cast<std::size_t>(L - 1)];
  const auto& top_run = clean_run.layers[static_cast<std::size_t>(L - 1)];
  const double inv_sqrt_dh = 1.0 / std::sqrt(static_cast<double>(c.d_head));
  const Eigen::Index dh = c.d_head;
  struct CleanSoftmax {
    RowVector scaled, exps;
    double top = 0.0;
    std::vector<double> top_without;
  };
  std::vector<CleanSoftmax> clean_softmax;  // filled below, before the first call
  const auto second_to_last_patches = [&](int l, Eigen::Index p) {
    Matrix rows(H, d);
    for (int h = 0; h < H; ++h) patched_row(l, h, p, rows.data() + h * d);
    Vector scale;
    const Matrix x = c.normalization != Normalization::none
                         ? layer_norm_forward(rows, top.ln_w, top.ln_b, c.layer_norm_eps, scale)
                         : rows;
    Matrix next(H, d);
    for (int h = 0; h < H; ++h) next.row(h) = top_run.resid_pre.row(last);
    Matrix z(H, dh), pattern(1, T);
    for (int g = 0; g < H; ++g) {
      Matrix k = ordered_product(x, top.W_K[g]);
      k.rowwise() += top.b_K.row(g);
      Matrix v = ordered_product(x, top.W_V[g]);
      v.rowwise() += top.b_V.row(g);
      const double* q = top_run.q[g].data() + last * dh;
      const CleanSoftmax& clean = clean_softmax[static_cast<std::size_t>(g)];
      for (int h = 0; h < H; ++h) {
        // causal_softmax of the last query's scaled scores with column p replaced: the row's
        // largest, each exp of score − largest (the clean run's exps wherever the largest is the
        // clean one's, which they then equal bit for bit), summed in column order, each divided by the sum.
        const double score_p = ordered_dot(q, k.data() + h * dh, dh) * inv_sqrt_dh;
        const double row_top = std::max(clean.top_without[static_cast<std::size_t>(p)], score_p);
        double sum = 0.0;
        for (Eigen::Index j = 0; j < T; ++j) {
          const double sj = j == p ? score_p : clean.scaled(j);
          pattern(0, j) = j != p && row_top == clean.top ? clean.exps(j) : exp_nonpositive(sj - row_top);
          sum += pattern(0, j);
        }
        for (Eigen::Index j = 0; j < T; ++j) pattern(0, j) /= sum;
        double* zh = z.data() + h * dh;
        for (Eigen::Index col = 0; col < dh; ++col) zh[col] = 0.0;
        for (Eigen::Index j = 0; j < T; ++j) {
          const double* vj = j == p ? v.data() + h * dh : top_run.v[g].data() + j * dh;
          const double pj = pattern(0, j);
          for (Eigen::Index col = 0; col < dh; ++col) zh[col] += pj * vj[col];
        }
      }
      next += ordered_product(z, top.W_O[g]);
    }
    next.rowwise() += top.b_O.row(0);
    const Matrix final_x = c.normalization != Normalization::none
                               ? layer_norm_forward(next, w.ln_final_w, w.ln_final_b, c.layer_norm_eps, scale)
                               : next;
    for (int h = 0; h < H; ++h)
      r.normalised(l * H + h, p) = (ld_final(final_x.data() + h * d) - r.corrupted_logit_difference) / span;
  };
  // The last layer's clean scores of the last query, q_last · k_j per head (resume_forward's dot products).
  std::vector<RowVector> clean_scores(static_cast<std::size_t>(H), RowVector(T));
  for (int g = 0; g < H; ++g)
    for (Eigen::Index j = 0; j < T; ++j)
      clean_scores[static_cast<std::size_t>(g)](j) =
          ordered_dot(top_run.q[g].data() + last * dh, top_run.k[g].data() + j * dh, dh);
  // Per last-layer head: the clean scaled scores of the last query (as resume_forward scales them),
  // their largest, the largest without each column, and their exps against the largest.
  clean_softmax.resize(static_cast<std::size_t>(H));
  for (int g = 0; g < H; ++g) {
    CleanSoftmax& cs = clean_softmax[static_cast<std::size_t>(g)];
    cs.scaled = clean_scores[static_cast<std::size_t>(g)] * inv_sqrt_dh;
    cs.top = cs.scaled.maxCoeff();
    std::vector<double> before(static_cast<std::size_t>(T + 1), -std::numeric_limits<double>::infinity()), after = before;
    for (Eigen::Index j = 0; j < T; ++j) before[j + 1] = std::max(before[j], cs.scaled(j));
    for (Eigen::Index j = T; j-- > 0;) after[j] = std::max(after[j + 1], cs.scaled(j));
    cs.top_without.resize(static_cast<std::size_t>(T));
    for (Eigen::Index j = 0; j < T; ++j) cs.top_without[j] = std::max(before[j], after[j + 1]);
    cs.exps.resize(T);
    for (Eigen::Index j = 0; j < T; ++j) cs.exps(j) = exp_nonpositive(cs.scaled(j) - cs.top);
  }
  if (L >= 2)
    for (Eigen::Index p = 0; p < last; ++p) second_to_last_patches(L - 2, p);
  // Patching head h of layer l at position p changes row p of layer l's output and, through causal
  // attention, only rows ≥ p of later layers: resume_forward recomputes just those (in layer l + 1 only
  // row p's keys and values), and of the last layer only the last position (the logit difference
  // reads nothing else). It repeats the forward
  // pass's operations row by row, so the result has the bits of a full patched forward pass
  // (tests/core/transformer_analysis_test.cpp checks it against that naive recomputation).
  for (int l = 0; l < L; ++l) {
    const bool last_layer = l + 1 == L;
    for (int h = 0; h < H; ++h) {
      for (Eigen::Index p = 0; p < T; ++p) {
        if (last_layer && p < last) {
          // In the last layer row p reaches only the logits of row p: the last row's logit difference
          // is the clean one (resume_forward would read the clean row and give its bits).
          r.normalised(l * H + h, p) = (r.clean_logit_difference - r.corrupted_logit_difference) / span;
          continue;
        }
        if (l + 2 == L && p < last) continue;  // second_to_last_patches, above
        Matrix row(1, d);
        patched_row(l, h, p, row.data());
        const Matrix x = resume_final_normalized(w, clean_run, l + 1, row, p, last);
        r.normalised(l * H + h, p) = (ld_final(x.data()) - r.corrupted_logit_difference) / span;
      }
    }
  }
  return r;
}

}  // namespace

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
  const Matrix q = ordered_product(w.W_E, w.layers[layer].W_Q[head]);
  const Matrix k = ordered_product(w.W_E, w.layers[layer].W_K[head]);
  return ordered_product_nt(q, k);
}

Matrix ov_circuit(const TransformerWeights& w, int layer, int head) {
  require_circuit(w, layer, head);
  const Matrix v = ordered_product(w.W_E, w.layers[layer].W_V[head]);
  return ordered_product(ordered_product(v, w.layers[layer].W_O[head]), w.W_U);
}

namespace {

// The checks of induction_scores, in its order.
void require_scores(const TransformerWeights& w, int count) {
  validate_weights(w);
  const auto& c = w.config;
  if (c.n_ctx < 4) throw InputError("induction scores need n_ctx ≥ 4, got " + std::to_string(c.n_ctx));
  if (count < 1 || count > 100000) throw InputError("count must be in [1, 100000], got " + std::to_string(count));
}

InductionScores scores_of(BatchResult& r) {
  InductionScores s;
  s.previous_token = std::move(r.previous_token);
  s.induction = std::move(r.induction);
  s.in_context_loss = r.loss;
  return s;
}

}  // namespace

InductionScores induction_scores(const TransformerWeights& w, int count, std::uint64_t seed) {
  require_scores(w, count);
  Random rng = Random(seed).stream(kEvaluationStream);
  BatchPass o;
  o.scores = true;
  BatchResult r = batch_pass(w, repeated_batch(w.config, rng, count), o);
  return scores_of(r);
}

BatchAnalysis batch_analysis(const TransformerWeights& w, int sequences, std::uint64_t seed, Ablation mode) {
  require_sequences(sequences);
  require_scores(w, sequences);
  // Induction scores, in-context loss and ablation read the same repeated random sequences: one pass
  // over them gives all three (clean_loss and in_context_loss are the same figure).
  Random rng = Random(seed).stream(kEvaluationStream);
  BatchPass o;
  o.scores = true;
  o.ablation = true;
  o.mode = mode;
  BatchResult batch = batch_pass(w, repeated_batch(w.config, rng, sequences), o);
  BatchAnalysis out;
  out.sequences = sequences;
  out.seed = seed;
  out.mode = mode;
  out.clean_loss = batch.loss;
  out.ablation_loss = std::move(batch.ablation_loss);
  out.induction = scores_of(batch);
  return out;
}

const BatchAnalysis& AnalysisCache::batch(const TransformerWeights& w, int sequences, std::uint64_t seed, Ablation mode) {
  for (const auto& b : kept_)
    if (b.sequences == sequences && b.seed == seed && b.mode == mode) return b;
  BatchAnalysis fresh = batch_analysis(w, sequences, seed, mode);  // throws before the cache changes
  if (kept_.size() == kKept) kept_.erase(kept_.begin());
  kept_.push_back(std::move(fresh));
  return kept_.back();
}

TransformerAnalysis analyze_transformer(const TransformerWeights& w, const AnalysisRequest& r, AnalysisCache* cache) {
  TransformerAnalysis out;
  out.run = transformer_forward(w, r.prompt);
  const int T = static_cast<int>(r.prompt.size());
  // −1 is the default (the last position, the model's top token); any other negative value is a mistake.
  if (r.position < -1) throw InputError("position must be -1 (the last) or in [0, " + std::to_string(T) + "), got " + std::to_string(r.position));
  if (r.token < -1) throw InputError("token must be -1 (the top prediction) or in [0, " + std::to_string(w.config.d_vocab) + "), got " + std::to_string(r.token));
  out.position = r.position < 0 ? T - 1 : r.position;
  require_index("position", out.position, T);
  if (r.token < 0) {
    Eigen::Index best = 0;
    out.run.logits.row(out.position).maxCoeff(&best);
    out.token = static_cast<int>(best);
  } else {
    out.token = r.token;
  }
  out.attribution = attribution_of(w, out.run, out.position, out.token);
  const auto take = [&](const BatchAnalysis& batch) {
    out.clean_loss = batch.clean_loss;
    out.ablation_loss = batch.ablation_loss;
    out.induction = batch.induction;
  };
  if (cache) take(cache->batch(w, r.sequences, r.seed, r.ablation));
  else take(batch_analysis(w, r.sequences, r.seed, r.ablation));
  if (!r.corrupted.empty()) {
    if (r.answer < 0 || r.wrong < 0) throw InputError("patching needs answer and wrong tokens with the corrupted prompt");
    out.patching = patching_of(w, out.run, r.corrupted, r.answer, r.wrong);
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
