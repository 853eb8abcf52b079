// Path patching over a batch of prompt pairs (core/prompt_pairs.hpp), with intervals: how much of
// the clean-vs-corrupted logit difference travels from one head (the sender) into one input of a
// later head (the receiver's query, key or value).
//
// For pair i (clean and corrupted prompts of length T, answer a, wrong b) and an edge
// s = (l_s, h_s) → r = (l_r, h_r), l_s < l_r, component κ ∈ {q, k, v}:
//   δ        = head_output_corrupted(l_s, h_s) − head_output_clean(l_s, h_s)        T × d
//   resid'   = resid_pre_clean(l_r) + δ     the receiver's input with the sender's output changed
//                                           on this path only (every other head, and every other
//                                           path from the sender, frozen at the clean run)
//   x̂'       = LN_{l_r}(resid')             (the receiver's own normalisation, recomputed)
//   κ'       = the receiver's q, k or v from x̂' (core/transformer_heads.hpp), at every position; its
//              other two inputs are the clean run's
//   out'     = softmax(q' k'ᵀ / attn_scale, causal) v' W_O       the receiver's new output
//   resid_post' = resid_pre_clean(l_r) + Σ_h (out' for h = h_r, else the clean head_output) + b_O
// and the layers after l_r run on resid_post' as the forward pass does (resume_final_normalized).
// The effect is batch patching's: e_i = 1 − (LD' − LD_corrupted)/(LD_clean − LD_corrupted), 0 when the
// path carries nothing, 1 when it carries the whole difference.
//
// Edges are listed sender-major: senders (l_s, h_s) in layer-then-head order, for each sender every
// receiver (l_r, h_r) with l_r > l_s in layer-then-head order; E = Σ_{l_s} H · H(L − 1 − l_s). The grid is
// E × 3 (columns q, k, v), each cell with the N per-pair effects, their mean, the bootstrap 95 %
// interval and the sign-flip p-value of core/batch_patching.hpp (the same ResamplingPlan).
// Cost per pair: two forward passes and 3E resumed passes from layer l_r + 1.
#pragma once

#include "core/batch_patching.hpp"
#include "core/prompt_pairs.hpp"
#include "core/transformer.hpp"

#include <functional>
#include <vector>

namespace headlab::transformer {

struct PathEdge {
  int sender_layer = 0, sender_head = 0, receiver_layer = 0, receiver_head = 0;
};
constexpr int kReceiverInputs = 3;  // q, k, v: the columns of PathPatching::grid

// Every edge of the config, in the order above (empty for a one-layer model).
std::vector<PathEdge> path_edges(const TransformerConfig& config);

struct PathPatching {
  IntervalSettings settings;
  int prompt_length = 0;                                                   // T
  std::vector<double> clean_logit_difference, corrupted_logit_difference;  // N
  std::vector<PathEdge> edges;                                             // E
  PatchingGrid grid;                                                       // E × 3
};

// The pieces of path patching that attribution patching (core/attribution_patching.hpp) compares with
// and its gradient test differentiates:
// the receiver (l, h) with input κ (0 q, 1 k, 2 v) read from x̂' (T × d, its layer's normalised input
// with the sender's change) and the other two from the clean run: its output T × d;
Matrix receiver_output(const PairRuns& runs, int l, int h, int input, const Matrix& normalized);
// pair i's runs, throwing InputError naming the pair when span = 0 (nothing to normalise by);
PairRuns checked_pair_runs(const TransformerWeights& weights, const PromptPair& pair, int i);
// one pair's path-patching effects, edges × 3 (rows in path_edges order, columns q, k, v).
Matrix pair_path_effects(const PairRuns& runs, Eigen::Index edges);

// Throws InputError on bad pairs (require_prompt_pairs; prompts of one length across the batch), bad
// settings, a one-layer model (no path between heads), or a pair whose clean and corrupted runs give
// the same logit difference. `progress(done, N)` is called after each pair.
PathPatching path_patching(const TransformerWeights& weights, const std::vector<PromptPair>& pairs,
                           const IntervalSettings& settings,
                           const std::function<void(int done, int total)>& progress = nullptr);

}  // namespace headlab::transformer
