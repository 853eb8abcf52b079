// The prompt-pairs file: a batch of (clean, corrupted, answer, wrong) for activation patching over
// a batch (core/batch_patching.hpp; docs/own-model.md "Patching over a batch"; limits in docs/limits.md).
//
//   {"pairs": [{"clean": "5 9 14 3", "corrupted": "5 9 2 3", "answer": 8, "wrong": 2}, …]}
//
// A prompt is a string as --prompt reads it (token ids or the model's token names, separated by
// spaces or commas) or an array of token ids; answer and wrong are a token id or a token name.
// Other keys are refused (a misspelt field must not be ignored). 1 to kMaxPromptPairs pairs.
#pragma once

#include "core/prompt_pairs.hpp"
#include "core/transformer.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace headlab::formats {

// The largest pairs file read (1,024 pairs of two 2,000-token prompts at ≈ 4 bytes a token).
constexpr std::size_t kMaxPromptPairsBytes = 16u << 20;

// Throws InputError starting with `what` (the file name) and naming the pair and field: not JSON,
// a missing or unknown field, a prompt or token that does not read, and every check of
// require_prompt_pairs (different lengths, a token outside the vocabulary, more than
// kMaxPromptPairs pairs).
std::vector<PromptPair> read_prompt_pairs(const transformer::TransformerConfig& config, std::string_view text,
                                          const std::string& what);
// The file read_prompt_pairs reads, prompts as arrays of token ids (a generator's pairs, saved).
std::string write_prompt_pairs(const std::vector<PromptPair>& pairs);

}  // namespace headlab::formats
