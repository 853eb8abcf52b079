#include "core/adam.hpp"
#include "core/check.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::Adam;
using headlab::AdamSettings;
using headlab::InputError;
using headlab::Matrix;

TEST_CASE("AdamW: two steps by hand, decay applied before the update", "[adam]") {
  Matrix p(1, 2);
  p << 1.0, -2.0;
  AdamSettings s;
  s.learning_rate = 0.1;
  s.weight_decay = 0.5;
  Adam adam({&p}, s);
  Matrix g(1, 2);
  g << 0.3, -4.0;
  adam.step({&g});
  // Step 1: m̂ = g, v̂ = g², so the update is lr·g/(|g| + ε) after p ← (1 − lr·wd) p.
  const double decay = 1.0 - 0.1 * 0.5;
  const double p0 = decay * 1.0 - 0.1 * 0.3 / (0.3 + 1e-8);
  const double p1 = decay * -2.0 - 0.1 * -4.0 / (4.0 + 1e-8);
  // A handful of rounded operations on values of order one.
  const double bound = 16 * headlab::test::kEpsilon;
  CHECK(std::abs(p(0, 0) - p0) <= bound);
  CHECK(std::abs(p(0, 1) - p1) <= bound);
  // Step 2 with gradient g2: m = 0.9·0.1·g + 0.1·g2 … written out from the definition.
  Matrix g2(1, 2);
  g2 << -0.1, 1.0;
  adam.step({&g2});
  for (int j = 0; j < 2; ++j) {
    const double m = 0.9 * (0.1 * g(0, j)) + 0.1 * g2(0, j);
    const double v = 0.999 * (0.001 * g(0, j) * g(0, j)) + 0.001 * g2(0, j) * g2(0, j);
    const double m_hat = m / (1 - 0.9 * 0.9), v_hat = v / (1 - 0.999 * 0.999);
    const double before = j == 0 ? p0 : p1;
    const double expected = decay * before - 0.1 * m_hat / (std::sqrt(v_hat) + 1e-8);
    CHECK(std::abs(p(0, j) - expected) <= bound * 4);
  }
  CHECK(adam.steps_taken() == 2);
}

TEST_CASE("AdamW: a zero gradient only decays", "[adam]") {
  Matrix p = Matrix::Constant(2, 2, 3.0);
  AdamSettings s;
  s.learning_rate = 0.01;
  s.weight_decay = 0.1;
  Adam adam({&p}, s);
  const Matrix zero = Matrix::Zero(2, 2);
  adam.step({&zero});
  CHECK(p(1, 1) == (1.0 - 0.01 * 0.1) * 3.0);
}

TEST_CASE("AdamW: bad settings and gradients name the argument", "[adam]") {
  Matrix p = Matrix::Zero(2, 2);
  AdamSettings s;
  s.learning_rate = -1;
  CHECK_THROWS_WITH(Adam({&p}, s), Catch::Contains("learning_rate"));
  s = AdamSettings{};
  s.weight_decay = NAN;
  CHECK_THROWS_WITH(Adam({&p}, s), Catch::Contains("weight_decay"));
  Adam adam({&p}, AdamSettings{});
  const Matrix wrong = Matrix::Zero(3, 2);
  CHECK_THROWS_WITH(adam.step({&wrong}), Catch::Contains("gradient 0 must be 2 × 2"));
  Matrix nan = Matrix::Zero(2, 2);
  nan(0, 1) = NAN;
  CHECK_THROWS_AS(adam.step({&nan}), InputError);
  CHECK_THROWS_WITH(adam.step({}), Catch::Contains("needs 1 gradients"));
}
