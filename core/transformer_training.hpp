// Training the core's attention-only transformer (core/transformer.hpp): a steppable trainer in the
// trainer protocol (docs/model-pattern.md), on the induction task (core/induction_task.hpp).
//
// Initialisation: every weight matrix and embedding ~ N(0, (init_scale/√d_model)²), biases zero,
// LayerNorm w = 1, b = 0. AdamW (core/adam.hpp). Sub-streams of Random(seed): kInitialisationStream,
// kBatchStream (one persistent stream, so any chunking of step(n) gives the same weights).
#pragma once

#include "core/adam.hpp"
#include "core/induction_task.hpp"
#include "core/limits.hpp"
#include "core/loss_divergence.hpp"
#include "core/random.hpp"
#include "core/training_progress.hpp"
#include "core/transformer.hpp"

#include <cstdint>
#include <memory>

namespace headlab::transformer {

constexpr std::uint64_t kInitialisationStream = 1;
constexpr std::uint64_t kBatchStream = 2;
// kEvaluationStream (3): core/induction_task.hpp, beside the batches it draws.

struct TransformerTrainingSettings {
  TransformerConfig model = induction_default_config();
  std::uint64_t seed = 0;
  long steps = 2500;
  int batch_size = 16;
  double learning_rate = 1e-3;
  double weight_decay = 0.01;
  // At most kMaxInitScale (core/limits.hpp): the initial entries are N(0, (init_scale/√d_model)²)
  // draws. 1e160 overflowed the first forward to a loss of ln d_vocab.
  double init_scale = 0.8;
  // Throws InputError naming the setting: the model config (validate_config), n_ctx ≥ 4 (a repeat of
  // at least 2 tokens), steps in [1, kMaxTrainingSteps], batch_size in [1, 10⁵], learning_rate > 0,
  // weight_decay ≥ 0 with learning_rate·weight_decay < 1, init_scale in (0, kMaxInitScale], all finite.
  void validate() const;
};

// Weights drawn from stream kInitialisationStream of Random(seed), in named_parameters order.
TransformerWeights initial_weights(const TransformerTrainingSettings& settings);

// One point of a run's training history: what `headlab model train` checks every 50 steps and the
// page's worker reports after every chunk (web/worker-tasks.js, 'transformer-train'), both on 16 repeated
// random sequences of period ⌊n_ctx/2⌋ drawn from the run's seed.
struct TrainingCheckpoint {
  long step = 0;
  double loss = 0.0;  // the last step's training loss; NaN at step 0 (before any step)
  double in_context_loss = 0.0;
  Matrix previous_token, induction;  // L × H attention masses
};

class TransformerTrainer {
 public:
  explicit TransformerTrainer(const TransformerTrainingSettings& settings);
  TransformerTrainer(const TransformerTrainer&) = delete;
  TransformerTrainer& operator=(const TransformerTrainer&) = delete;
  // Runs min(n, remaining) steps, n ≥ 0 (none after stop() or divergence). A step whose loss is not finite
  // or that leaves a weight beyond ±kMaxWeightMagnitude is divergence: training ends
  // there, diverged_at() names the step (1-based) and divergence_message() says why. So is a run
  // whose last steps' loss ends above twice its start and the uniform prediction's ln(d_vocab)
  // (core/loss_divergence.hpp), found at its last step.
  TrainingProgress step(long n);
  long diverged_at() const { return diverged_at_; }
  const std::string& divergence_message() const { return divergence_; }
  TrainingProgress progress() const;
  void stop();
  const TransformerWeights& result() const { return weights_; }
  const TransformerTrainingSettings& settings() const { return settings_; }

 private:
  TransformerTrainingSettings settings_;
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

// The checkpoint of the trainer's current weights: its step and last loss, the scores of
// induction_scores(weights, sequences, settings.seed) (core/transformer_analysis.hpp).
TrainingCheckpoint training_checkpoint(const TransformerTrainer& trainer, int sequences);

}  // namespace headlab::transformer
