// The student: fixed-key attention with two trainable projections.
//
// For a batch of B examples in observed coordinates (x = z·R):
//   query      = x_request · W_q                    (B × 3)
//   values     = x_records · W_v                    (4B × 3, record i of example b at row 4b + i)
//   scores     = query · Kᵀ / √3                    (B × 4), K the fixed keys
//   weights    = softmax over each row of scores    (B × 4)
//   prediction = Σ_i weights_{b,i} · values_{4b+i}  (B × 3)
//   loss       = mean over B·3 entries of (prediction − target)²
// W_q and W_v (9 × 3 each, 54 numbers) are the only parameters; the keys and R
// are constants of the task.
#pragma once

#include "core/feature_recovery_task.hpp"
#include "core/matrix.hpp"

namespace headlab {

struct FeatureRecoveryForward {
  Matrix query;       // B × 3
  Matrix values;      // 4B × 3
  Matrix scores;      // B × 4
  Matrix weights;     // B × 4
  Matrix prediction;  // B × 3
};

struct FeatureRecoveryGradients {
  double loss = 0.0;
  Matrix dw_q;   // 9 × 3, ∂loss/∂W_q
  Matrix dw_v;   // 9 × 3, ∂loss/∂W_v
  Matrix dkeys;  // 4 × 3, ∂loss/∂K (used when the keys are learned)
};

// The reference computation in observed coordinates. x_request: B × 9;
// x_records: 4B × 9; w_q, w_v: 9 × 3; keys: 4 × 3 (the fixed tetrahedron unless the keys
// are learned). Throws InputError naming the argument.
FeatureRecoveryForward feature_recovery_forward(const Matrix& x_request, const Matrix& x_records, const Matrix& w_q,
                                                const Matrix& w_v, const Matrix& keys = feature_recovery_keys());
// Mean squared error over all entries; prediction and target must share a shape.
double mean_squared_error(const Matrix& prediction, const Matrix& target);
// Loss and gradients for a forward pass and its target (B × 3).
// With learned keys also dkeys = ∂loss/∂K: scores = query·Kᵀ/√3 ⇒ dK = dscoresᵀ·query/√3.
FeatureRecoveryGradients feature_recovery_backward(const FeatureRecoveryForward& forward, const Matrix& x_request,
                                                   const Matrix& x_records, const Matrix& target,
                                                   const Matrix& keys = feature_recovery_keys());

// Response maps M = R·W (9 × 3): entry (k, j) is how much coordinate j moves per
// unit of latent feature k. Since x·W = z·R·W = z·M, the model can be evaluated
// on latent inputs through M, and ∂loss/∂W = Rᵀ·∂loss/∂M.
using ResponseMap = Eigen::Matrix<double, kLatentSize, kFeatureWidth, Eigen::RowMajor>;

// The same loss and gradients as feature_recovery_backward for the batch mixed by
// R, computed on the latent batch through M_q = R·W_q, M_v = R·W_v without
// forming x. Also reorders the value path: the prediction is (Σ_i A_i z_i)·M_v
// and ∂loss/∂A_i = z_i·(M_v·∂loss/∂prediction), so no per-record value is formed.
// Writes dresponse_query = ∂loss/∂M_q and dresponse_value = ∂loss/∂M_v; returns the
// loss. No allocation: the training loop's inner step. batch must be well formed
// (sample_feature_recovery_batch's output); it is not re-validated here.
double feature_recovery_latent_backward(const FeatureRecoveryBatch& batch, const ResponseMap& response_query,
                                        const ResponseMap& response_value, ResponseMap& dresponse_query,
                                        ResponseMap& dresponse_value);
// The same with the keys K (4 × 3, row-major, validated by the caller) chosen at run time, for
// the task whose teacher routes by other keys than the tetrahedron (same bits for its values).
double feature_recovery_latent_backward(const FeatureRecoveryBatch& batch, const ResponseMap& response_query,
                                        const ResponseMap& response_value, const Matrix& keys,
                                        ResponseMap& dresponse_query, ResponseMap& dresponse_value);

}  // namespace headlab
