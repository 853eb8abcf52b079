#include "core/max_digit_training.hpp"

#include "core/check.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace headlab::max_digit {

void MaxDigitTrainingSettings::validate() const {
  // At least one step: a run of none has no loss to report (its file would say null).
  require_integer_in("steps", steps, 1, kMaxTrainingSteps);
  require_integer_in("batch_size", batch_size, 1, 1000000);
  require_adamw_rates(learning_rate, weight_decay);
  require_scale("init_scale", init_scale, kMaxInitScale);
}

namespace {

// Every column of a rows × cols block of T (row stride ld) rescaled to unit norm, in T: the squares
// summed in row order, one square root and division, one product per entry; a zero column is kept.
template <class T>
void normalise_columns(T* m, Eigen::Index rows, Eigen::Index cols, Eigen::Index ld) {
  for (Eigen::Index j = 0; j < cols; ++j) {
    T squares = 0;
    for (Eigen::Index i = 0; i < rows; ++i) squares += m[i * ld + j] * m[i * ld + j];
    if (squares == 0) continue;
    const T inverse_norm = static_cast<T>(1) / std::sqrt(squares);
    for (Eigen::Index i = 0; i < rows; ++i) m[i * ld + j] *= inverse_norm;
  }
}

}  // namespace

void normalise_unembedding_columns(Matrix& W_U) {
  normalise_columns(W_U.data(), W_U.rows(), W_U.cols(), W_U.cols());  // row-major
}

void normalise_unembedding_columns(StepParameters<float>& p) {
  normalise_columns(&p.W_U[0][0], kDModel, kVocab, kLogitRow);
}

MaxDigitWeights initial_weights(const MaxDigitTrainingSettings& settings) {
  settings.validate();
  Random rng = Random(settings.seed).stream(kInitialisationStream);
  const double s = settings.init_scale;
  const double s64 = s / 8.0, s16 = s / 4.0;  // s/√64, s/√16
  MaxDigitWeights w;
  w.E = rng.normal_matrix(kVocab, kDModel, s);
  for (int h = 0; h < kHeads; ++h) {
    w.W_Q.push_back(rng.normal_matrix(kDModel, kDHead, s64));
    w.W_K.push_back(rng.normal_matrix(kDModel, kDHead, s64));
    w.W_V.push_back(rng.normal_matrix(kDModel, kDHead, s64));
    w.W_O.push_back(rng.normal_matrix(kDHead, kDModel, s16));
  }
  w.W_U = rng.normal_matrix(kDModel, kVocab, s64);
  w.unit_norm_unembedding = settings.unit_norm_unembedding;
  if (w.unit_norm_unembedding) normalise_unembedding_columns(w.W_U);
  return w;
}

MaxDigitTrainer::MaxDigitTrainer(const MaxDigitTrainingSettings& settings)
    : settings_(settings),
      weights_(std::make_unique<StepParameters<float>>()),
      gradients_(std::make_unique<StepParameters<float>>()),
      batches_(Random(settings.seed).stream(kBatchStream)),
      last_loss_(std::numeric_limits<double>::quiet_NaN()) {
  to_step_parameters(initial_weights(settings), *weights_);
  optimiser_ = std::make_unique<AdamBlock<float>>(weights_->data(), StepParameters<float>::size(),
                                                  adam_settings(settings.learning_rate, settings.weight_decay));
}

MaxDigitWeights MaxDigitTrainer::weights() const {
  MaxDigitWeights w;
  w.W_Q.resize(kHeads);
  w.W_K.resize(kHeads);
  w.W_V.resize(kHeads);
  w.W_O.resize(kHeads);
  from_step_parameters(*weights_, parameter_list(w));
  w.unit_norm_unembedding = settings_.unit_norm_unembedding;
  return w;
}

TrainingProgress MaxDigitTrainer::step(long n) {
  if (n < 0) throw InputError("step count must be ≥ 0, got " + std::to_string(n));
  const long run = stopped_ ? 0 : std::min(n, settings_.steps - steps_taken_);
  for (long i = 0; i < run && diverged_at_ == 0; ++i) {
    sample_batch(batches_, settings_.batch_size, batch_);
    const bool watched = LossWatch::wants(steps_taken_ + 1, settings_.steps);
    const double loss = step_loss_backward(*weights_, batch_, *gradients_, i == run - 1 || watched);
    // Adam's update checks every new weight against ±kMaxWeightMagnitude and every second moment
    // for finiteness as it writes them, and so a non-finite gradient entry too (it makes its weight
    // non-finite). The unit-norm projection that follows only shrinks W_U's columns to norm 1
    // (entries ≤ 1), so the weights as they will be used stay within the limit too.
    const bool within = optimiser_->step_within_unvalidated(gradients_->data(), kMaxWeightMagnitude);
    if (settings_.unit_norm_unembedding) normalise_unembedding_columns(*weights_);
    if (!within) {
      diverged_at_ = steps_taken_ + 1;
      break;
    }
    if (i == run - 1) last_loss_ = loss;
    ++steps_taken_;
    if (watched) loss_watch_.record(steps_taken_, settings_.steps, loss);
    if (steps_taken_ == settings_.steps && loss_watch_.diverged()) {
      diverged_at_ = steps_taken_;
      loss_divergence_ = loss_watch_.reason();
    }
  }
  return progress();
}

std::string MaxDigitTrainer::divergence_message() const {
  if (!loss_divergence_.empty()) {
    return "training diverged at step " + std::to_string(diverged_at_) + ": " + loss_divergence_ + " (learning_rate " +
           number_text(settings_.learning_rate) + ", init_scale " + number_text(settings_.init_scale) +
           "); lower the learning rate";
  }
  return "training diverged at step " + std::to_string(diverged_at_) +
         ": a weight or a squared gradient stopped being finite, or a weight left ±" +
         number_text(kMaxWeightMagnitude) + " (learning_rate " + number_text(settings_.learning_rate) +
         ", init_scale " + number_text(settings_.init_scale) + "); lower the learning rate";
}

MaxDigitWeights train_max_digit(const MaxDigitTrainingSettings& settings) {
  MaxDigitTrainer trainer(settings);
  trainer.step(settings.steps);
  if (trainer.diverged_at()) throw InputError(trainer.divergence_message());
  return trainer.weights();
}

}  // namespace headlab::max_digit
