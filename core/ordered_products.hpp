// Matrix products and sums with one summation order on every target, for the attention-only
// transformer (core/transformer.hpp) and its analyses.
//
// Why: Eigen's products and reductions sum in an order that depends on the target's vector
// width (SSE2/AVX natively, scalar in WASM, where Eigen 3.4 has no packet math), so the native
// CLI and the WASM module would disagree in the last bits — and training, which feeds every
// rounding back into the weights, would drift apart. Here every output entry is the sum of its
// terms in ascending index order, starting from 0.0, each product and sum rounded on its own
// (the core is built with -ffp-contract=off and without -ffast-math): the same bits natively and
// in WASM. The loops run along contiguous rows (Matrix is row-major), so compilers vectorise them
// across output columns without reordering any one entry's sum.
#pragma once

#include "core/matrix.hpp"

namespace headlab {

// a b: c(i, j) = Σ_k a(i, k) b(k, j), k ascending.                          (n × m)(m × p) → n × p
Matrix ordered_product(const Matrix& a, const Matrix& b);
// aᵀ b: c(i, j) = Σ_k a(k, i) b(k, j), k ascending.                          (m × n)ᵀ(m × p) → n × p
Matrix ordered_product_tn(const Matrix& a, const Matrix& b);
// a bᵀ: c(i, j) = Σ_k a(i, k) b(j, k), k ascending.                          (n × m)(p × m)ᵀ → n × p
Matrix ordered_product_nt(const Matrix& a, const Matrix& b);
// The causal products of attention (square T × T patterns, zero above the diagonal), without the
// work above the diagonal:
// q kᵀ below and on the diagonal: c(i, j) = Σ_k a(i, k) b(j, k), k ascending, for j ≤ i; c(i, j) = 0
// for j > i.                                                                  (T × m)(T × m)ᵀ → T × T
Matrix ordered_causal_product_nt(const Matrix& a, const Matrix& b);
// pattern × values for a pattern `a` that is zero above the diagonal: c(i, col) = Σ_{j ≤ i} a(i, j)
// b(j, col), j ascending — ordered_product(a, b) without its terms j > i. Each of those is
// 0 · b(j, col) = ±0, and adding ±0 to a sum that started at +0.0 never changes it (round to nearest
// gives −0 only for −0 + −0), so for finite b the bits are ordered_product's.   (T × T)(T × p) → T × p
Matrix ordered_causal_product(const Matrix& a, const Matrix& b);
// c += aᵀ b, the product summed first (as above), then added: the gradient accumulations.
void add_ordered_product_tn(Matrix& c, const Matrix& a, const Matrix& b);
// Σ_i x_i and Σ_i x_i y_i, i ascending.
double ordered_sum(const double* x, Eigen::Index n);
double ordered_dot(const double* x, const double* y, Eigen::Index n);
// Row vector of the column sums, rows added in ascending order.                       n × p → 1 × p
RowVector ordered_column_sums(const Matrix& a);

// The vector instructions the products above run on. `portable`: 2 doubles per register (SSE2
// natively; simd128 in WASM, the only set there); natively the widest this CPU has is chosen at run
// time: AVX2 (4 doubles, no FMA) or AVX-512F (8). Every entry's terms are added in the same order,
// each product and sum rounded on its own, at every width: the same bits (tests/core/
// ordered_products_test.cpp holds each width to the portable one's bits).
enum class ProductVectors { portable, avx2, avx512 };
bool product_vectors_available(ProductVectors vectors);
// The vectors every product uses from now on, process-wide; the widest available until called.
// For benchmarks and tests that run each width through the transformer. Throws InputError when
// this machine lacks them.
void use_product_vectors(ProductVectors vectors);
ProductVectors product_vectors_in_use();

}  // namespace headlab
