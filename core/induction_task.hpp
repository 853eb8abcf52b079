// The induction task, on which the core trains its attention-only transformer
// (core/transformer_training.hpp).
//
// Induction task (Olsson et al. 2022, "In-context learning and induction heads"): a sequence of
// n_ctx tokens drawn uniformly from the vocabulary, whose last 2m tokens are m tokens followed by the
// same m tokens again: [filler (n_ctx − 2m), r_1 … r_m, r_1 … r_m]. The loss is next-token
// cross-entropy on the repeated half only, positions p ∈ [n_ctx − m, n_ctx − 2]: there the next token
// is predictable by looking back to the previous occurrence of the current token and copying its
// successor — a previous-token head and an induction head in the next layer. In training the period m
// is drawn uniformly from [max(2, ⌊n_ctx/4⌋), ⌊n_ctx/2⌋] for every sequence, so no head can find the
// earlier occurrence by its position alone; the evaluation (induction_scores) uses m = ⌊n_ctx/2⌋.
//
#pragma once

#include "core/prompt_pairs.hpp"
#include "core/random.hpp"
#include "core/transformer.hpp"

#include <vector>

namespace headlab::transformer {

// The default model for the induction task: 2 layers of 4 heads, d_model 32, d_head 8, n_ctx 24,
// d_vocab 32, LayerNorm, learned positional embedding in shortformer form (added to the input of
// the queries and keys, never to the residual stream); why: induction_task.cpp.
TransformerConfig induction_default_config();

// One induction sequence of length n_ctx with period m (2 ≤ m ≤ n_ctx/2), loss on the repeat.
TokenSequence induction_sequence(const TransformerConfig& config, Random& rng, int period);
// A training batch: each sequence's period drawn from [max(2, ⌊n_ctx/4⌋), ⌊n_ctx/2⌋] first.
std::vector<TokenSequence> induction_batch(const TransformerConfig& config, Random& rng, int batch_size);
// An evaluation batch: every period ⌊n_ctx/2⌋ (TransformerLens's repeated random tokens).
std::vector<TokenSequence> repeated_batch(const TransformerConfig& config, Random& rng, int batch_size);
// The stream of Random(seed) evaluation batches come from (training and the analyses alike); the
// trainer's initialisation and batches use streams 1 and 2 (core/transformer_training.hpp).
constexpr std::uint64_t kEvaluationStream = 3;

// `count` prompt pairs for patching the induction circuit, drawn from Random(seed).stream(kPairsStream).
// Period m = ⌊n_ctx/2⌋; a block r_1 … r_m of m distinct tokens and, distinct from them, a token c:
//   clean     = [r_1 … r_m, r_1 … r_{m−1}]  (2m − 1 tokens): induction predicts r_m next;
//   corrupted = the clean prompt with the earlier r_{m−1} (position m − 2) replaced by c, so the last
//               token has no earlier occurrence to copy from;
//   answer = r_m, wrong = c (the article's example: m = 12, r_11 = 26 → c = 2, answer 8, wrong 2).
// The m + 1 tokens are the first m + 1 of a Fisher–Yates shuffle of [0, d_vocab) (one rng.below per
// swap). Throws InputError on count ∉ [1, kMaxPromptPairs], n_ctx < 4 or d_vocab < m + 1.
constexpr std::uint64_t kPairsStream = 7;
std::vector<PromptPair> induction_pairs(const TransformerConfig& config, std::uint64_t seed, int count);

}  // namespace headlab::transformer
