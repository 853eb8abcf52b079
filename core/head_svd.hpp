// Each head's OV and QK matrices taken apart by their singular value decompositions, read in
// token space, and the OV circuit's copying score ("A Mathematical Framework for Transformer
// Circuits", Elhage et al. 2021).
//
// With the folded matrices of core/head_matrices.hpp (d × d, row vectors on the left):
//   W_OV = W_V W_O = Σ_i σ_i u_i v_iᵀ : the head reads the attended residual along u_i and writes
//                                       σ_i times that amount along v_i;
//   W_QK = W_Q W_Kᵀ = Σ_i σ_i u_i v_iᵀ : the score gains σ_i (x_query·u_i)(x_key·v_i).
// At most d_head singular values are nonzero; all d_head are reported (core/jacobi_svd.hpp,
// through the d × c factors). A singular pair is defined up to a common sign: it is fixed so that
// the token-space reading of u_i (below) has its largest-magnitude entry positive (the lower
// token on a tie).
//
// Token-space readings of direction i (V entries each): OV input W_E u_i (which tokens' embeddings
// the head reads along u_i), OV output v_iᵀ W_U (which logits the write raises; W_U folded with the
// final normalisation), QK query W_E u_i and key W_E v_i. Positional embeddings and biases are
// left out, as in TransformerLens's OV and QK circuits.
//
// Copying score: the eigenvalues λ of the V × V circuit W_E W_OV W_U, through its c × c twin
// (W_O W_U)(W_E W_V) (A B and B A share their nonzero eigenvalues), and
//   copying = Σ max(Re λ, 0) / Σ |λ|,  |λ| = √(Re² + Im²),  0 for a head whose λ are all 0:
// 1 when the circuit maps every token onto itself with a positive gain, about ½ for a random one.
// The eigenvalues come from Eigen's EigenSolver (Hessenberg reduction and shifted QR), whose
// reductions sum in an order that depends on the vector width: native and WASM may differ in the
// last bits of λ and of the copying score (tests/wasm holds them within kCopyingNativeWasmBound).
#pragma once

#include "core/transformer.hpp"

#include <complex>
#include <vector>

namespace headlab::transformer {

// Heads · d_model · d_head² per model, the work of the Jacobi sweeps (each O(d c²)); a model past
// it is refused with a message naming the product.
constexpr long long kMaxHeadSvdWork = 1LL << 28;
// Native and WASM copying scores differ by at most this (absolute).
constexpr double kCopyingNativeWasmBound = 1e-12;

struct HeadSvd {
  Vector ov_singular_values, qk_singular_values;     // c each, descending
  Matrix ov_input, ov_output;                        // directions × V token readings
  Matrix qk_query, qk_key;                           // directions × V token readings
  std::vector<std::complex<double>> ov_eigenvalues;  // c eigenvalues of (W_O W_U)(W_E W_V), largest |λ| first
  double copying = 0.0;
};

// One per head, row l·H + h. `directions` ∈ [1, d_head]: the top directions read in token space.
// Throws InputError on directions out of range or a model past kMaxHeadSvdWork or with
// d_vocab > kMaxCircuitVocab (core/head_matrices.hpp).
std::vector<HeadSvd> head_svds(const TransformerWeights& weights, int directions);

// Σ max(Re λ, 0) / Σ |λ| (0 when every λ is 0).
double copying_score(const std::vector<std::complex<double>>& eigenvalues);

}  // namespace headlab::transformer
