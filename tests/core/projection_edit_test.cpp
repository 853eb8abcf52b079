#include "core/projection_edit.hpp"
#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/random.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

using headlab::Matrix;

TEST_CASE("swap_projection_coordinates swaps two output columns", "[projection_edit]") {
  Matrix w(3, 3);
  w << 1, 2, 3, 4, 5, 6, 7, 8, 9;
  const Matrix s = headlab::swap_projection_coordinates(w, 0, 2);
  CHECK(s.col(0) == w.col(2));
  CHECK(s.col(2) == w.col(0));
  CHECK(s.col(1) == w.col(1));
  CHECK_THROWS_WITH(headlab::swap_projection_coordinates(w, 0, 3), Catch::Contains("coordinate b = 3 is out of range"));
}

TEST_CASE("rotating Q and K by random orthogonal matrices leaves every score unchanged",
          "[projection_edit][property]") {
  headlab::Random rng(20261129);
  for (int d : {1, 2, 3, 5, 8, 16, 64}) {
    for (int trial = 0; trial < 5; ++trial) {
      const Matrix q = rng.normal_matrix(7, d);
      const Matrix k = rng.normal_matrix(6, d);
      const Matrix r = headlab::random_orthogonal(d, rng);
      const auto rotated = headlab::rotate_query_key(q, k, r);
      const Matrix before = q * k.transpose();
      const Matrix after = rotated.q * rotated.k.transpose();
      // Scale of the products entering each score: Σ|q_i||k_i| ≤ ‖q‖‖k‖.
      const double magnitude = q.rowwise().norm().maxCoeff() * k.rowwise().norm().maxCoeff();
      INFO("d = " << d << ", trial " << trial);
      CHECK((after - before).cwiseAbs().maxCoeff() <= headlab::test::rotated_score_bound(d, magnitude));
      // The coordinates themselves do move (except in the trivial 1-D case, where R = ±1).
      if (d > 1) CHECK((rotated.q - q).cwiseAbs().maxCoeff() > 1e-3);
    }
  }
}

TEST_CASE("plane rotations are orthogonal and rotate the plane", "[projection_edit]") {
  const Matrix r = headlab::plane_rotation(2, 0, 1, 0.5);
  CHECK((r.transpose() * r - Matrix::Identity(2, 2)).cwiseAbs().maxCoeff() <= 4 * headlab::test::kEpsilon);
  CHECK_THAT(r(0, 0), Catch::Matchers::WithinRel(std::cos(0.5), headlab::test::kFewOperationsRelative));
  CHECK_THROWS_AS(headlab::plane_rotation(2, 0, 0, 0.5), headlab::InputError);
}

TEST_CASE("a non-orthogonal rotation is rejected with its defect", "[projection_edit][errors]") {
  const Matrix q = Matrix::Identity(2, 2);
  Matrix shear(2, 2);
  shear << 1, 0.5, 0, 1;
  CHECK_THROWS_WITH(headlab::rotate_query_key(q, q, shear), Catch::Contains("rotation (2 × 2) is not orthogonal"));
  CHECK_THROWS_WITH(headlab::rotate_query_key(q, q, Matrix::Identity(3, 3)),
                    Catch::Contains("rotation must be 2 × 2, got 3 × 3"));
  Matrix nan_r = Matrix::Identity(2, 2);
  nan_r(0, 0) = std::nan("");
  CHECK_THROWS_WITH(headlab::rotate_query_key(q, q, nan_r), Catch::Contains("non-finite"));
}

TEST_CASE("an invertible change of basis Q A, K A^-T leaves every score unchanged", "[projection_edit][property]") {
  headlab::Random rng(20261130);
  int checked = 0;
  for (int d : {1, 2, 3, 5, 8, 16}) {
    for (int trial = 0; trial < 8; ++trial) {
      const Matrix q = rng.normal_matrix(7, d);
      const Matrix k = rng.normal_matrix(6, d);
      // A random Gaussian A is invertible with probability one; its κ is usually modest.
      const Matrix a = rng.normal_matrix(d, d);
      const auto changed = headlab::change_query_key_basis(q, k, a, 1e6);
      const Matrix before = q * k.transpose();
      const Matrix after = changed.q * changed.k.transpose();
      const double magnitude = q.rowwise().norm().maxCoeff() * k.rowwise().norm().maxCoeff();
      INFO("d = " << d << ", trial " << trial << ", condition " << changed.condition_number);
      CHECK(changed.condition_number >= 1.0);
      CHECK((after - before).cwiseAbs().maxCoeff() <=
            headlab::test::changed_basis_score_bound(d, magnitude, changed.condition_number));
      // A^{-T} really is the inverse transpose: A^{-T} Aᵀ = I.
      CHECK((changed.inverse_transpose * a.transpose() - Matrix::Identity(d, d)).cwiseAbs().maxCoeff() <=
            headlab::test::changed_basis_score_bound(d, 1.0, changed.condition_number));
      ++checked;
    }
  }
  CHECK(checked == 48);
}

TEST_CASE("a non-orthogonal A changes query lengths and angles but not scores", "[projection_edit]") {
  Matrix q(2, 2), k(2, 2), a(2, 2);
  q << 1, 0, 0, 1;
  k << 1, 0.5, -0.5, 1;
  a << 2, 0.5, 0, 0.5;  // shear and stretch, det = 1, κ ≈ 4.2
  const auto changed = headlab::change_query_key_basis(q, k, a);
  const Matrix v = Matrix::Identity(2, 2);
  const auto before = headlab::query_key_picture(q, k, v, 1.0);
  const auto after = headlab::query_key_picture(changed.q, changed.k, v, 1.0);
  CHECK((after.scores - before.scores).cwiseAbs().maxCoeff() <=
        headlab::test::changed_basis_score_bound(2, 2.0, changed.condition_number));
  // q₁ = [1, 0] becomes [2, 0.5]: length 1 → √4.25; the right angle between q₁ and q₂ closes.
  CHECK(before.query_lengths(0) == 1.0);
  CHECK_THAT(after.query_lengths(0), Catch::Matchers::WithinRel(std::sqrt(4.25), headlab::test::kAngleRelative));
  CHECK_THAT(before.query_angles(0, 1), Catch::Matchers::WithinRel(M_PI / 2, headlab::test::kAngleRelative));
  CHECK(after.query_angles(0, 1) < 1.4);
  // An orthogonal A reproduces rotate_query_key exactly up to rounding.
  const Matrix r = headlab::plane_rotation(2, 0, 1, 0.7);
  const auto via_a = headlab::change_query_key_basis(q, k, r);
  const auto via_r = headlab::rotate_query_key(q, k, r);
  CHECK((via_a.k - via_r.k).cwiseAbs().maxCoeff() <= 8 * headlab::test::kEpsilon);
  CHECK_THAT(via_a.condition_number, Catch::Matchers::WithinRel(1.0, headlab::test::kSvdRelative));
}

TEST_CASE("singular, ill-conditioned, non-finite or misshapen A is rejected with a message",
          "[projection_edit][errors]") {
  const Matrix q = Matrix::Identity(2, 2);
  Matrix singular(2, 2);
  singular << 1, 2, 2, 4;
  CHECK_THROWS_WITH(headlab::change_query_key_basis(q, q, singular), Catch::Contains("A (2 × 2) is"));
  Matrix zero = Matrix::Zero(2, 2);
  CHECK_THROWS_WITH(headlab::change_query_key_basis(q, q, zero), Catch::Contains("singular"));
  Matrix nearly(2, 2);
  nearly << 1, 0, 0, 1e-10;
  CHECK_THROWS_WITH(headlab::change_query_key_basis(q, q, nearly),
                    Catch::Contains("condition number 1e+10 exceeds 1e+08"));
  Matrix nan_a = Matrix::Identity(2, 2);
  nan_a(1, 0) = std::nan("");
  CHECK_THROWS_WITH(headlab::change_query_key_basis(q, q, nan_a), Catch::Contains("A (2 × 2) has a non-finite entry"));
  CHECK_THROWS_WITH(headlab::change_query_key_basis(q, q, Matrix::Identity(3, 3)),
                    Catch::Contains("A must be 2 × 2, got 3 × 3"));
}

TEST_CASE("query_key_picture matches the attention head at s = 1/sqrt(d_k) and sharpens with s", "[projection_edit]") {
  // The first article's W_Q edit: x = I, W_Q swaps coordinates, W_K = W_V = I.
  Matrix q(2, 2);
  q << 0, 1, 1, 0;
  const Matrix k = Matrix::Identity(2, 2), v = Matrix::Identity(2, 2);
  const auto head = headlab::attention_forward(Matrix::Identity(2, 2), q, k, v);
  const auto p = headlab::query_key_picture(q, k, v, 1.0 / std::sqrt(2.0));
  CHECK((p.scores - head.scores).cwiseAbs().maxCoeff() <= 2 * headlab::test::kEpsilon);
  CHECK((p.weights - head.weights).cwiseAbs().maxCoeff() <= headlab::test::softmax_row_sum_bound(2));
  // softmax(0, 1/√2): the first query leans 33/67 towards the second key ...
  CHECK_THAT(p.weights(0, 1), Catch::Matchers::WithinRel(1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0))),
                                                         headlab::test::kLibmPathRelative));
  // ... and at s = 4 by 98/2; at s = 0 the weights are uniform.
  const auto sharp = headlab::query_key_picture(q, k, v, 4.0);
  CHECK_THAT(sharp.weights(0, 1),
             Catch::Matchers::WithinRel(1.0 / (1.0 + std::exp(-4.0)), headlab::test::kLibmPathRelative));
  const auto flat = headlab::query_key_picture(q, k, v, 0.0);
  CHECK(flat.weights(0, 0) == 0.5);
  CHECK((sharp.reading - sharp.weights * v).cwiseAbs().maxCoeff() == 0.0);
  CHECK(p.query_key_angles(0, 1) == 0.0);
  CHECK_THAT(p.query_key_angles(0, 0), Catch::Matchers::WithinRel(M_PI / 2, headlab::test::kAngleRelative));
  CHECK_THROWS_WITH(headlab::query_key_picture(q, k, v, -1.0),
                    Catch::Contains("score scale must be a finite number ≥ 0"));
  CHECK_THROWS_WITH(headlab::query_key_picture(q, k, v, std::nan("")), Catch::Contains("score scale"));
  CHECK_THROWS_WITH(headlab::query_key_picture(q, k, Matrix::Identity(3, 2), 1.0),
                    Catch::Contains("v (3 × 2) must have one row per key, 2"));
  Matrix huge = Matrix::Constant(2, 2, 1e200);
  CHECK_THROWS_WITH(headlab::query_key_picture(huge, huge, v, 1.0), Catch::Contains("overflowed"));
}
