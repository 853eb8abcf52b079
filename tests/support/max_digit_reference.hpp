// Max-digit test references shared by the model and training tests: an independent textbook
// forward (every position through attention_forward), random weights at a chosen scale, and the
// bound within which two forwards that sum in different orders agree.
#pragma once

#include "core/attention.hpp"
#include "core/max_digit.hpp"
#include "core/tolerances.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace headlab::test::max_digit_reference {

using namespace headlab;
using namespace headlab::max_digit;


// Independent textbook forward: all nine positions through attention_forward (causal),
// heads' readings times W_O added to the residual, the ANS row times W_U.
inline std::array<double, kVocab> generic_logits(const MaxDigitWeights& w, const std::vector<int>& digits,
                                                 const std::vector<AttentionPatch>& patches = {}) {
  const auto tokens = prompt_tokens(digits);
  Matrix x(kPromptLength, kDModel);
  for (int p = 0; p < kPromptLength; ++p) x.row(p) = w.E.row(tokens[p]);
  Matrix residual = x;
  for (int h = 0; h < kHeads; ++h) {
    AttentionOptions options;
    options.causal = true;
    for (const auto& patch : patches) {
      if (patch.head != h) continue;
      Matrix weights = attention_forward(x, w.W_Q[h], w.W_K[h], w.W_V[h], options).weights;
      weights.row(kAnsPosition).setZero();
      weights(kAnsPosition, patch.position) = 1.0;
      options.weights_override = weights;
    }
    residual += attention_forward(x, w.W_Q[h], w.W_K[h], w.W_V[h], options).reading * w.W_O[h];
  }
  const RowVector logits = residual.row(kAnsPosition) * w.W_U;
  std::array<double, kVocab> out{};
  for (int j = 0; j < kVocab; ++j) out[j] = logits(j);
  return out;
}

inline MaxDigitWeights random_weights(double scale, std::uint64_t seed) {
  MaxDigitTrainingSettings s;
  s.seed = seed;
  s.init_scale = scale;
  return initial_weights(s);
}

inline double max_abs(const std::array<double, kVocab>& a) {
  double m = 0;
  for (double x : a) m = std::max(m, std::abs(x));
  return m;
}

// Both forwards sum the same ≤ 9·16·64·4 + 64 products per logit in different orders;
// a sum of n terms errs by at most n·ε·Σ|terms|, and Σ|terms| is bounded here by
// 10·(1 + max|logit|) for these well-conditioned weights (no cancellation by more than 10×).
inline double forward_agreement_bound(double magnitude) {
  return headlab::test::dot_product_bound(9 * 16 + 64 + 16, 10.0 * (1.0 + magnitude));
}

}  // namespace headlab::test::max_digit_reference
