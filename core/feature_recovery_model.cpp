#include "core/feature_recovery_model.hpp"

#include "core/check.hpp"
#include "core/lanes.hpp"
#include "core/softmax.hpp"

#include <cmath>
#include <cstring>
#include <string>

namespace headlab {
namespace {

void require_model_inputs(const Matrix& x_request, const Matrix& x_records) {
  require_usable("x_request", x_request);
  require_shape("x_request", x_request, x_request.rows(), kLatentSize);
  require_usable("x_records", x_records);
  require_shape("x_records", x_records, kRecordCount * x_request.rows(), kLatentSize);
}

}  // namespace

FeatureRecoveryForward feature_recovery_forward(const Matrix& x_request, const Matrix& x_records, const Matrix& w_q,
                                                const Matrix& w_v, const Matrix& keys) {
  require_model_inputs(x_request, x_records);
  require_usable("w_q", w_q);
  require_shape("w_q", w_q, kLatentSize, kFeatureWidth);
  require_usable("w_v", w_v);
  require_shape("w_v", w_v, kLatentSize, kFeatureWidth);
  require_usable("keys", keys);
  require_shape("keys", keys, kRecordCount, kFeatureWidth);
  const Eigen::Index batch = x_request.rows();
  FeatureRecoveryForward f;
  f.query = x_request * w_q;
  f.values = x_records * w_v;
  f.scores = f.query * keys.transpose() * kInverseSqrtKeyWidth;
  f.weights.resize(batch, kRecordCount);
  f.prediction = Matrix::Zero(batch, kFeatureWidth);
  for (Eigen::Index b = 0; b < batch; ++b) {
    key_softmax(f.scores.data() + b * kRecordCount, f.weights.data() + b * kRecordCount);
    for (int i = 0; i < kRecordCount; ++i) f.prediction.row(b) += f.weights(b, i) * f.values.row(kRecordCount * b + i);
  }
  return f;
}

double mean_squared_error(const Matrix& prediction, const Matrix& target) {
  require_nonempty("prediction", prediction);
  require_shape("target", target, prediction.rows(), prediction.cols());
  return (prediction - target).squaredNorm() / static_cast<double>(prediction.size());
}

FeatureRecoveryGradients feature_recovery_backward(const FeatureRecoveryForward& f, const Matrix& x_request,
                                                   const Matrix& x_records, const Matrix& target, const Matrix& keys) {
  require_model_inputs(x_request, x_records);
  const Eigen::Index batch = x_request.rows();
  require_shape("target", target, batch, kFeatureWidth);
  FeatureRecoveryGradients g;
  const Matrix residual = f.prediction - target;
  g.loss = residual.squaredNorm() / static_cast<double>(residual.size());
  // loss = Σ residual² / (3B)  →  dprediction = 2·residual / (3B)
  const Matrix dprediction = residual * (2.0 / static_cast<double>(residual.size()));
  Matrix dvalues(kRecordCount * batch, kFeatureWidth);
  Matrix dscores(batch, kRecordCount);
  for (Eigen::Index b = 0; b < batch; ++b) {
    RowVector dweights(kRecordCount);
    for (int i = 0; i < kRecordCount; ++i) {
      // prediction_b = Σ_i weights_{b,i}·values_{4b+i}
      dvalues.row(kRecordCount * b + i) = f.weights(b, i) * dprediction.row(b);
      dweights(i) = f.values.row(kRecordCount * b + i).dot(dprediction.row(b));
    }
    // weights_b = softmax(scores_b)  →  dscores_b = weights_b ⊙ (dweights − dweights·weights_b)
    dscores.row(b) = softmax_row_backward(f.weights.row(b), dweights);
  }
  // scores = query·Kᵀ/√3  →  dquery = dscores·K/√3
  const Matrix dquery = dscores * keys * kInverseSqrtKeyWidth;
  // scores = query·Kᵀ/√3  →  dK = dscoresᵀ·query/√3
  g.dkeys = dscores.transpose() * f.query * kInverseSqrtKeyWidth;
  // query = x_request·W_q  →  dW_q = x_requestᵀ·dquery;  values = x_records·W_v  →  dW_v = x_recordsᵀ·dvalues
  g.dw_q = x_request.transpose() * dquery;
  g.dw_v = x_records.transpose() * dvalues;
  return g;
}

namespace {

// One example's forward and backward (core/lanes.hpp): T is double (one example) or Lanes2
// (examples b and b + 1, one in each lane), the same operations in the scalar order in each lane.
// Only the sums over the batch (squared error, dM_q, dM_v) cross examples; they are added by the
// caller, example b before b + 1.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // inlined: no vector crosses a call boundary
template <class T>
struct ExampleGradient {
  T squared[kFeatureWidth];                // residual_j²
  T mv_term[kLatentSize * kFeatureWidth];  // mixed_record_k · dprediction_j
  T mq_term[kLatentSize * kFeatureWidth];  // z_k · dquery_j
};

template <class T, class Keys, class Exp>
__attribute__((always_inline)) inline void example_gradient(const T* z, const T* records, const T* target,
                                                            const double* mq, const double* mv,
                                                            double dprediction_scale, Keys key, Exp exp,
                                                            ExampleGradient<T>& out) {
  // query = z·M_q
  T query[kFeatureWidth] = {};
  for (int k = 0; k < kLatentSize; ++k)
    for (int j = 0; j < kFeatureWidth; ++j) query[j] += z[k] * mq[k * kFeatureWidth + j];
  // scores = query·Kᵀ/√3, weights = softmax(scores)
  T scores[kRecordCount], weights[kRecordCount];
  for (int i = 0; i < kRecordCount; ++i) {
    T dot = {};
    for (int j = 0; j < kFeatureWidth; ++j) dot += query[j] * key(i, j);
    scores[i] = dot * kInverseSqrtKeyWidth;
  }
  lane_softmax(scores, weights, kRecordCount, exp);
  // mixed_record = Σ_i weights_i·z_i (9);  prediction = mixed_record·M_v = Σ_i weights_i·(z_i·M_v)
  T mixed_record[kLatentSize] = {};
  for (int i = 0; i < kRecordCount; ++i)
    for (int k = 0; k < kLatentSize; ++k) mixed_record[k] += weights[i] * records[i * kLatentSize + k];
  T prediction[kFeatureWidth] = {};
  for (int k = 0; k < kLatentSize; ++k)
    for (int j = 0; j < kFeatureWidth; ++j) prediction[j] += mixed_record[k] * mv[k * kFeatureWidth + j];
  T dprediction[kFeatureWidth];
  for (int j = 0; j < kFeatureWidth; ++j) {
    const T residual = prediction[j] - target[j];
    out.squared[j] = residual * residual;
    dprediction[j] = dprediction_scale * residual;
  }
  // prediction = mixed_record·M_v  →  dM_v += mixed_recordᵀ·dprediction
  for (int k = 0; k < kLatentSize; ++k)
    for (int j = 0; j < kFeatureWidth; ++j) out.mv_term[k * kFeatureWidth + j] = mixed_record[k] * dprediction[j];
  // dweights_i = (z_i·M_v)·dprediction = z_i·(M_v·dprediction)
  T value_direction[kLatentSize];
  for (int k = 0; k < kLatentSize; ++k) {
    T dot = {};
    for (int j = 0; j < kFeatureWidth; ++j) dot += mv[k * kFeatureWidth + j] * dprediction[j];
    value_direction[k] = dot;
  }
  T dweights[kRecordCount];
  T inner = {};
  for (int i = 0; i < kRecordCount; ++i) {
    T dot = {};
    for (int k = 0; k < kLatentSize; ++k) dot += records[i * kLatentSize + k] * value_direction[k];
    dweights[i] = dot;
    inner += dot * weights[i];
  }
  // dscores = weights ⊙ (dweights − dweights·weights);  dquery = dscores·K/√3
  T dquery[kFeatureWidth] = {};
  for (int i = 0; i < kRecordCount; ++i) {
    const T dscore = weights[i] * (dweights[i] - inner) * kInverseSqrtKeyWidth;
    for (int j = 0; j < kFeatureWidth; ++j) dquery[j] += dscore * key(i, j);
  }
  // query = z·M_q  →  dM_q += zᵀ·dquery
  for (int k = 0; k < kLatentSize; ++k)
    for (int j = 0; j < kFeatureWidth; ++j) out.mq_term[k * kFeatureWidth + j] = z[k] * dquery[j];
}

// sum[e] += term[e][0], then += term[e][1], e = 0 … 26 (term: lanes = examples b, b + 1).
__attribute__((always_inline)) inline void add_lanes_in_order(double* sum, const Lanes2* term) {
  constexpr int kMaps = kLatentSize * kFeatureWidth;
  int e = 0;
  for (; e + 1 < kMaps; e += 2) {
    Lanes2 acc;
    std::memcpy(&acc, sum + e, sizeof acc);
    acc += Lanes2{term[e][0], term[e + 1][0]};
    acc += Lanes2{term[e][1], term[e + 1][1]};
    std::memcpy(sum + e, &acc, sizeof acc);
  }
  for (; e < kMaps; ++e) sum[e] = (sum[e] + term[e][0]) + term[e][1];
}

template <class Keys, class Exp>
__attribute__((always_inline)) inline double latent_backward(const FeatureRecoveryBatch& batch,
                                                             const ResponseMap& response_query,
                                                             const ResponseMap& response_value,
                                                             ResponseMap& dresponse_query, ResponseMap& dresponse_value,
                                                             Keys key, Exp exp) {
  constexpr int kMaps = kLatentSize * kFeatureWidth;
  constexpr int kRecordValues = kRecordCount * kLatentSize;
  const Eigen::Index batch_size = batch.size();
  const double* mq = response_query.data();  // row-major 9 × 3: mq[3k + j]
  const double* mv = response_value.data();
  double dmq[kMaps] = {};
  double dmv[kMaps] = {};
  double squared_error = 0.0;
  const double dprediction_scale = 2.0 / static_cast<double>(kFeatureWidth * batch_size);
  const double* request = batch.request.data();  // example b: request + 9b (9), records + 36b (4 × 9)
  const double* records = batch.records.data();
  const double* target = batch.target.data();  // example b: target + 3b
  Eigen::Index b = 0;
  // Examples b and b + 1 in the two lanes.
  for (; b + 1 < batch_size; b += 2) {
    Lanes2 z[kLatentSize], r[kRecordValues], t[kFeatureWidth];
    for (int k = 0; k < kLatentSize; ++k)
      z[k] = lanes(request[b * kLatentSize + k], request[(b + 1) * kLatentSize + k]);
    for (int k = 0; k < kRecordValues; ++k)
      r[k] = lanes(records[b * kRecordValues + k], records[(b + 1) * kRecordValues + k]);
    for (int j = 0; j < kFeatureWidth; ++j)
      t[j] = lanes(target[b * kFeatureWidth + j], target[(b + 1) * kFeatureWidth + j]);
    ExampleGradient<Lanes2> g;
    example_gradient(z, r, t, mq, mv, dprediction_scale, key, exp, g);
    for (int lane = 0; lane < 2; ++lane) {
      for (int j = 0; j < kFeatureWidth; ++j) squared_error += g.squared[j][lane];
    }
    // dM[e] += term[e] of example b, then of b + 1, for each entry e: the entries e, e + 1 as the
    // lanes of one vector (a transpose of two terms), the same two additions in each lane.
    add_lanes_in_order(dmv, g.mv_term);
    add_lanes_in_order(dmq, g.mq_term);
  }
  for (; b < batch_size; ++b) {  // an odd batch's last example
    ExampleGradient<double> g;
    example_gradient(request + b * kLatentSize, records + b * kRecordValues, target + b * kFeatureWidth, mq, mv,
                     dprediction_scale, key, exp, g);
    for (int j = 0; j < kFeatureWidth; ++j) squared_error += g.squared[j];
    for (int e = 0; e < kMaps; ++e) dmv[e] += g.mv_term[e];
    for (int e = 0; e < kMaps; ++e) dmq[e] += g.mq_term[e];
  }
  for (int e = 0; e < kMaps; ++e) {
    dresponse_query.data()[e] = dmq[e];
    dresponse_value.data()[e] = dmv[e];
  }
  return squared_error / static_cast<double>(kFeatureWidth * batch_size);
}
#pragma GCC diagnostic pop

// latent_backward with the softmax exponential in use (core/lanes.hpp SoftmaxExp): the same bits
// either way; the FMA one inlines glibc's arithmetic instead of two calls of std::exp per pair.
double latent_backward_portable(const FeatureRecoveryBatch& batch, const ResponseMap& mq, const ResponseMap& mv,
                                ResponseMap& dmq, ResponseMap& dmv, ChosenKeys key) {
  return latent_backward(batch, mq, mv, dmq, dmv, key, PortableLaneExp{});
}
#ifdef HEADLAB_FMA_LANE_EXP
__attribute__((target("avx2,fma"), flatten)) double latent_backward_fma(const FeatureRecoveryBatch& batch,
                                                                        const ResponseMap& mq, const ResponseMap& mv,
                                                                        ResponseMap& dmq, ResponseMap& dmv,
                                                                        ChosenKeys key) {
  return latent_backward(batch, mq, mv, dmq, dmv, key, FmaLaneExp{});
}
#endif
double latent_backward(const FeatureRecoveryBatch& batch, const ResponseMap& mq, const ResponseMap& mv,
                       ResponseMap& dmq, ResponseMap& dmv, ChosenKeys key) {
#ifdef HEADLAB_FMA_LANE_EXP
  if (softmax_exp_in_use() == SoftmaxExp::avx2_fma) return latent_backward_fma(batch, mq, mv, dmq, dmv, key);
#endif
  return latent_backward_portable(batch, mq, mv, dmq, dmv, key);
}

}  // namespace

double feature_recovery_latent_backward(const FeatureRecoveryBatch& batch, const ResponseMap& response_query,
                                        const ResponseMap& response_value, ResponseMap& dresponse_query,
                                        ResponseMap& dresponse_value) {
  return latent_backward(batch, response_query, response_value, dresponse_query, dresponse_value,
                         ChosenKeys{kTetrahedronKeys});
}

double feature_recovery_latent_backward(const FeatureRecoveryBatch& batch, const ResponseMap& response_query,
                                        const ResponseMap& response_value, const Matrix& keys,
                                        ResponseMap& dresponse_query, ResponseMap& dresponse_value) {
  return latent_backward(batch, response_query, response_value, dresponse_query, dresponse_value,
                         ChosenKeys{keys.data()});
}

}  // namespace headlab
