// core/matrix: the shape text every message uses.
#include "core/matrix.hpp"

#include <catch2/catch.hpp>

TEST_CASE("shape_of writes rows × cols, empty shapes included", "[matrix]") {
  CHECK(headlab::shape_of(headlab::Matrix(2, 3)) == "2 × 3");
  CHECK(headlab::shape_of(headlab::Matrix(0, 4)) == "0 × 4");
  CHECK(headlab::shape_of(headlab::Matrix(1, 1)) == "1 × 1");
}

TEST_CASE("Matrix is row-major: row i is contiguous (the Float64Array layout across the WASM boundary)", "[matrix]") {
  headlab::Matrix m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  for (int k = 0; k < 6; ++k) CHECK(m.data()[k] == k + 1);
}
