#include "core/projection_edit.hpp"
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

TEST_CASE("rotating Q and K by random orthogonal matrices leaves every score unchanged", "[projection_edit][property]") {
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
  CHECK(r(0, 0) == Approx(std::cos(0.5)));
  CHECK_THROWS_AS(headlab::plane_rotation(2, 0, 0, 0.5), headlab::InputError);
}

TEST_CASE("a non-orthogonal rotation is rejected with its defect", "[projection_edit][errors]") {
  const Matrix q = Matrix::Identity(2, 2);
  Matrix shear(2, 2);
  shear << 1, 0.5, 0, 1;
  CHECK_THROWS_WITH(headlab::rotate_query_key(q, q, shear),
                    Catch::Contains("rotation (2 × 2) is not orthogonal"));
  CHECK_THROWS_WITH(headlab::rotate_query_key(q, q, Matrix::Identity(3, 3)),
                    Catch::Contains("rotation must be 2 × 2, got 3 × 3"));
  Matrix nan_r = Matrix::Identity(2, 2);
  nan_r(0, 0) = std::nan("");
  CHECK_THROWS_WITH(headlab::rotate_query_key(q, q, nan_r), Catch::Contains("non-finite"));
}
