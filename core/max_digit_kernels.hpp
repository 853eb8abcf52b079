// The max-digit training step: loss and gradients of a batch as small dense products over
// padded per-token tables (SSE2 / simd128 vectors, AVX2 natively, chosen at run time).
//
// Bit-identical to the per-example reference kept in tests/core/max_digit_kernels_test.cpp
// (and so to max_digit_loss_backward's definition in core/max_digit_model.hpp): every product
// sums its terms in the same order from the same starting value; only memory layout and loop
// nesting differ. Native and WASM builds give the same bits (tests/wasm/max-digit-bits.test.mjs).
#pragma once

#include "core/max_digit_model.hpp"

namespace headlab::max_digit {

// Mean cross-entropy at ANS over the batch (B lists) and its gradient with respect to every
// matrix, written into grads. Validates nothing: weights must pass validate_weights, every
// example must hold a digit, grads must have zero_gradients()'s shapes. The trainer's weights
// and batches are valid by construction; max_digit_loss_backward checks, then calls this.
double loss_backward_unchecked(const MaxDigitWeights& weights, const std::vector<TokenCounts>& batch,
                               MaxDigitGradients& grads);

}  // namespace headlab::max_digit
