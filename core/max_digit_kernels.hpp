// The max-digit training step: loss and gradients of a batch over the per-token tables of
// core/max_digit_model.hpp, with the attention's normalisation folded into per-step tables, in
// single precision (the trainer's) or double precision (the reference the gradient tests hold
// against finite differences). docs/max-digit-weights.md, "Training step".
//
// Folding. With e_h(t) = e^{s_h(t) − max_u s_h(u)} and counts c(t), an example's head output is
//   y_h = Σ_t a_h(t) L_h[t] = S_h / Z_h,   S_h = Σ_t c(t) e_h(t) L_h[t],   Z_h = Σ_t c(t) e_h(t).
// BOS, SEP and ANS occur once in every prompt and PAD 6 − ℓ times in a list of length ℓ, so per
// step and length the specials' and PAD's terms are one table entry, and an example adds only
// its distinct digits. The backward folds the same way:
//   dL_h[t] = Σ_e a_he(t) g_e = e_h(t) Σ_e c_e(t) g_e / Z_he
//   ds_h(t) = Σ_e a_he(t) (L_h[t]·g_e − g_e·y_he) = e_h(t) (L_h[t]·(Σ_e c_e(t) g_e / Z_he) − Σ_e c_e(t) g_e·y_he / Z_he)
// so per example only its digits' sums grow, and the 14-wide dot L_h[t]·g_e of every present token
// becomes one dot per head (g_e·y_he). An example whose Z_h underflows (every present score far
// below the table's maximum) is computed directly with its attention renormalised against its
// largest present score, as far_below_maximum_mass does.
//
// Bits. Every sum runs in an order fixed by the code, independent of the vector width: products
// add their terms one by one in index order; horizontal sums of a 16-entry row halve it (entries j
// and j + 8, then j and j + 4, …). Each vector lane is one IEEE operation and the core is built
// with -ffp-contract=off, so the SSE2, AVX2 and AVX-512 builds and WASM's simd128 give the same
// bits (tests/core/max_digit_kernels_test.cpp, tests/wasm/max-digit-bits.test.mjs).
#pragma once

#include "core/max_digit_model.hpp"

#include <cstddef>
#include <vector>

namespace headlab::max_digit {

constexpr int kLogitRow = 16;  // rows of 14 logits padded to 16 entries (the padding is 0)

// Every parameter in one contiguous block, the training step's layout: the optimiser updates it
// as one array. W_U's two padding columns have zero gradient, so they stay 0.
template <class T>
struct alignas(64) StepParameters {
  T E[kVocab][kDModel];
  T W_Q[kHeads][kDModel][kDHead];
  T W_K[kHeads][kDModel][kDHead];
  T W_V[kHeads][kDModel][kDHead];
  T W_O[kHeads][kDHead][kDModel];
  T W_U[kDModel][kLogitRow];

  static constexpr std::size_t size() { return sizeof(StepParameters) / sizeof(T); }
  T* data() { return &E[0][0]; }
  const T* data() const { return &E[0][0]; }
};

// The weights' entries rounded to T (exact for double); W_U's padding set to 0. Shapes as
// validate_weights checks them.
template <class T>
void to_step_parameters(const MaxDigitWeights& weights, StepParameters<T>& out);
// The block's entries into matrices of parameter_list order (E, per head W_Q, W_K, W_V, W_O, then
// W_U; resized), exactly: parameter_list(weights) or MaxDigitGradients::list().
template <class T>
void from_step_parameters(const StepParameters<T>& parameters, const std::vector<Matrix*>& matrices);

// Mean cross-entropy at ANS over the batch and its gradient with respect to every parameter,
// written into grads. Equal lists are computed once and weighted by their multiplicity.
// with_loss = false skips the loss (one logarithm per list; the gradient does not need it) and
// returns NaN. Validates nothing: the weights must be within ±kMaxWeightMagnitude and every list
// must hold a digit (the trainer's are by construction; max_digit_loss_backward checks first).
template <class T>
double step_loss_backward(const StepParameters<T>& weights, const std::vector<TokenCounts>& batch,
                          StepParameters<T>& grads, bool with_loss);

// The vector instruction sets the step is compiled for natively (the widest available is used);
// WASM has simd128 only, which is `portable`. For tests that hold every width to the same bits.
enum class StepVectors { portable, avx2, avx512 };
bool step_vectors_available(StepVectors vectors);
template <class T>
double step_loss_backward_with(StepVectors vectors, const StepParameters<T>& weights,
                               const std::vector<TokenCounts>& batch, StepParameters<T>& grads, bool with_loss);
// The vectors step_loss_backward (so the trainer) uses from now on, process-wide; the widest
// available until called. For benchmarks that time each width through the trainer (the bits are
// the same at every width). Throws InputError when this machine lacks them.
void use_step_vectors(StepVectors vectors);
StepVectors step_vectors_in_use();

}  // namespace headlab::max_digit
