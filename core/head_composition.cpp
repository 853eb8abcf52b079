#include "core/head_composition.hpp"

#include "core/check.hpp"
#include "core/head_matrices.hpp"
#include "core/ordered_products.hpp"
#include "core/random.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace headlab::transformer {

namespace {

// Σ_ij x_ij y_ij, rows then columns ascending: tr(xᵀ y).
double frobenius_inner(const Matrix& x, const Matrix& y) { return ordered_dot(x.data(), y.data(), x.size()); }

// The Grams and squared norms of one head, every factor the scores need.
struct HeadGrams {
  Matrix W_O;                     // c × d
  Matrix W_Q, W_K, W_V;           // d × c (folded)
  Matrix gram_q, gram_k, gram_v;  // W_xᵀ W_x, c × c
  Matrix gram_o;                  // W_O W_Oᵀ, c × c
  double qk_squared = 0.0;        // ‖W_Q W_Kᵀ‖_F² = tr(gram_q gram_k)
  double ov_squared = 0.0;        // ‖W_V W_O‖_F² = tr(gram_v gram_o)
};

HeadGrams head_grams(FoldedHead f) {
  HeadGrams g;
  g.gram_q = ordered_product_tn(f.W_Q, f.W_Q);
  g.gram_k = ordered_product_tn(f.W_K, f.W_K);
  g.gram_v = ordered_product_tn(f.W_V, f.W_V);
  g.gram_o = ordered_product_nt(f.W_O, f.W_O);
  g.qk_squared = frobenius_inner(g.gram_q, g.gram_k);
  g.ov_squared = frobenius_inner(g.gram_v, g.gram_o);
  g.W_Q = std::move(f.W_Q);
  g.W_K = std::move(f.W_K);
  g.W_V = std::move(f.W_V);
  g.W_O = std::move(f.W_O);
  return g;
}

}  // namespace

double composition_score(const Matrix& a_gram, const Matrix& b, const Matrix& z_gram, double norm_left_squared,
                         double norm_right_squared) {
  const double product_squared = frobenius_inner(ordered_product(a_gram, b), ordered_product(b, z_gram));
  const double denominator = std::sqrt(norm_left_squared) * std::sqrt(norm_right_squared);
  // A head whose OV or QK matrix is zero composes with nothing.
  if (!(denominator > 0.0)) return 0.0;
  // The trace form of a squared norm may round a hair below zero when the product vanishes.
  return std::sqrt(std::max(product_squared, 0.0)) / denominator;
}

CompositionScores composition_scores(const TransformerWeights& w, int samples, std::uint64_t seed) {
  require_integer_in("samples", samples, 1, kMaxCompositionBaselineSamples);
  const auto& c = w.config;
  const int L = c.n_layers, H = c.n_heads, n = L * H;
  std::vector<HeadGrams> heads;
  heads.reserve(static_cast<std::size_t>(n));
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) heads.push_back(head_grams(folded_head(w, l, h)));

  CompositionScores out;
  out.q = out.k = out.v = Matrix::Zero(n, n);
  for (int later = 0; later < n; ++later) {
    const HeadGrams& b = heads[static_cast<std::size_t>(later)];
    for (int earlier = 0; earlier < (later / H) * H; ++earlier) {
      const HeadGrams& a = heads[static_cast<std::size_t>(earlier)];
      out.q(later, earlier) =
          composition_score(a.gram_v, ordered_product(a.W_O, b.W_Q), b.gram_k, a.ov_squared, b.qk_squared);
      out.k(later, earlier) =
          composition_score(a.gram_v, ordered_product(a.W_O, b.W_K), b.gram_q, a.ov_squared, b.qk_squared);
      out.v(later, earlier) =
          composition_score(a.gram_v, ordered_product(a.W_O, b.W_V), b.gram_o, a.ov_squared, b.ov_squared);
    }
  }

  // Baseline: A (d × c), B (c × d), C (d × c), D (c × d) drawn in that order per sample;
  // score ‖A B C D‖_F / (‖A B‖_F ‖C D‖_F) through the same factorisation.
  Random rng = Random(seed).stream(kCompositionBaselineStream);
  std::vector<double> draws;
  draws.reserve(static_cast<std::size_t>(samples));
  for (int s = 0; s < samples; ++s) {
    const Matrix A = rng.normal_matrix(c.d_model, c.d_head);
    const Matrix B = rng.normal_matrix(c.d_head, c.d_model);
    const Matrix C = rng.normal_matrix(c.d_model, c.d_head);
    const Matrix D = rng.normal_matrix(c.d_head, c.d_model);
    const Matrix gram_a = ordered_product_tn(A, A), gram_b = ordered_product_nt(B, B);
    const Matrix gram_c = ordered_product_tn(C, C), gram_d = ordered_product_nt(D, D);
    draws.push_back(composition_score(gram_a, ordered_product(B, C), gram_d, frobenius_inner(gram_a, gram_b),
                                      frobenius_inner(gram_c, gram_d)));
  }
  const double mean = ordered_sum(draws.data(), samples) / samples;
  double squares = 0.0;
  for (double x : draws) squares += (x - mean) * (x - mean);
  out.baseline_mean = mean;
  out.baseline_std = samples > 1 ? std::sqrt(squares / (samples - 1)) : 0.0;
  out.baseline_samples = samples;
  out.seed = seed;
  return out;
}

}  // namespace headlab::transformer
