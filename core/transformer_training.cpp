#include "core/transformer_training.hpp"

#include "core/check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace headlab::transformer {

TransformerConfig induction_default_config() {
  // 2 layers of 4 heads, d_model 32, d_head 8, 24 positions, 32 tokens.
  return transformer_config({2, 4, 32, 8, 24, 32}, Normalization::layer_norm, true);
}

void InductionTrainingSettings::validate() const {
  validate_config(model);
  if (model.n_ctx < 4) {
    throw InputError("model.n_ctx = " + std::to_string(model.n_ctx) + " is too short for the induction task; it needs ≥ 4");
  }
  // At least one step: a run of none has no loss to report, and writes the initial weights as a model.
  if (steps < 1 || steps > 10000000) throw InputError("steps must be an integer in [1, 10000000], got " + std::to_string(steps));
  if (batch_size < 1 || batch_size > 100000) {
    throw InputError("batch_size must be an integer in [1, 100000], got " + std::to_string(batch_size));
  }
  if (!(std::isfinite(learning_rate) && learning_rate > 0)) {
    throw InputError("learning_rate must be finite and > 0, got " + number_text(learning_rate));
  }
  if (!(std::isfinite(weight_decay) && weight_decay >= 0)) {
    throw InputError("weight_decay must be finite and ≥ 0, got " + number_text(weight_decay));
  }
  if (!(learning_rate * weight_decay < 1)) {
    throw InputError(decay_product_message(learning_rate, weight_decay));
  }
  if (!(std::isfinite(init_scale) && init_scale > 0 && init_scale <= kMaxInductionInitScale)) {
    throw InputError("init_scale must lie in (0, " + number_text(kMaxInductionInitScale) + "], got " + number_text(init_scale));
  }
}

TokenSequence induction_sequence(const TransformerConfig& c, Random& rng, int period) {
  const int T = c.n_ctx, m = period;
  if (m < 2 || 2 * m > T) {
    throw InputError("period = " + std::to_string(m) + " must lie in [2, n_ctx/2] for n_ctx = " + std::to_string(T));
  }
  TokenSequence s;
  s.tokens.resize(T);
  const int first = T - 2 * m;  // filler tokens before the repeated block
  for (int i = 0; i < first + m; ++i) s.tokens[i] = static_cast<int>(rng.below(static_cast<std::uint32_t>(c.d_vocab)));
  for (int i = 0; i < m; ++i) s.tokens[first + m + i] = s.tokens[first + i];
  s.loss_from = first + m;
  return s;
}

std::vector<TokenSequence> induction_batch(const TransformerConfig& c, Random& rng, int batch_size) {
  const int longest = c.n_ctx / 2, shortest = std::max(2, c.n_ctx / 4);
  std::vector<TokenSequence> batch;
  batch.reserve(batch_size);
  for (int b = 0; b < batch_size; ++b) {
    const int period = shortest + static_cast<int>(rng.below(static_cast<std::uint32_t>(longest - shortest + 1)));
    batch.push_back(induction_sequence(c, rng, period));
  }
  return batch;
}

std::vector<TokenSequence> repeated_batch(const TransformerConfig& c, Random& rng, int batch_size) {
  std::vector<TokenSequence> batch;
  batch.reserve(batch_size);
  for (int b = 0; b < batch_size; ++b) batch.push_back(induction_sequence(c, rng, c.n_ctx / 2));
  return batch;
}

TransformerWeights initial_weights(const InductionTrainingSettings& s) {
  s.validate();
  TransformerWeights w = zero_weights(s.model);
  Random rng = Random(s.seed).stream(kInitialisationStream);
  const double sigma = s.init_scale / std::sqrt(static_cast<double>(s.model.d_model));
  for (auto& p : named_parameters(w)) {
    const std::string& n = p.name;
    if (n.find("ln") != std::string::npos) {
      if (n.size() >= 2 && n.compare(n.size() - 2, 2, ".w") == 0) p.value->setOnes();
      continue;
    }
    if (n.find(".b_") != std::string::npos) continue;
    *p.value = rng.normal_matrix(p.value->rows(), p.value->cols(), sigma);
  }
  return w;
}

InductionTrainer::InductionTrainer(const InductionTrainingSettings& settings)
    : settings_(settings),
      weights_(initial_weights(settings)),
      gradients_(zero_weights(settings.model)),
      batches_(Random(settings.seed).stream(kBatchStream)),
      last_loss_(std::numeric_limits<double>::quiet_NaN()),
      loss_watch_(std::log(static_cast<double>(settings.model.d_vocab)),
                  "the uniform prediction, ln " + std::to_string(settings.model.d_vocab)) {
  optimiser_ = std::make_unique<Adam>(parameter_list(weights_), adam_settings(settings.learning_rate, settings.weight_decay));
}

TrainingProgress InductionTrainer::step(long n) {
  const auto grads = parameter_list(static_cast<const TransformerWeights&>(gradients_));
  for (long i = 0; i < n && !progress().done; ++i) {
    for (Matrix* g : parameter_list(gradients_)) g->setZero();
    const auto batch = induction_batch(settings_.model, batches_, settings_.batch_size);
    last_loss_ = transformer_loss_backward(weights_, batch, gradients_);
    ++steps_taken_;
    if (!std::isfinite(last_loss_)) {
      stopped_ = true;  // diverged: the weights stay at the last finite update
      diverged_at_ = steps_taken_;
      divergence_ = "training diverged at step " + std::to_string(steps_taken_) + ": the loss is not finite (learning_rate " +
                    number_text(settings_.learning_rate) + ")";
      break;
    }
    // Adam's update checks every new weight against ±kMaxTransformerWeightMagnitude as it writes
    // it; the largest entry is looked up only for the message.
    if (!optimiser_->step_within(grads, kMaxTransformerWeightMagnitude)) {
      const double largest = [&] {
        double top = 0.0;
        for (const Matrix* w : parameter_list(static_cast<const TransformerWeights&>(weights_))) {
          for (Eigen::Index j = 0; j < w->size(); ++j) {
            const double x = std::fabs(w->data()[j]);
            if (std::isnan(x)) return x;  // the entry to report
            top = std::max(top, x);
          }
        }
        return top;
      }();
      stopped_ = true;
      diverged_at_ = steps_taken_;
      divergence_ = "training diverged at step " + std::to_string(steps_taken_) + ": a weight reached " + number_text(largest) +
                    ", beyond the magnitude limit ±" + number_text(kMaxTransformerWeightMagnitude) + " (learning_rate " +
                    number_text(settings_.learning_rate) + ")";
      break;
    }
    loss_watch_.record(steps_taken_, settings_.steps, last_loss_);
    if (steps_taken_ == settings_.steps && loss_watch_.diverged()) {
      stopped_ = true;
      diverged_at_ = steps_taken_;
      divergence_ = "training diverged at step " + std::to_string(steps_taken_) + ": " + loss_watch_.reason() +
                    " (learning_rate " + number_text(settings_.learning_rate) + "); lower the learning rate";
    }
  }
  return progress();
}

TrainingProgress InductionTrainer::progress() const {
  TrainingProgress p;
  p.steps_taken = steps_taken_;
  p.steps_total = settings_.steps;
  p.loss = last_loss_;
  p.done = stopped_ || steps_taken_ >= settings_.steps;
  return p;
}

void InductionTrainer::stop() { stopped_ = true; }

}  // namespace headlab::transformer
