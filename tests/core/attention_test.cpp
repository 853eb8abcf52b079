#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/projection_edit.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

using headlab::attention_forward;
using headlab::AttentionOptions;
using headlab::InputError;
using headlab::Matrix;

namespace {
// The draft's two tokens x1 = [1, 0], x2 = [0, 1] (rows of X).
Matrix two_tokens() { return Matrix::Identity(2, 2); }
Matrix identity2() { return Matrix::Identity(2, 2); }
}  // namespace

TEST_CASE("identity projections: the first query matches the first key", "[attention][article1]") {
  const auto r = attention_forward(two_tokens(), identity2(), identity2(), identity2());
  // Raw dot products q1·k1 = 1 and q1·k2 = 0; scores divide by √d_k = √2.
  const Matrix& dots = r.dot_products;
  CHECK(dots(0, 0) == 1.0);
  CHECK(dots(0, 1) == 0.0);
  CHECK_THAT(r.scores(0, 0), Catch::Matchers::WithinRel(1.0 / std::sqrt(2.0), headlab::test::kFewOperationsRelative));
  CHECK(r.weights(0, 0) > r.weights(0, 1));
}

TEST_CASE("swapping W_Q's coordinates reverses the match, and keys and values do not change", "[attention][article1]") {
  const auto base = attention_forward(two_tokens(), identity2(), identity2(), identity2());
  const Matrix w_q_swapped = headlab::swap_projection_coordinates(identity2(), 0, 1);
  const auto r = attention_forward(two_tokens(), w_q_swapped, identity2(), identity2());
  const Matrix dots = r.q * r.k.transpose();
  CHECK(dots(0, 0) == 0.0);
  CHECK(dots(0, 1) == 1.0);
  CHECK(r.k == base.k);
  CHECK(r.v == base.v);
  CHECK(r.weights(0, 1) == base.weights(0, 0));
}

TEST_CASE("swapping W_K's coordinates instead reverses the match the same way", "[attention][article1]") {
  const auto base = attention_forward(two_tokens(), identity2(), identity2(), identity2());
  const Matrix w_k_swapped = headlab::swap_projection_coordinates(identity2(), 0, 1);
  const auto r = attention_forward(two_tokens(), identity2(), w_k_swapped, identity2());
  const Matrix dots = r.q * r.k.transpose();
  CHECK(dots(0, 0) == 0.0);
  CHECK(dots(0, 1) == 1.0);
  CHECK(r.q == base.q);
  CHECK(r.v == base.v);
}

TEST_CASE("W_V = diag(2, -3) changes the values and leaves scores and weights exactly unchanged",
          "[attention][article1]") {
  const auto base = attention_forward(two_tokens(), identity2(), identity2(), identity2());
  Matrix w_v(2, 2);
  w_v << 2, 0, 0, -3;
  const auto r = attention_forward(two_tokens(), identity2(), identity2(), w_v);
  CHECK(r.scores == base.scores);
  CHECK(r.weights == base.weights);
  CHECK(r.v(0, 0) == 2.0);
  CHECK(r.v(0, 1) == 0.0);
  CHECK(r.v(1, 0) == 0.0);
  CHECK(r.v(1, 1) == -3.0);
  // The reading is the same weights applied to the new values; exactly, since the other term of
  // each sum is a product with 0.
  CHECK(r.reading(0, 0) == 2.0 * base.weights(0, 0));
  CHECK(r.reading(0, 1) == -3.0 * base.weights(0, 1));
}

TEST_CASE("general shapes: d_v may differ from d_k, and the reading is weights · V", "[attention]") {
  Matrix x(3, 4), w_q(4, 2), w_k(4, 2), w_v(4, 5);
  x << 0.5, -1, 2, 0, 1, 1, -0.5, 0.25, -2, 0.5, 0, 1;
  w_q.setConstant(0.3);
  w_q(1, 1) = -0.7;
  w_k.setConstant(-0.2);
  w_k(2, 0) = 0.9;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) w_v(i, j) = 0.1 * (i + 1) - 0.05 * j;
  const auto r = attention_forward(x, w_q, w_k, w_v);
  REQUIRE(r.reading.rows() == 3);
  REQUIRE(r.reading.cols() == 5);
  const Matrix expected = r.weights * (x * w_v);
  CHECK((r.reading - expected).cwiseAbs().maxCoeff() == 0.0);
  for (int i = 0; i < 3; ++i) CHECK(std::abs(r.weights.row(i).sum() - 1.0) <= headlab::test::softmax_row_sum_bound(3));
}

TEST_CASE("causal mask: no weight on later positions", "[attention]") {
  const Matrix x = Matrix::Identity(3, 3);
  const auto r = attention_forward(x, x, x, x, AttentionOptions{true, std::nullopt});
  CHECK(r.weights(0, 0) == 1.0);
  CHECK(r.weights(0, 1) == 0.0);
  CHECK(r.weights(0, 2) == 0.0);
  CHECK(r.weights(1, 2) == 0.0);
  CHECK(std::isinf(r.scores(0, 2)));
  CHECK(r.weights(2, 0) > 0.0);
}

TEST_CASE("weights override replaces the softmax and drives the reading", "[attention]") {
  Matrix one_hot = Matrix::Zero(2, 2);
  one_hot(0, 1) = 1.0;
  one_hot(1, 1) = 1.0;
  Matrix w_v(2, 2);
  w_v << 2, 0, 0, -3;
  const auto r = attention_forward(two_tokens(), identity2(), identity2(), w_v, AttentionOptions{false, one_hot});
  CHECK(r.weights == one_hot);
  CHECK(r.reading(0, 0) == 0.0);
  CHECK(r.reading(0, 1) == -3.0);
}

TEST_CASE("bad input names the argument and the shapes", "[attention][errors]") {
  const Matrix x = two_tokens();
  const Matrix w3 = Matrix::Identity(3, 3);
  CHECK_THROWS_WITH(attention_forward(x, w3, identity2(), identity2()),
                    Catch::Contains("w_q") && Catch::Contains("3 × 3") && Catch::Contains("2 × 2"));
  CHECK_THROWS_WITH(attention_forward(x, identity2(), Matrix::Identity(2, 3), identity2()),
                    Catch::Contains("same number of columns"));
  Matrix nan_x = x;
  nan_x(1, 0) = std::nan("");
  CHECK_THROWS_WITH(attention_forward(nan_x, identity2(), identity2(), identity2()),
                    Catch::Contains("x (2 × 2) has a non-finite entry") && Catch::Contains("row 1, column 0"));
  Matrix inf_w = identity2();
  inf_w(0, 1) = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(attention_forward(x, identity2(), identity2(), inf_w), Catch::Contains("w_v"));
  CHECK_THROWS_WITH(attention_forward(Matrix(0, 2), identity2(), identity2(), identity2()),
                    Catch::Contains("x is empty (0 × 2)"));
  CHECK_THROWS_WITH(attention_forward(x, identity2(), identity2(), identity2(), {false, Matrix::Zero(3, 3)}),
                    Catch::Contains("weights_override must be 2 × 2, got 3 × 3"));
  CHECK_THROWS_AS(attention_forward(x * 1e200, identity2() * 1e200, identity2(), identity2()), InputError);
}
