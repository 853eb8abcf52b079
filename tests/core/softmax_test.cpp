#include "core/softmax.hpp"
#include "core/check.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

#include <limits>

using headlab::Matrix;
using headlab::softmax_rows;

TEST_CASE("softmax rows sum to one", "[softmax]") {
  Matrix s(3, 5);
  s << 0.1, -2, 3, 0.5, 7, -1, -1, -1, -1, -1, 40, -40, 0, 12, -3.5;
  const Matrix w = softmax_rows(s);
  for (int i = 0; i < 3; ++i) {
    CHECK(std::abs(w.row(i).sum() - 1.0) <= headlab::test::softmax_row_sum_bound(5));
    CHECK((w.row(i).array() >= 0.0).all());
  }
  CHECK(w(1, 2) == Approx(0.2).epsilon(4 * headlab::test::kEpsilon));
}

TEST_CASE("softmax survives scores of ±1e300 without NaN", "[softmax]") {
  Matrix s(2, 3);
  s << 1e300, -1e300, 0, 1e300, 1e300, -1e300;
  const Matrix w = softmax_rows(s);
  CHECK(w.allFinite());
  CHECK(w(0, 0) == 1.0);
  CHECK(w(0, 1) == 0.0);
  CHECK(w(1, 0) == 0.5);
  CHECK(w(1, 1) == 0.5);
  CHECK(w(1, 2) == 0.0);
}

TEST_CASE("softmax gives masked entries zero and rejects NaN", "[softmax][errors]") {
  const double inf = std::numeric_limits<double>::infinity();
  Matrix s(1, 3);
  s << 2.0, -inf, 2.0;
  const Matrix w = softmax_rows(s);
  CHECK(w(0, 1) == 0.0);
  CHECK(w(0, 0) == 0.5);
  s(0, 0) = std::nan("");
  CHECK_THROWS_AS(softmax_rows(s), headlab::InputError);
  Matrix all_masked(1, 2);
  all_masked << -inf, -inf;
  CHECK_THROWS_WITH(softmax_rows(all_masked), Catch::Contains("masked everywhere"));
}

TEST_CASE("softmax row backward matches central differences", "[softmax][gradient]") {
  headlab::RowVector s(4), upstream(4);
  s << 0.3, -1.2, 2.0, 0.7;
  upstream << 1.0, -0.5, 0.25, 2.0;
  const Matrix a = softmax_rows(s);
  const headlab::RowVector ds = headlab::softmax_row_backward(a.row(0), upstream);
  const double h = 1e-6;  // central difference: truncation O(h²) ≈ 1e-12, rounding O(ε/h) ≈ 1e-10
  for (int j = 0; j < 4; ++j) {
    Matrix plus = s, minus = s;
    plus(0, j) += h;
    minus(0, j) -= h;
    const double numeric = (softmax_rows(plus).row(0).dot(upstream) - softmax_rows(minus).row(0).dot(upstream)) / (2 * h);
    CHECK(ds(j) == Approx(numeric).margin(1e-9));
  }
}
