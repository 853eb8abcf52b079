#include "core/adam.hpp"

#include "core/check.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace headlab {

Adam::Adam(std::vector<Matrix*> parameters, AdamSettings settings)
    : parameters_(std::move(parameters)), settings_(settings) {
  const auto& s = settings_;
  if (!(std::isfinite(s.learning_rate) && s.learning_rate > 0)) {
    throw InputError("learning_rate must be finite and > 0, got " + std::to_string(s.learning_rate));
  }
  if (!(s.beta1 >= 0 && s.beta1 < 1)) throw InputError("beta1 must lie in [0, 1), got " + std::to_string(s.beta1));
  if (!(s.beta2 >= 0 && s.beta2 < 1)) throw InputError("beta2 must lie in [0, 1), got " + std::to_string(s.beta2));
  if (!(std::isfinite(s.epsilon) && s.epsilon > 0)) throw InputError("epsilon must be finite and > 0");
  if (!(std::isfinite(s.weight_decay) && s.weight_decay >= 0)) {
    throw InputError("weight_decay must be finite and ≥ 0, got " + std::to_string(s.weight_decay));
  }
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (parameters_[i] == nullptr) throw InputError("Adam parameter " + std::to_string(i) + " is null");
    first_moment_.push_back(Matrix::Zero(parameters_[i]->rows(), parameters_[i]->cols()));
    second_moment_.push_back(Matrix::Zero(parameters_[i]->rows(), parameters_[i]->cols()));
  }
}

void Adam::step(const std::vector<const Matrix*>& gradients) {
  if (gradients.size() != parameters_.size()) {
    throw InputError("Adam::step needs " + std::to_string(parameters_.size()) + " gradients, got " +
                     std::to_string(gradients.size()));
  }
  for (std::size_t i = 0; i < gradients.size(); ++i) {
    const std::string name = "gradient " + std::to_string(i);
    if (gradients[i] == nullptr) throw InputError(name + " is null");
    require_shape(name.c_str(), *gradients[i], parameters_[i]->rows(), parameters_[i]->cols());
    // |g| ≤ DBL_MAX is false exactly for ±inf and NaN; counting the failures is a loop the
    // compiler vectorises. The message comes from require_finite once one is found.
    const double* g = gradients[i]->data();
    const Eigen::Index n = gradients[i]->size();
    long non_finite = 0;
    for (Eigen::Index j = 0; j < n; ++j) non_finite += !(std::fabs(g[j]) <= std::numeric_limits<double>::max());
    if (non_finite) require_finite(name.c_str(), *gradients[i]);
  }
  const auto& s = settings_;
  beta1_power_ *= s.beta1;
  beta2_power_ *= s.beta2;
  ++steps_;
  // p ← (1 − lr·wd)·p − (lr / (1 − β1^t)) · m / (√(v / (1 − β2^t)) + ε)
  const double step_size = s.learning_rate / (1.0 - beta1_power_);
  const double inverse_correction2 = 1.0 / (1.0 - beta2_power_);
  const double decay = 1.0 - s.learning_rate * s.weight_decay;
  const double b1 = s.beta1, b2 = s.beta2, one_minus_b1 = 1.0 - s.beta1, one_minus_b2 = 1.0 - s.beta2;
  const double epsilon = s.epsilon;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    double* __restrict p = parameters_[i]->data();
    const double* __restrict g = gradients[i]->data();
    double* __restrict m = first_moment_[i].data();
    double* __restrict v = second_moment_[i].data();
    const Eigen::Index n = parameters_[i]->size();
    for (Eigen::Index j = 0; j < n; ++j) {
      m[j] = b1 * m[j] + one_minus_b1 * g[j];
      v[j] = b2 * v[j] + one_minus_b2 * (g[j] * g[j]);
      p[j] = decay * p[j] - step_size * m[j] / (std::sqrt(v[j] * inverse_correction2) + epsilon);
    }
  }
}

long Adam::steps_taken() const { return steps_; }

}  // namespace headlab
