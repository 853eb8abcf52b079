#include "core/feature_recovery_model.hpp"
#include "core/feature_recovery_task.hpp"
#include "core/check.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace headlab;
using headlab::test::dot_product_bound;
using headlab::test::kEpsilon;

TEST_CASE("the differences of the four fixed keys span three dimensions", "[feature_recovery][draft]") {
  const Matrix keys = feature_recovery_keys();
  REQUIRE(keys.rows() == 4);
  REQUIRE(keys.cols() == 3);
  Matrix differences(3, 3);
  for (int i = 1; i < 4; ++i) differences.row(i - 1) = keys.row(i) - keys.row(0);
  const Eigen::JacobiSVD<Matrix> svd(differences);
  // The differences are (0,−2,−2), (−2,0,−2), (−2,−2,0): singular values 4, 2, 2 exactly in real arithmetic.
  // Rank 3 means the smallest is far from zero; 1 is a margin that no rounding comes near.
  CHECK(svd.singularValues().minCoeff() > 1.0);
  CHECK(std::abs(svd.singularValues()(0) - 4.0) < 1e-14);
  CHECK(std::abs(svd.singularValues()(2) - 2.0) < 1e-14);
}

TEST_CASE("the mixing R is orthogonal, fixed by the seed and different across seeds", "[feature_recovery]") {
  const Matrix r0 = feature_recovery_mixing(0), r0_again = feature_recovery_mixing(0), r1 = feature_recovery_mixing(1);
  // Householder QR: ‖RᵀR − I‖ is a small multiple of d·ε; 9 × 9 gives a few 1e-15.
  CHECK((r0.transpose() * r0 - Matrix::Identity(9, 9)).cwiseAbs().maxCoeff() < 64 * 9 * kEpsilon);
  CHECK(r0 == r0_again);
  CHECK((r0 - r1).cwiseAbs().maxCoeff() > 0.1);
}

TEST_CASE("the known solution (W_q, W_v read from Rᵀ) reproduces the teacher after mixing",
          "[feature_recovery][draft]") {
  for (std::uint64_t seed : {0u, 1u, 2u}) {
    Random rng(seed + 100);
    const FeatureRecoveryBatch batch = sample_feature_recovery_batch(rng, 512, 1.8);
    const Matrix mixing = feature_recovery_mixing(seed);
    const Matrix w_q = known_query_projection(mixing), w_v = known_value_projection(mixing);
    const FeatureRecoveryForward f =
        feature_recovery_forward(mix_latent(batch.request, mixing), mix_latent(batch.records, mixing), w_q, w_v);
    const double largest = std::max(batch.request.cwiseAbs().maxCoeff(), batch.records.cwiseAbs().maxCoeff());
    // x = z·R and then x·W are two length-9 dot products with |R|, |W| ≤ 1 and |z| ≤ largest, so
    // each query and value coordinate is within 2·dot_product_bound(9, 9·largest) of the latent feature.
    const double coordinate_bound = 2 * dot_product_bound(9, 9 * largest);
    CHECK((f.query - batch.request.leftCols(3)).cwiseAbs().maxCoeff() <= coordinate_bound);
    CHECK((f.values - batch.records.middleCols(3, 3)).cwiseAbs().maxCoeff() <= coordinate_bound);
    // The prediction mixes values by weights summing to one; the query error moves the weights by at
    // most coordinate_bound·|K|·√3/√3 per score, and values are ≤ largest: a factor 8·largest margin.
    const double prediction_bound = 8 * (1 + largest) * coordinate_bound;
    CHECK((f.prediction - batch.target).cwiseAbs().maxCoeff() <= prediction_bound);
    CHECK(mean_squared_error(f.prediction, batch.target) <= prediction_bound * prediction_bound);
  }
}

TEST_CASE("batches: request features scaled, others unit normal, teacher is attention over payloads",
          "[feature_recovery][statistics]") {
  Random rng(7);
  const double scale = 1.8;
  const int n = 20000;
  const FeatureRecoveryBatch batch = sample_feature_recovery_batch(rng, n, scale);
  REQUIRE(batch.request.rows() == n);
  REQUIRE(batch.records.rows() == 4 * n);
  REQUIRE(batch.target.rows() == n);
  // Sample variance of n normals has standard error √(2/n)·σ²; 5 standard errors.
  const double se = std::sqrt(2.0 / n);
  for (int k = 0; k < 9; ++k) {
    const double var = batch.request.col(k).squaredNorm() / n;
    const double expected = k < 3 ? scale * scale : 1.0;
    CHECK(std::abs(var - expected) < 5 * se * expected);
    const double record_var = batch.records.col(k).squaredNorm() / (4 * n);
    CHECK(std::abs(record_var - 1.0) < 5 * se / 2);
  }
  // The teacher for a few examples, written out: softmax of (z_req[0..2]·k_i)/√3 over the payloads.
  for (int b = 0; b < 5; ++b) {
    double weights[4], total = 0;
    for (int i = 0; i < 4; ++i) {
      const double s = batch.request.row(b).head(3).dot(feature_recovery_keys().row(i)) / std::sqrt(3.0);
      weights[i] = std::exp(s);
      total += weights[i];
    }
    for (int j = 0; j < 3; ++j) {
      double target = 0;
      for (int i = 0; i < 4; ++i) target += weights[i] / total * batch.records(4 * b + i, 3 + j);
      // Four exponentials and two sums of four terms of magnitude ≤ 5: 32·ε·5 covers the reorderings.
      CHECK(std::abs(batch.target(b, j) - target) <= 32 * kEpsilon * 5);
    }
  }
  // The same target from the public teacher function.
  CHECK(feature_recovery_teacher(batch.request, batch.records) == batch.target);
}

TEST_CASE("sampling into a reused batch draws the same numbers as into a fresh one", "[feature_recovery]") {
  Random a(11), b(11);
  FeatureRecoveryBatch reused = sample_feature_recovery_batch(a, 64, 1.8);
  sample_feature_recovery_batch(a, 64, 1.8, reused);
  sample_feature_recovery_batch(b, 64, 1.8);
  const FeatureRecoveryBatch fresh = sample_feature_recovery_batch(b, 64, 1.8);
  CHECK(reused.request == fresh.request);
  CHECK(reused.records == fresh.records);
  CHECK(reused.target == fresh.target);
}

TEST_CASE("task arguments are checked", "[feature_recovery][errors]") {
  Random rng(0);
  CHECK_THROWS_WITH(sample_feature_recovery_batch(rng, 0, 1.8), Catch::Contains("batch size must be ≥ 1, got 0"));
  CHECK_THROWS_WITH(sample_feature_recovery_batch(rng, 4, 0.0),
                    Catch::Contains("request scale must lie in [1e-06, 1e+06], got 0"));
  CHECK_THROWS_WITH(sample_feature_recovery_batch(rng, 4, NAN), Catch::Contains("request scale"));
  CHECK_THROWS_WITH(feature_recovery_teacher(Matrix::Zero(2, 9), Matrix::Zero(7, 9)),
                    Catch::Contains("records must be 8 × 9, got 7 × 9"));
  CHECK_THROWS_WITH(known_query_projection(Matrix::Identity(8, 8)), Catch::Contains("mixing must be 9 × 9, got 8 × 8"));
}

TEST_CASE("a batch holds exactly the draws of example-by-example sampling and the teacher on them",
          "[feature_recovery]") {
  // The sampler draws the whole batch's normals in one call; the order of the draws is the
  // documented one (per example: request, then records 1–4), so every number is the same bits
  // as drawing nine and then thirty-six normals per example.
  for (const double scale : {1.0, 2.5}) {
    Random fast(11), reference(11);
    const FeatureRecoveryBatch batch = sample_feature_recovery_batch(fast, 300, scale);
    Matrix request(300, kLatentSize), records(4 * 300, kLatentSize);
    for (Eigen::Index b = 0; b < 300; ++b) {
      reference.fill_normal(request.data() + b * kLatentSize, kLatentSize);
      for (int k = 0; k < kFeatureWidth; ++k) request(b, kRequestFeatures + k) *= scale;
      reference.fill_normal(records.data() + b * kRecordCount * kLatentSize, kRecordCount * kLatentSize);
    }
    CHECK(batch.request == request);
    CHECK(batch.records == records);
    CHECK(batch.target == feature_recovery_teacher(request, records));
    CHECK(fast.next_u64() == reference.next_u64());
  }
}
