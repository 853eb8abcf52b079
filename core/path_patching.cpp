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

namespace {

// One pair's clean and corrupted runs and the logit difference's pieces (as batch_patching forms them).
struct PathRuns {
  const TransformerWeights& w;
  TransformerActivations clean, corrupted;
  int answer, wrong;
  Eigen::Index last;
  double corrupted_ld, span;
  RowVector u_answer, u_wrong;
  double effect(const double* x) const {
    const Eigen::Index d = w.config.d_model;
    const double ld =
        (ordered_dot(x, u_answer.data(), d) + w.b_U(0, answer)) - (ordered_dot(x, u_wrong.data(), d) + w.b_U(0, wrong));
    return 1.0 - (ld - corrupted_ld) / span;
  }
};

// The receiver (l, h) with input κ (0 q, 1 k, 2 v) read from x̂' (T × d, its layer's normalised
// input with the sender's change) and the other two from the clean run: its output T × d, by the
// forward pass's operations.
Matrix receiver_output(const PathRuns& r, int l, int h, int input, const Matrix& normalized) {
  const auto& clean = r.clean.layers[static_cast<std::size_t>(l)];
  Matrix q = clean.q[h], k = clean.k[h], v = clean.v[h];
  if (input == 2) {
    v = head_values(r.w, l, h, normalized);
  } else {
    const Matrix qk_input = query_key_input(r.w, normalized, {});
    if (input == 0) q = head_queries(r.w, l, h, qk_input, {});
    else k = head_keys(r.w, l, h, qk_input, {});
  }
  Matrix pattern = ordered_causal_product_nt(q, k) * (1.0 / attention_scale(r.w.config));
  causal_softmax(pattern);
  return ordered_product(ordered_causal_product(pattern, v), r.w.layers[static_cast<std::size_t>(l)].W_O[h]);
}

double path_effect(const PathRuns& r, int l, int h, int input, const Matrix& normalized) {
  const auto& clean = r.clean.layers[static_cast<std::size_t>(l)];
  const Matrix patched = receiver_output(r, l, h, input, normalized);
  // Layer l's output summed as the forward pass sums it: resid_pre, each head in order, then b_O.
  Matrix resid = clean.resid_pre;
  for (int g = 0; g < r.w.config.n_heads; ++g) resid += g == h ? patched : clean.head_output[g];
  resid.rowwise() += r.w.layers[static_cast<std::size_t>(l)].b_O.row(0);
  const Matrix x = resume_final_normalized(r.w, r.clean, l + 1, resid, 0, r.last);
  return r.effect(x.data());
}

}  // namespace

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
  const Eigen::Index T = static_cast<Eigen::Index>(require_one_prompt_length(pairs));
  const ResamplingPlan plan = resampling_plan(static_cast<int>(pairs.size()), settings);
  const int L = c.n_layers, H = c.n_heads, N = static_cast<int>(pairs.size());
  PathPatching out;
  out.settings = settings;
  out.prompt_length = static_cast<int>(T);
  out.edges = path_edges(c);
  const Eigen::Index E = static_cast<Eigen::Index>(out.edges.size());
  for (int i = 0; i < N; ++i) {
    const PromptPair& pair = pairs[static_cast<std::size_t>(i)];
    PathRuns r{w,
               transformer_forward_unchecked(w, pair.clean),
               transformer_forward_unchecked(w, pair.corrupted),
               pair.answer,
               pair.wrong,
               T - 1,
               0.0,
               0.0,
               w.W_U.col(pair.answer).transpose(),
               w.W_U.col(pair.wrong).transpose()};
    const double clean_ld = r.clean.logits(T - 1, pair.answer) - r.clean.logits(T - 1, pair.wrong);
    r.corrupted_ld = r.corrupted.logits(T - 1, pair.answer) - r.corrupted.logits(T - 1, pair.wrong);
    r.span = clean_ld - r.corrupted_ld;
    if (!(std::abs(r.span) > 0)) {
      throw InputError("pair " + std::to_string(i) +
                       ": the clean and corrupted prompts give the same logit difference; there is nothing to "
                       "normalise by");
    }
    out.clean_logit_difference.push_back(clean_ld);
    out.corrupted_logit_difference.push_back(r.corrupted_ld);
    Matrix effects(E, kReceiverInputs);
    Eigen::Index e = 0;
    for (int ls = 0; ls < L; ++ls) {
      for (int hs = 0; hs < H; ++hs) {
        const Matrix delta = r.corrupted.layers[static_cast<std::size_t>(ls)].head_output[hs] -
                             r.clean.layers[static_cast<std::size_t>(ls)].head_output[hs];
        for (int lr = ls + 1; lr < L; ++lr) {
          // The receivers' input with the sender's change, normalised once for every head of layer lr.
          const auto& lw = w.layers[static_cast<std::size_t>(lr)];
          Vector scale;
          const Matrix normalized =
              normalize(c, r.clean.layers[static_cast<std::size_t>(lr)].resid_pre + delta, lw.ln_w, lw.ln_b, scale);
          for (int hr = 0; hr < H; ++hr, ++e)
            for (int input = 0; input < kReceiverInputs; ++input)
              effects(e, input) = path_effect(r, lr, hr, input, normalized);
        }
      }
    }
    out.grid.effects.push_back(std::move(effects));
    if (progress) progress(i + 1, N);
  }
  fill_intervals(out.grid, plan);
  return out;
}

}  // namespace headlab::transformer
