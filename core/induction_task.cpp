#include "core/induction_task.hpp"

#include "core/check.hpp"

#include <algorithm>
#include <string>

namespace headlab::transformer {

TransformerConfig induction_default_config() {
  // 2 layers of 4 heads, d_model 32, d_head 8, 24 positions, 32 tokens.
  return transformer_config({2, 4, 32, 8, 24, 32}, Normalization::layer_norm, Positions::learned);
}

TokenSequence induction_sequence(const TransformerConfig& c, Random& rng, int period) {
  const int T = c.n_ctx, m = period;
  if (m < 2 || 2 * m > T) {
    throw InputError("period = " + std::to_string(m) + " must lie in [2, n_ctx/2] for n_ctx = " + std::to_string(T));
  }
  TokenSequence s;
  s.tokens.resize(T);
  const int first = T - 2 * m;  // filler tokens before the repeated block
  for (int i = 0; i < first + m; ++i) s.tokens[i] = static_cast<int>(rng.below(static_cast<std::uint32_t>(c.d_vocab)));
  for (int i = 0; i < m; ++i) s.tokens[first + m + i] = s.tokens[first + i];
  s.loss_from = first + m;
  return s;
}

std::vector<TokenSequence> induction_batch(const TransformerConfig& c, Random& rng, int batch_size) {
  const int longest = c.n_ctx / 2, shortest = std::max(2, c.n_ctx / 4);
  std::vector<TokenSequence> batch;
  batch.reserve(batch_size);
  for (int b = 0; b < batch_size; ++b) {
    const int period = shortest + static_cast<int>(rng.below(static_cast<std::uint32_t>(longest - shortest + 1)));
    batch.push_back(induction_sequence(c, rng, period));
  }
  return batch;
}

std::vector<TokenSequence> repeated_batch(const TransformerConfig& c, Random& rng, int batch_size) {
  std::vector<TokenSequence> batch;
  batch.reserve(batch_size);
  for (int b = 0; b < batch_size; ++b) batch.push_back(induction_sequence(c, rng, c.n_ctx / 2));
  return batch;
}

}  // namespace headlab::transformer
