#include "core/feature_recovery_task.hpp"

#include "core/check.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace headlab {
namespace {

// Target of one example: z_request (9), z_records (4 consecutive rows of 9), target (3).
void teacher_example(const double* request, const double* records, double* target) {
  double scores[kRecordCount], weights[kRecordCount];
  for (int i = 0; i < kRecordCount; ++i) {
    double dot = 0.0;
    for (int j = 0; j < kFeatureWidth; ++j) dot += request[kRequestFeatures + j] * feature_recovery_key(i, j);
    scores[i] = dot * kInverseSqrtKeyWidth;
  }
  key_softmax(scores, weights);
  for (int j = 0; j < kFeatureWidth; ++j) {
    double sum = 0.0;
    for (int i = 0; i < kRecordCount; ++i) sum += weights[i] * records[i * kLatentSize + kPayloadFeatures + j];
    target[j] = sum;
  }
}

void require_latent_batch(const Matrix& request, const Matrix& records) {
  require_usable("request", request);
  require_shape("request", request, request.rows(), kLatentSize);
  require_usable("records", records);
  require_shape("records", records, kRecordCount * request.rows(), kLatentSize);
}

}  // namespace

Matrix feature_recovery_keys() {
  Matrix keys(kRecordCount, kFeatureWidth);
  for (int i = 0; i < kRecordCount; ++i)
    for (int j = 0; j < kFeatureWidth; ++j) keys(i, j) = feature_recovery_key(i, j);
  return keys;
}

Matrix feature_recovery_mixing(std::uint64_t seed) {
  Random rng = Random(seed).stream(kMixingStream);
  return random_orthogonal(kLatentSize, rng);
}

void sample_feature_recovery_batch(Random& rng, Eigen::Index batch, double request_scale, FeatureRecoveryBatch& out) {
  if (batch < 1) throw InputError("batch size must be ≥ 1, got " + std::to_string(batch));
  if (!(std::isfinite(request_scale) && request_scale > 0.0)) {
    throw InputError("request scale must be a finite number > 0, got " + std::to_string(request_scale));
  }
  if (out.request.rows() != batch || out.request.cols() != kLatentSize) out.request.resize(batch, kLatentSize);
  if (out.records.rows() != kRecordCount * batch || out.records.cols() != kLatentSize) {
    out.records.resize(kRecordCount * batch, kLatentSize);
  }
  if (out.target.rows() != batch || out.target.cols() != kFeatureWidth) out.target.resize(batch, kFeatureWidth);
  // The whole batch's normals in one call (request, then records 1–4, example by example: the
  // order of the draws), then laid out in the two matrices.
  constexpr int kPerExample = (1 + kRecordCount) * kLatentSize;
  thread_local std::vector<double> draws;
  draws.resize(static_cast<std::size_t>(batch) * kPerExample);
  rng.fill_normal(draws.data(), draws.size());
  for (Eigen::Index b = 0; b < batch; ++b) {
    const double* drawn = draws.data() + b * kPerExample;
    double* request = out.request.data() + b * kLatentSize;
    double* records = out.records.data() + b * kRecordCount * kLatentSize;
    std::memcpy(request, drawn, sizeof(double) * kLatentSize);
    for (int k = 0; k < kFeatureWidth; ++k) request[kRequestFeatures + k] *= request_scale;
    std::memcpy(records, drawn + kLatentSize, sizeof(double) * kRecordCount * kLatentSize);
    teacher_example(request, records, out.target.data() + b * kFeatureWidth);
  }
}

FeatureRecoveryBatch sample_feature_recovery_batch(Random& rng, Eigen::Index batch, double request_scale) {
  FeatureRecoveryBatch out;
  sample_feature_recovery_batch(rng, batch, request_scale, out);
  return out;
}

Matrix feature_recovery_teacher(const Matrix& request, const Matrix& records) {
  require_latent_batch(request, records);
  Matrix target(request.rows(), kFeatureWidth);
  for (Eigen::Index b = 0; b < request.rows(); ++b) {
    teacher_example(request.data() + b * kLatentSize, records.data() + b * kRecordCount * kLatentSize,
                    target.data() + b * kFeatureWidth);
  }
  return target;
}

Matrix mix_latent(const Matrix& latent, const Matrix& mixing) {
  require_shape("mixing", mixing, kLatentSize, kLatentSize);
  require_shape("latent", latent, latent.rows(), kLatentSize);
  return latent * mixing;
}

Matrix known_query_projection(const Matrix& mixing) {
  require_shape("mixing", mixing, kLatentSize, kLatentSize);
  return mixing.transpose().middleCols(kRequestFeatures, kFeatureWidth);
}

Matrix known_value_projection(const Matrix& mixing) {
  require_shape("mixing", mixing, kLatentSize, kLatentSize);
  return mixing.transpose().middleCols(kPayloadFeatures, kFeatureWidth);
}

}  // namespace headlab
