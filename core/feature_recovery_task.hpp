// The feature-recovery task: known latent features hidden by a fixed mixing.
//
// Every input has nine latent coordinates z (a row vector):
//   z[0..2] request features, z[3..5] payload features, z[6..8] noise,
// independent N(0, 1), except that the request input's request features are
// N(0, request_scale²). An example is one request and four source records; all
// five inputs are mixed by one fixed orthogonal 9 × 9 matrix R: x = z·R.
//
// Teacher, in latent coordinates, with the four fixed keys K (4 × 3):
//   query  = z_request[0..2]                              (3)
//   A      = softmax(query·Kᵀ / √3)                       (4)
//   target = Σ_i A_i · z_record_i[3..5]                   (3)
#pragma once

#include "core/limits.hpp"
#include "core/matrix.hpp"
#include "core/softmax.hpp"
#include "core/random.hpp"

#include <cmath>
#include <cstdint>

namespace headlab {

// Largest request_scale, and init_scale (docs/limits.md; kMaxInitScale, core/limits.hpp). The sampler's normal draws stay below
// 10σ, so at a scale c ≤ 1e6 every request coordinate and initial W_q, W_v entry is < 1e7; the
// deepest product (prediction = softmax(·) · records R W_v, 9 terms of R, 9 of W_v) is < 1e17, the
// R² denominators sum ≤ 10⁶ squares of < 1e7 (< 1e20) and Adam squares gradients < 1e17·1e7:
// all far inside the double range. request_scale 1e154 squared overflowed the R² sums (NaN).
constexpr double kMaxFeatureRecoveryScale = 1e6;
// Smallest request_scale. The query R² divides by the held-out request features' spread,
// Σ (feature − mean)² = request_scale² · S with S a chi-square sum, while the residual it is
// compared with does not shrink with the scale (the query reads the other unit-variance
// coordinates too): at 1e-160 the spread underflowed to 0 and R² was 0/0, written as null. At
// 1e-6 the spread is 1e-12·S and the residual below 1e22 (weights within ±1e6, coordinates within
// 10σ), so R² = 1 − residual/spread stays finite by hundreds of orders of magnitude for any S
// above 1e-250; the evaluation still refuses an R² that is not finite, naming request_scale.
constexpr double kMinFeatureRecoveryScale = 1e-6;
// Largest |shift| of the shift intervention (settings, the interventions figure): shifted
// coordinates < 1e6 + 1e7 keep the prediction < 1e18 (the product above) and its squared error
// far inside the double range.
constexpr double kMaxFeatureRecoveryShift = 1e6;
// Largest init_scale: kMaxInitScale (core/limits.hpp), as for the other two trainers.


constexpr int kLatentSize = 9;       // d_model: z and x have nine coordinates
constexpr int kFeatureWidth = 3;     // d_k = d_v = 3, and three features per group
constexpr int kRecordCount = 4;      // source records (and keys) per example
constexpr int kRequestFeatures = 0;  // offset of request features 1–3 in z
constexpr int kPayloadFeatures = 3;  // offset of payload features 1–3 in z
constexpr int kNoiseFeatures = 6;    // offset of noise features 1–3 in z

// Sub-streams of Random(seed); each one is independent of the draws of the others.
enum FeatureRecoveryStream : std::uint64_t {
  kMixingStream = 1,      // R
  kInitialisationStream,  // W_q, W_v at step 0
  kBatchStream,           // every training batch, in step order
  kEvaluationStream,      // the held-out set
};

// A batch in latent coordinates plus the teacher's target.
struct FeatureRecoveryBatch {
  Matrix request;  // B × 9: z of each example's request
  Matrix records;  // 4B × 9: z of record i of example b at row 4b + i
  Matrix target;   // B × 3: teacher output
  Eigen::Index size() const { return request.rows(); }
};

// The four tetrahedron vertices, rows [1,1,1], [1,−1,−1], [−1,1,−1], [−1,−1,1] (4 × 3).
Matrix feature_recovery_keys();
inline double feature_recovery_key(int record, int coordinate) {
  static constexpr double keys[kRecordCount][kFeatureWidth] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
  return keys[record][coordinate];
}
// Keys a reader or author chooses instead of the tetrahedron (the task's "fixed keys" setting):
// 4 × 3, finite, every entry in [−kKeyEntryLimit, kKeyEntryLimit]. Throws InputError naming
// `name`, its shape or the first bad entry. The bound keeps scores q·k/√3 within the range
// where the softmax still has a gradient for requests of the draft's size.
constexpr double kKeyEntryLimit = 10.0;
void validate_feature_recovery_keys(const Matrix& keys, const char* name = "fixed keys");

// The query directions the keys cannot see. softmax is unchanged when every score moves by the
// same amount, so the weights softmax(q·Kᵀ/√3) depend on q only through q·(k_i − k_j): moving q
// along u with (k_i − k̄)·u = 0 for every key i changes no weight. Returns those directions as
// orthonormal rows (m × 3, m = 3 − rank of the centred keys K − 1·k̄; 0 × 3 for the
// tetrahedron, 1 × 3 when the keys lie in a plane, e.g. (0, 0, ±1) for keys whose third
// coordinate is equal). A singular value counts as zero below 1e-9 times the largest entry of |K|.
Matrix lost_query_directions(const Matrix& keys);

// The tetrahedron's entries row by row, and a key lookup for kernels that take the keys at run
// time (the tetrahedron or chosen keys, through one compiled kernel: multiplying by ±1 is exact,
// so the tetrahedron gives the same bits as constants would).
inline constexpr double kTetrahedronKeys[kRecordCount * kFeatureWidth] = {1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1};
struct ChosenKeys {
  const double* keys;  // 4 × 3, row-major
  double operator()(int record, int coordinate) const { return keys[record * 3 + coordinate]; }
};

// 1/√3: the score scaling for d_k = 3.
constexpr double kInverseSqrtKeyWidth = 0.57735026918962576451;

// R (9 × 9, orthogonal, Haar-distributed) from stream kMixingStream of Random(seed).
Matrix feature_recovery_mixing(std::uint64_t seed);

// Draws B examples from rng into `out`, reusing its storage when the shapes already
// match. Order of draws: for each example, the request's nine coordinates, then
// records 1–4, nine coordinates each. Throws InputError unless B ≥ 1 and
// request_scale is finite and > 0.
void sample_feature_recovery_batch(Random& rng, Eigen::Index batch, double request_scale, FeatureRecoveryBatch& out);
FeatureRecoveryBatch sample_feature_recovery_batch(Random& rng, Eigen::Index batch, double request_scale);
// The same draws with the teacher routing by `keys` (4 × 3, validate_feature_recovery_keys)
// instead of the tetrahedron; with the tetrahedron's values it gives the same bits.
void sample_feature_recovery_batch(Random& rng, Eigen::Index batch, double request_scale, const Matrix& keys,
                                   FeatureRecoveryBatch& out);

// The teacher's target (B × 3) for latent requests (B × 9) and records (4B × 9); keys: 4 × 3.
Matrix feature_recovery_teacher(const Matrix& request, const Matrix& records);
Matrix feature_recovery_teacher(const Matrix& request, const Matrix& records, const Matrix& keys);

// x = z·R, row by row (n × 9 from n × 9).
Matrix mix_latent(const Matrix& latent, const Matrix& mixing);

// The known solution. With R orthogonal, x·Rᵀ = z, so reading columns 0–2 of Rᵀ
// gives the request features and columns 3–5 the payload features (9 × 3 each).
Matrix known_query_projection(const Matrix& mixing);
Matrix known_value_projection(const Matrix& mixing);

// softmax of the four scores (core/softmax.hpp, std::exp).
inline void key_softmax(const double scores[kRecordCount], double weights[kRecordCount]) {
  softmax(scores, weights, kRecordCount);
}

}  // namespace headlab
