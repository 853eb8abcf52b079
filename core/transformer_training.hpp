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
// The default run's length (TransformerTrainingSettings::steps; the page's training figure reads it
// through widgets/base/core-limits.ts).
constexpr long kInductionDefaultSteps = 1800;
constexpr std::uint64_t kBatchStream = 2;
// kEvaluationStream (3): core/induction_task.hpp, beside the batches it draws.

struct TransformerTrainingSettings {
  TransformerConfig model = induction_default_config();
  std::uint64_t seed = 0;
  // The default recipe: every seed of 0–9 passes an induction score of 0.5 (steps 700–1,250) with an
  // in-context loss below 1 nat, and the run fits the page's budget of 10 s of WASM (measurements:
  // docs/own-model.md, "A recipe with the phase change in every seed").
  //   steps 1,800: the slowest seed of 0–9 passes 0.5 at step 1,250 (16 sequences every 50 steps);
  //     the whole run with the page's scores every 50 steps took 5.9 s of CPU in WASM (3.6 s natively)
  //     on a loaded 2-core machine.
  //   learning_rate 3e-3 with warm-up and cosine decay: at a constant 1e-3 (shortformer positions)
  //     seeds 1–3 were still at 1.4–1.7 nats after 1,500 steps (passing none); 3e-3 with 100 steps of
  //     warm-up and a cosine to 0.1 × passed 0.5 in seeds 1 and 2 by then and brought seed 3 to 0.93
  //     nats. (The warm-up keeps Adam's first steps small while its second-moment estimate rests on
  //     a few gradients; it was not measured on its own.)
  //   batch 16, weight decay 0.01: the first recipe's, not varied in the search.
  long steps = kInductionDefaultSteps;
  int batch_size = 16;
  double learning_rate = 3e-3;
  double weight_decay = 0.01;
  // The learning-rate schedule (learning_rate_at): a linear warm-up over the first warmup_steps
  // steps, then a cosine from learning_rate down to final_learning_rate_fraction × learning_rate at
  // the last step. warmup_steps 0 and fraction 1: a constant rate.
  long warmup_steps = 100;
  double final_learning_rate_fraction = 0.1;
  // At most kMaxInitScale (core/limits.hpp): the initial entries are N(0, (init_scale/√d_model)²)
  // draws. 1e160 overflowed the first forward to a loss of ln d_vocab.
  double init_scale = 0.8;
  // Throws InputError naming the setting: the model config (validate_config), n_ctx ≥ 4 (a repeat of
  // at least 2 tokens), steps in [1, kMaxTrainingSteps], batch_size in [1, 10⁵], learning_rate > 0,
  // weight_decay ≥ 0 with learning_rate·weight_decay < 1, init_scale in (0, kMaxInitScale], all finite.
  void validate() const;
};

// The learning rate of step t (1-based, t ≤ steps): lr·t/W for t ≤ W = min(warmup_steps, steps), then
// lr·(f + (1 − f)·(1 + cos(π·(t − W)/(steps − W)))/2), f = final_learning_rate_fraction (the cosine
// from core/deterministic_math.hpp, so native and WASM step with the same bits).
double learning_rate_at(const TransformerTrainingSettings& settings, long step);

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
