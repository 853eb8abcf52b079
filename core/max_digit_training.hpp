// Training the max-digit transformer: initialisation, AdamW and a steppable trainer.
//
// Default recipe (docs/max-digit-weights.md, "Training recipe"): E ~ N(0, s²), every other matrix ~ N(0, (s/√fan_in)²) with
// s = init_scale = 0.1 (fan_in 64 for W_Q, W_K, W_V, W_U; 16 for W_O); AdamW with
// learning rate 3e-3, weight decay 0.1 (β = 0.9, 0.999, ε = 1e-8); 4,000 steps on
// batches of 256 fresh lists from sample_batch. Sub-streams of Random(seed):
// kInitialisationStream = 1, kBatchStream = 2.
//
// Training runs in single precision: the initial weights rounded to float, the step of
// core/max_digit_kernels.hpp and AdamW (AdamBlock<float>) on one block of floats; the weights it
// hands out are those floats as doubles (exact). Native and WASM give the same bits.
//
// The trainer follows the trainer protocol of docs/model-pattern.md.
//
// Unit-norm unembedding (article "Four attention heads that find the largest digit",
// "Unit-norm unembedding"): W_U's columns start at unit norm and are
// renormalised to unit norm after every optimiser step (projection onto the constraint).
#pragma once

#include "core/adam.hpp"
#include "core/max_digit.hpp"
#include "core/limits.hpp"
#include "core/loss_divergence.hpp"
#include "core/max_digit_kernels.hpp"
#include "core/training_progress.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace headlab::max_digit {

// Independent sub-streams of Random(seed).
constexpr std::uint64_t kInitialisationStream = 1;
constexpr std::uint64_t kBatchStream = 2;

struct MaxDigitTrainingSettings {
  std::uint64_t seed = 0;
  long steps = 4000;
  int batch_size = 256;
  double learning_rate = 3e-3;
  double weight_decay = 0.1;
  // At most kMaxInitScale (core/limits.hpp): the initial entries are N(0, s²) and N(0, (s/√fan_in)²)
  // draws. 1e100 used to reach a NaN-to-integer conversion in the exp.
  double init_scale = 0.1;
  bool unit_norm_unembedding = false;

  // Throws InputError naming the field: steps in [1, kMaxTrainingSteps], batch_size in [1, 10⁶],
  // learning_rate > 0, weight_decay ≥ 0 with learning_rate·weight_decay < 1,
  // init_scale in (0, kMaxInitScale], all finite.
  void validate() const;
};

struct MaxDigitTrainingResult {
  MaxDigitTrainingSettings settings;
  MaxDigitWeights weights;
  long steps_taken = 0;
  double final_batch_loss = 0;  // mean cross-entropy of the last batch (NaN before the first step)
};

// Initial weights from stream kInitialisationStream of Random(seed), drawn in parameter_list order.
MaxDigitWeights initial_weights(const MaxDigitTrainingSettings& settings);

class MaxDigitTrainer {
 public:
  explicit MaxDigitTrainer(const MaxDigitTrainingSettings& settings);
  MaxDigitTrainer(const MaxDigitTrainer&) = delete;
  MaxDigitTrainer& operator=(const MaxDigitTrainer&) = delete;

  // Runs min(n, remaining) steps (none once done()). The batches come from one persistent
  // stream, so any chunking of the same total gives bit-identical weights. A step that leaves a
  // weight not finite or beyond ±kMaxWeightMagnitude, or a squared gradient beyond the float
  // range, is divergence: training ends there (done()), diverged_at() names that step (1-based);
  // the weights are then unusable (the CLI and the worker report the divergence instead of
  // analysing them). Within the limit every logit and the loss are finite (kMaxWeightMagnitude's
  // bound, 2.6e29 for float), so only the last step of a call computes its loss, and the steps the
  // divergence-by-loss rule reads (the first and the last kLossWindow, core/loss_divergence.hpp):
  // a run whose last steps' loss ends above twice its start and the uniform prediction's ln 14 has
  // diverged at its last step.
  TrainingProgress step(long n);
  // loss: the mean cross-entropy of the last batch (NaN before the first step).
  TrainingProgress progress() const { return {steps_taken_, settings_.steps, last_loss_, done()}; }
  // Ends training early: done() from now on.
  void stop() { stopped_ = true; }
  MaxDigitTrainingResult result() const { return {settings_, weights(), steps_taken_, last_loss_}; }
  long steps_taken() const { return steps_taken_; }
  long steps_total() const { return settings_.steps; }
  bool done() const { return stopped_ || steps_taken_ >= settings_.steps || diverged_at_ > 0; }
  // 1-based step at which training diverged, 0 while healthy.
  long diverged_at() const { return diverged_at_; }
  // "training diverged at step N: …" — the message the CLI and the worker report.
  std::string divergence_message() const;
  // The float weights as doubles.
  MaxDigitWeights weights() const;
  const MaxDigitTrainingSettings& settings() const { return settings_; }

 private:
  MaxDigitTrainingSettings settings_;
  std::unique_ptr<StepParameters<float>> weights_, gradients_;  // the optimiser holds weights_'s address
  std::unique_ptr<AdamBlock<float>> optimiser_;
  Random batches_;
  std::vector<TokenCounts> batch_;  // the current batch, its storage kept between steps
  long steps_taken_ = 0;
  long diverged_at_ = 0;
  double last_loss_;
  bool stopped_ = false;
  LossWatch loss_watch_{std::log(static_cast<double>(kVocab)), "the uniform prediction, ln " + std::to_string(kVocab)};
  std::string loss_divergence_;  // the loss rule's reason, when it ended training
};

// The whole recipe in one call.
MaxDigitWeights train_max_digit(const MaxDigitTrainingSettings& settings);

// Rescales every column of W_U to unit Euclidean norm (a zero column is left unchanged): the
// squares summed in row order, one square root, one division and a product per entry.
void normalise_unembedding_columns(Matrix& W_U);
// The same in single precision, on the trainer's W_U (its 14 columns).
void normalise_unembedding_columns(StepParameters<float>& parameters);

}  // namespace headlab::max_digit
