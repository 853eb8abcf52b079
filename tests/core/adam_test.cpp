#include "core/adam.hpp"
#include "core/check.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::Adam;
using headlab::AdamSettings;
using headlab::InputError;
using headlab::Matrix;

TEST_CASE("Adam follows the textbook update over three steps", "[adam]") {
  // Reference: the same recursion on scalars with std::pow bias corrections, written out here.
  AdamSettings s{0.05, 0.8, 0.99, 1e-8, 0.0};
  Matrix p(1, 2), g(1, 2);
  p << 1.0, -2.0;
  Adam adam(s, {&p});
  double ref[2] = {1.0, -2.0}, m[2] = {0, 0}, v[2] = {0, 0};
  const double grads[3][2] = {{0.3, -1.0}, {0.1, 2.0}, {-0.4, 0.5}};
  for (int t = 1; t <= 3; ++t) {
    g << grads[t - 1][0], grads[t - 1][1];
    adam.step({&p}, {&g});
    for (int i = 0; i < 2; ++i) {
      m[i] = s.beta1 * m[i] + (1 - s.beta1) * grads[t - 1][i];
      v[i] = s.beta2 * v[i] + (1 - s.beta2) * grads[t - 1][i] * grads[t - 1][i];
      const double m_hat = m[i] / (1 - std::pow(s.beta1, t)), v_hat = v[i] / (1 - std::pow(s.beta2, t));
      ref[i] -= s.learning_rate * m_hat / (std::sqrt(v_hat) + s.epsilon);
    }
    // The two arrangements of the bias correction differ by a few roundings of values of order one.
    for (int i = 0; i < 2; ++i) CHECK(std::abs(p(0, i) - ref[i]) <= 32 * headlab::test::kEpsilon);
  }
  CHECK(adam.steps_taken() == 3);
}

TEST_CASE("Adam's first step moves each entry by the learning rate against its gradient's sign", "[adam]") {
  // t = 1: m̂ = g, v̂ = g², so the step is lr·g/(|g| + ε) = lr·sign(g)·(1 − ε/|g| + …).
  Matrix p = Matrix::Zero(2, 2), g(2, 2);
  g << 3.0, -0.5, 1e-3, -7.0;
  Adam adam(AdamSettings{0.1, 0.9, 0.999, 1e-8, 0.0}, {&p});
  adam.step({&p}, {&g});
  for (int i = 0; i < 4; ++i) {
    const double expected = -0.1 * g.data()[i] / (std::abs(g.data()[i]) + 1e-8);
    CHECK(std::abs(p.data()[i] - expected) <= 8 * headlab::test::kEpsilon);
  }
}

TEST_CASE("AdamW decays parameters by (1 − lr·weight_decay) per step, decoupled from the gradient", "[adam]") {
  // With a zero gradient the Adam part is exactly zero, leaving only the decay.
  Matrix p(1, 3), g = Matrix::Zero(1, 3);
  p << 1.0, -4.0, 0.5;
  const Matrix start = p;
  Adam adam(AdamSettings{0.01, 0.9, 0.999, 1e-8, 0.1}, {&p});
  for (int t = 0; t < 10; ++t) adam.step({&p}, {&g});
  for (int i = 0; i < 3; ++i) {
    CHECK(std::abs(p(0, i) - start(0, i) * std::pow(1.0 - 0.001, 10)) <= 16 * headlab::test::kEpsilon * std::abs(start(0, i)));
  }
}

TEST_CASE("Adam minimises a quadratic over two parameters of different shapes", "[adam]") {
  Matrix a = Matrix::Zero(2, 3), b = Matrix::Zero(1, 1);
  Matrix target_a(2, 3), target_b(1, 1);
  target_a << 1, -2, 3, 0.5, -0.25, 4;
  target_b << -3;
  Adam adam(AdamSettings{0.05, 0.9, 0.999, 1e-8, 0.0}, {&a, &b});
  for (int t = 0; t < 3000; ++t) {
    const Matrix da = 2.0 * (a - target_a), db = 2.0 * (b - target_b);  // ∂/∂p of ‖p − target‖²
    adam.step({&a, &b}, {&da, &db});
  }
  // Adam's steps shrink with the gradient: after 3000 steps at lr 0.05 the distance is far below 1e-6.
  CHECK((a - target_a).cwiseAbs().maxCoeff() < 1e-6);
  CHECK(std::abs(b(0, 0) - target_b(0, 0)) < 1e-6);
}

TEST_CASE("Adam rejects bad settings and mismatched parameters, naming them", "[adam][errors]") {
  Matrix p = Matrix::Zero(2, 2);
  CHECK_THROWS_WITH(Adam(AdamSettings{0.0}, {&p}), Catch::Contains("learning rate must be a finite number > 0"));
  CHECK_THROWS_WITH(Adam(AdamSettings{NAN}, {&p}), Catch::Contains("learning rate"));
  CHECK_THROWS_WITH(Adam(AdamSettings{0.1, 1.0}, {&p}), Catch::Contains("beta1 must be in [0, 1)"));
  CHECK_THROWS_WITH(Adam(AdamSettings{0.1, 0.9, -0.1}, {&p}), Catch::Contains("beta2 must be in [0, 1)"));
  CHECK_THROWS_WITH(Adam(AdamSettings{0.1, 0.9, 0.999, 0.0}, {&p}), Catch::Contains("epsilon"));
  CHECK_THROWS_WITH(Adam(AdamSettings{0.1, 0.9, 0.999, 1e-8, -1.0}, {&p}), Catch::Contains("weight decay"));
  Adam adam(AdamSettings{0.1}, {&p});
  Matrix wrong = Matrix::Zero(2, 3), g = Matrix::Zero(2, 2);
  CHECK_THROWS_WITH(adam.step({&p}, {&wrong}), Catch::Contains("gradient 0 must be 2 × 2, got 2 × 3"));
  CHECK_THROWS_WITH(adam.step({&wrong}, {&g}), Catch::Contains("parameter 0 must be 2 × 2, got 2 × 3"));
  CHECK_THROWS_WITH(adam.step({&p, &p}, {&g}), Catch::Contains("needs 1 parameters and gradients"));
  CHECK_THROWS_AS(adam.step({}, {}), InputError);
}
