#include "core/softmax.hpp"
#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/tolerances.hpp"
#include "support/gradient_check.hpp"

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
  CHECK_THAT(w(1, 2), Catch::Matchers::WithinRel(0.2, headlab::test::kFewOperationsRelative));
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
  const Matrix ds = headlab::softmax_row_backward(a.row(0), upstream);
  Matrix scores = s;
  headlab::test::check_gradient(
      "s", [&] { return softmax_rows(scores).row(0).dot(upstream); }, scores, ds, headlab::test::kSoftmaxGradient);
}

TEST_CASE("softmax on a row equals softmax_rows bit for bit, and its cross-entropy is −log of it", "[softmax]") {
  const double scores[5] = {0.3, -1.2, 2.0, 0.7, 2.0};
  double weights[5], p[5];
  headlab::softmax(scores, weights, 5);
  Matrix row(1, 5);
  row << 0.3, -1.2, 2.0, 0.7, 2.0;
  const Matrix expected = softmax_rows(row);
  for (int j = 0; j < 5; ++j) CHECK(weights[j] == expected(0, j));
  // The two ties at the maximum each get e^0 = 1 before normalising.
  CHECK(weights[2] == weights[4]);
  const double loss = headlab::softmax_cross_entropy(scores, 5, 1, p, headlab::exp_nonpositive);
  // p is the softmax through exp_nonpositive (< 4 ulp from std::exp) times the sum's reciprocal.
  for (int j = 0; j < 5; ++j)
    CHECK_THAT(p[j], Catch::Matchers::WithinRel(weights[j], headlab::test::kExpVariantRelative));
  CHECK_THAT(loss, Catch::Matchers::WithinRel(-std::log(weights[1]), headlab::test::kExpVariantRelative));
}
