// One attention head in general form.
//
//   Q = X W_Q (n × d_k)   K = X W_K (n × d_k)   V = X W_V (n × d_v)
//   dot_products = Q Kᵀ                (n × n)
//   scores  = Q Kᵀ / √d_k            (n × n), −inf above the diagonal if causal
//   weights = softmax_rows(scores)   (n × n), or weights_override when given
//   reading = weights · V            (n × d_v)
#pragma once

#include "core/matrix.hpp"

#include <optional>

namespace headlab {

struct AttentionOptions {
  // Position i may attend only to positions j ≤ i.
  bool causal = false;
  // Replaces the softmax weights (n × n) before the reading, e.g. for patching.
  // Rows must be finite and non-negative; they are used as given.
  std::optional<Matrix> weights_override;
};

struct AttentionResult {
  Matrix q;             // n × d_k
  Matrix k;             // n × d_k
  Matrix v;             // n × d_v
  Matrix dot_products;  // n × n, Q Kᵀ before scaling and masking (the raw match q_i·k_j)
  Matrix scores;        // n × n, Q Kᵀ / √d_k (masked entries −inf)
  Matrix weights;       // n × n, rows sum to one unless overridden
  Matrix reading;       // n × d_v
};

// x: n × d_model; w_q, w_k: d_model × d_k; w_v: d_model × d_v.
// Throws InputError naming the argument on empty, non-finite or mismatched inputs.
AttentionResult attention_forward(const Matrix& x, const Matrix& w_q, const Matrix& w_k, const Matrix& w_v,
                                  const AttentionOptions& options = {});

}  // namespace headlab
