// Training the max-digit transformer: initialisation, AdamW and a steppable trainer.
//
// Default recipe (issue 6): E ~ N(0, s²), every other matrix ~ N(0, (s/√fan_in)²) with
// s = init_scale = 0.1 (fan_in 64 for W_Q, W_K, W_V, W_U; 16 for W_O); AdamW with
// learning rate 3e-3, weight decay 0.1 (β = 0.9, 0.999, ε = 1e-8); 4,000 steps on
// batches of 256 fresh lists from sample_batch. Sub-streams of Random(seed):
// 1 = initialisation, 2 = batches.
//
// Unit-norm unembedding (item 2i): W_U's columns start at unit norm and are
// renormalised to unit norm after every optimiser step (projection onto the constraint).
#pragma once

#include "core/adam.hpp"
#include "core/max_digit.hpp"

#include <cstdint>
#include <memory>

namespace headlab::max_digit {

struct MaxDigitTrainingSettings {
  std::uint64_t seed = 0;
  long steps = 4000;
  int batch_size = 256;
  double learning_rate = 3e-3;
  double weight_decay = 0.1;
  double init_scale = 0.1;
  bool unit_norm_unembedding = false;
};

// Throws InputError naming the setting: steps in [0, 10⁷], batch_size in [1, 10⁶],
// learning_rate > 0, weight_decay ≥ 0 with learning_rate·weight_decay < 1, init_scale > 0, all finite.
void validate_settings(const MaxDigitTrainingSettings& settings);

// Initial weights from stream 1 of Random(seed), drawn in parameter_list order.
MaxDigitWeights initial_weights(const MaxDigitTrainingSettings& settings);

class MaxDigitTrainer {
 public:
  explicit MaxDigitTrainer(const MaxDigitTrainingSettings& settings);
  MaxDigitTrainer(const MaxDigitTrainer&) = delete;
  MaxDigitTrainer& operator=(const MaxDigitTrainer&) = delete;

  // Runs min(n, remaining) steps and returns how many ran. The batches come from one
  // persistent stream, so any chunking of the same total gives bit-identical weights.
  long step(long n);
  long steps_taken() const { return steps_taken_; }
  long total_steps() const { return settings_.steps; }
  bool done() const { return steps_taken_ >= settings_.steps; }
  // Mean cross-entropy of the last batch (NaN before the first step).
  double last_loss() const { return last_loss_; }
  const MaxDigitWeights& weights() const { return weights_; }
  const MaxDigitTrainingSettings& settings() const { return settings_; }

 private:
  MaxDigitTrainingSettings settings_;
  MaxDigitWeights weights_;
  std::unique_ptr<Adam> optimiser_;
  Random batches_;
  MaxDigitGradients gradients_;
  long steps_taken_ = 0;
  double last_loss_;
};

// The whole recipe in one call.
MaxDigitWeights train_max_digit(const MaxDigitTrainingSettings& settings);

// Rescales every column of W_U to unit Euclidean norm (a zero column is left unchanged).
void normalise_unembedding_columns(Matrix& W_U);

}  // namespace headlab::max_digit
