#include "core/head_composition.hpp"

#include "core/check.hpp"
#include "core/head_matrices.hpp"
#include "core/tolerances.hpp"
#include "support/random_transformer.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::InputError;
using headlab::Matrix;
using namespace headlab::transformer;

namespace {

TransformerWeights random_model(Normalization norm, int layers, std::uint64_t seed) {
  return headlab::test::random_transformer(transformer_config({layers, 2, 8, 3, 6, 10}, norm), seed, 0.8);
}

// A single rank-one head per layer on basis vectors e_i of a 4-dimensional stream.
Matrix unit(int i, int rows, int cols) {
  Matrix m = Matrix::Zero(rows, cols);
  m(i % rows, i / rows) = 1.0;
  return m;
}

}  // namespace

TEST_CASE("composition scores equal ‖W_OV W_QK‖_F / (‖W_OV‖_F ‖W_QK‖_F) of the whole d × d matrices",
          "[head_composition]") {
  for (const auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre}) {
    const auto w = random_model(norm, 3, 5);
    const auto s = composition_scores(w, 4, 0);
    const int H = w.config.n_heads;
    for (int later = 0; later < 3 * H; ++later) {
      for (int earlier = 0; earlier < 3 * H; ++earlier) {
        if (earlier / H >= later / H) {
          CHECK(s.q(later, earlier) == 0.0);
          continue;
        }
        const auto e = folded_head(w, earlier / H, earlier % H), l = folded_head(w, later / H, later % H);
        const Matrix ov = e.W_V * e.W_O, qk = l.W_Q * l.W_K.transpose(), ov_later = l.W_V * l.W_O;
        const double tolerance = headlab::test::kReorderedSumAbsolute;
        CHECK_THAT(s.q(later, earlier),
                   Catch::Matchers::WithinAbs((ov * qk).norm() / (ov.norm() * qk.norm()), tolerance));
        CHECK_THAT(s.k(later, earlier),
                   Catch::Matchers::WithinAbs((ov * qk.transpose()).norm() / (ov.norm() * qk.norm()), tolerance));
        CHECK_THAT(s.v(later, earlier),
                   Catch::Matchers::WithinAbs((ov * ov_later).norm() / (ov.norm() * ov_later.norm()), tolerance));
      }
    }
  }
}

TEST_CASE("composition: a head that keys on what an earlier head writes scores 1, the others 0", "[head_composition]") {
  // Earlier head: reads e0, writes e1 (W_OV = e0 e1ᵀ). Later head: keys on e1, queries e2, values e3.
  TransformerWeights w = zero_weights(transformer_config({2, 1, 4, 1, 4, 4}));
  w.layers[0].W_V[0] = unit(0, 4, 1);
  w.layers[0].W_O[0] = unit(1, 4, 1).transpose();
  w.layers[1].W_K[0] = unit(1, 4, 1);
  w.layers[1].W_Q[0] = unit(2, 4, 1);
  w.layers[1].W_V[0] = unit(3, 4, 1);
  w.layers[1].W_O[0] = unit(0, 4, 1).transpose();
  const auto s = composition_scores(w, 2, 0);
  CHECK(s.k(1, 0) == 1.0);
  CHECK(s.q(1, 0) == 0.0);
  CHECK(s.v(1, 0) == 0.0);
}

TEST_CASE("composition baseline: seeded, near 1/√d for random matrices, one model layer has no pairs",
          "[head_composition]") {
  const auto w = random_model(Normalization::none, 1, 3);
  const auto a = composition_scores(w, 200, 11), b = composition_scores(w, 200, 11),
             other = composition_scores(w, 200, 12);
  CHECK(a.q.isZero(0.0));
  CHECK(a.q.rows() == 2);
  CHECK(a.baseline_mean == b.baseline_mean);
  CHECK(a.baseline_std == b.baseline_std);
  CHECK(a.baseline_mean != other.baseline_mean);
  CHECK(a.baseline_samples == 200);
  // d = 8: E‖ABCD‖² / (E‖AB‖² E‖CD‖²) = 1/d, so the ratio sits near 1/√8 ≈ 0.35.
  CHECK(a.baseline_mean > 0.25);
  CHECK(a.baseline_mean < 0.45);
  CHECK(a.baseline_std > 0.0);
  CHECK(a.baseline_std < 0.3);
  CHECK_THROWS_AS(composition_scores(w, 0, 0), InputError);
  CHECK_THROWS_WITH(composition_scores(w, 10001, 0), Catch::Contains("samples"));
}
