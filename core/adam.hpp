// Adam (Kingma & Ba 2015) over a list of Matrix parameters, with optional
// decoupled weight decay (AdamW, Loshchilov & Hutter 2019).
//
// For each parameter p with gradient g, at step t = 1, 2, …:
//   m ← β1·m + (1 − β1)·g            v ← β2·v + (1 − β2)·g⊙g
//   p ← p − lr·weight_decay·p        (decoupled: not part of g; skipped when 0)
//   p ← p − (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + ε)
// The bias corrections are PyTorch's arrangement of the same formula. β^t is
// carried by repeated multiplication (no std::pow), so the native and the WASM
// build compute it with the same correctly rounded operations.
#pragma once

#include "core/matrix.hpp"

#include <vector>

namespace headlab {

struct AdamSettings {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
  double weight_decay = 0.0;  // decoupled (AdamW); 0 gives plain Adam
};

class Adam {
 public:
  // shapes: one entry per parameter, the parameter itself (only its shape is read).
  // Throws InputError on a non-positive or non-finite learning rate, β outside [0, 1),
  // ε ≤ 0 or a negative weight decay.
  Adam(const AdamSettings& settings, const std::vector<const Matrix*>& shapes);

  // One update of every parameter in place; params[i] and grads[i] must have
  // the shape given at construction. Throws InputError on a count or shape mismatch.
  void step(const std::vector<Matrix*>& params, const std::vector<const Matrix*>& grads);

  int steps_taken() const { return steps_; }
  const AdamSettings& settings() const { return settings_; }

 private:
  AdamSettings settings_;
  std::vector<Matrix> first_moment_;   // m, one per parameter
  std::vector<Matrix> second_moment_;  // v, one per parameter
  double beta1_power_ = 1.0;           // β1^t
  double beta2_power_ = 1.0;           // β2^t
  int steps_ = 0;
};

}  // namespace headlab
