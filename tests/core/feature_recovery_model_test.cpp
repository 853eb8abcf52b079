#include "core/feature_recovery_model.hpp"
#include "core/check.hpp"
#include "core/tolerances.hpp"
#include "support/gradient_check.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace headlab;

namespace {

struct Fixture {
  FeatureRecoveryBatch latent;
  Matrix mixing, x_request, x_records, w_q, w_v;
};

Fixture fixture(std::uint64_t seed, int batch) {
  Random rng(seed);
  Fixture f;
  f.latent = sample_feature_recovery_batch(rng, batch, 1.8);
  f.mixing = feature_recovery_mixing(seed);
  f.x_request = mix_latent(f.latent.request, f.mixing);
  f.x_records = mix_latent(f.latent.records, f.mixing);
  f.w_q = rng.normal_matrix(9, 3, 0.5);
  f.w_v = rng.normal_matrix(9, 3, 0.5);
  return f;
}

double loss_at(const Fixture& f, const Matrix& w_q, const Matrix& w_v) {
  return mean_squared_error(feature_recovery_forward(f.x_request, f.x_records, w_q, w_v).prediction, f.latent.target);
}

}  // namespace

TEST_CASE("backward matches central finite differences for every entry of W_q and W_v",
          "[feature_recovery][gradient]") {
  const Fixture f = fixture(5, 16);
  const FeatureRecoveryGradients g = feature_recovery_backward(
      feature_recovery_forward(f.x_request, f.x_records, f.w_q, f.w_v), f.x_request, f.x_records, f.latent.target);
  Matrix w_q = f.w_q, w_v = f.w_v;
  const auto loss = [&] { return loss_at(f, w_q, w_v); };
  test::check_gradient("W_q", loss, w_q, g.dw_q, test::kSmoothLossGradient);
  test::check_gradient("W_v", loss, w_v, g.dw_v, test::kSmoothLossGradient);
  CHECK(g.loss == loss_at(f, f.w_q, f.w_v));
}

TEST_CASE("the latent path through R·W gives the same loss and gradients as the observed path",
          "[feature_recovery][gradient]") {
  const Fixture f = fixture(9, 128);
  const FeatureRecoveryGradients g = feature_recovery_backward(
      feature_recovery_forward(f.x_request, f.x_records, f.w_q, f.w_v), f.x_request, f.x_records, f.latent.target);
  ResponseMap response_query = f.mixing * f.w_q, response_value = f.mixing * f.w_v, dresponse_query, dresponse_value;
  const double loss =
      feature_recovery_latent_backward(f.latent, response_query, response_value, dresponse_query, dresponse_value);
  // Both paths reorder sums of terms of order one (|z| ≲ 5, |W| ≲ 2, 9-long products) across a batch of
  // 128: a relative 1e-13 is ≈ 500·ε, the rounding of a few hundred operations of that size.
  CHECK(std::abs(loss - g.loss) <= 1e-13 * g.loss);
  const Matrix dw_q = f.mixing.transpose() * Matrix(dresponse_query);
  const Matrix dw_v = f.mixing.transpose() * Matrix(dresponse_value);
  CHECK((dw_q - g.dw_q).cwiseAbs().maxCoeff() <= 1e-13 * g.dw_q.cwiseAbs().maxCoeff());
  CHECK((dw_v - g.dw_v).cwiseAbs().maxCoeff() <= 1e-13 * g.dw_v.cwiseAbs().maxCoeff());
}

TEST_CASE("forward shapes: query B × 3, values 4B × 3, weights rows sum to one", "[feature_recovery]") {
  const Fixture f = fixture(1, 6);
  const FeatureRecoveryForward r = feature_recovery_forward(f.x_request, f.x_records, f.w_q, f.w_v);
  CHECK(r.query.rows() == 6);
  CHECK(r.values.rows() == 24);
  CHECK(r.scores.cols() == 4);
  CHECK(r.prediction.rows() == 6);
  CHECK(r.prediction.cols() == 3);
  for (int b = 0; b < 6; ++b) CHECK(std::abs(r.weights.row(b).sum() - 1.0) <= headlab::test::softmax_row_sum_bound(4));
}

TEST_CASE("model arguments are checked and named", "[feature_recovery][errors]") {
  const Fixture f = fixture(1, 4);
  CHECK_THROWS_WITH(feature_recovery_forward(f.x_request, f.x_records, Matrix::Zero(9, 4), f.w_v),
                    Catch::Contains("w_q must be 9 × 3, got 9 × 4"));
  CHECK_THROWS_WITH(feature_recovery_forward(f.x_request, f.x_records.topRows(15), f.w_q, f.w_v),
                    Catch::Contains("x_records must be 16 × 9, got 15 × 9"));
  Matrix bad = f.w_v;
  bad(2, 1) = NAN;
  CHECK_THROWS_WITH(feature_recovery_forward(f.x_request, f.x_records, f.w_q, bad),
                    Catch::Contains("w_v (9 × 3) has a non-finite entry"));
  CHECK_THROWS_WITH(mean_squared_error(Matrix::Zero(2, 3), Matrix::Zero(3, 3)),
                    Catch::Contains("target must be 2 × 3"));
}

TEST_CASE("with learned keys, dK, dW_q and dW_v match central finite differences",
          "[feature_recovery][gradient][learned_keys]") {
  const Fixture f = fixture(7, 16);
  Random rng(11);
  const Matrix keys = rng.normal_matrix(4, 3);
  const auto loss_with = [&](const Matrix& w_q, const Matrix& k) {
    return mean_squared_error(feature_recovery_forward(f.x_request, f.x_records, w_q, f.w_v, k).prediction,
                              f.latent.target);
  };
  const FeatureRecoveryGradients g =
      feature_recovery_backward(feature_recovery_forward(f.x_request, f.x_records, f.w_q, f.w_v, keys), f.x_request,
                                f.x_records, f.latent.target, keys);
  REQUIRE(g.dkeys.rows() == 4);
  REQUIRE(g.dkeys.cols() == 3);
  // Same step and bound as for W_q and W_v above.
  Matrix w_q = f.w_q, k = keys;
  const auto loss = [&] { return loss_with(w_q, k); };
  test::check_gradient("K", loss, k, g.dkeys, test::kSmoothLossGradient);
  test::check_gradient("W_q", loss, w_q, g.dw_q, test::kSmoothLossGradient);
  // The gradient is not trivially zero.
  CHECK(g.dkeys.cwiseAbs().maxCoeff() > 1e-4);
}
