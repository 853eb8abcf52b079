// The standard evaluation set (core/max_digit_evaluation.hpp).
#include "core/max_digit_evaluation.hpp"

#include <catch2/catch.hpp>

using namespace headlab::max_digit;

TEST_CASE("max-digit: the evaluation set holds every short list and 100,000 long ones", "[max_digit]") {
  const EvaluationSet& set = standard_evaluation_set();
  CHECK(set.total_lists == 11110 + 100000);
  long sum = 0;
  for (long c : set.multiplicity) sum += c;
  CHECK(sum == set.total_lists);
  // Lists of length ≤ 4 with maximum m: Σ_L ((m+1)^L − m^L); the random part adds the rest.
  long short_lists_max0 = 4;  // 0, 00, 000, 0000
  CHECK(set.lists_by_max[0] >= short_lists_max0);
  long by_max = 0;
  for (long c : set.lists_by_max) by_max += c;
  CHECK(by_max == set.total_lists);
  CHECK(set.counts.size() <= 8007);  // multisets of 1–6 digits: Σ C(L + 9, 9)
}
