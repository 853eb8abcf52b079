#include "core/adam.hpp"

#include "core/check.hpp"

#include <cmath>
#include <string>

namespace headlab {

Adam::Adam(const AdamSettings& settings, const std::vector<const Matrix*>& shapes) : settings_(settings) {
  const auto& s = settings;
  if (!(std::isfinite(s.learning_rate) && s.learning_rate > 0.0)) {
    throw InputError("learning rate must be a finite number > 0, got " + std::to_string(s.learning_rate));
  }
  if (!(s.beta1 >= 0.0 && s.beta1 < 1.0)) throw InputError("beta1 must be in [0, 1), got " + std::to_string(s.beta1));
  if (!(s.beta2 >= 0.0 && s.beta2 < 1.0)) throw InputError("beta2 must be in [0, 1), got " + std::to_string(s.beta2));
  if (!(std::isfinite(s.epsilon) && s.epsilon > 0.0)) {
    throw InputError("epsilon must be a finite number > 0, got " + std::to_string(s.epsilon));
  }
  if (!(std::isfinite(s.weight_decay) && s.weight_decay >= 0.0)) {
    throw InputError("weight decay must be a finite number ≥ 0, got " + std::to_string(s.weight_decay));
  }
  for (const Matrix* p : shapes) {
    first_moment_.push_back(Matrix::Zero(p->rows(), p->cols()));
    second_moment_.push_back(Matrix::Zero(p->rows(), p->cols()));
  }
}

void Adam::step(const std::vector<Matrix*>& params, const std::vector<const Matrix*>& grads) {
  const std::size_t n = first_moment_.size();
  if (params.size() != n || grads.size() != n) {
    throw InputError("Adam::step needs " + std::to_string(n) + " parameters and gradients, got " +
                     std::to_string(params.size()) + " and " + std::to_string(grads.size()));
  }
  for (std::size_t k = 0; k < n; ++k) {
    const Eigen::Index rows = first_moment_[k].rows(), cols = first_moment_[k].cols();
    // Compare first: building the names costs more than the update of a small parameter.
    if (params[k]->rows() != rows || params[k]->cols() != cols) {
      require_shape(("parameter " + std::to_string(k)).c_str(), *params[k], rows, cols);
    }
    if (grads[k]->rows() != rows || grads[k]->cols() != cols) {
      require_shape(("gradient " + std::to_string(k)).c_str(), *grads[k], rows, cols);
    }
  }
  const AdamSettings& s = settings_;
  ++steps_;
  beta1_power_ *= s.beta1;
  beta2_power_ *= s.beta2;
  const double step_size = s.learning_rate / (1.0 - beta1_power_);
  const double sqrt_correction2 = std::sqrt(1.0 - beta2_power_);  // sqrt is correctly rounded on both targets
  const double decay = 1.0 - s.learning_rate * s.weight_decay;
  for (std::size_t k = 0; k < n; ++k) {
    Matrix& p = *params[k];
    const Matrix& g = *grads[k];
    Matrix& m = first_moment_[k];
    Matrix& v = second_moment_[k];
    double* pd = p.data();
    const double* gd = g.data();
    double* md = m.data();
    double* vd = v.data();
    for (Eigen::Index i = 0; i < p.size(); ++i) {
      md[i] = s.beta1 * md[i] + (1.0 - s.beta1) * gd[i];
      vd[i] = s.beta2 * vd[i] + (1.0 - s.beta2) * gd[i] * gd[i];
      if (s.weight_decay != 0.0) pd[i] *= decay;
      pd[i] -= step_size * md[i] / (std::sqrt(vd[i]) / sqrt_correction2 + s.epsilon);
    }
  }
}

}  // namespace headlab
