#include "core/jacobi_svd.hpp"

#include "core/random.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

using headlab::Matrix;
using headlab::Random;

TEST_CASE("jacobi_svd: U diag(σ) Vᵀ rebuilds X, U and V orthonormal, σ descending, Eigen's values", "[jacobi_svd]") {
  Random rng(4);
  for (const auto& [n, m] : {std::pair<int, int>{7, 3}, {5, 5}, {3, 6}}) {
    const Matrix x = rng.normal_matrix(n, m);
    const auto s = headlab::jacobi_svd(x);
    const Matrix rebuilt = s.u.transpose() * s.singular_values.asDiagonal() * s.v;
    CHECK((rebuilt - x).cwiseAbs().maxCoeff() <= headlab::test::kReorderedSumAbsolute);
    CHECK((s.v * s.v.transpose() - Matrix::Identity(m, m)).cwiseAbs().maxCoeff() <=
          headlab::test::kReorderedSumAbsolute);
    const Eigen::VectorXd reference = Eigen::JacobiSVD<Eigen::MatrixXd>(Eigen::MatrixXd(x)).singularValues();
    for (int i = 0; i < std::min(n, m); ++i) {
      CHECK_THAT(s.singular_values(i), Catch::Matchers::WithinRel(reference(i), headlab::test::kSvdRelative));
      if (i > 0) CHECK(s.singular_values(i) <= s.singular_values(i - 1));
    }
    for (int i = std::min(n, m); i < m; ++i) CHECK(s.singular_values(i) <= headlab::test::kReorderedSumAbsolute);
  }
}

TEST_CASE("factored_svd: the SVD of A B without the n × n product", "[jacobi_svd]") {
  Random rng(9);
  const Matrix a = rng.normal_matrix(9, 3), b = rng.normal_matrix(3, 9);
  const auto s = headlab::factored_svd(a, b);
  const Matrix rebuilt = s.u.transpose() * s.singular_values.asDiagonal() * s.v;
  CHECK((rebuilt - a * b).cwiseAbs().maxCoeff() <= headlab::test::kReorderedSumAbsolute);
  const Eigen::VectorXd reference = Eigen::JacobiSVD<Eigen::MatrixXd>(Eigen::MatrixXd(a * b)).singularValues();
  for (int i = 0; i < 3; ++i)
    CHECK_THAT(s.singular_values(i), Catch::Matchers::WithinRel(reference(i), headlab::test::kSvdRelative));
  // A zero factor: every singular value 0, no NaN.
  const auto zero = headlab::factored_svd(a, Matrix::Zero(3, 9));
  CHECK(zero.singular_values.isZero(0.0));
  CHECK(zero.u.allFinite());
  CHECK(zero.v.allFinite());
}
