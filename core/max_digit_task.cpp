#include "core/max_digit_task.hpp"

#include "core/check.hpp"

#include <algorithm>

namespace headlab::max_digit {

const std::array<std::string, kVocab>& vocab_names() {
  static const std::array<std::string, kVocab> names = {"0", "1", "2", "3",   "4",   "5",   "6",
                                                        "7", "8", "9", "PAD", "BOS", "SEP", "ANS"};
  return names;
}

std::array<int, kPromptLength> prompt_tokens(const std::vector<int>& digits) {
  if (digits.size() < static_cast<std::size_t>(kMinListLength) ||
      digits.size() > static_cast<std::size_t>(kMaxListLength)) {
    throw InputError("digits must hold 1 to 6 digits, got " + std::to_string(digits.size()));
  }
  std::array<int, kPromptLength> tokens{};
  tokens[kBosPosition] = kBos;
  for (int i = 0; i < kMaxListLength; ++i) {
    if (i < static_cast<int>(digits.size())) {
      const int d = digits[i];
      if (d < 0 || d >= kDigits) {
        throw InputError("digits[" + std::to_string(i) + "] must be a digit 0–9, got " + std::to_string(d));
      }
      tokens[kFirstDigitPosition + i] = d;
    } else {
      tokens[kFirstDigitPosition + i] = kPad;
    }
  }
  tokens[kSepPosition] = kSep;
  tokens[kAnsPosition] = kAns;
  return tokens;
}

TokenCounts token_counts(const std::vector<int>& digits) {
  TokenCounts counts{};
  for (int t : prompt_tokens(digits)) ++counts[t];
  return counts;
}

int maximum_digit(const TokenCounts& counts) {
  for (int d = kDigits - 1; d >= 0; --d) {
    if (counts[d]) return d;
  }
  throw InputError("the list holds no digit");
}

namespace {

// One list as sample_list describes it, into digits[0 … length); returns the length L.
// Inlined, so that sample_batch's local generator stays in registers.
__attribute__((always_inline)) inline int draw_list(Random& rng, std::uint32_t (&digits)[kMaxListLength]) {
  const auto maximum = rng.below(kDigits);
  const int length = kMinListLength + static_cast<int>(rng.below(kMaxListLength));
  for (;;) {
    bool has_maximum = false;
    for (int i = 0; i < length; ++i) {
      digits[i] = rng.below(maximum + 1);
      has_maximum = has_maximum || digits[i] == maximum;
    }
    if (has_maximum) return length;
  }
}

}  // namespace

std::vector<int> sample_list(Random& rng) {
  std::uint32_t digits[kMaxListLength];
  const int length = draw_list(rng, digits);
  return std::vector<int>(digits, digits + length);
}

std::vector<TokenCounts> sample_batch(Random& rng, int batch_size) {
  std::vector<TokenCounts> batch;
  sample_batch(rng, batch_size, batch);
  return batch;
}

void sample_batch(Random& rng, int batch_size, std::vector<TokenCounts>& batch) {
  if (batch_size < 1) throw InputError("batch size must be ≥ 1, got " + std::to_string(batch_size));
  batch.resize(batch_size);
  // The draws run on a local copy of the generator, handed back at the end (the same draws in
  // the same order). Its address never escapes, so its state stays in registers; the caller's
  // generator would be reloaded after every byte stored into the counts, which may alias it.
  Random local = rng;
  for (TokenCounts& counts : batch) {
    std::uint32_t digits[kMaxListLength];
    const int length = draw_list(local, digits);
    counts.fill(0);
    for (int i = 0; i < length; ++i) ++counts[digits[i]];
    counts[kPad] = static_cast<std::uint8_t>(kMaxListLength - length);
    counts[kBos] = counts[kSep] = counts[kAns] = 1;
  }
  rng = local;
}

std::vector<PromptPair> max_digit_pairs(std::uint64_t seed, int count) {
  require_integer_in("count", count, 1, kMaxPromptPairs);
  Random rng(seed);
  std::vector<PromptPair> pairs(static_cast<std::size_t>(count));
  for (auto& pair : pairs) {
    std::vector<int> digits;
    int m = 0;
    do {
      digits = sample_list(rng);
      m = *std::max_element(digits.begin(), digits.end());
    } while (m == 0);
    const int replacement = static_cast<int>(rng.below(static_cast<std::uint32_t>(m)));
    std::vector<int> corrupted = digits;
    for (int& d : corrupted)
      if (d == m) d = replacement;
    const auto clean_tokens = prompt_tokens(digits);
    const auto corrupted_tokens = prompt_tokens(corrupted);
    pair.clean.assign(clean_tokens.begin(), clean_tokens.end());
    pair.corrupted.assign(corrupted_tokens.begin(), corrupted_tokens.end());
    pair.answer = m;
    pair.wrong = *std::max_element(corrupted.begin(), corrupted.end());
  }
  return pairs;
}

}  // namespace headlab::max_digit
