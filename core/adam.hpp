// Adam with decoupled weight decay (AdamW, Loshchilov & Hutter 2019) over a list of matrices.
//
// For every entry p of every parameter, with gradient g at step t (t = 1, 2, …):
//   p ← p − lr·wd·p                                  (decoupled decay, before the Adam update)
//   m ← β1·m + (1 − β1)·g      v ← β2·v + (1 − β2)·g²
//   p ← p − lr · (m / (1 − β1^t)) / (√(v / (1 − β2^t)) + ε)
// β^t is kept as a running product rather than std::pow, so the update uses only
// correctly rounded basic operations and √ and gives the same bits natively and in WASM.
// The same rule serves double parameters (a list of matrices, Adam) and float ones (one
// contiguous block, AdamBlock<float>): the step's scalars are formed in double, then rounded to
// the parameters' type.
#pragma once

#include "core/matrix.hpp"

#include <cstddef>
#include <vector>

namespace headlab {

struct AdamSettings {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
  double weight_decay = 0.0;
};

// The settings a trainer exposes (docs/model-pattern.md: learning_rate, weight_decay), the rest the defaults above.
inline AdamSettings adam_settings(double learning_rate, double weight_decay) {
  AdamSettings s;
  s.learning_rate = learning_rate;
  s.weight_decay = weight_decay;
  return s;
}

// The scalars of one step t, formed in double from the settings and β^t.
struct AdamStep {
  double b1, b2, one_minus_b1, one_minus_b2;
  double decay;                // 1 − lr·wd
  double step_size;            // lr / (1 − β1^t)
  double inverse_correction2;  // 1 / (1 − β2^t)
  double epsilon;
};

// The settings, checked (InputError on one out of range), and the running products β^t.
class AdamSchedule {
 public:
  explicit AdamSchedule(const AdamSettings& settings);
  // The scalars of the next step (t = 1, 2, …).
  AdamStep next();
  long steps_taken() const { return steps_; }
  // The learning rate of the steps that follow (a schedule's value at the next step): finite, in
  // [0, the learning rate it was built with], so lr·wd < 1 still holds. Throws InputError otherwise.
  void set_learning_rate(double learning_rate);

 private:
  AdamSettings settings_;
  double peak_learning_rate_;
  double beta1_power_ = 1.0, beta2_power_ = 1.0;  // β1^t, β2^t
  long steps_ = 0;
};

class Adam {
 public:
  // The parameters are updated in place and must outlive the optimiser.
  // Throws InputError on a null parameter or a setting out of range.
  Adam(std::vector<Matrix*> parameters, AdamSettings settings);
  // gradients[i] has the shape of parameters[i]; throws InputError otherwise or on a non-finite entry.
  void step(const std::vector<const Matrix*>& gradients);
  // The same step; returns whether every updated entry is finite and within ±limit (limit ≥ 0,
  // finite), and every second moment finite. The test rides along in the update loop, which waits
  // on the divider and the square root, so it costs next to nothing, where a separate pass reads
  // every parameter again.
  bool step_within(const std::vector<const Matrix*>& gradients, double limit);
  // step_within without the pass that first refuses a non-finite gradient entry: such an entry
  // makes its new m, v and parameter non-finite (±inf or NaN in m meets v = inf or NaN, and
  // inf/inf, NaN/x are NaN), which the same test reports, so this returns false instead, after
  // the update. For a caller that stops on false and whose gradients need no message of their
  // own (a non-finite gradient is a divergence). Still throws on shapes.
  bool step_within_unvalidated(const std::vector<const Matrix*>& gradients, double limit);
  long steps_taken() const { return schedule_.steps_taken(); }
  // AdamSchedule::set_learning_rate: the rate of the next steps, at most the one built with.
  void set_learning_rate(double learning_rate) { schedule_.set_learning_rate(learning_rate); }

 private:
  std::vector<Matrix*> parameters_;
  std::vector<Matrix> first_moment_, second_moment_;
  AdamSchedule schedule_;
  bool step_impl(const std::vector<const Matrix*>& gradients, const double* limit, bool validate);
};

// AdamW over one contiguous block of n parameters of type T, with its own moments (the max-digit
// trainer's float parameters, core/max_digit_kernels.hpp's StepParameters).
template <class T>
class AdamBlock {
 public:
  // The parameters are updated in place and must outlive the optimiser. Throws InputError on a
  // setting out of range.
  AdamBlock(T* parameters, std::size_t n, const AdamSettings& settings);
  // One step with the n gradient entries, the step's scalars rounded to T; as
  // Adam::step_within_unvalidated (limit ≥ 0, finite): false when a new parameter is not finite or
  // beyond ±limit, or a new second moment is not finite (a float gradient beyond about 1.8e19
  // squares to ∞, which would silently stop its parameter). Each entry's arithmetic is independent
  // of the others, so vectorising it (4 to 16 lanes) leaves the bits unchanged.
  bool step_within_unvalidated(const T* gradient, double limit);
  long steps_taken() const { return schedule_.steps_taken(); }

 private:
  T* parameters_;
  std::size_t n_;
  std::vector<T> first_moment_, second_moment_;
  AdamSchedule schedule_;
};

}  // namespace headlab
