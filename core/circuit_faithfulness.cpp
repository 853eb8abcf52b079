#include "core/circuit_faithfulness.hpp"

#include "core/check.hpp"
#include "core/normalization.hpp"
#include "core/ordered_products.hpp"
#include "core/path_patching.hpp"
#include "core/transformer_heads.hpp"

#include <string>

namespace headlab::transformer {

const char* circuit_ablation_name(CircuitAblation a) { return a == CircuitAblation::mean ? "mean" : "corrupted"; }

std::vector<std::vector<bool>> circuit_mask(const TransformerConfig& c, const std::vector<HeadIndex>& circuit) {
  if (circuit.empty()) throw InputError("circuit is empty: name at least one head (layer.head)");
  std::vector<std::vector<bool>> kept(static_cast<std::size_t>(c.n_layers),
                                      std::vector<bool>(static_cast<std::size_t>(c.n_heads), false));
  for (const auto& hi : circuit) {
    const std::string name = "circuit head " + std::to_string(hi.layer) + "." + std::to_string(hi.head);
    if (hi.layer < 0 || hi.layer >= c.n_layers) {
      throw InputError(name + ": layer must lie in [0, " + std::to_string(c.n_layers - 1) + "] (the model has " +
                       std::to_string(c.n_layers) + " layers)");
    }
    if (hi.head < 0 || hi.head >= c.n_heads) {
      throw InputError(name + ": head must lie in [0, " + std::to_string(c.n_heads - 1) + "] (the model has " +
                       std::to_string(c.n_heads) + " heads per layer)");
    }
    std::vector<bool>& layer = kept[static_cast<std::size_t>(hi.layer)];
    if (layer[static_cast<std::size_t>(hi.head)]) throw InputError(name + " is named twice");
    layer[static_cast<std::size_t>(hi.head)] = true;
  }
  return kept;
}

std::vector<std::vector<Matrix>> mean_corrupted_outputs(const TransformerWeights& w,
                                                        const std::vector<PromptPair>& pairs) {
  const auto& c = w.config;
  const Eigen::Index T = static_cast<Eigen::Index>(pairs[0].corrupted.size());
  std::vector<std::vector<Matrix>> mean(
      static_cast<std::size_t>(c.n_layers),
      std::vector<Matrix>(static_cast<std::size_t>(c.n_heads), Matrix::Zero(T, c.d_model)));
  for (const auto& pair : pairs) {
    const TransformerActivations run = transformer_forward_unchecked(w, pair.corrupted);
    for (int l = 0; l < c.n_layers; ++l)
      for (int h = 0; h < c.n_heads; ++h)
        mean[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)] +=
            run.layers[static_cast<std::size_t>(l)].head_output[static_cast<std::size_t>(h)];
  }
  const double n = static_cast<double>(pairs.size());
  for (auto& layer : mean)
    for (auto& m : layer) m /= n;
  return mean;
}

namespace {

// The clean prompt's logit difference at its last row with every head outside `kept` replaced by
// `replacement`: the forward pass circuit_recovery's hook describes, from layer `first` on, `resid` the
// residual stream entering it. A kept head is computed by transformer_forward_unchecked's operations in
// its order; a replaced one is not computed at all (the hook would overwrite it); the final
// normalisation is of the last row alone and its two logits are formed as PairRuns::effect forms them —
// the bits of circuit_recovery. `entering`, when given (n_layers rows), receives the residual stream
// entering each layer from `first` on: a circuit that differs from this one only from layer l on
// resumes from entering[l] (leave one out).
double circuit_logit_difference(const PairRuns& r, const std::vector<std::vector<bool>>& kept,
                                const std::vector<std::vector<Matrix>>& replacement, int first, Matrix resid,
                                std::vector<Matrix>* entering) {
  const TransformerWeights& w = r.w;
  const TransformerConfig& c = w.config;
  const double inv_sqrt_dh = 1.0 / attention_scale(c);
  for (int l = first; l < c.n_layers; ++l) {
    const auto L = static_cast<std::size_t>(l);
    if (entering) (*entering)[L] = resid;
    const auto& lw = w.layers[L];
    Vector scale;
    const Matrix normalized = normalize(c, resid, lw.ln_w, lw.ln_b, scale);
    const Matrix qk_input = c.positions == Positions::shortformer ? query_key_input(w, normalized, {}) : normalized;
    for (int h = 0; h < c.n_heads; ++h) {
      const auto Hh = static_cast<std::size_t>(h);
      if (!kept[L][Hh]) {
        resid += replacement[L][Hh];
        continue;
      }
      Matrix pattern =
          ordered_causal_product_nt(head_queries(w, l, h, qk_input, {}), head_keys(w, l, h, qk_input, {})) *
          inv_sqrt_dh;
      causal_softmax(pattern);
      resid += ordered_product(ordered_causal_product(pattern, head_values(w, l, h, normalized)), lw.W_O[Hh]);
    }
    resid.rowwise() += lw.b_O.row(0);
  }
  Vector scale;
  const Matrix x = normalize(c, resid.bottomRows(1), w.ln_final_w, w.ln_final_b, scale);
  const Eigen::Index d = c.d_model;
  return (ordered_dot(x.data(), r.u_answer.data(), d) + w.b_U(0, r.answer)) -
         (ordered_dot(x.data(), r.u_wrong.data(), d) + w.b_U(0, r.wrong));
}

// One pair's recovery for the circuit and for the circuit without each of its heads, appended to `out`.
// Without a head of layer l the pass is the circuit's up to layer l: it resumes from there.
void faithfulness_pair(const PairRuns& r, std::vector<std::vector<bool>> kept,
                       const std::vector<std::vector<Matrix>>* mean, Faithfulness& out) {
  std::vector<std::vector<Matrix>> corrupted;
  if (!mean) {
    corrupted.resize(r.corrupted.layers.size());
    for (std::size_t l = 0; l < corrupted.size(); ++l) corrupted[l] = r.corrupted.layers[l].head_output;
  }
  const auto& replacement = mean ? *mean : corrupted;
  out.clean_logit_difference.push_back(r.clean_ld);
  out.corrupted_logit_difference.push_back(r.corrupted_ld);
  std::vector<Matrix> entering(r.clean.layers.size());
  const double ld = circuit_logit_difference(r, kept, replacement, 0, r.clean.layers[0].resid_pre, &entering);
  out.recovery.effects.push_back(Matrix::Constant(1, 1, (ld - r.corrupted_ld) / r.span));
  const Eigen::Index C = static_cast<Eigen::Index>(out.circuit.size());
  Matrix drop(C, 1);
  for (Eigen::Index j = 0; j < C; ++j) {
    const HeadIndex& hi = out.circuit[static_cast<std::size_t>(j)];
    kept[static_cast<std::size_t>(hi.layer)][static_cast<std::size_t>(hi.head)] = false;
    const double ld_j =
        circuit_logit_difference(r, kept, replacement, hi.layer, entering[static_cast<std::size_t>(hi.layer)], nullptr);
    drop(j, 0) = (ld_j - r.corrupted_ld) / r.span;
    kept[static_cast<std::size_t>(hi.layer)][static_cast<std::size_t>(hi.head)] = true;
  }
  out.leave_one_out.effects.push_back(std::move(drop));
}

}  // namespace

double circuit_recovery(const PairRuns& r, const std::vector<std::vector<bool>>& kept,
                        const std::vector<std::vector<Matrix>>& replacement) {
  const double ld = circuit_logit_difference(r, kept, replacement, 0, r.clean.layers[0].resid_pre, nullptr);
  return (ld - r.corrupted_ld) / r.span;
}

Faithfulness circuit_faithfulness(const TransformerWeights& w, const std::vector<PromptPair>& pairs,
                                  const std::vector<HeadIndex>& circuit, CircuitAblation ablation,
                                  const IntervalSettings& settings, const std::function<void(int, int)>& progress) {
  validate_weights(w);
  const auto& c = w.config;
  const auto kept = circuit_mask(c, circuit);
  require_prompt_pairs(pairs, c.d_vocab, c.n_ctx);
  settings.validate();
  const int T = static_cast<int>(require_one_prompt_length(pairs)), N = static_cast<int>(pairs.size());
  const ResamplingPlan plan = resampling_plan(N, settings);
  Faithfulness out;
  out.settings = settings;
  out.ablation = ablation;
  out.prompt_length = T;
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h)
      if (kept[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)]) out.circuit.push_back({l, h});
  std::vector<std::vector<Matrix>> mean;
  if (ablation == CircuitAblation::mean) mean = mean_corrupted_outputs(w, pairs);
  for (int i = 0; i < N; ++i) {
    const PairRuns r = checked_pair_runs(w, pairs[static_cast<std::size_t>(i)], i);
    faithfulness_pair(r, kept, ablation == CircuitAblation::mean ? &mean : nullptr, out);
    if (progress) progress(i + 1, N);
  }
  fill_intervals(out.recovery, plan);
  fill_intervals(out.leave_one_out, plan);
  return out;
}

}  // namespace headlab::transformer
