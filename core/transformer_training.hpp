// Training attention-only transformers in the core: the induction task and a steppable trainer.
//
// Induction task (Olsson et al. 2022, "In-context learning and induction heads"): a sequence of
// n_ctx tokens drawn uniformly from the vocabulary, whose last 2m tokens are m tokens followed by the
// same m tokens again: [filler (n_ctx − 2m), r_1 … r_m, r_1 … r_m]. The loss is next-token
// cross-entropy on the repeated half only, positions p ∈ [n_ctx − m, n_ctx − 2]: there the next token
// is predictable by looking back to the previous occurrence of the current token and copying its
// successor — a previous-token head and an induction head in the next layer. In training the period m
// is drawn uniformly from [max(2, ⌊n_ctx/4⌋), ⌊n_ctx/2⌋] for every sequence, so no head can find the
// earlier occurrence by its position alone; the evaluation (induction_scores) uses m = ⌊n_ctx/2⌋.
//
// Initialisation: every weight matrix and embedding ~ N(0, (init_scale/√d_model)²), biases zero,
// LayerNorm w = 1, b = 0. AdamW (core/adam.hpp). Sub-streams of Random(seed): kInitialisationStream,
// kBatchStream (one persistent stream, so any chunking of step(n) gives the same weights).
#pragma once

#include "core/adam.hpp"
#include "core/loss_divergence.hpp"
#include "core/random.hpp"
#include "core/training_progress.hpp"
#include "core/transformer.hpp"

#include <cstdint>
#include <memory>

namespace headlab::transformer {

constexpr std::uint64_t kInitialisationStream = 1;
constexpr std::uint64_t kBatchStream = 2;
constexpr std::uint64_t kEvaluationStream = 3;

// The default model for the induction task: 2 layers of 4 heads, d_model 32, d_head 8, n_ctx 24,
// d_vocab 32, learned positional embedding, LayerNorm.
TransformerConfig induction_default_config();

// Largest init_scale: the initial entries are N(0, (init_scale/√d_model)²) draws, below 10σ, so at
// most 10·1e4 = 1e5, inside the weights' magnitude limit 1e6 (formats/transformer_model.hpp
// kMaxTransformerWeightMagnitude). 1e160 overflowed the first forward to a loss of ln d_vocab.
constexpr double kMaxInductionInitScale = 1e4;

struct InductionTrainingSettings {
  TransformerConfig model = induction_default_config();
  std::uint64_t seed = 0;
  long steps = 2500;
  int batch_size = 16;
  double learning_rate = 1e-3;
  double weight_decay = 0.01;
  double init_scale = 0.8;
  // Throws InputError naming the setting: the model config (validate_config), n_ctx ≥ 4 (a repeat of
  // at least 2 tokens), steps in [1, 10⁷], batch_size in [1, 10⁵], learning_rate > 0,
  // weight_decay ≥ 0 with learning_rate·weight_decay < 1, init_scale in (0, kMaxInductionInitScale], all finite.
  void validate() const;
};

// One induction sequence of length n_ctx with period m (2 ≤ m ≤ n_ctx/2), loss on the repeat.
TokenSequence induction_sequence(const TransformerConfig& config, Random& rng, int period);
// A training batch: each sequence's period drawn from [max(2, ⌊n_ctx/4⌋), ⌊n_ctx/2⌋] first.
std::vector<TokenSequence> induction_batch(const TransformerConfig& config, Random& rng, int batch_size);
// An evaluation batch: every period ⌊n_ctx/2⌋ (TransformerLens's repeated random tokens).
std::vector<TokenSequence> repeated_batch(const TransformerConfig& config, Random& rng, int batch_size);

// Weights drawn from stream kInitialisationStream of Random(seed), in named_parameters order.
TransformerWeights initial_weights(const InductionTrainingSettings& settings);

class InductionTrainer {
 public:
  explicit InductionTrainer(const InductionTrainingSettings& settings);
  InductionTrainer(const InductionTrainer&) = delete;
  InductionTrainer& operator=(const InductionTrainer&) = delete;
  // Runs min(n, remaining) steps (none after stop() or divergence). A step whose loss is not finite
  // or that leaves a weight beyond ±kMaxTransformerWeightMagnitude is divergence: training ends
  // there, diverged_at() names the step (1-based) and divergence_message() says why. So is a run
  // whose last steps' loss ends above twice its start and the uniform prediction's ln(d_vocab)
  // (core/loss_divergence.hpp), found at its last step.
  TrainingProgress step(long n);
  long diverged_at() const { return diverged_at_; }
  const std::string& divergence_message() const { return divergence_; }
  TrainingProgress progress() const;
  void stop();
  const TransformerWeights& result() const { return weights_; }
  const InductionTrainingSettings& settings() const { return settings_; }

 private:
  InductionTrainingSettings settings_;
  TransformerWeights weights_, gradients_;
  std::unique_ptr<Adam> optimiser_;
  Random batches_;
  long steps_taken_ = 0;
  double last_loss_;
  bool stopped_ = false;
  long diverged_at_ = 0;
  std::string divergence_;
  LossWatch loss_watch_;
};

}  // namespace headlab::transformer
