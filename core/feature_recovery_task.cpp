#include "core/feature_recovery_task.hpp"

#include "core/check.hpp"
#include "core/lanes.hpp"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace headlab {
namespace {

// Target of one example: z_request (9), z_records (4 consecutive rows of 9), target (3). T is
// double, or Lanes2 for two examples at once, each lane with the one-example bits (core/lanes.hpp).
template <class T, class Keys, class Exp>
__attribute__((always_inline)) inline void teacher_example(const T* request, const T* records, T* target, Keys key,
                                                           Exp exp) {
  T scores[kRecordCount], weights[kRecordCount];
  for (int i = 0; i < kRecordCount; ++i) {
    T dot = {};
    for (int j = 0; j < kFeatureWidth; ++j) dot += request[kRequestFeatures + j] * key(i, j);
    scores[i] = dot * kInverseSqrtKeyWidth;
  }
  lane_softmax(scores, weights, kRecordCount, exp);
  for (int j = 0; j < kFeatureWidth; ++j) {
    T sum = {};
    for (int i = 0; i < kRecordCount; ++i) sum += weights[i] * records[i * kLatentSize + kPayloadFeatures + j];
    target[j] = sum;
  }
}

// Targets of examples 0 … n−1 (request: n × 9, records: 4n × 9, target: n × 3, row-major), two at a time.
template <class Keys, class Exp>
__attribute__((always_inline)) inline void teacher_rows(const double* request, const double* records, double* target,
                                                        Eigen::Index n, Keys key, Exp exp) {
  Eigen::Index b = 0;
  for (; b + 1 < n; b += 2) {
    Lanes2 z[kFeatureWidth], payload[kRecordCount * kLatentSize], out[kFeatureWidth];  // payload: columns 3–5 only
    for (int j = 0; j < kFeatureWidth; ++j) {
      z[j] =
          lanes(request[b * kLatentSize + kRequestFeatures + j], request[(b + 1) * kLatentSize + kRequestFeatures + j]);
    }
    for (int i = 0; i < kRecordCount; ++i) {
      for (int j = 0; j < kFeatureWidth; ++j) {
        const int at = i * kLatentSize + kPayloadFeatures + j;
        payload[at] =
            lanes(records[b * kRecordCount * kLatentSize + at], records[(b + 1) * kRecordCount * kLatentSize + at]);
      }
    }
    // teacher_example reads request features 0–2 only: z stands in for the request's first row.
    static_assert(kRequestFeatures == 0, "z holds the request features at offset 0");
    teacher_example(z, payload, out, key, exp);
    for (int j = 0; j < kFeatureWidth; ++j) {
      target[b * kFeatureWidth + j] = out[j][0];
      target[(b + 1) * kFeatureWidth + j] = out[j][1];
    }
  }
  for (; b < n; ++b) {
    teacher_example(request + b * kLatentSize, records + b * kRecordCount * kLatentSize, target + b * kFeatureWidth,
                    key, exp);
  }
}

// teacher_rows with the softmax exponential in use (core/lanes.hpp SoftmaxExp; the same bits either way).
template <class Keys>
void teacher_rows_portable(const double* request, const double* records, double* target, Eigen::Index n, Keys key) {
  teacher_rows(request, records, target, n, key, PortableLaneExp{});
}
#ifdef HEADLAB_FMA_LANE_EXP
template <class Keys>
__attribute__((target("avx2,fma"), flatten)) void teacher_rows_fma(const double* request, const double* records,
                                                                   double* target, Eigen::Index n, Keys key) {
  teacher_rows(request, records, target, n, key, FmaLaneExp{});
}
#endif
template <class Keys>
void teacher_rows(const double* request, const double* records, double* target, Eigen::Index n, Keys key) {
#ifdef HEADLAB_FMA_LANE_EXP
  if (softmax_exp_in_use() == SoftmaxExp::avx2_fma) return teacher_rows_fma(request, records, target, n, key);
#endif
  teacher_rows_portable(request, records, target, n, key);
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

namespace {

template <class Keys>
void sample_batch(Random& rng, Eigen::Index batch, double request_scale, FeatureRecoveryBatch& out, Keys key) {
  if (batch < 1) throw InputError("batch size must be ≥ 1, got " + std::to_string(batch));
  if (!(std::isfinite(request_scale) && request_scale >= kMinFeatureRecoveryScale &&
        request_scale <= kMaxFeatureRecoveryScale)) {
    throw InputError("request scale must lie in [" + number_text(kMinFeatureRecoveryScale) + ", " +
                     number_text(kMaxFeatureRecoveryScale) + "], got " + number_text(request_scale));
  }
  if (out.request.rows() != batch || out.request.cols() != kLatentSize) out.request.resize(batch, kLatentSize);
  if (out.records.rows() != kRecordCount * batch || out.records.cols() != kLatentSize) {
    out.records.resize(kRecordCount * batch, kLatentSize);
  }
  if (out.target.rows() != batch || out.target.cols() != kFeatureWidth) out.target.resize(batch, kFeatureWidth);
  // The normals straight into the two matrices, in the order of the draws and in one loop: each
  // example's request, then its records 1–4 (four consecutive rows). Then the request features
  // scaled, and the teacher, two examples at a time.
  rng.fill_normal_groups(out.request.data(), kLatentSize, out.records.data(), kRecordCount * kLatentSize,
                         static_cast<std::size_t>(batch));
  for (Eigen::Index b = 0; b < batch; ++b) {
    for (int k = 0; k < kFeatureWidth; ++k) out.request(b, kRequestFeatures + k) *= request_scale;
  }
  teacher_rows(out.request.data(), out.records.data(), out.target.data(), batch, key);
}

template <class Keys>
Matrix teacher(const Matrix& request, const Matrix& records, Keys key) {
  require_latent_batch(request, records);
  Matrix target(request.rows(), kFeatureWidth);
  teacher_rows(request.data(), records.data(), target.data(), request.rows(), key);
  return target;
}

}  // namespace

void validate_feature_recovery_keys(const Matrix& keys, const char* name) {
  require_usable(name, keys);
  require_shape(name, keys, kRecordCount, kFeatureWidth);
  for (Eigen::Index i = 0; i < keys.rows(); ++i) {
    for (Eigen::Index j = 0; j < keys.cols(); ++j) {
      if (std::abs(keys(i, j)) > kKeyEntryLimit) {
        throw InputError(std::string(name) + " entries must lie in [-10, 10], got " + number_text(keys(i, j)) +
                         " in row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1));
      }
    }
  }
}

Matrix lost_query_directions(const Matrix& keys) {
  require_usable("keys", keys);
  require_shape("keys", keys, keys.rows(), kFeatureWidth);
  require_nonempty("keys", keys);
  const Matrix centred = keys.rowwise() - keys.colwise().mean();
  // Right singular vectors of the centred keys (full V, 3 × 3): those with a zero singular value
  // span {u : (k_i − k̄)·u = 0 for all i}.
  const Eigen::JacobiSVD<Matrix> svd(centred, Eigen::ComputeFullV);
  const double zero = 1e-9 * std::max(1.0, keys.cwiseAbs().maxCoeff());
  Eigen::Index rank = 0;
  for (Eigen::Index k = 0; k < svd.singularValues().size(); ++k) rank += svd.singularValues()(k) > zero ? 1 : 0;
  Matrix lost = svd.matrixV().rightCols(kFeatureWidth - rank).transpose();
  // Sign convention: the largest entry of each direction is positive, so (0, 0, 1) and not (0, 0, −1).
  for (Eigen::Index r = 0; r < lost.rows(); ++r) {
    Eigen::Index top = 0;
    lost.row(r).cwiseAbs().maxCoeff(&top);
    if (lost(r, top) < 0) lost.row(r) *= -1.0;
  }
  return lost;
}

void sample_feature_recovery_batch(Random& rng, Eigen::Index batch, double request_scale, FeatureRecoveryBatch& out) {
  sample_batch(rng, batch, request_scale, out, ChosenKeys{kTetrahedronKeys});
}

void sample_feature_recovery_batch(Random& rng, Eigen::Index batch, double request_scale, const Matrix& keys,
                                   FeatureRecoveryBatch& out) {
  validate_feature_recovery_keys(keys, "keys");
  sample_batch(rng, batch, request_scale, out, ChosenKeys{keys.data()});
}

FeatureRecoveryBatch sample_feature_recovery_batch(Random& rng, Eigen::Index batch, double request_scale) {
  FeatureRecoveryBatch out;
  sample_feature_recovery_batch(rng, batch, request_scale, out);
  return out;
}

Matrix feature_recovery_teacher(const Matrix& request, const Matrix& records) {
  return teacher(request, records, ChosenKeys{kTetrahedronKeys});
}

Matrix feature_recovery_teacher(const Matrix& request, const Matrix& records, const Matrix& keys) {
  validate_feature_recovery_keys(keys, "keys");
  return teacher(request, records, ChosenKeys{keys.data()});
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
