// The logit lens (nostalgebraist 2020): the residual stream after the embedding and after each
// layer, read as if it were the last one, through the final normalisation and the unembedding.
//
// For stage s = 0 … L (0: resid after the embedding, W_E[tokens] + W_pos; s ≥ 1: after layer s − 1)
// and every position i:
//   logits_s = LN_final(resid_s) W_U + b_U,    probabilities_s = softmax(logits_s)     T × V
// LN_final recomputes its scale σ from resid_s itself (σ is not frozen at the last layer's value),
// so each stage is read exactly as the model reads its last residual stream; stage L is the model's
// own output, bit for bit (the same normalize, ordered_product and b_U addition). The
// softmax subtracts the row's maximum, takes exp_nonpositive and sums in token order: native and
// WASM give the same bits.
#pragma once

#include "core/transformer.hpp"

#include <vector>

namespace headlab::transformer {

constexpr int kMaxLogitLensTop = 20;

struct LogitLens {
  int top = 0;                          // k
  std::vector<int> answers;             // T: the token scored at each position
  Matrix answer_probability;            // (L + 1) × T
  Matrix answer_rank;                   // (L + 1) × T: 0 = the answer is the top token (ties: lower index first)
  std::vector<Matrix> top_tokens;       // L + 1, each T × k (token ids as doubles)
  std::vector<Matrix> top_probability;  // L + 1, each T × k
};

// `answers`: T tokens, answers[i] the token whose probability is tracked at position i; empty: the
// next prompt token at i < T − 1, and at the last position the model's own top prediction there.
// Throws InputError on bad tokens, answers of the wrong length or outside [0, V), or
// top ∉ [1, min(kMaxLogitLensTop, V)].
LogitLens logit_lens(const TransformerWeights& weights, const std::vector<int>& tokens, std::vector<int> answers,
                     int top);
// The same from a forward pass already run on `tokens` (run.tokens).
LogitLens logit_lens(const TransformerWeights& weights, const TransformerActivations& run, std::vector<int> answers,
                     int top);

}  // namespace headlab::transformer
