#include "core/max_digit_evaluation.hpp"

#include <map>

namespace headlab::max_digit {
namespace {

using Multisets = std::map<TokenCounts, long>;

// Every list of `length` digits, as the base-10 code 0 … 10^length − 1 read most significant first.
void add_every_list(int length, Multisets& multiset) {
  int total = 1;
  for (int i = 0; i < length; ++i) total *= kDigits;
  std::vector<int> digits(length, 0);
  for (int code = 0; code < total; ++code) {
    int rest = code;
    for (int i = length - 1; i >= 0; --i) {
      digits[i] = rest % kDigits;
      rest /= kDigits;
    }
    ++multiset[token_counts(digits)];
  }
}

void add_random_lists(Random& rng, int length, Multisets& multiset) {
  std::vector<int> digits(length, 0);
  for (int n = 0; n < kRandomListsPerLength; ++n) {
    for (int& d : digits) d = static_cast<int>(rng.below(kDigits));
    ++multiset[token_counts(digits)];
  }
}

EvaluationSet build_standard_evaluation_set() {
  Multisets multiset;
  for (int length = kMinListLength; length <= kExhaustiveMaxLength; ++length) add_every_list(length, multiset);
  Random rng = Random(kEvaluationSeed).stream(1);
  for (int length = kExhaustiveMaxLength + 1; length <= kMaxListLength; ++length)
    add_random_lists(rng, length, multiset);
  EvaluationSet s;
  for (const auto& [counts, n] : multiset) {
    s.counts.push_back(counts);
    s.multiplicity.push_back(n);
    const int m = maximum_digit(counts);
    s.maximum.push_back(m);
    s.total_lists += n;
    s.lists_by_max[m] += n;
  }
  return s;
}

}  // namespace

const EvaluationSet& standard_evaluation_set() {
  static const EvaluationSet set = build_standard_evaluation_set();
  return set;
}

}  // namespace headlab::max_digit
