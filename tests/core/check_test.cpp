// core/check: argument checks and the messages that name the argument and its shape.
#include "core/check.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using headlab::InputError;
using headlab::Matrix;

TEST_CASE("require_nonempty and require_shape name the argument and both shapes", "[check]") {
  CHECK_THROWS_WITH(headlab::require_nonempty("x", Matrix(0, 3)),
                    "x is empty (0 × 3); it needs at least one row and one column");
  CHECK_NOTHROW(headlab::require_nonempty("x", Matrix::Zero(1, 1)));
  CHECK_THROWS_WITH(headlab::require_shape("w_q", Matrix::Zero(2, 3), 3, 2), "w_q must be 3 × 2, got 2 × 3");
  CHECK_NOTHROW(headlab::require_shape("w_q", Matrix::Zero(3, 2), 3, 2));
}

TEST_CASE("require_finite and require_usable give the first non-finite entry's row and column", "[check]") {
  Matrix m = Matrix::Zero(2, 3);
  m(1, 2) = std::numeric_limits<double>::infinity();
  m(1, 0) = NAN;  // row-major order: (1, 0) comes before (1, 2)
  CHECK_THROWS_WITH(headlab::require_finite("k", m),
                    Catch::StartsWith("k (2 × 3) has a non-finite entry") && Catch::EndsWith("at row 1, column 0"));
  CHECK_THROWS_AS(headlab::require_usable("k", m), InputError);
  CHECK_THROWS_WITH(headlab::require_usable("k", Matrix(0, 0)), Catch::StartsWith("k is empty"));
  CHECK_NOTHROW(headlab::require_usable("k", Matrix::Ones(2, 3)));
}

TEST_CASE("require_index accepts 0 to size - 1 only", "[check]") {
  CHECK_NOTHROW(headlab::require_index("head", 0, 4));
  CHECK_NOTHROW(headlab::require_index("head", 3, 4));
  CHECK_THROWS_WITH(headlab::require_index("head", 4, 4), "head = 4 is out of range [0, 4)");
  CHECK_THROWS_WITH(headlab::require_index("head", -1, 4), "head = -1 is out of range [0, 4)");
}
