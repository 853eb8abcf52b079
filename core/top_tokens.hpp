// The k largest entries of a row, the one ranking the logit lens and the head SVD read tokens by.
#pragma once

#include <vector>

namespace headlab {

// Indices of the min(k, n) largest of x[0 … n−1], largest first; equal values keep the lower
// index first. k ≥ 0.
std::vector<int> top_indices(const double* x, int n, int k);

}  // namespace headlab
