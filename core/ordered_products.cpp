#include "core/ordered_products.hpp"

#include "core/check.hpp"

#include <string>

namespace headlab {

namespace {

void require_inner(const char* what, Eigen::Index left, Eigen::Index right) {
  if (left != right) {
    throw InputError(std::string(what) + ": inner dimensions differ (" + std::to_string(left) + " vs " +
                     std::to_string(right) + ")");
  }
}

// c.row(i) += s · b.row(k): one multiply and one add per entry, in j order.
inline void axpy(double* c, double s, const double* b, Eigen::Index p) {
  for (Eigen::Index j = 0; j < p; ++j) c[j] += s * b[j];
}

}  // namespace

Matrix ordered_product(const Matrix& a, const Matrix& b) {
  require_inner("ordered_product", a.cols(), b.rows());
  const Eigen::Index n = a.rows(), m = a.cols(), p = b.cols();
  Matrix c = Matrix::Zero(n, p);
  for (Eigen::Index i = 0; i < n; ++i) {
    double* ci = c.data() + i * p;
    for (Eigen::Index k = 0; k < m; ++k) axpy(ci, a(i, k), b.data() + k * p, p);
  }
  return c;
}

Matrix ordered_product_tn(const Matrix& a, const Matrix& b) {
  require_inner("ordered_product_tn", a.rows(), b.rows());
  const Eigen::Index m = a.rows(), n = a.cols(), p = b.cols();
  Matrix c = Matrix::Zero(n, p);
  for (Eigen::Index k = 0; k < m; ++k) {
    const double* bk = b.data() + k * p;
    for (Eigen::Index i = 0; i < n; ++i) axpy(c.data() + i * p, a(k, i), bk, p);
  }
  return c;
}

Matrix ordered_product_nt(const Matrix& a, const Matrix& b) {
  require_inner("ordered_product_nt", a.cols(), b.cols());
  const Matrix bt = b.transpose();  // a copy, so the product runs along contiguous rows
  return ordered_product(a, bt);
}

void add_ordered_product_tn(Matrix& c, const Matrix& a, const Matrix& b) { c += ordered_product_tn(a, b); }

double ordered_sum(const double* x, Eigen::Index n) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) s += x[i];
  return s;
}

double ordered_dot(const double* x, const double* y, Eigen::Index n) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

RowVector ordered_column_sums(const Matrix& a) {
  RowVector s = RowVector::Zero(a.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i) axpy(s.data(), 1.0, a.data() + i * a.cols(), a.cols());
  return s;
}

}  // namespace headlab
