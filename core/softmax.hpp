// Row-wise softmax, stable for any finite scores and for -inf (masked) entries.
#pragma once

#include "core/matrix.hpp"

namespace headlab {

// weights (n × m) from scores (n × m): weights(i, j) = exp(s_ij − max_j s_ij) / Σ_j exp(s_ij − max_j s_ij).
// Subtracting the row maximum keeps every exponent ≤ 0, so scores of ±1e300 give
// finite weights. Entries equal to −inf get weight 0; a row needs one finite entry.
Matrix softmax_rows(const Matrix& scores);

// Backward of softmax_rows for one row: given the weights a (1 × m) and dL/da,
// returns dL/ds = a ⊙ (dL/da − (dL/da · a)).
RowVector softmax_row_backward(const RowVector& weights, const RowVector& dweights);

}  // namespace headlab
