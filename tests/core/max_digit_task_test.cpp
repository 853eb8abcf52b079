// The max-digit task (core/max_digit_task.hpp): prompts, token counts and the list sampler.
#include "core/check.hpp"
#include "core/max_digit_task.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

using namespace headlab;
using namespace headlab::max_digit;

TEST_CASE("max-digit: prompts and token counts", "[max_digit]") {
  const auto t = prompt_tokens({2, 3, 4});
  CHECK(t == std::array<int, 9>{kBos, 2, 3, 4, kPad, kPad, kPad, kSep, kAns});
  const auto c = token_counts({7, 7, 1});
  CHECK(int(c[7]) == 2);
  CHECK(int(c[kPad]) == 3);
  CHECK(maximum_digit(c) == 7);
  CHECK_THROWS_WITH(prompt_tokens({}), Catch::Contains("1 to 6 digits"));
  CHECK_THROWS_WITH(prompt_tokens({1, 2, 3, 4, 5, 6, 7}), Catch::Contains("got 7"));
  CHECK_THROWS_WITH(prompt_tokens({1, 10}), Catch::Contains("digits[1] must be a digit 0–9, got 10"));
}

TEST_CASE("max-digit: the sampler draws a uniform maximum and uniform lists given maximum and length", "[max_digit]") {
  Random rng(21);
  const int n = 200000;
  std::array<int, 10> by_max{};
  std::map<std::vector<int>, int> two_digit_max1;
  for (int i = 0; i < n; ++i) {
    const auto digits = sample_list(rng);
    REQUIRE(digits.size() >= 1);
    REQUIRE(digits.size() <= 6);
    const int m = *std::max_element(digits.begin(), digits.end());
    ++by_max[m];
    if (m == 1 && digits.size() == 2) ++two_digit_max1[digits];
  }
  // Binomial(n, 0.1): σ = √(n·0.1·0.9) ≈ 134; 5σ keeps the false-failure rate below 1e-6.
  for (int m = 0; m < 10; ++m) CHECK(std::abs(by_max[m] - n / 10.0) <= 5 * std::sqrt(n * 0.09));
  // Lists of length 2 with maximum 1: (0,1), (1,0), (1,1), each a third.
  REQUIRE(two_digit_max1.size() == 3);
  int total = 0;
  for (const auto& [d, c] : two_digit_max1) total += c;
  for (const auto& [d, c] : two_digit_max1) CHECK(std::abs(c - total / 3.0) <= 5 * std::sqrt(total * 2.0 / 9.0));
}
