// Composition between heads ("A Mathematical Framework for Transformer Circuits", Elhage et al.
// 2021): how much a later head reads what an earlier head writes, for every pair of heads in
// different layers.
//
// With row vectors on the left and the folded matrices of core/head_matrices.hpp (the layer's
// normalisation weight and centring folded into W_Q, W_K, W_V), an earlier head e writes
// x W_OV^e into the stream; a later head ℓ reads it on the query side through W_QK^ℓ, on the key
// side through W_QK^ℓᵀ, and as a value through W_OV^ℓ. The composition score of each kind is
//   Q:  ‖W_OV^e W_QK^ℓ‖_F  / (‖W_OV^e‖_F ‖W_QK^ℓ‖_F)
//   K:  ‖W_OV^e W_QK^ℓᵀ‖_F / (‖W_OV^e‖_F ‖W_QK^ℓ‖_F)
//   V:  ‖W_OV^e W_OV^ℓ‖_F  / (‖W_OV^e‖_F ‖W_OV^ℓ‖_F)
// (TransformerLens all_composition_scores), in [0, 1] since ‖AB‖_F ≤ ‖A‖_F ‖B‖_F.
//
// Every d × d product factors through d_head: W_OV^e M = W_V^e (W_O^e X) Yᵀ with X, Y d × c
// (Q: X = W_Q^ℓ, Y = W_K^ℓ; K: X = W_K^ℓ, Y = W_Q^ℓ; V: X = W_V^ℓ, Y = W_O^ℓᵀ), and for A, Z (d × c),
// B (c × c)
//   ‖A B Zᵀ‖_F² = tr(Bᵀ (AᵀA) B (ZᵀZ)) = Σ_ij (AᵀA B)_ij (B ZᵀZ)_ij,
// so nothing larger than d × c is formed: O(d c²) per head and O(c³) per pair.
//
// Baseline: the same score of random matrices of the same shapes, each entry N(0, 1) from
// Random(seed).stream(kCompositionBaselineStream). All three kinds are ‖A B C D‖_F /
// (‖A B‖_F ‖C D‖_F) with A, C (d × c) and B, D (c × d) independent Gaussian, so one baseline
// distribution serves Q, K and V. Its mean and sample standard deviation over `samples` draws tell
// a reader which scores stand out. Its mean is near 1/√d: with Gaussian factors, E‖AB‖_F² = d²c
// and E‖ABCD‖_F² ≈ d³c² (BC is c × c with entries of variance d), so the ratio² ≈ d³c² / (d²c)² = 1/d.
#pragma once

#include "core/transformer.hpp"

#include <cstdint>

namespace headlab::transformer {

constexpr std::uint64_t kCompositionBaselineStream = 7;
constexpr int kMaxCompositionBaselineSamples = 10000;

struct CompositionScores {
  // (L·H) × (L·H) each: entry (ℓ, e) with ℓ = l_later·H + h_later, e = l_earlier·H + h_earlier is
  // the score of that pair when l_earlier < l_later, and 0 on and above the layer diagonal.
  Matrix q, k, v;
  double baseline_mean = 0.0;
  double baseline_std = 0.0;  // sample standard deviation (divisor samples − 1; 0 for one sample)
  int baseline_samples = 0;
  std::uint64_t seed = 0;
};

// ‖A B Zᵀ‖_F / √(norm_left² · norm_right²) for precomputed Grams: the one formula every score
// and the baseline use. a_gram = AᵀA (c × c), b (c × c), z_gram = ZᵀZ (c × c).
double composition_score(const Matrix& a_gram, const Matrix& b, const Matrix& z_gram, double norm_left_squared,
                         double norm_right_squared);

// Throws InputError on samples ∉ [1, kMaxCompositionBaselineSamples]. A model with one layer has
// no pair: the matrices are H × H zeros (the baseline is still drawn).
CompositionScores composition_scores(const TransformerWeights& weights, int samples, std::uint64_t seed);

}  // namespace headlab::transformer
