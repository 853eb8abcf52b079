// The standard max-digit evaluation set: every list of 1–4 digits (11,110 lists) and 100,000
// lists of 5 and 6 digits (50,000 each, digits i.i.d. uniform on 0–9, from a fixed seed),
// stored as distinct multisets of tokens with their multiplicity (the model is invariant to
// the order of the list; docs/max-digit-analysis.md).
#pragma once

#include "core/max_digit_task.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace headlab::max_digit {

constexpr int kExhaustiveMaxLength = 4;                           // every list of 1–4 digits
constexpr std::uint64_t kEvaluationSeed = 0x6D61782D64696769ULL;  // "max-digi"
constexpr int kRandomListsPerLength = 50000;                      // of each length 5 and 6

struct EvaluationSet {
  std::vector<TokenCounts> counts;  // one entry per distinct multiset (n entries)
  std::vector<long> multiplicity;   // n: how many lists of the set have these counts
  std::vector<int> maximum;         // n: the largest digit, 0–9
  long total_lists = 0;             // Σ multiplicity = 111,110
  std::array<long, kDigits> lists_by_max{};
};
// Built once, on first use.
const EvaluationSet& standard_evaluation_set();

}  // namespace headlab::max_digit
