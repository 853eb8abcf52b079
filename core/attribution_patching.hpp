// Attribution patching over a batch of prompt pairs (core/prompt_pairs.hpp): the first-order estimate
// of every activation patch and path patch between heads, and how well it agrees with the real ones.
//
// For pair i (clean and corrupted prompts of length T, answer a, wrong b), the metric is batch
// patching's effect e = 1 − (LD − LD_corrupted)/span, span = LD_clean − LD_corrupted, LD = logit[a] −
// logit[b] at the last position (core/batch_patching.hpp); e = 0 at the clean run. Patching an
// activation A (T × d) from the clean value A_c to the corrupted A_x changes e by, to first order,
//   ê = (A_x − A_c) · ∂e/∂A |clean = −(A_x − A_c) · ∂LD/∂A |clean / span     (· summed over T × d)
// with the gradient hand-written from the clean run (core/transformer.hpp head_input_gradients,
// core/normalization.hpp normalize_backward). Two kinds of estimate, for δ_{l,h} = head_output_x(l, h)
// − head_output_c(l, h) (T × d):
//   node (l, h)            ê = −δ_{l,h} · ∂LD/∂resid_post_l / span    the head's output patched at every
//                          position; the real patch is batch patching's head_component z cell
//                          (head_output_effect with the corrupted output);
//   edge s → r via κ       ê = −δ_s · G_{r,κ} / span, G_{r,κ} = ∂LD/∂resid_pre_{l_r} through the
//                          receiver r's input κ ∈ {q, k, v} only (its LayerNorm, W_Q / W_K / W_V, the
//                          softmax for q and k); the real patch is path patching's cell
//                          (core/path_patching.hpp), edges in path_edges order.
// ê is exact where e is linear in A (a last-layer head's output without a final normalisation); an
// edge into q or k passes through the softmax, where a patch of order one is far from linear.
// Agreement: the Spearman rank correlation between the mean estimates and the mean real effects over
// the nodes (L·H), over the edges (3E cells) and over each input's E edges, and the k cells with the
// largest |mean estimate − mean real effect|.
// Cost per pair: two forward passes, one backward, the L·H node patches (resumed passes) and the 3E
// path patches of core/path_patching.hpp.
#pragma once

#include "core/batch_patching.hpp"
#include "core/path_patching.hpp"
#include "core/prompt_pairs.hpp"
#include "core/transformer.hpp"

#include <array>
#include <functional>
#include <vector>

namespace headlab::transformer {

// ∂LD/∂· at one run (T positions, LD at row T − 1):
//   resid_post     L × (T × d): ∂LD/∂resid_post_l, which is ∂LD/∂head_output(l, h) for every head h;
//   receiver_input (L·H·3) × (T × d), index (l·H + h)·3 + κ: ∂LD/∂resid_pre_l along the path
//                  resid_pre_l → LN_l → head h's input κ (0 q, 1 k, 2 v) only, every other input frozen.
// resid_post_{l−1} = resid_pre_l, so ∂LD/∂resid_post_{l−1} = ∂LD/∂resid_post_l + Σ_{h,κ} receiver_input.
struct LogitDifferenceGradients {
  std::vector<Matrix> resid_post;
  std::vector<Matrix> receiver_input;
};
LogitDifferenceGradients logit_difference_gradients(const TransformerWeights& weights,
                                                    const TransformerActivations& run, int answer, int wrong);

// One pair's estimates: nodes 1 × (L·H) (column l·H + h), edges E × 3 (rows path_edges, columns q, k, v).
struct PairAttribution {
  Matrix nodes, edges;
};
PairAttribution pair_attribution(const PairRuns& runs);

// Spearman's rank correlation of x and y (n values each): the Pearson correlation of their ranks,
// ties given their average rank (1-based). NaN when n < 2 or either side is constant (undefined).
double spearman_correlation(const double* x, const double* y, int n);

// A cell where the estimate and the real patch differ: its index in the grid's row-major order (node
// l·H + h; edge e·3 + κ), the two means and gap = |estimate − actual|.
struct Disagreement {
  int cell = 0;
  double estimate = 0.0, actual = 0.0, gap = 0.0;
};
struct RankAgreement {
  double spearman = 0.0;              // over every cell; NaN when undefined (see above)
  std::vector<Disagreement> largest;  // min(k, cells) cells by gap, descending (ties: lower index first)
};
// estimate and actual of one shape; k ≥ 1.
RankAgreement rank_agreement(const Matrix& estimate, const Matrix& actual, int k);

constexpr int kDefaultDisagreements = 5;
constexpr int kMaxDisagreements = 100;

struct AttributionPatching {
  int prompt_length = 0;                                                   // T
  std::vector<double> clean_logit_difference, corrupted_logit_difference;  // N
  std::vector<PathEdge> edges;                                             // E (empty for one layer)
  std::vector<Matrix> node_estimate, node_actual;                          // N × (1 × L·H)
  std::vector<Matrix> edge_estimate, edge_actual;                          // N × (E × 3)
  Matrix node_estimate_mean, node_actual_mean;  // 1 × L·H: Σ_i (i ascending, from 0.0) / N
  Matrix edge_estimate_mean, edge_actual_mean;  // E × 3, the same
  RankAgreement node_agreement, edge_agreement;
  std::array<double, 3> edge_input_spearman{};  // over the E edges into q, k, v separately (NaN: undefined)
};

// Throws InputError on bad pairs (require_prompt_pairs; one prompt length across the batch), k outside
// [1, kMaxDisagreements], or a pair whose clean and corrupted runs give the same logit difference.
// A one-layer model has nodes only. `progress(done, N)` is called after each pair.
AttributionPatching attribution_patching(const TransformerWeights& weights, const std::vector<PromptPair>& pairs,
                                         int disagreements = kDefaultDisagreements,
                                         const std::function<void(int done, int total)>& progress = nullptr);

}  // namespace headlab::transformer
