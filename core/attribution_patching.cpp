#include "core/attribution_patching.hpp"

#include "core/check.hpp"
#include "core/normalization.hpp"
#include "core/ordered_products.hpp"
#include "core/transformer.hpp"
#include "core/transformer_heads.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace headlab::transformer {

namespace {

// The inputs of layer l's receivers given dresid = ∂LD/∂resid_post_l (T × d): for head h and κ, the
// head's dq, dk or dv (T × c) times W_Qᵀ, W_Kᵀ or W_Vᵀ (∂LD/∂x̂ through that input alone; with
// shortformer positions q and k read x̂ + W_pos, whose derivative in x̂ is the same), then back
// through LN_l: receiver_input[(l·H + h)·3 + κ]. Returns ∂LD/∂resid_pre_l = dresid + Σ_{h,κ} of them.
Matrix layer_input_gradients(const TransformerWeights& w, const TransformerActivations& run, int l,
                             const Matrix& dresid, LogitDifferenceGradients& g) {
  const auto& c = w.config;
  const auto& lw = w.layers[static_cast<std::size_t>(l)];
  const auto& la = run.layers[static_cast<std::size_t>(l)];
  // normalize_backward adds the LayerNorm weights' gradients to these; attribution reads dx only.
  Matrix scratch_w = Matrix::Zero(lw.ln_w.rows(), lw.ln_w.cols()),
         scratch_b = Matrix::Zero(lw.ln_b.rows(), lw.ln_b.cols());
  Matrix dresid_pre = dresid;
  for (int h = 0; h < c.n_heads; ++h) {
    const HeadInputGradients d = head_input_gradients(c, lw, la, h, dresid);
    const int kv = key_value_group(c, h);
    const Matrix dnormalized[3] = {ordered_product_nt(d.dq, lw.W_Q[static_cast<std::size_t>(h)]),
                                   ordered_product_nt(d.dk, lw.W_K[static_cast<std::size_t>(kv)]),
                                   ordered_product_nt(d.dv, lw.W_V[static_cast<std::size_t>(kv)])};
    for (int input = 0; input < kReceiverInputs; ++input) {
      Matrix& into = g.receiver_input[static_cast<std::size_t>((l * c.n_heads + h) * kReceiverInputs + input)];
      into = normalize_backward(c, la.resid_pre, la.scale, lw.ln_w, dnormalized[input], scratch_w, scratch_b);
      dresid_pre += into;
    }
  }
  return dresid_pre;
}

}  // namespace

LogitDifferenceGradients logit_difference_gradients(const TransformerWeights& w, const TransformerActivations& run,
                                                    int answer, int wrong) {
  const auto& c = w.config;
  const auto T = static_cast<Eigen::Index>(run.tokens.size());
  // LD = x̂_final[T − 1] · (W_U[:, a] − W_U[:, b]) + b_U(a) − b_U(b): ∂LD/∂x̂_final is that column
  // difference in row T − 1 and zero elsewhere (T × d).
  Matrix dfinal = Matrix::Zero(T, c.d_model);
  dfinal.row(T - 1) = unembedding_column(w, answer) - unembedding_column(w, wrong);
  Matrix scratch_w = Matrix::Zero(w.ln_final_w.rows(), w.ln_final_w.cols());
  Matrix scratch_b = Matrix::Zero(w.ln_final_b.rows(), w.ln_final_b.cols());
  Matrix dresid =
      normalize_backward(c, run.layers.back().resid_post, run.final_scale, w.ln_final_w, dfinal, scratch_w, scratch_b);
  LogitDifferenceGradients g;
  g.resid_post.resize(static_cast<std::size_t>(c.n_layers));
  g.receiver_input.resize(static_cast<std::size_t>(c.n_layers * c.n_heads * kReceiverInputs));
  for (int l = c.n_layers - 1; l >= 0; --l) {
    g.resid_post[static_cast<std::size_t>(l)] = dresid;
    dresid = layer_input_gradients(w, run, l, dresid, g);
  }
  return g;
}

PairAttribution pair_attribution(const PairRuns& r) {
  const auto& c = r.w.config;
  const int L = c.n_layers, H = c.n_heads;
  const LogitDifferenceGradients g = logit_difference_gradients(r.w, r.clean, r.answer, r.wrong);
  std::vector<Matrix> delta;  // (L·H) × (T × d): δ_{l,h}
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h)
      delta.push_back(r.corrupted.layers[static_cast<std::size_t>(l)].head_output[static_cast<std::size_t>(h)] -
                      r.clean.layers[static_cast<std::size_t>(l)].head_output[static_cast<std::size_t>(h)]);
  // ê = −(δ · G)/span, the dot over T × d in row-major order (ordered_dot: the same bits in WASM).
  const auto estimate = [&](const Matrix& d, const Matrix& gradient) {
    return -ordered_dot(d.data(), gradient.data(), d.size()) / r.span;
  };
  PairAttribution out;
  out.nodes.resize(1, L * H);
  for (int n = 0; n < L * H; ++n)
    out.nodes(0, n) = estimate(delta[static_cast<std::size_t>(n)], g.resid_post[static_cast<std::size_t>(n / H)]);
  const std::vector<PathEdge> edges = path_edges(c);
  out.edges.resize(static_cast<Eigen::Index>(edges.size()), kReceiverInputs);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const PathEdge& p = edges[e];
    const Matrix& d = delta[static_cast<std::size_t>(p.sender_layer * H + p.sender_head)];
    for (int input = 0; input < kReceiverInputs; ++input) {
      const int cell = (p.receiver_layer * H + p.receiver_head) * kReceiverInputs + input;
      out.edges(static_cast<Eigen::Index>(e), input) = estimate(d, g.receiver_input[static_cast<std::size_t>(cell)]);
    }
  }
  return out;
}

namespace {

// Ranks 1 … n of x, ties sharing their average rank; ties found by exact equality after a stable sort.
std::vector<double> average_ranks(const double* x, int n) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return x[a] < x[b]; });
  std::vector<double> ranks(static_cast<std::size_t>(n));
  for (int i = 0; i < n;) {
    int j = i;
    while (j + 1 < n && x[order[static_cast<std::size_t>(j + 1)]] == x[order[static_cast<std::size_t>(i)]]) ++j;
    const double rank = (i + j) / 2.0 + 1.0;  // the mean of ranks i + 1 … j + 1
    for (int k = i; k <= j; ++k) ranks[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = rank;
    i = j + 1;
  }
  return ranks;
}

// The mean over pairs of each cell: Σ_i m_i (i ascending, from 0.0) / N.
Matrix mean_over_pairs(const std::vector<Matrix>& per_pair) {
  Matrix sum = Matrix::Zero(per_pair[0].rows(), per_pair[0].cols());
  for (const Matrix& m : per_pair) sum += m;
  return sum / static_cast<double>(per_pair.size());
}

}  // namespace

double spearman_correlation(const double* x, const double* y, int n) {
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> rx = average_ranks(x, n), ry = average_ranks(y, n);
  const double centre = (n + 1) / 2.0;  // the mean rank, ties or not
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - centre) * (ry[i] - centre);
    sxx += (rx[i] - centre) * (rx[i] - centre);
    syy += (ry[i] - centre) * (ry[i] - centre);
  }
  if (sxx == 0.0 || syy == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return sxy / std::sqrt(sxx * syy);
}

RankAgreement rank_agreement(const Matrix& estimate, const Matrix& actual, int k) {
  const int n = static_cast<int>(estimate.size());
  RankAgreement out;
  out.spearman = spearman_correlation(estimate.data(), actual.data(), n);
  std::vector<Disagreement> cells;
  for (int i = 0; i < n; ++i) {
    const double e = estimate.data()[i], a = actual.data()[i];
    cells.push_back({i, e, a, std::abs(e - a)});
  }
  std::stable_sort(cells.begin(), cells.end(),
                   [](const Disagreement& a, const Disagreement& b) { return a.gap > b.gap; });
  cells.resize(std::min<std::size_t>(cells.size(), static_cast<std::size_t>(k)));
  out.largest = std::move(cells);
  return out;
}

namespace {

// Pair i's estimates and real patches, appended to `out`.
void attribute_pair(const TransformerWeights& w, const PromptPair& pair, int i, AttributionPatching& out) {
  const auto& c = w.config;
  const PairRuns r = checked_pair_runs(w, pair, i);
  out.clean_logit_difference.push_back(r.clean_ld);
  out.corrupted_logit_difference.push_back(r.corrupted_ld);
  PairAttribution a = pair_attribution(r);
  out.node_estimate.push_back(std::move(a.nodes));
  out.edge_estimate.push_back(std::move(a.edges));
  Matrix nodes(1, c.n_layers * c.n_heads);
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h)
      nodes(0, l * c.n_heads + h) = head_output_effect(
          r, l, h, r.corrupted.layers[static_cast<std::size_t>(l)].head_output[static_cast<std::size_t>(h)]);
  out.node_actual.push_back(std::move(nodes));
  out.edge_actual.push_back(pair_path_effects(r, static_cast<Eigen::Index>(out.edges.size())));
}

}  // namespace

AttributionPatching attribution_patching(const TransformerWeights& w, const std::vector<PromptPair>& pairs,
                                         int disagreements, const std::function<void(int, int)>& progress) {
  validate_weights(w);
  require_prompt_pairs(pairs, w.config.d_vocab, w.config.n_ctx);
  require_integer_in("disagreements", disagreements, 1, kMaxDisagreements);
  AttributionPatching out;
  out.prompt_length = static_cast<int>(require_one_prompt_length(pairs));
  // Beside the pair's runs: the gradients (L·H·3 receiver inputs and L residual streams) and the
  // L·H head-output changes δ, each T × d.
  const double heads = static_cast<double>(w.config.n_layers) * w.config.n_heads;
  require_pair_memory(w.config, static_cast<std::size_t>(out.prompt_length), "attribution patching",
                      heads * (kReceiverInputs + 1) + w.config.n_layers + 8);
  out.edges = path_edges(w.config);
  const int N = static_cast<int>(pairs.size());
  for (int i = 0; i < N; ++i) {
    attribute_pair(w, pairs[static_cast<std::size_t>(i)], i, out);
    if (progress) progress(i + 1, N);
  }
  out.node_estimate_mean = mean_over_pairs(out.node_estimate);
  out.node_actual_mean = mean_over_pairs(out.node_actual);
  out.edge_estimate_mean = mean_over_pairs(out.edge_estimate);
  out.edge_actual_mean = mean_over_pairs(out.edge_actual);
  out.node_agreement = rank_agreement(out.node_estimate_mean, out.node_actual_mean, disagreements);
  out.edge_agreement = rank_agreement(out.edge_estimate_mean, out.edge_actual_mean, disagreements);
  for (int input = 0; input < kReceiverInputs; ++input) {
    const Eigen::VectorXd e = out.edge_estimate_mean.col(input), a = out.edge_actual_mean.col(input);
    out.edge_input_spearman[static_cast<std::size_t>(input)] =
        spearman_correlation(e.data(), a.data(), static_cast<int>(e.size()));
  }
  return out;
}

}  // namespace headlab::transformer
