#include "core/path_patching.hpp"

#include "core/check.hpp"
#include "core/normalization.hpp"
#include "core/ordered_products.hpp"
#include "core/transformer_heads.hpp"

#include <cmath>
#include <string>

namespace headlab::transformer {

std::vector<PathEdge> path_edges(const TransformerConfig& c) {
  std::vector<PathEdge> edges;
  for (int ls = 0; ls < c.n_layers; ++ls)
    for (int hs = 0; hs < c.n_heads; ++hs)
      for (int lr = ls + 1; lr < c.n_layers; ++lr)
        for (int hr = 0; hr < c.n_heads; ++hr) edges.push_back({ls, hs, lr, hr});
  return edges;
}

// The receiver (l, h) with input κ (0 q, 1 k, 2 v) read from x̂' (T × d, its layer's normalised
// input with the sender's change) and the other two from the clean run: its output T × d, by the
// forward pass's operations.
Matrix receiver_output(const PairRuns& r, int l, int h, int input, const Matrix& normalized) {
  const auto& clean = r.clean.layers[static_cast<std::size_t>(l)];
  Matrix q = clean.q[h], k = clean.k[h], v = clean.v[h];
  if (input == 2) {
    v = head_values(r.w, l, h, normalized);
  } else {
    const Matrix qk_input = query_key_input(r.w, normalized, {});
    if (input == 0) q = head_queries(r.w, l, h, qk_input, {});
    else k = head_keys(r.w, l, h, qk_input, {});
  }
  return head_output_from(r.w, l, h, q, k, v);
}

// Pair i's runs; throws InputError naming the pair when its clean and corrupted runs give the
// same logit difference (nothing to normalise by).
PairRuns checked_pair_runs(const TransformerWeights& w, const PromptPair& pair, int i) {
  PairRuns r = pair_runs(w, pair);
  if (!(std::abs(r.span) > 0)) {
    throw InputError("pair " + std::to_string(i) +
                     ": the clean and corrupted prompts give the same logit difference; there is nothing to "
                     "normalise by");
  }
  return r;
}

// One pair's effects, E × 3 (rows in path_edges order, columns q, k, v): for each sender (l_s, h_s)
// its change δ (T × d) is added to each later layer's clean resid_pre, normalised once for every
// receiver head of that layer, and each receiver input read from it in turn.
Matrix pair_path_effects(const PairRuns& r, Eigen::Index edges) {
  const auto& c = r.w.config;
  const int L = c.n_layers, H = c.n_heads;
  Matrix effects(edges, kReceiverInputs);
  Eigen::Index e = 0;
  for (int ls = 0; ls < L; ++ls) {
    for (int hs = 0; hs < H; ++hs) {
      const Matrix delta = r.corrupted.layers[static_cast<std::size_t>(ls)].head_output[hs] -
                           r.clean.layers[static_cast<std::size_t>(ls)].head_output[hs];
      for (int lr = ls + 1; lr < L; ++lr) {
        const auto& lw = r.w.layers[static_cast<std::size_t>(lr)];
        Vector scale;
        const Matrix normalized =
            normalize(c, r.clean.layers[static_cast<std::size_t>(lr)].resid_pre + delta, lw.ln_w, lw.ln_b, scale);
        for (int hr = 0; hr < H; ++hr, ++e)
          for (int input = 0; input < kReceiverInputs; ++input)
            effects(e, input) = head_output_effect(r, lr, hr, receiver_output(r, lr, hr, input, normalized));
      }
    }
  }
  return effects;
}

PathPatching path_patching(const TransformerWeights& w, const std::vector<PromptPair>& pairs,
                           const IntervalSettings& settings, const std::function<void(int, int)>& progress) {
  validate_weights(w);
  const auto& c = w.config;
  if (c.n_layers < 2) {
    throw InputError("path patching needs at least 2 layers (a sender head before a receiver head); the model has " +
                     std::to_string(c.n_layers));
  }
  require_prompt_pairs(pairs, c.d_vocab, c.n_ctx);
  settings.validate();
  const int T = static_cast<int>(require_one_prompt_length(pairs)), N = static_cast<int>(pairs.size());
  require_pair_memory(c, static_cast<std::size_t>(T), "path patching", 8);
  const ResamplingPlan plan = resampling_plan(N, settings);
  PathPatching out;
  out.settings = settings;
  out.prompt_length = T;
  out.edges = path_edges(c);
  for (int i = 0; i < N; ++i) {
    const PairRuns r = checked_pair_runs(w, pairs[static_cast<std::size_t>(i)], i);
    out.clean_logit_difference.push_back(r.clean_ld);
    out.corrupted_logit_difference.push_back(r.corrupted_ld);
    out.grid.effects.push_back(pair_path_effects(r, static_cast<Eigen::Index>(out.edges.size())));
    if (progress) progress(i + 1, N);
  }
  fill_intervals(out.grid, plan);
  return out;
}

}  // namespace headlab::transformer
