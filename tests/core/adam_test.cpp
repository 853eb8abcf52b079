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

TEST_CASE("Adam follows the textbook recursion with std::pow bias corrections over three steps", "[adam]") {
  // Reference: the same recursion on scalars, written out independently here.
  AdamSettings s{0.05, 0.8, 0.99, 1e-8, 0.0};
  Matrix p(1, 2), g(1, 2);
  p << 1.0, -2.0;
  Adam adam({&p}, s);
  double ref[2] = {1.0, -2.0}, m[2] = {0, 0}, v[2] = {0, 0};
  const double grads[3][2] = {{0.3, -1.0}, {0.1, 2.0}, {-0.4, 0.5}};
  for (int t = 1; t <= 3; ++t) {
    g << grads[t - 1][0], grads[t - 1][1];
    adam.step({&g});
    for (int i = 0; i < 2; ++i) {
      m[i] = s.beta1 * m[i] + (1 - s.beta1) * grads[t - 1][i];
      v[i] = s.beta2 * v[i] + (1 - s.beta2) * grads[t - 1][i] * grads[t - 1][i];
      const double m_hat = m[i] / (1 - std::pow(s.beta1, t)), v_hat = v[i] / (1 - std::pow(s.beta2, t));
      ref[i] -= s.learning_rate * m_hat / (std::sqrt(v_hat) + s.epsilon);
    }
    // Running products against std::pow, and the order of the divisions: a few roundings of values of order one.
    for (int i = 0; i < 2; ++i) CHECK(std::abs(p(0, i) - ref[i]) <= 32 * headlab::test::kEpsilon);
  }
  CHECK(adam.steps_taken() == 3);
}

TEST_CASE("Adam's first step moves each entry by the learning rate against its gradient's sign", "[adam]") {
  // t = 1: m̂ = g and v̂ = g², so the step is lr·g/(|g| + ε).
  Matrix p = Matrix::Zero(2, 2), g(2, 2);
  g << 3.0, -0.5, 1e-3, -7.0;
  Adam adam({&p}, AdamSettings{0.1, 0.9, 0.999, 1e-8, 0.0});
  adam.step({&g});
  for (int i = 0; i < 4; ++i) {
    const double expected = -0.1 * g.data()[i] / (std::abs(g.data()[i]) + 1e-8);
    CHECK(std::abs(p.data()[i] - expected) <= 8 * headlab::test::kEpsilon);
  }
}

TEST_CASE("Adam minimises a quadratic over two parameters of different shapes", "[adam]") {
  Matrix a = Matrix::Zero(2, 3), b = Matrix::Zero(1, 1);
  Matrix target_a(2, 3), target_b(1, 1);
  target_a << 1, -2, 3, 0.5, -0.25, 4;
  target_b << -3;
  Adam adam({&a, &b}, AdamSettings{0.05, 0.9, 0.999, 1e-8, 0.0});
  for (int t = 0; t < 3000; ++t) {
    const Matrix da = 2.0 * (a - target_a), db = 2.0 * (b - target_b);  // ∂/∂p of ‖p − target‖²
    adam.step({&da, &db});
  }
  // Adam's steps shrink with the gradient: after 3000 steps at lr 0.05 the distance is far below 1e-6.
  CHECK((a - target_a).cwiseAbs().maxCoeff() < 1e-6);
  CHECK(std::abs(b(0, 0) - target_b(0, 0)) < 1e-6);
}

TEST_CASE("Adam::step_within: the same bits as step, and false exactly when an entry leaves ±limit", "[adam]") {
  // 37 entries: whole vectors of every width and a remainder. Entry 0 moves by ~lr = 0.5 per
  // step (Adam's first step is lr against the gradient's sign), from 0.75 to ≈ 0.25.
  Matrix p(1, 37), q(1, 37), r(3, 2), s(3, 2);
  for (int j = 0; j < 37; ++j) p(0, j) = q(0, j) = 0.75 - 0.01 * j;
  r << 0.1, -0.2, 0.3, -0.4, 0.5, -0.6;
  s = r;
  AdamSettings settings;
  settings.learning_rate = 0.5;
  Adam plain({&p, &r}, settings), checked({&q, &s}, settings);
  Matrix g(1, 37), h(3, 2);
  g.setConstant(1.0);
  h.setConstant(-1.0);
  plain.step({&g, &h});
  // After the step p lies in [−0.11, 0.25] and r is ≈ (0.6, 0.3, 0.8, 0.1, 1.0, −0.1): within ±1.1.
  CHECK(checked.step_within({&g, &h}, 1.1));
  CHECK(q == p);
  CHECK(s == r);
  plain.step({&g, &h});
  // The second step moves every entry by ≈ 0.5 again: r(2, 0) = 0.5 + 0.5 + 0.5 ≈ 1.5 lies beyond 1.1.
  CHECK_FALSE(checked.step_within({&g, &h}, 1.1));
  CHECK(q == p);
  CHECK(s == r);
  CHECK(r.cwiseAbs().maxCoeff() > 1.1);
  // A NaN gradient is refused before any update, as by step.
  h(2, 1) = std::nan("");
  CHECK_THROWS_AS(checked.step_within({&g, &h}, 1.1), InputError);
  CHECK(s == r);
  CHECK_THROWS_AS(checked.step_within({&g, &h}, -1.0), InputError);
}

TEST_CASE("Adam::step_within_unvalidated: step_within's bits, and false (not a throw) on a non-finite gradient",
          "[adam]") {
  Matrix p(1, 37), q(1, 37);
  for (int j = 0; j < 37; ++j) p(0, j) = q(0, j) = 0.75 - 0.01 * j;
  AdamSettings settings;
  settings.learning_rate = 0.5;
  Adam validated({&p}, settings), unvalidated({&q}, settings);
  Matrix g(1, 37);
  for (int j = 0; j < 37; ++j) g(0, j) = 0.3 - 0.02 * j;
  CHECK(validated.step_within({&g}, 1.1));
  CHECK(unvalidated.step_within_unvalidated({&g}, 1.1));
  CHECK(q == p);
  // +inf, −inf and NaN, each in a vector body and in the remainder: m becomes ±inf or NaN, v inf
  // or NaN, so the entry's update is NaN and the magnitude test reports it.
  for (const double bad : {HUGE_VAL, -HUGE_VAL, std::nan("")}) {
    for (const int j : {5, 36}) {
      Matrix r = p;
      Adam adam({&r}, settings);
      Matrix b = g;
      b(0, j) = bad;
      CHECK_FALSE(adam.step_within_unvalidated({&b}, 1e6));
      CHECK(std::isnan(r(0, j)));
    }
  }
  CHECK_THROWS_AS(unvalidated.step_within_unvalidated({&g}, -1.0), InputError);
}
