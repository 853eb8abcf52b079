#include "core/ordered_products.hpp"

#include "core/check.hpp"
#include "core/random.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

using headlab::Matrix;
using headlab::RowVector;

TEST_CASE("ordered products equal Eigen's products within a dot-product bound, in every orientation",
          "[ordered_products]") {
  headlab::Random rng(5);
  const Matrix a = rng.normal_matrix(7, 13), b = rng.normal_matrix(13, 5), c = rng.normal_matrix(7, 5);
  const double bound = headlab::test::dot_product_bound(13, 16.0);
  CHECK((headlab::ordered_product(a, b) - a * b).cwiseAbs().maxCoeff() <= bound);
  CHECK((headlab::ordered_product_tn(a, c) - a.transpose() * c).cwiseAbs().maxCoeff() <=
        headlab::test::dot_product_bound(7, 16.0));
  const Matrix bt = b.transpose();
  CHECK((headlab::ordered_product_nt(a, bt) - a * b).cwiseAbs().maxCoeff() <= bound);
  Matrix acc = Matrix::Ones(13, 5);
  headlab::add_ordered_product_tn(acc, a, c);
  CHECK((acc - Matrix::Ones(13, 5) - a.transpose() * c).cwiseAbs().maxCoeff() <=
        headlab::test::dot_product_bound(7, 16.0));
  CHECK((headlab::ordered_column_sums(c) - c.colwise().sum()).cwiseAbs().maxCoeff() <=
        headlab::test::dot_product_bound(7, 4.0));
  CHECK_THROWS_AS(headlab::ordered_product(a, a), headlab::InputError);
}

TEST_CASE("ordered sums add in ascending index order from zero (the order is the contract, not the value)",
          "[ordered_products]") {
  // (((0 + 1e16) + 1) − 1e16) + 1: the 1 added to 1e16 is lost, so index order gives 1, not 2 or 0.
  const double x[] = {1e16, 1.0, -1e16, 1.0};
  CHECK(headlab::ordered_sum(x, 4) == 1.0);
  const double ones[] = {1.0, 1.0, 1.0, 1.0};
  CHECK(headlab::ordered_dot(x, ones, 4) == 1.0);
  // The product's entry (0, 0) is the same sequence of terms: a row of x times a column of ones.
  Matrix row(1, 4), column(4, 1);
  row << 1e16, 1.0, -1e16, 1.0;
  column << 1.0, 1.0, 1.0, 1.0;
  CHECK(headlab::ordered_product(row, column)(0, 0) == 1.0);
  CHECK(headlab::ordered_product_nt(row, row.cwiseAbs().cwiseSign())(0, 0) == 1.0);
  Matrix rows(4, 1);
  rows << 1e16, 1.0, -1e16, 1.0;
  CHECK(headlab::ordered_column_sums(rows)(0) == 1.0);
}

TEST_CASE("causal products skip the zeros above the diagonal and keep every other entry's bits", "[ordered_products]") {
  // The entries at and below the diagonal are the same sums as the full products' (identical bits);
  // above it the scores are 0 and pattern × values drops terms 0 · b = ±0, which never change a sum
  // started at +0.0. Odd and even sizes: the last row is a pair's or on its own.
  headlab::Random rng(11);
  for (const Eigen::Index T : {1, 6, 7}) {
    INFO("T = " << T);
    const Matrix q = rng.normal_matrix(T, 5), k = rng.normal_matrix(T, 5), v = rng.normal_matrix(T, 3);
    const Matrix full = headlab::ordered_product_nt(q, k), causal = headlab::ordered_causal_product_nt(q, k);
    Matrix pattern = rng.normal_matrix(T, T);
    for (Eigen::Index i = 0; i < T; ++i)
      for (Eigen::Index j = 0; j < T; ++j) {
        if (j <= i) CHECK(causal(i, j) == full(i, j));
        else CHECK(causal(i, j) == 0.0);
        if (j > i) pattern(i, j) = 0.0;
      }
    const Matrix z = headlab::ordered_causal_product(pattern, v), z_full = headlab::ordered_product(pattern, v);
    CHECK((z.array() == z_full.array()).all());
  }
  CHECK_THROWS_AS(headlab::ordered_causal_product(rng.normal_matrix(3, 4), rng.normal_matrix(4, 2)),
                  headlab::InputError);
  CHECK_THROWS_AS(headlab::ordered_causal_product_nt(rng.normal_matrix(3, 4), rng.normal_matrix(5, 4)),
                  headlab::InputError);
}

namespace {

bool same_bits(const Matrix& x, const Matrix& y) {
  return x.rows() == y.rows() && x.cols() == y.cols() &&
         std::memcmp(x.data(), y.data(), sizeof(double) * static_cast<std::size_t>(x.size())) == 0;
}

// Every product of the header for one width, in a fixed order.
std::vector<Matrix> every_product(headlab::ProductVectors vectors, const Matrix& a, const Matrix& b, const Matrix& bt,
                                  const Matrix& tall, const Matrix& square) {
  headlab::use_product_vectors(vectors);
  std::vector<Matrix> out = {headlab::ordered_product(a, b), headlab::ordered_product_tn(tall, tall),
                             headlab::ordered_product_nt(a, bt)};
  if (square.rows() == a.rows()) {
    out.push_back(headlab::ordered_causal_product_nt(a, a));
    out.push_back(headlab::ordered_causal_product(square, a));
  }
  Matrix acc = Matrix::Constant(tall.cols(), tall.cols(), 0.5);
  headlab::add_ordered_product_tn(acc, tall, tall);
  out.push_back(acc);
  return out;
}

}  // namespace

TEST_CASE("ordered products: every vector width gives the portable width's bits", "[ordered_products][bits]") {
  // Shapes that reach every block of every width: rows in fours, a pair and one; columns in eights,
  // a four and single columns; inner sizes 1 … 17. Widths this CPU lacks are skipped (their
  // availability is what the dispatch reads); the default afterwards is the widest again.
  using headlab::ProductVectors;
  const ProductVectors before = headlab::product_vectors_in_use();
  headlab::Random rng(29);
  int compared = 0;
  for (const Eigen::Index n : {1, 2, 3, 4, 5, 7, 11})
    for (const Eigen::Index m : {1, 3, 17})
      for (const Eigen::Index p : {1, 3, 4, 5, 8, 9, 13, 20}) {
        INFO(n << " × " << m << " times " << m << " × " << p);
        const Matrix a = rng.normal_matrix(n, m), b = rng.normal_matrix(m, p), bt = b.transpose();
        const Matrix tall = rng.normal_matrix(m + 2, p);
        Matrix square = rng.normal_matrix(n, n).triangularView<Eigen::Lower>();
        const std::vector<Matrix> portable = every_product(ProductVectors::portable, a, b, bt, tall, square);
        for (const ProductVectors vectors : {ProductVectors::avx2, ProductVectors::avx512}) {
          if (!headlab::product_vectors_available(vectors)) continue;
          INFO("vectors " << static_cast<int>(vectors));
          const std::vector<Matrix> wide = every_product(vectors, a, b, bt, tall, square);
          REQUIRE(wide.size() == portable.size());
          for (std::size_t i = 0; i < wide.size(); ++i) CHECK(same_bits(wide[i], portable[i]));
          ++compared;
        }
      }
  headlab::use_product_vectors(before);
  CHECK(headlab::product_vectors_in_use() == before);
  // A machine with AVX2 (the project's) compares at least that width.
  if (headlab::product_vectors_available(ProductVectors::avx2)) CHECK(compared >= 7 * 3 * 8);
  CHECK(headlab::product_vectors_available(ProductVectors::portable));
}
