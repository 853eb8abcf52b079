#include "core/transformer_analysis.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/head_matrices.hpp"
#include "core/normalization.hpp"
#include "core/ordered_products.hpp"
#include "core/rotary.hpp"
#include "core/transformer_heads.hpp"
#include "core/induction_task.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace headlab::transformer {

namespace {

// The frozen-scale map of the final normalisation followed by W_U[:, token]: c ↦ ((c − mean c)/σ ⊙ w) · u
// (LN; LNPre without w), c ↦ (c/σ ⊙ w) · u (RMS; RMSPre without w), c ↦ c · u (none).
struct LogitDirection {
  RowVector direction;  // w ⊙ u (or u)
  double inv_scale = 1.0;
  bool centre = false;
  bool scaled = false;
  double of(const RowVector& c) const {
    const Eigen::Index n = c.size();
    if (!centre) {
      const double dot = ordered_dot(c.data(), direction.data(), n);
      return scaled ? dot * inv_scale : dot;
    }
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
  dir.direction = unembedding_column(w, token);
  if (normalizes(c)) {
    dir.centre = centres(c);
    dir.scaled = true;
    dir.inv_scale = 1.0 / a.final_scale(position);
    if (w.ln_final_w.size() > 0) dir.direction.array() *= w.ln_final_w.row(0).array();  // LN, RMS
  }
  LogitAttribution out;
  out.embed = dir.of(a.embed.row(position));
  out.pos_embed = c.positions == Positions::learned ? dir.of(a.pos_embed.row(position)) : 0.0;
  out.heads = Matrix::Zero(c.n_layers, c.n_heads);
  out.attention_bias = RowVector::Zero(c.n_layers);
  for (int l = 0; l < c.n_layers; ++l) {
    for (int h = 0; h < c.n_heads; ++h) out.heads(l, h) = dir.of(a.layers[l].head_output[h].row(position));
    out.attention_bias(l) = dir.of(w.layers[l].b_O.row(0));
  }
  out.constant = w.b_U(0, token);
  if (c.normalization == Normalization::layer_norm) {
    const RowVector u = unembedding_column(w, token);
    out.constant += ordered_dot(w.ln_final_b.data(), u.data(), u.size());
  }
  out.logit = a.logits(position - a.logits_from, token);
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

double repeated_sequence_work(const TransformerConfig& c, int sequences) {
  return static_cast<double>(sequences) * c.n_ctx * c.d_model * c.d_vocab * (1.0 + c.n_layers * c.n_heads);
}

void require_repeated_work(const TransformerConfig& c, int sequences) {
  const double work = repeated_sequence_work(c, sequences);
  if (work > kMaxRepeatedSequenceWork) {
    throw InputError(
        "the repeated-sequence analyses (induction scores, in-context loss, ablation losses and means) "
        "would take sequences · n_ctx · d_model · d_vocab · (1 + n_layers · n_heads) = " +
        number_text(work) + " multiply-adds; the limit is " + number_text(kMaxRepeatedSequenceWork) +
        ": ask for fewer sequences, or sequences 0 for the prompt's own figures alone");
  }
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
                         Ablation mode, const std::vector<std::vector<Matrix>>& mean_output,
                         std::vector<double>& total) {
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

// Adds one sequence's attention over its repeated half (positions p ≥ loss_from) to the L × H
// sums: from p to p − 1 (previous token) and to p − m + 1 (induction, m = n_ctx / 2), and one to
// `positions` per p.
void add_induction_scores(const TransformerActivations& a, const TokenSequence& s, int m, BatchResult& r,
                          double& positions) {
  const int T = static_cast<int>(s.tokens.size());
  for (int p = s.loss_from; p < T; ++p) {
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
      const auto& pattern = a.layers[l].pattern;
      for (std::size_t h = 0; h < pattern.size(); ++h) {
        r.previous_token(l, h) += pattern[h](p, p - 1);
        r.induction(l, h) += pattern[h](p, p - m + 1);
      }
    }
    positions += 1.0;
  }
}

// The runs of mean ablation's first pass, kept for its second while their activations total at most
// kKeptActivationDoubles; past it none are kept and the second pass recomputes each.
struct KeptRuns {
  std::vector<TransformerActivations> runs;
  bool keep = true;
  std::size_t doubles = 0;
  void add(TransformerActivations&& a) {
    if (!keep) return;
    doubles += activation_doubles(a);
    if (doubles <= kKeptActivationDoubles) {
      runs.push_back(std::move(a));
    } else {
      keep = false;
      std::vector<TransformerActivations>().swap(runs);
    }
  }
};

// Mean ablation's second pass: mean_output (summed over the batch by the first) becomes the mean,
// then each sequence's ablated losses are added to total in batch order.
void add_mean_ablation_losses(const TransformerWeights& w, const std::vector<TokenSequence>& batch, Ablation mode,
                              std::vector<std::vector<Matrix>>& mean_output, const KeptRuns& kept,
                              std::vector<double>& total) {
  for (auto& layer : mean_output)
    for (auto& mo : layer) mo /= static_cast<double>(batch.size());
  for (std::size_t b = 0; b < batch.size(); ++b) {
    if (kept.keep) {
      add_ablation_losses(w, kept.runs[b], batch[b], mode, mean_output, total);
    } else {
      add_ablation_losses(w, transformer_forward_unchecked(w, batch[b].tokens), batch[b], mode, mean_output, total);
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
  double positions = 0.0, loss = 0.0;
  const bool mean = o.ablation && o.mode == Ablation::mean;
  std::vector<std::vector<Matrix>> mean_output;  // L × H of T × d: Σ over the batch of each head's output
  if (mean) mean_output.assign(L, std::vector<Matrix>(H, Matrix::Zero(batch[0].tokens.size(), c.d_model)));
  std::vector<double> total(static_cast<std::size_t>(L * H), 0.0);  // ablated losses, [l·H + h]
  KeptRuns kept;
  for (const auto& s : batch) {
    TransformerActivations a = transformer_forward_unchecked(w, s.tokens);
    if (o.scores) add_induction_scores(a, s, c.n_ctx / 2, r, positions);
    loss += sequence_cross_entropy(a.logits, s);
    if (!o.ablation) continue;
    if (!mean) {
      add_ablation_losses(w, a, s, o.mode, mean_output, total);
      continue;
    }
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h) mean_output[l][h] += a.layers[l].head_output[h];
    kept.add(std::move(a));
  }
  if (mean) add_mean_ablation_losses(w, batch, o.mode, mean_output, kept, total);
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

// What every patch of one (clean, corrupted) pair of prompts reads. T = prompt length, last = T − 1,
// d = d_model; the logit difference is ld = logit(last, answer) − logit(last, wrong), and a patch's
// result is normalised as (ld_patched − ld_corrupted) / span, span = ld_clean − ld_corrupted.
struct Patching {
  const TransformerWeights& w;
  const TransformerActivations& clean_run;
  const TransformerActivations& corrupted_run;
  int answer, wrong;
  Eigen::Index T, last, d;
  RowVector u_answer, u_wrong;  // the two columns of W_U the logit difference reads, contiguous for ordered_dot
  double corrupted_ld, span;
};

// ld of the last row of a forward pass's logits (T × V).
double logit_difference(const Matrix& logits, Eigen::Index last, int answer, int wrong) {
  return logits(last, answer) - logits(last, wrong);
}

// ld from x, the last row after the final LayerNorm (d wide): x · W_U[:, t] + b_U(t), as
// resume_forward forms each logit (ordered_dot, k ascending), answer minus wrong.
double final_logit_difference(const Patching& P, const double* x) {
  const auto& w = P.w;
  return (ordered_dot(x, P.u_answer.data(), P.d) + w.b_U(0, P.answer)) -
         (ordered_dot(x, P.u_wrong.data(), P.d) + w.b_U(0, P.wrong));
}

double normalised(const Patching& P, double ld) { return (ld - P.corrupted_ld) / P.span; }

// Layer l's output row p with head h's replaced by the corrupted run's (d wide, into out), summed as
// the forward pass sums it: resid_pre, each head in order, then b_O.
void patched_row(const Patching& P, int l, int h, Eigen::Index p, double* out) {
  const auto& clean_layer = P.clean_run.layers[l];
  Eigen::Map<RowVector> row(out, P.d);
  row = clean_layer.resid_pre.row(p);
  for (int g = 0; g < P.w.config.n_heads; ++g) {
    row += (g == h ? P.corrupted_run.layers[l] : clean_layer).head_output[g].row(p);
  }
  row += P.w.layers[l].b_O.row(0);
}

// The last layer's clean causal softmax of the last query, for one head g: its scaled scores
// s_j = (q_last · k_j) / √c (resume_forward's dot products and scaling), their largest, the largest
// without each column j, and exp(s_j − largest).
struct CleanSoftmax {
  RowVector scaled, exps;
  double top = 0.0;
  std::vector<double> top_without;
};

CleanSoftmax clean_softmax_of(const Patching& P, int g) {
  const auto& top_run = P.clean_run.layers.back();
  const Eigen::Index T = P.T, dh = P.w.config.d_head;
  RowVector scores(T);
  for (Eigen::Index j = 0; j < T; ++j)
    scores(j) = ordered_dot(top_run.q[g].data() + P.last * dh, top_run.k[g].data() + j * dh, dh);
  CleanSoftmax cs;
  cs.scaled = scores * (1.0 / attention_scale(P.w.config));
  cs.top = cs.scaled.maxCoeff();
  // Prefix and suffix maxima: top_without[j] = max(max s_{<j}, max s_{>j}).
  std::vector<double> before(static_cast<std::size_t>(T + 1), -std::numeric_limits<double>::infinity()), after = before;
  for (Eigen::Index j = 0; j < T; ++j) before[j + 1] = std::max(before[j], cs.scaled(j));
  for (Eigen::Index j = T; j-- > 0;) after[j] = std::max(after[j + 1], cs.scaled(j));
  cs.top_without.resize(static_cast<std::size_t>(T));
  for (Eigen::Index j = 0; j < T; ++j) cs.top_without[j] = std::max(before[j], after[j + 1]);
  cs.exps.resize(T);
  for (Eigen::Index j = 0; j < T; ++j) cs.exps(j) = exp_nonpositive(cs.scaled(j) - cs.top);
  return cs;
}

// z (c wide, into zh) of the last query of last-layer head g when only key/value row p differs from
// the clean run: k_p, v_p the patched row's key and value (c wide each). causal_softmax of the last
// query's scaled scores with column p replaced: the row's largest, each exp of score − largest (the
// clean run's exps wherever the largest is the clean one's, which they then equal bit for bit),
// summed in column order, each divided by the sum; then Σ_j pattern_j v_j, j ascending, as
// mixed_values_product mixes clean and fresh values.
void last_query_z(const Patching& P, const CleanSoftmax& clean, int g, Eigen::Index p, const double* k_p,
                  const double* v_p, double* zh) {
  const auto& top_run = P.clean_run.layers.back();
  const Eigen::Index T = P.T, dh = P.w.config.d_head;
  const double inv_sqrt_dh = 1.0 / attention_scale(P.w.config);
  const double score_p = ordered_dot(top_run.q[g].data() + P.last * dh, k_p, dh) * inv_sqrt_dh;
  const double row_top = std::max(clean.top_without[static_cast<std::size_t>(p)], score_p);
  RowVector pattern(T);
  double sum = 0.0;
  for (Eigen::Index j = 0; j < T; ++j) {
    const double sj = j == p ? score_p : clean.scaled(j);
    pattern(j) = j != p && row_top == clean.top ? clean.exps(j) : exp_nonpositive(sj - row_top);
    sum += pattern(j);
  }
  for (Eigen::Index j = 0; j < T; ++j) pattern(j) /= sum;
  for (Eigen::Index col = 0; col < dh; ++col) zh[col] = 0.0;
  for (Eigen::Index j = 0; j < T; ++j) {
    const double* vj = j == p ? v_p : top_run.v[g].data() + j * dh;
    const double pj = pattern(j);
    for (Eigen::Index col = 0; col < dh; ++col) zh[col] += pj * vj[col];
  }
}

// The second-to-last layer's patches at p < last, every head h at once, into column p of out
// (rows l·H + h). Row p then enters only the last layer's keys and values at p; the last query and
// every other key and value are the clean run's. So: the H patched rows' LayerNorm, keys and values
// as one H-row product (each entry the sum resume_forward forms for one row), and per last-layer
// head g and patch h the last query's z (last_query_z), then z W_O for all h at once. The same
// operations in the same order as resume_forward(l + 1, row, p, last): the same bits, without its
// per-row copies.
void second_to_last_patches(const Patching& P, const std::vector<CleanSoftmax>& clean, int l, Eigen::Index p,
                            Matrix& out) {
  const auto& c = P.w.config;
  const auto& top = P.w.layers.back();
  const int H = c.n_heads;
  const Eigen::Index d = P.d, dh = c.d_head;
  Matrix rows(H, d);  // H × d: the patched rows, one per head h
  for (int h = 0; h < H; ++h) patched_row(P, l, h, p, rows.data() + h * d);
  Vector scale;
  const Matrix x = normalize(c, rows, top.ln_w, top.ln_b, scale);
  const RowPositions at_p{p, 0};  // every row is an alternative at position p
  const Matrix qk_input = query_key_input(P.w, x, at_p);
  const int last_layer = c.n_layers - 1;
  Matrix next(H, d);  // the last row of the last layer's output, per patch h
  for (int h = 0; h < H; ++h) next.row(h) = P.clean_run.layers.back().resid_pre.row(P.last);
  Matrix z(H, dh);
  for (int g = 0; g < H; ++g) {
    const Matrix k = head_keys(P.w, last_layer, g, qk_input, at_p);  // H × c
    const Matrix v = head_values(P.w, last_layer, g, x);             // H × c
    for (int h = 0; h < H; ++h) {
      last_query_z(P, clean[static_cast<std::size_t>(g)], g, p, k.data() + h * dh, v.data() + h * dh,
                   z.data() + h * dh);
    }
    next += ordered_product(z, top.W_O[g]);
  }
  next.rowwise() += top.b_O.row(0);
  const Matrix final_x = normalize(c, next, P.w.ln_final_w, P.w.ln_final_b, scale);
  for (int h = 0; h < H; ++h) out(l * H + h, p) = normalised(P, final_logit_difference(P, final_x.data() + h * d));
}

// Any other patch of head h of layer l at position p: it changes row p of layer l's output and,
// through causal attention, only rows ≥ p of later layers; resume_final_normalized recomputes just
// those (in layer l + 1 only row p's keys and values) and of the last layer only the last position
// (the logit difference reads nothing else). It repeats the forward pass's operations row by row,
// so the result has the bits of a full patched forward pass.
double resumed_patch(const Patching& P, int l, int h, Eigen::Index p) {
  Matrix row(1, P.d);
  patched_row(P, l, h, p, row.data());
  const Matrix x = resume_final_normalized(P.w, P.clean_run, l + 1, row, p, P.last);
  return normalised(P, final_logit_difference(P, x.data()));
}

// Patching head h of layer l at position p, for every (l, h, p): (L·H) × T of normalised logit
// differences (tests/core/transformer_analysis_test.cpp checks it against a naive recomputation).
PatchingResult patching_of(const TransformerWeights& w, const TransformerActivations& clean_run,
                           const std::vector<int>& corrupted, int answer, int wrong) {
  const std::vector<int>& clean = clean_run.tokens;
  // The corrupted run's last row of logits is all patching reads.
  const auto corrupted_run =
      transformer_forward(w, corrupted, nullptr, static_cast<Eigen::Index>(corrupted.size()) - 1);
  if (clean.size() != corrupted.size()) {
    throw InputError("the corrupted prompt has " + std::to_string(corrupted.size()) + " tokens; the clean prompt has " +
                     std::to_string(clean.size()) + " (patching needs equal lengths)");
  }
  require_index("answer", answer, w.config.d_vocab);
  require_index("wrong", wrong, w.config.d_vocab);
  const auto& c = w.config;
  const Eigen::Index T = static_cast<Eigen::Index>(clean.size()), last = T - 1;
  PatchingResult r;
  r.clean_logit_difference = logit_difference(clean_run.logits, last - clean_run.logits_from, answer, wrong);
  r.corrupted_logit_difference =
      logit_difference(corrupted_run.logits, last - corrupted_run.logits_from, answer, wrong);
  const double span = r.clean_logit_difference - r.corrupted_logit_difference;
  if (!(std::abs(span) > 0)) {
    throw InputError(
        "the clean and corrupted prompts give the same logit difference; there is nothing to normalise by");
  }
  const Patching P{w,
                   clean_run,
                   corrupted_run,
                   answer,
                   wrong,
                   T,
                   last,
                   c.d_model,
                   unembedding_column(w, answer),
                   unembedding_column(w, wrong),
                   r.corrupted_logit_difference,
                   span};
  const int L = c.n_layers, H = c.n_heads;
  r.normalised = Matrix::Zero(L * H, T);
  if (L >= 2) {
    std::vector<CleanSoftmax> clean_softmax;
    for (int g = 0; g < H; ++g) clean_softmax.push_back(clean_softmax_of(P, g));
    for (Eigen::Index p = 0; p < last; ++p) second_to_last_patches(P, clean_softmax, L - 2, p, r.normalised);
  }
  for (int l = 0; l < L; ++l) {
    for (int h = 0; h < H; ++h) {
      for (Eigen::Index p = 0; p < T; ++p) {
        // In the last layer row p < last reaches only the logits of row p: the last row's logit
        // difference is the clean one (resume_forward would read the clean row and give its bits).
        if (l + 1 == L && p < last) r.normalised(l * H + h, p) = normalised(P, r.clean_logit_difference);
        else if (!(l + 2 == L && p < last)) r.normalised(l * H + h, p) = resumed_patch(P, l, h, p);
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

Matrix qk_circuit(const TransformerWeights& w, int layer, int head, int offset) {
  require_circuit(w, layer, head);
  require_index("offset", offset, w.config.n_ctx);
  Matrix q = embedding_product(w, w.layers[layer].W_Q[head]);
  if (w.config.positions == Positions::rotary) {
    for (Eigen::Index t = 0; t < q.rows(); ++t) apply_rotary(w.config, q.row(t).data(), offset);
  }
  const Matrix k = embedding_product(w, w.layers[layer].W_K[key_value_group(w.config, head)]);
  return ordered_product_nt(q, k);
}

Matrix ov_circuit(const TransformerWeights& w, int layer, int head) {
  require_circuit(w, layer, head);
  const Matrix v = embedding_product(w, w.layers[layer].W_V[key_value_group(w.config, head)]);
  return unembed_product(ordered_product(v, w.layers[layer].W_O[head]), w);
}

namespace {

// The checks of induction_scores, in its order.
void require_scores(const TransformerWeights& w, int count) {
  validate_weights(w);
  const auto& c = w.config;
  if (c.n_ctx < 4) throw InputError("induction scores need n_ctx ≥ 4, got " + std::to_string(c.n_ctx));
  if (count < 1 || count > 100000) throw InputError("count must be in [1, 100000], got " + std::to_string(count));
  require_repeated_work(c, count);
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

const BatchAnalysis& AnalysisCache::batch(const TransformerWeights& w, int sequences, std::uint64_t seed,
                                          Ablation mode) {
  for (const auto& b : kept_)
    if (b.sequences == sequences && b.seed == seed && b.mode == mode) return b;
  BatchAnalysis fresh = batch_analysis(w, sequences, seed, mode);  // throws before the cache changes
  if (kept_.size() == kKept) kept_.erase(kept_.begin());
  kept_.push_back(std::move(fresh));
  return kept_.back();
}

namespace {

// The analysed position (−1: the last) and token (−1: the model's top prediction there) of `r`,
// checked against the run: into out.position and out.token.
void choose_position_and_token(const TransformerWeights& w, const AnalysisRequest& r, TransformerAnalysis& out) {
  const int T = static_cast<int>(r.prompt.size());
  // −1 is the default (the last position, the model's top token); any other negative value is a mistake.
  if (r.position < -1)
    throw InputError("position must be -1 (the last) or in [0, " + std::to_string(T) + "), got " +
                     std::to_string(r.position));
  if (r.token < -1)
    throw InputError("token must be -1 (the top prediction) or in [0, " + std::to_string(w.config.d_vocab) + "), got " +
                     std::to_string(r.token));
  out.position = r.position < 0 ? T - 1 : r.position;
  require_index("position", out.position, T);
  if (r.token < 0) {
    Eigen::Index best = 0;
    out.run.logits.row(out.position - out.run.logits_from).maxCoeff(&best);
    out.token = static_cast<int>(best);
  } else {
    out.token = r.token;
  }
}

// The figures over r.sequences repeated sequences (losses, ablation, induction scores), from the
// cache when one is given; with no sequences every one of them is NaN (written null).
void batch_figures(const TransformerWeights& w, const AnalysisRequest& r, AnalysisCache* cache,
                   TransformerAnalysis& out) {
  const auto take = [&](const BatchAnalysis& batch) {
    out.clean_loss = batch.clean_loss;
    out.ablation_loss = batch.ablation_loss;
    out.induction = batch.induction;
  };
  if (r.sequences == 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Matrix none = Matrix::Constant(w.config.n_layers, w.config.n_heads, nan);
    out.clean_loss = nan;
    out.ablation_loss = none;
    out.induction.previous_token = none;
    out.induction.induction = none;
    out.induction.in_context_loss = nan;
  } else if (cache) {
    take(cache->batch(w, r.sequences, r.seed, r.ablation));
  } else {
    take(batch_analysis(w, r.sequences, r.seed, r.ablation));
  }
}

}  // namespace

TransformerAnalysis analyze_transformer(const TransformerWeights& w, const AnalysisRequest& r, AnalysisCache* cache) {
  if (r.sequences < 0 || r.sequences > 10000) {
    throw InputError("sequences must be in [0, 10000] (0: no repeated sequences), got " + std::to_string(r.sequences));
  }
  TransformerAnalysis out;
  const int T = static_cast<int>(r.prompt.size());
  if (T > 0) require_integer_in("logits_from", r.logits_from, 0, T - 1);
  // The DLA position's row is always formed (its top prediction and logit are read there).
  const int position = r.position < 0 ? T - 1 : std::min(r.position, std::max(T - 1, 0));
  out.run = transformer_forward(w, r.prompt, nullptr, std::min(r.logits_from, position));
  choose_position_and_token(w, r, out);
  out.attribution = attribution_of(w, out.run, out.position, out.token);
  batch_figures(w, r, cache, out);
  if (!r.corrupted.empty()) {
    if (r.answer < 0 || r.wrong < 0)
      throw InputError("patching needs answer and wrong tokens with the corrupted prompt");
    out.patching = patching_of(w, out.run, r.corrupted, r.answer, r.wrong);
    out.has_patching = true;
  }
  if (r.qk_attribution) {
    out.qk_attribution = transformer::qk_attribution(w, out.run, r.qk_head.layer, r.qk_head.head, out.position);
    out.has_qk_attribution = true;
  }
  if (r.circuits) {
    for (int l = 0; l < w.config.n_layers; ++l) {
      for (int h = 0; h < w.config.n_heads; ++h) {
        out.qk.push_back(qk_circuit(w, l, h, r.qk_offset));
        out.ov.push_back(ov_circuit(w, l, h));
      }
    }
  }
  if (r.composition) out.composition = composition_scores(w, kCompositionBaselineSamples, r.seed);
  if (r.logit_lens) out.lens = logit_lens(w, out.run, {}, r.top);
  if (r.head_svd) {
    require_integer_in("top", r.top, 1, std::min(kMaxLogitLensTop, w.config.d_vocab));
    if (r.directions != -1) require_integer_in("directions", r.directions, 1, w.config.d_head);
    out.directions = r.directions == -1 ? std::min(3, w.config.d_head) : r.directions;
    out.svd = head_svds(w, out.directions);
  }
  return out;
}

namespace {

// The heads named in `heads` as an L × H mask; throws InputError on a head outside the model or named twice.
std::vector<std::vector<bool>> ablation_mask(const TransformerConfig& c, const std::vector<HeadIndex>& heads) {
  std::vector<std::vector<bool>> ablate(c.n_layers, std::vector<bool>(c.n_heads, false));
  for (const auto& hi : heads) {
    const std::string name = std::to_string(hi.layer) + "." + std::to_string(hi.head);
    if (hi.layer < 0 || hi.layer >= c.n_layers || hi.head < 0 || hi.head >= c.n_heads) {
      throw InputError("head " + name + " is not in the model (" + std::to_string(c.n_layers) + " layers × " +
                       std::to_string(c.n_heads) + " heads, numbered from 0)");
    }
    if (ablate[hi.layer][hi.head]) throw InputError("head " + name + " is named twice");
    ablate[hi.layer][hi.head] = true;
  }
  return ablate;
}

// Checks a mean source for a prompt of T tokens: sequences in [1, 10000] when no reference is given;
// else every reference sequence a valid prompt and the longest at least T tokens.
void require_mean_source(const TransformerConfig& c, const MeanSource& means, std::size_t T) {
  if (means.reference.empty()) {
    require_sequences(means.sequences);
    return;
  }
  if (means.reference.size() > static_cast<std::size_t>(kMaxReferenceSequences)) {
    throw InputError("reference: " + std::to_string(means.reference.size()) + " sequences; at most " +
                     std::to_string(kMaxReferenceSequences));
  }
  std::size_t longest = 0;
  for (std::size_t i = 0; i < means.reference.size(); ++i) {
    try {
      require_tokens(c, means.reference[i]);
    } catch (const InputError& e) {
      throw InputError("reference sequence " + std::to_string(i) + ": " + e.what());
    }
    longest = std::max(longest, means.reference[i].size());
  }
  if (longest < T) {
    throw InputError("mean ablation over the reference sequences: the prompt has " + std::to_string(T) +
                     " tokens, the longest reference sequence " + std::to_string(longest) + ", so positions from " +
                     std::to_string(longest) + " on have no mean");
  }
}

// Mean output of each head in `which` (L × H mask) at positions [0, T), from a checked mean source:
// L × H matrices of T × d_model (empty for a head not in the mask). Sums run over the sequences in
// order; with repeated random sequences (all n_ctx ≥ T long) every row divides by their count.
std::vector<std::vector<Matrix>> mean_head_outputs(const TransformerWeights& w, const MeanSource& means,
                                                   const std::vector<std::vector<bool>>& which, Eigen::Index T) {
  const auto& c = w.config;
  std::vector<std::vector<Matrix>> mean(c.n_layers, std::vector<Matrix>(c.n_heads));
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h)
      if (which[l][h]) mean[l][h] = Matrix::Zero(T, c.d_model);
  std::vector<double> count(static_cast<std::size_t>(T), 0.0);  // sequences reaching each position
  const auto add = [&](const std::vector<int>& tokens) {
    const auto a = transformer_forward_unchecked(w, tokens);
    const Eigen::Index rows = std::min<Eigen::Index>(T, static_cast<Eigen::Index>(tokens.size()));
    for (int l = 0; l < c.n_layers; ++l)
      for (int h = 0; h < c.n_heads; ++h)
        if (which[l][h]) mean[l][h].topRows(rows) += a.layers[l].head_output[h].topRows(rows);
    for (Eigen::Index p = 0; p < rows; ++p) count[static_cast<std::size_t>(p)] += 1.0;
  };
  if (means.reference.empty()) {
    require_repeated_work(c, means.sequences);
    Random rng = Random(means.seed).stream(kEvaluationStream);
    for (const auto& s : repeated_batch(c, rng, means.sequences)) add(s.tokens);
  } else {
    for (const auto& s : means.reference) add(s);
  }
  for (auto& layer : mean)
    for (auto& m : layer)
      for (Eigen::Index p = 0; p < m.rows(); ++p) m.row(p) /= count[static_cast<std::size_t>(p)];
  return mean;
}

}  // namespace

TransformerActivations ablated_forward(const TransformerWeights& w, const std::vector<int>& tokens,
                                       const std::vector<HeadIndex>& heads, Ablation mode, int sequences,
                                       std::uint64_t seed) {
  MeanSource means;
  means.sequences = sequences;
  means.seed = seed;
  return ablated_forward(w, tokens, heads, mode, means);
}

TransformerActivations ablated_forward(const TransformerWeights& w, const std::vector<int>& tokens,
                                       const std::vector<HeadIndex>& heads, Ablation mode, const MeanSource& means,
                                       Eigen::Index logits_from) {
  validate_weights(w);
  require_tokens(w.config, tokens);
  const auto ablate = ablation_mask(w.config, heads);
  std::vector<std::vector<Matrix>> mean_output;
  if (mode == Ablation::mean && !heads.empty()) {
    require_mean_source(w.config, means, tokens.size());
    mean_output = mean_head_outputs(w, means, ablate, static_cast<Eigen::Index>(tokens.size()));
  }
  const HeadHook hook = [&](int layer, int head, Matrix& out) {
    if (!ablate[layer][head]) return;
    if (mode == Ablation::zero) out.setZero();
    else out = mean_output[layer][head];
  };
  return transformer_forward_unchecked(w, tokens, hook, logits_from);
}

PromptAblation prompt_ablation_loss(const TransformerWeights& w, const std::vector<int>& prompt, Ablation mode,
                                    const MeanSource& means) {
  validate_weights(w);
  require_tokens(w.config, prompt);
  if (prompt.size() < 2) throw InputError("the prompt has 1 token; its next-token loss needs at least 2");
  const auto& c = w.config;
  std::vector<std::vector<Matrix>> mean_output;
  if (mode == Ablation::mean) {
    require_mean_source(c, means, prompt.size());
    const std::vector<std::vector<bool>> all(c.n_layers, std::vector<bool>(c.n_heads, true));
    mean_output = mean_head_outputs(w, means, all, static_cast<Eigen::Index>(prompt.size()));
  }
  TokenSequence s;
  s.tokens = prompt;
  const TransformerActivations clean = transformer_forward_unchecked(w, prompt);
  const double positions = static_cast<double>(prompt.size() - 1);
  std::vector<double> total(static_cast<std::size_t>(c.n_layers * c.n_heads), 0.0);
  add_ablation_losses(w, clean, s, mode, mean_output, total);
  PromptAblation out;
  out.clean_loss = sequence_cross_entropy(clean.logits, s) / positions;
  out.loss.resize(c.n_layers, c.n_heads);
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h) out.loss(l, h) = total[static_cast<std::size_t>(l * c.n_heads + h)] / positions;
  return out;
}

}  // namespace headlab::transformer
