// exp and log from basic operations (core/deterministic_math.hpp) against libm.
#include "core/deterministic_math.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::exp_nonpositive;
using headlab::test::kEpsilon;

TEST_CASE("exp_nonpositive is within 4 ulp of e^x", "[deterministic_math]") {
  for (double x = -708.0; x <= 0.0; x += 0.0137) {
    const double e = std::exp(x);
    CHECK(std::abs(exp_nonpositive(x) - e) <= 4 * kEpsilon * e);
  }
  // Below −708 the result is subnormal: its spacing is 2^−1074, so allow a few of those.
  for (double x = -745.0; x < -708.0; x += 0.0137) {
    const double e = std::exp(x);
    CHECK(std::abs(exp_nonpositive(x) - e) <= 4 * kEpsilon * e + 4 * std::ldexp(1.0, -1074));
  }
  CHECK(exp_nonpositive(0.0) == 1.0);
  CHECK(exp_nonpositive(-800.0) == 0.0);
}

TEST_CASE("deterministic exp and log agree with libm to a few ulp", "[deterministic_math]") {
  const double bound = 4 * headlab::test::kEpsilon;
  // Positive arguments too (the normal sampler's wedge test passes up to 0.74).
  for (double x = -700.0; x <= 700.0; x += 0.37) {
    CHECK(std::abs(exp_nonpositive(x) / std::exp(x) - 1.0) <= bound);
  }
  for (double x = 1e-300; x < 1e300; x *= 7.3) {
    CHECK(std::abs(headlab::deterministic_log(x) - std::log(x)) <= bound * std::max(1.0, std::abs(std::log(x))));
  }
  CHECK(headlab::deterministic_log(1.0) == 0.0);
}

TEST_CASE("the exp keeps NaN, overflows to +inf and underflows to 0 outside its range (no integer conversion of NaN)",
          "[deterministic_math]") {
  // A diverged model or weights of 1e200 hand these arguments to every softmax; the sanitized run
  // (tests/sanitize-build) sees any undefined conversion on the way.
  const double nan = std::nan("");
  CHECK(std::isnan(exp_nonpositive(nan)));
  CHECK(exp_nonpositive(HUGE_VAL) == HUGE_VAL);
  CHECK(exp_nonpositive(1e300) == HUGE_VAL);
  CHECK(exp_nonpositive(710.0) == HUGE_VAL);
  CHECK(exp_nonpositive(-HUGE_VAL) == 0.0);
  CHECK(exp_nonpositive(-1e300) == 0.0);
}

TEST_CASE("deterministic sin and cos agree with libm within 4 ulp of 1 up to the longest rotary angle",
          "[deterministic_math]") {
  // Every angle the rotary embedding forms lies in [0, n_ctx − 1] ⊂ [0, 4095]; negative ones too.
  for (double x = -50.0; x <= 4100.0; x += 0.37) {
    double s, c;
    headlab::deterministic_sin_cos(x, s, c);
    CHECK(std::abs(s - std::sin(x)) <= 4 * kEpsilon);
    CHECK(std::abs(c - std::cos(x)) <= 4 * kEpsilon);
  }
  double s, c;
  headlab::deterministic_sin_cos(0.0, s, c);
  CHECK((s == 0.0 && c == 1.0));
}
