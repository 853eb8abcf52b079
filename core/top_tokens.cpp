#include "core/top_tokens.hpp"

#include <algorithm>
#include <numeric>

namespace headlab {

std::vector<int> top_indices(const double* x, int n, int k) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  const auto count = static_cast<std::ptrdiff_t>(std::min(std::max(k, 0), n));
  std::partial_sort(order.begin(), order.begin() + count, order.end(),
                    [x](int a, int b) { return x[a] > x[b] || (x[a] == x[b] && a < b); });
  order.resize(static_cast<std::size_t>(count));
  return order;
}

}  // namespace headlab
