// Singular value decomposition by one-sided Jacobi rotations (Hestenes 1958), written out so that
// every operation is an IEEE addition, multiplication, division or square root in a fixed order:
// the same bits natively and in WASM (Eigen's SVDs run reductions whose order depends on the
// target's vector width). One-sided Jacobi is also accurate to high relative precision in the
// singular values (Demmel & Veselić 1992).
#pragma once

#include "core/matrix.hpp"

namespace headlab {

// X = U diag(σ) Vᵀ for X (n × m), with σ descending (ties: lower original column first).
// `u` is m × n: row i = u_iᵀ (unit length, or zero when σ_i = 0); `v` is m × m: row i = v_iᵀ.
// Columns of X are orthogonalised pairwise in cyclic order (p < q) by rotations that zero
// x_p·x_q, until a sweep finds every pair orthogonal to |x_p·x_q| ≤ ε √(‖x_p‖² ‖x_q‖²) or after
// kMaxJacobiSweeps sweeps.
struct Svd {
  Vector singular_values;  // m
  Matrix u;                // m × n
  Matrix v;                // m × m
};
constexpr int kMaxJacobiSweeps = 60;
Svd jacobi_svd(const Matrix& x);

// The SVD of a product A B (A n × c, B c × n) without forming the n × n matrix:
//   Bᵀ = U_b Σ_b V_bᵀ  ⇒  A B = (A V_b Σ_b) U_bᵀ;   A V_b Σ_b = U Σ W ᵀ  ⇒  A B = U Σ (U_b W)ᵀ.
// Returns c singular values (descending), u (c × n, left singular vectors as rows) and
// v (c × n, right singular vectors as rows).
Svd factored_svd(const Matrix& a, const Matrix& b);

}  // namespace headlab
