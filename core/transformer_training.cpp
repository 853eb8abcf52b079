#include "core/transformer_training.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/transformer_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace headlab::transformer {

void TransformerTrainingSettings::validate() const {
  validate_config(model);
  // The induction task repeats a block of at least 2 tokens: n_ctx ≥ 4.
  require_integer_in("model.n_ctx", model.n_ctx, 4, kMaxContext);
  // At least one step: a run of none has no loss to report, and writes the initial weights as a model.
  require_integer_in("steps", steps, 1, kMaxTrainingSteps);
  require_integer_in("batch_size", batch_size, 1, 100000);
  require_adamw_rates(learning_rate, weight_decay);
  require_integer_in("warmup_steps", warmup_steps, 0, kMaxTrainingSteps);
  require_number_in("final_learning_rate_fraction", final_learning_rate_fraction, 0.0, 1.0);
  require_scale("init_scale", init_scale, kMaxInitScale);
}

namespace {
constexpr double kPi = 3.14159265358979323846;
}  // namespace

double learning_rate_at(const TransformerTrainingSettings& s, long t) {
  const double lr = s.learning_rate;
  const long warmup = std::min(s.warmup_steps, s.steps);
  // t < W: below lr by a factor (W − 1)/W at most, far beyond rounding; t = W is lr itself (lr·W/W can
  // round above lr, which Adam's schedule refuses).
  if (t < warmup) return lr * static_cast<double>(t) / static_cast<double>(warmup);
  if (s.final_learning_rate_fraction == 1.0 || s.steps == warmup) return lr;
  const double progress = static_cast<double>(t - warmup) / static_cast<double>(s.steps - warmup);
  double sine = 0.0, cosine = 0.0;
  deterministic_sin_cos(kPi * progress, sine, cosine);
  const double f = s.final_learning_rate_fraction;
  return std::min(lr, lr * (f + (1.0 - f) * 0.5 * (1.0 + cosine)));
}

TransformerWeights initial_weights(const TransformerTrainingSettings& s) {
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

TransformerTrainer::TransformerTrainer(const TransformerTrainingSettings& settings)
    : settings_(settings),
      weights_(initial_weights(settings)),
      gradients_(zero_weights(settings.model)),
      batches_(Random(settings.seed).stream(kBatchStream)),
      last_loss_(std::numeric_limits<double>::quiet_NaN()),
      loss_watch_(std::log(static_cast<double>(settings.model.d_vocab)),
                  "the uniform prediction, ln " + std::to_string(settings.model.d_vocab)) {
  optimiser_ =
      std::make_unique<Adam>(parameter_list(weights_), adam_settings(settings.learning_rate, settings.weight_decay));
}

TrainingProgress TransformerTrainer::step(long n) {
  if (n < 0) throw InputError("step count must be ≥ 0, got " + std::to_string(n));
  const auto grads = parameter_list(static_cast<const TransformerWeights&>(gradients_));
  for (long i = 0; i < n && !progress().done; ++i) {
    for (Matrix* g : parameter_list(gradients_)) g->setZero();
    const auto batch = induction_batch(settings_.model, batches_, settings_.batch_size);
    optimiser_->set_learning_rate(learning_rate_at(settings_, steps_taken_ + 1));
    last_loss_ = transformer_loss_backward(weights_, batch, gradients_);
    ++steps_taken_;
    if (!std::isfinite(last_loss_)) {
      stopped_ = true;  // diverged: the weights stay at the last finite update
      diverged_at_ = steps_taken_;
      divergence_ = "training diverged at step " + std::to_string(steps_taken_) +
                    ": the loss is not finite (learning_rate " + number_text(settings_.learning_rate) + ")";
      break;
    }
    // Adam's update checks every new weight against ±kMaxWeightMagnitude as it writes
    // it; the largest entry is looked up only for the message.
    if (!optimiser_->step_within(grads, kMaxWeightMagnitude)) {
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
      divergence_ = "training diverged at step " + std::to_string(steps_taken_) + ": a weight reached " +
                    number_text(largest) + ", beyond the magnitude limit ±" + number_text(kMaxWeightMagnitude) +
                    " (learning_rate " + number_text(settings_.learning_rate) + ")";
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

TrainingProgress TransformerTrainer::progress() const {
  TrainingProgress p;
  p.steps_taken = steps_taken_;
  p.steps_total = settings_.steps;
  p.loss = last_loss_;
  p.done = stopped_ || steps_taken_ >= settings_.steps;
  return p;
}

void TransformerTrainer::stop() { stopped_ = true; }

TrainingCheckpoint training_checkpoint(const TransformerTrainer& trainer, int sequences) {
  const auto scores = induction_scores(trainer.result(), sequences, trainer.settings().seed);
  TrainingCheckpoint c;
  c.step = trainer.progress().steps_taken;
  c.loss = trainer.progress().loss;
  c.in_context_loss = scores.in_context_loss;
  c.previous_token = scores.previous_token;
  c.induction = scores.induction;
  return c;
}

}  // namespace headlab::transformer
