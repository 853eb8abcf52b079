// The softmax of the core, its backward, and the cross-entropy that reads it.
//
//   weights_i = e^{s_i − m} / Σ_j e^{s_j − m},   m = max_j s_j        (n scores)
//
// Subtracting the maximum keeps every exponent ≤ 0, so scores of ±1e300 give finite weights
// and the sum is ≥ 1 (the maximum contributes e^0 = 1 exactly); −inf (masked) entries get
// weight 0. Sums run in index order. The exponential is a parameter: std::exp for the attention
// head and the feature-recovery model, exp_nonpositive (core/deterministic_math.hpp) for the
// max-digit model and the transformer's attention, whose trained weights must be the same bits
// natively and in WASM. (The transformer's cross-entropy, sequence_loss in core/transformer.cpp,
// sums its exponentials with ordered_sum and takes deterministic_log, not std::log: the bits the
// shipped induction model was trained with.)
#pragma once

#include "core/matrix.hpp"

#include <cmath>

namespace headlab {

// std::exp as a function object (the default exponential).
struct LibmExp {
  double operator()(double x) const { return std::exp(x); }
};

// The first of the shared steps: out_i = exp(s_i − m) for the n scores; returns {m, Σ_i out_i}.
struct ShiftedExponentials {
  double maximum;
  double total;
};
template <typename Exp>
inline ShiftedExponentials shifted_exponentials(const double* scores, double* out, int n, Exp exp) {
  double top = scores[0];
  for (int j = 1; j < n; ++j) top = scores[j] > top ? scores[j] : top;
  double total = 0.0;
  for (int j = 0; j < n; ++j) {
    out[j] = exp(scores[j] - top);
    total += out[j];
  }
  return {top, total};
}

// weights (n) = softmax(scores (n)), each exponential divided by the sum. Needs one finite score.
template <typename Exp = LibmExp>
inline void softmax(const double* scores, double* weights, int n, Exp exp = {}) {
  const double total = shifted_exponentials(scores, weights, n, exp).total;
  for (int j = 0; j < n; ++j) weights[j] /= total;
}

// −log softmax(logits)[answer] = log Σ_j e^{l_j − m} − (l_answer − m), with the probabilities
// (n) in p. p is formed as each exponential times the sum's reciprocal (one division, n
// products: the rounding the max-digit model's shipped weights were trained with).
template <typename Exp = LibmExp>
inline double softmax_cross_entropy(const double* logits, int n, int answer, double* p, Exp exp = {}) {
  const ShiftedExponentials e = shifted_exponentials(logits, p, n, exp);
  const double inverse = 1.0 / e.total;
  for (int j = 0; j < n; ++j) p[j] *= inverse;
  return std::log(e.total) - (logits[answer] - e.maximum);
}

// weights (n × m) = softmax of each row of scores (n × m), std::exp. Throws InputError on NaN or
// +inf entries and on a row masked (−inf) everywhere.
Matrix softmax_rows(const Matrix& scores);

// Backward of softmax for one row: given the weights a (1 × m) and dL/da,
// returns dL/ds = a ⊙ (dL/da − (dL/da · a)).
RowVector softmax_row_backward(const RowVector& weights, const RowVector& dweights);

}  // namespace headlab
