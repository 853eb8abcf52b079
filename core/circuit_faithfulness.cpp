#include "core/circuit_faithfulness.hpp"

#include "core/check.hpp"
#include "core/path_patching.hpp"

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

double circuit_recovery(const PairRuns& r, const std::vector<std::vector<bool>>& kept,
                        const std::vector<std::vector<Matrix>>& replacement) {
  // A full forward pass of the clean prompt; the hook overwrites each head outside the circuit after the
  // head is computed and before it is added to the residual stream, so the heads after it read the change.
  const HeadHook hook = [&](int l, int h, Matrix& output) {
    if (!kept[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)])
      output = replacement[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
  };
  const TransformerActivations run = transformer_forward_unchecked(r.w, r.clean.tokens, hook);
  const double ld = run.logits(r.last, r.answer) - run.logits(r.last, r.wrong);
  return (ld - r.corrupted_ld) / r.span;
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

// One pair's recovery for the circuit and for the circuit without each of its heads, appended to `out`.
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
  out.recovery.effects.push_back(Matrix::Constant(1, 1, circuit_recovery(r, kept, replacement)));
  const Eigen::Index C = static_cast<Eigen::Index>(out.circuit.size());
  Matrix drop(C, 1);
  for (Eigen::Index j = 0; j < C; ++j) {
    const HeadIndex& hi = out.circuit[static_cast<std::size_t>(j)];
    kept[static_cast<std::size_t>(hi.layer)][static_cast<std::size_t>(hi.head)] = false;
    drop(j, 0) = circuit_recovery(r, kept, replacement);
    kept[static_cast<std::size_t>(hi.layer)][static_cast<std::size_t>(hi.head)] = true;
  }
  out.leave_one_out.effects.push_back(std::move(drop));
}

}  // namespace

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
