#include "core/ordered_products.hpp"

#include "core/check.hpp"

#include <atomic>
#include <cstring>
#include <string>

namespace headlab {

namespace {

void require_inner(const char* what, Eigen::Index left, Eigen::Index right) {
  if (left != right) {
    throw InputError(std::string(what) + ": inner dimensions differ (" + std::to_string(left) + " vs " +
                     std::to_string(right) + ")");
  }
}

// One R × C block of c = a b (or c += a b): R·C accumulators held in registers across the whole
// k loop, each starting from 0.0 and adding a(i, k)·b(k, j) for k = 0 … m − 1 in order, each
// product and sum rounded on its own — the summation order of the header, only without storing
// and reloading the partial sums after every k. The accumulators are fixed-size Eigen arrays:
// element-wise multiply and add, lane by lane, which compilers turn into vector instructions
// (SSE2 natively, SIMD128 in WASM) without touching any one entry's order.
// a(i, k) = a[i·ars + k·aks] (either layout), b(k, j) = b[k·ldb + j]. With `add`, the finished sum
// is then added to c (the gradient accumulations: the product first, then one addition).
template <int R, int C, bool add>
inline void block(const double* a, Eigen::Index ars, Eigen::Index aks, const double* b, Eigen::Index ldb, double* c,
                  Eigen::Index ldc, Eigen::Index m) {
  using Lanes = Eigen::Array<double, C, 1>;
  Lanes acc[R];
  for (int r = 0; r < R; ++r) acc[r].setZero();
  for (Eigen::Index k = 0; k < m; ++k) {
    const Eigen::Map<const Lanes> bk(b + k * ldb);
    for (int r = 0; r < R; ++r) acc[r] += a[r * ars + k * aks] * bk;
  }
  for (int r = 0; r < R; ++r) {
    Eigen::Map<Lanes> cr(c + r * ldc);
    if (add) cr += acc[r];
    else cr = acc[r];
  }
}

// The rows [i, i + R) of c, in column blocks of 8, then 4, then single columns.
template <int R, bool add>
inline void row_block(const double* a, Eigen::Index ars, Eigen::Index aks, const double* b, Eigen::Index ldb, double* c,
                      Eigen::Index ldc, Eigen::Index m, Eigen::Index p) {
  Eigen::Index j = 0;
  for (; j + 8 <= p; j += 8) block<R, 8, add>(a, ars, aks, b + j, ldb, c + j, ldc, m);
  for (; j + 4 <= p; j += 4) block<R, 4, add>(a, ars, aks, b + j, ldb, c + j, ldc, m);
  for (; j < p; ++j) block<R, 1, add>(a, ars, aks, b + j, ldb, c + j, ldc, m);
}

// c (n × p, row stride ldc) = a b, a n × m as above, b m × p row-major; rows in pairs (2 × 8 blocks
// measured fastest natively and in WASM among 2 × 8, 4 × 4 and 4 × 8 on the transformer's shapes).
// The portable kernel: Eigen's 2-double packets natively (SSE2), simd128 in WASM.
template <bool add>
void product_portable(const double* a, Eigen::Index ars, Eigen::Index aks, const double* b, Eigen::Index ldb, double* c,
                      Eigen::Index ldc, Eigen::Index n, Eigen::Index m, Eigen::Index p) {
  Eigen::Index i = 0;
  for (; i + 2 <= n; i += 2) row_block<2, add>(a + i * ars, ars, aks, b, ldb, c + i * ldc, ldc, m, p);
  for (; i < n; ++i) row_block<1, add>(a + i * ars, ars, aks, b, ldb, c + i * ldc, ldc, m, p);
}

// GCC notes the ABI of AVX vectors at the end of the file, outside any push/pop: no vector crosses a
// call boundary here (every helper is always inlined into its target's kernel).
#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#define HEADLAB_PRODUCT_X86 1
// AVX2 without FMA (4 doubles) and AVX-512F (8): the core builds with -ffp-contract=off, and
// neither target enables FMA, so every product and sum stays rounded on its own. Each gets its own
// copy of the wide helpers compiled for its instructions (core/ordered_products_wide.inc).
// (GCC only: clang compiles an inlined helper for the function it lands in, and has no such pragma.)
#if !defined(__clang__)
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
namespace avx2_kernels {
#include "core/ordered_products_wide.inc"
}  // namespace avx2_kernels
#if !defined(__clang__)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
namespace avx512_kernels {
#include "core/ordered_products_wide.inc"
}  // namespace avx512_kernels
#if !defined(__clang__)
#pragma GCC pop_options
#endif

template <bool add>
__attribute__((target("avx2"))) void product_avx2(const double* a, Eigen::Index ars, Eigen::Index aks, const double* b,
                                                  Eigen::Index ldb, double* c, Eigen::Index ldc, Eigen::Index n,
                                                  Eigen::Index m, Eigen::Index p) {
  avx2_kernels::product_wide<4, add>(a, ars, aks, b, ldb, c, ldc, n, m, p);
}
template <bool add>
__attribute__((target("avx512f"))) void product_avx512(const double* a, Eigen::Index ars, Eigen::Index aks,
                                                       const double* b, Eigen::Index ldb, double* c, Eigen::Index ldc,
                                                       Eigen::Index n, Eigen::Index m, Eigen::Index p) {
  avx512_kernels::product_wide<8, add>(a, ars, aks, b, ldb, c, ldc, n, m, p);
}
#endif

ProductVectors widest_product_vectors() {
#ifdef HEADLAB_PRODUCT_X86
  static const ProductVectors widest = __builtin_cpu_supports("avx512f") ? ProductVectors::avx512
                                       : __builtin_cpu_supports("avx2")  ? ProductVectors::avx2
                                                                         : ProductVectors::portable;
  return widest;
#else
  return ProductVectors::portable;
#endif
}

// The vectors use_product_vectors chose, or −1 for the widest.
std::atomic<int> chosen_product_vectors{-1};

template <bool add>
void product(const double* a, Eigen::Index ars, Eigen::Index aks, const double* b, Eigen::Index ldb, double* c,
             Eigen::Index ldc, Eigen::Index n, Eigen::Index m, Eigen::Index p) {
#ifdef HEADLAB_PRODUCT_X86
  const ProductVectors vectors = product_vectors_in_use();
  if (vectors == ProductVectors::avx2) return product_avx2<add>(a, ars, aks, b, ldb, c, ldc, n, m, p);
  if (vectors == ProductVectors::avx512) return product_avx512<add>(a, ars, aks, b, ldb, c, ldc, n, m, p);
#endif
  product_portable<add>(a, ars, aks, b, ldb, c, ldc, n, m, p);
}

}  // namespace

Matrix ordered_product(const Matrix& a, const Matrix& b) {
  require_inner("ordered_product", a.cols(), b.rows());
  const Eigen::Index n = a.rows(), m = a.cols(), p = b.cols();
  Matrix c(n, p);
  product<false>(a.data(), m, 1, b.data(), p, c.data(), p, n, m, p);
  return c;
}

Matrix ordered_product_tn(const Matrix& a, const Matrix& b) {
  require_inner("ordered_product_tn", a.rows(), b.rows());
  const Eigen::Index m = a.rows(), n = a.cols(), p = b.cols();
  Matrix c(n, p);
  product<false>(a.data(), 1, n, b.data(), p, c.data(), p, n, m, p);
  return c;
}

Matrix ordered_product_nt(const Matrix& a, const Matrix& b) {
  require_inner("ordered_product_nt", a.cols(), b.cols());
  if (a.rows() < 4) {
    // A few rows (a resumed forward pass's last query): each entry one ordered dot product of two
    // contiguous rows, the same sum as below, without transposing b.
    Matrix c(a.rows(), b.rows());
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      for (Eigen::Index j = 0; j < b.rows(); ++j)
        c(i, j) = ordered_dot(a.data() + i * a.cols(), b.data() + j * b.cols(), a.cols());
    return c;
  }
  const Matrix bt = b.transpose();  // a copy, so the product runs along contiguous rows
  return ordered_product(a, bt);
}

Matrix ordered_causal_product_nt(const Matrix& a, const Matrix& b) {
  require_inner("ordered_causal_product_nt", a.cols(), b.cols());
  if (a.rows() != b.rows())
    throw InputError("ordered_causal_product_nt: a causal product needs as many queries as keys");
  const Eigen::Index T = a.rows(), m = a.cols();
  const Matrix bt = b.transpose();  // m × T, so the product runs along contiguous rows
  Matrix c = Matrix::Zero(T, T);
  // Rows in pairs (i, i + 1), each pair over columns [0, i + 2): the entries product<false> forms
  // there, summed as ordered_product sums them; (i, i + 1) lies above the diagonal and is reset.
  Eigen::Index i = 0;
  for (; i + 2 <= T; i += 2) {
    product<false>(a.data() + i * m, m, 1, bt.data(), T, c.data() + i * T, T, 2, m, i + 2);
    c(i, i + 1) = 0.0;
  }
  if (i < T) product<false>(a.data() + i * m, m, 1, bt.data(), T, c.data() + i * T, T, 1, m, i + 1);
  return c;
}

Matrix ordered_causal_product(const Matrix& a, const Matrix& b) {
  require_inner("ordered_causal_product", a.cols(), b.rows());
  if (a.rows() != a.cols()) throw InputError("ordered_causal_product: a causal pattern is square");
  const Eigen::Index T = a.rows(), p = b.cols();
  Matrix c(T, p);
  // Rows (i, i + 1) over j < i + 2: row i's extra term j = i + 1 is a(i, i + 1)·b = ±0 (see the header).
  Eigen::Index i = 0;
  for (; i + 2 <= T; i += 2) product<false>(a.data() + i * T, T, 1, b.data(), p, c.data() + i * p, p, 2, i + 2, p);
  if (i < T) product<false>(a.data() + i * T, T, 1, b.data(), p, c.data() + i * p, p, 1, i + 1, p);
  return c;
}

void add_ordered_product_tn(Matrix& c, const Matrix& a, const Matrix& b) {
  require_inner("add_ordered_product_tn", a.rows(), b.rows());
  const Eigen::Index m = a.rows(), n = a.cols(), p = b.cols();
  if (c.rows() != n || c.cols() != p) {
    throw InputError("add_ordered_product_tn: the sum is " + shape_of(c) + ", the product " + std::to_string(n) +
                     " × " + std::to_string(p));
  }
  product<true>(a.data(), 1, n, b.data(), p, c.data(), p, n, m, p);
}

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

bool product_vectors_available(ProductVectors vectors) {
  const ProductVectors widest = widest_product_vectors();
  return vectors == ProductVectors::portable || vectors == widest ||
         (vectors == ProductVectors::avx2 && widest == ProductVectors::avx512);
}

void use_product_vectors(ProductVectors vectors) {
  if (!product_vectors_available(vectors)) throw InputError("this machine lacks the requested vector instructions");
  chosen_product_vectors.store(static_cast<int>(vectors));
}

ProductVectors product_vectors_in_use() {
  const int chosen = chosen_product_vectors.load(std::memory_order_relaxed);
  return chosen < 0 ? widest_product_vectors() : static_cast<ProductVectors>(chosen);
}

RowVector ordered_column_sums(const Matrix& a) {
  RowVector s = RowVector::Zero(a.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    const double* ai = a.data() + i * a.cols();
    for (Eigen::Index j = 0; j < a.cols(); ++j) s(j) += ai[j];
  }
  return s;
}

}  // namespace headlab
