// The max-digit task: prompts, tokens and the list sampler.
//
// Vocabulary of 14 tokens: digits 0–9 are tokens 0–9, PAD = 10, BOS = 11, SEP = 12, ANS = 13.
// A prompt is 9 tokens: BOS, six list slots (1 to 6 digits, then PAD), SEP, ANS. The answer is
// the largest digit, read at ANS (position 8). docs/max-digit-weights.md, "Task and model".
//
// The model has no positional embedding, so an example is fully described by its token
// counts c(t) (TokenCounts, 14 entries): the sums over positions are sums over tokens.
#pragma once

#include "core/prompt_pairs.hpp"
#include "core/random.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace headlab::max_digit {

constexpr int kDigits = 10;  // digits 0–9 are tokens 0–9
constexpr int kPad = 10, kBos = 11, kSep = 12, kAns = 13;
constexpr int kVocab = 14;
constexpr int kMinListLength = 1;
constexpr int kMaxListLength = 6;
constexpr int kBosPosition = 0;
constexpr int kFirstDigitPosition = 1;                              // list slots 1–6
constexpr int kSepPosition = kFirstDigitPosition + kMaxListLength;  // 7
constexpr int kAnsPosition = kSepPosition + 1;                      // 8
constexpr int kPromptLength = kAnsPosition + 1;                     // 9
static_assert(kPad == kDigits, "the special tokens follow the digits");

// "0" … "9", "PAD", "BOS", "SEP", "ANS".
const std::array<std::string, kVocab>& vocab_names();

// The 9 prompt tokens for a list of 1–6 digits (each 0–9); throws InputError otherwise.
std::array<int, kPromptLength> prompt_tokens(const std::vector<int>& digits);

// c(t), the number of times token t occurs in the prompt (14 entries).
using TokenCounts = std::array<std::uint8_t, kVocab>;
TokenCounts token_counts(const std::vector<int>& digits);
// Largest digit present in the counts; throws InputError when there is none.
int maximum_digit(const TokenCounts& counts);

// A batch of lists whose maximum is uniform on 0–9 and whose length is uniform on 1–6:
// draw the maximum m and the length L, then draw L digits uniform on 0…m until one equals m
// (rejection, so every list of length L with maximum m is equally likely).
std::vector<int> sample_list(Random& rng);
// batch_size lists as sample_list draws them (the same draws in the same order), as counts.
std::vector<TokenCounts> sample_batch(Random& rng, int batch_size);
// The same, into out (resized to batch_size; its storage is reused from call to call).
void sample_batch(Random& rng, int batch_size, std::vector<TokenCounts>& out);

// `count` prompt pairs for patching a max-digit model (9-token prompts, prompt_tokens), drawn from
// Random(seed): the clean list is sample_list's, drawn again while its maximum m is 0 (there is no
// smaller digit to corrupt it to); the corrupted list replaces every occurrence of m by one digit
// drawn uniformly from [0, m). answer = m, wrong = the corrupted list's maximum (< m).
// Throws InputError on count ∉ [1, kMaxPromptPairs].
std::vector<PromptPair> max_digit_pairs(std::uint64_t seed, int count);

}  // namespace headlab::max_digit
