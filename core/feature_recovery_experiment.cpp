#include "core/feature_recovery_experiment.hpp"
#include "core/loss_divergence.hpp"

#include "core/check.hpp"

#include <chrono>
#include <cmath>
#include <string>
#include <utility>

namespace headlab {
namespace {

Matrix initial_projection(const FeatureRecoverySettings& settings, int which) {
  // Stream kInitialisationStream draws W_q (rows 0–8) then W_v (rows 0–8), row by row, then
  // (learned keys only) K (4 × 3, N(0, 1)); so the fixed-key runs draw exactly as before.
  Random rng = Random(settings.seed).stream(kInitialisationStream);
  Matrix w_q = rng.normal_matrix(kLatentSize, kFeatureWidth, settings.init_scale);
  if (which == 0) return w_q;
  Matrix w_v = rng.normal_matrix(kLatentSize, kFeatureWidth, settings.init_scale);
  if (which == 1) return w_v;
  return settings.learned_keys ? rng.normal_matrix(kRecordCount, kFeatureWidth) : feature_recovery_task_keys(settings);
}

const FeatureRecoverySettings& validated(const FeatureRecoverySettings& settings) {
  settings.validate();
  return settings;
}

// out (9 × 3) = a (9 × 9, or its transpose) · w (9 × 3), summed in a fixed order (l = 0 … 8)
// so that native and WASM builds add the same terms in the same sequence.
template <bool Transpose, class Out>
void times_projection(const Matrix& a, const double* w, Out& out) {
  for (int k = 0; k < kLatentSize; ++k) {
    for (int j = 0; j < kFeatureWidth; ++j) {
      double sum = 0.0;
      for (int l = 0; l < kLatentSize; ++l) sum += (Transpose ? a(l, k) : a(k, l)) * w[l * kFeatureWidth + j];
      out.data()[k * kFeatureWidth + j] = sum;
    }
  }
}

double coefficient_of_determination(const Eigen::Ref<const Vector>& reading, const Eigen::Ref<const Vector>& feature) {
  const double mean = feature.mean();
  const double total = (feature.array() - mean).square().sum();
  const double residual = (reading - feature).squaredNorm();
  return 1.0 - residual / total;
}

void require_eval_set(const FeatureRecoveryBatch& eval_set) {
  require_usable("evaluation request", eval_set.request);
  require_shape("evaluation request", eval_set.request, eval_set.request.rows(), kLatentSize);
  require_shape("evaluation records", eval_set.records, kRecordCount * eval_set.size(), kLatentSize);
  require_shape("evaluation target", eval_set.target, eval_set.size(), kFeatureWidth);
  if (eval_set.size() < 2) throw InputError("the evaluation set needs at least 2 examples for R²");
}

// The held-out set and R that every evaluation function runs on.
void require_held_out(const FeatureRecoveryBatch& eval_set, const Matrix& mixing) {
  require_eval_set(eval_set);
  require_usable("mixing", mixing);
  require_shape("mixing", mixing, kLatentSize, kLatentSize);
}

}  // namespace

void FeatureRecoverySettings::validate() const {
  require_integer_in("steps", steps, 0, kMaxTrainingSteps);
  require_integer_in("batch_size", batch_size, 1, 100000);
  require_positive("learning_rate", learning_rate);
  require_number_in("beta1", beta1, 0.0, 0.999999999);
  require_number_in("beta2", beta2, 0.0, 0.999999999);
  require_positive("epsilon", epsilon);
  require_scale("init_scale", init_scale, kMaxInitScale);
  require_integer_in("eval_size", eval_size, 2, 1000000);
  require_number_in("request_scale", request_scale, kMinFeatureRecoveryScale, kMaxFeatureRecoveryScale);
  require_number_in("shift", shift, -kMaxFeatureRecoveryShift, kMaxFeatureRecoveryShift);
  if (fixed_keys.size() != 0) {
    validate_feature_recovery_keys(fixed_keys, "fixed_keys");
    if (learned_keys) {
      throw InputError("fixed_keys and learned_keys exclude each other: learned keys start from random values");
    }
  }
}

Matrix feature_recovery_task_keys(const FeatureRecoverySettings& settings) {
  return settings.fixed_keys.size() != 0 ? settings.fixed_keys : feature_recovery_keys();
}

FeatureRecoveryTrainer::FeatureRecoveryTrainer(const FeatureRecoverySettings& settings)
    : settings_(validated(settings)),
      mixing_(feature_recovery_mixing(settings.seed)),
      w_q_(initial_projection(settings, 0)),
      w_v_(initial_projection(settings, 1)),
      dw_q_(Matrix::Zero(kLatentSize, kFeatureWidth)),
      dw_v_(Matrix::Zero(kLatentSize, kFeatureWidth)),
      keys_(initial_projection(settings, 2)),
      dkeys_(Matrix::Zero(kRecordCount, kFeatureWidth)),
      task_keys_(feature_recovery_task_keys(settings)),
      chosen_keys_(settings.fixed_keys.size() != 0),
      adam_(settings.learned_keys ? std::vector<Matrix*>{&w_q_, &w_v_, &keys_} : std::vector<Matrix*>{&w_q_, &w_v_},
            AdamSettings{settings.learning_rate, settings.beta1, settings.beta2, settings.epsilon, 0.0}),
      batches_(Random(settings.seed).stream(kBatchStream)) {
  loss_trace_.reserve(static_cast<std::size_t>(settings.steps));
}

TrainingProgress FeatureRecoveryTrainer::progress() const {
  return {steps_taken(), steps_total(), loss_trace_.empty() ? std::nan("") : loss_trace_.back(), done()};
}

// Learned keys: the reference path in observed coordinates (the latent fast path below has the fixed
// keys built in). Same batches, same Adam. A non-finite loss or gradient ends training before Adam
// sees it; a parameter beyond the weight limit after the update ends it too.
void FeatureRecoveryTrainer::learned_keys_step() {
  sample_feature_recovery_batch(batches_, settings_.batch_size, settings_.request_scale, batch_);
  const Matrix x_request = batch_.request * mixing_, x_records = batch_.records * mixing_;
  const FeatureRecoveryForward f = feature_recovery_forward(x_request, x_records, w_q_, w_v_, keys_);
  const FeatureRecoveryGradients g = feature_recovery_backward(f, x_request, x_records, batch_.target, keys_);
  dw_q_ = g.dw_q;
  dw_v_ = g.dw_v;
  dkeys_ = g.dkeys;
  loss_trace_.push_back(g.loss);
  if (!std::isfinite(g.loss) || !dw_q_.allFinite() || !dw_v_.allFinite() || !dkeys_.allFinite() ||
      !adam_.step_within_unvalidated({&dw_q_, &dw_v_, &dkeys_}, kMaxWeightMagnitude)) {
    diverged_at_ = static_cast<int>(steps_taken());
  }
}

// Fixed keys: the loss and its gradient in the latent coordinates, through the response maps
// M_q = R·W_q, M_v = R·W_v (9 × 3 each). Divergence: a non-finite loss or gradient ends training
// before Adam sees it (the weights stay those of the step before), so Adam need not test the
// gradients again; a W beyond the weight limit after the update ends it too.
void FeatureRecoveryTrainer::latent_step() {
  if (chosen_keys_) {
    sample_feature_recovery_batch(batches_, settings_.batch_size, settings_.request_scale, task_keys_, batch_);
  } else {
    sample_feature_recovery_batch(batches_, settings_.batch_size, settings_.request_scale, batch_);
  }
  ResponseMap response_query, response_value, dresponse_query, dresponse_value;
  times_projection<false>(mixing_, w_q_.data(), response_query);  // M_q = R·W_q
  times_projection<false>(mixing_, w_v_.data(), response_value);  // M_v = R·W_v
  const double loss = chosen_keys_ ? feature_recovery_latent_backward(batch_, response_query, response_value,
                                                                      task_keys_, dresponse_query, dresponse_value)
                                   : feature_recovery_latent_backward(batch_, response_query, response_value,
                                                                      dresponse_query, dresponse_value);
  times_projection<true>(mixing_, dresponse_query.data(), dw_q_);  // dW_q = Rᵀ·dM_q
  times_projection<true>(mixing_, dresponse_value.data(), dw_v_);  // dW_v = Rᵀ·dM_v
  loss_trace_.push_back(loss);
  if (!std::isfinite(loss) || !dw_q_.allFinite() || !dw_v_.allFinite() ||
      !adam_.step_within_unvalidated({&dw_q_, &dw_v_}, kMaxWeightMagnitude)) {
    diverged_at_ = static_cast<int>(steps_taken());
  }
}

// The loss rule at the last step. The trivial prediction is zero: the target mixes unit-variance
// payloads with weights summing to 1, so E[target²] = E[Σ A_i²] ≤ 1 per entry.
void FeatureRecoveryTrainer::apply_loss_rule() {
  LossWatch watch(1.0, "the zero prediction, at most 1");
  for (long t = 1; t <= steps_taken(); ++t) {
    if (LossWatch::wants(t, steps_total()))
      watch.record(t, steps_total(), loss_trace_[static_cast<std::size_t>(t - 1)]);
  }
  if (watch.diverged()) {
    diverged_at_ = static_cast<int>(steps_taken());
    loss_divergence_ = watch.reason();
  }
}

TrainingProgress FeatureRecoveryTrainer::step(long n) {
  if (n < 0) throw InputError("step count must be ≥ 0, got " + std::to_string(n));
  const long todo = stopped_ ? 0 : std::min(n, steps_total() - steps_taken());
  const auto start = std::chrono::steady_clock::now();
  for (long t = 0; t < todo && !diverged(); ++t) {
    if (settings_.learned_keys) learned_keys_step();
    else latent_step();
  }
  if (todo > 0 && !diverged() && steps_taken() == steps_total()) apply_loss_rule();
  if (todo > 0) train_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return progress();
}

std::vector<int> feature_recovery_replay_steps(int steps, int count) {
  require_integer_in("steps", steps, 0, kMaxTrainingSteps);
  require_integer_in("snapshot count", count, 2, 10000);
  std::vector<int> out{0};
  const double top = std::log1p(static_cast<double>(steps));
  for (int i = 1; i < count; ++i) {
    // t_i = exp(i/(count − 1) · log(1 + steps)) − 1, rounded; repeats dropped.
    const int t = static_cast<int>(std::lround(std::expm1(top * i / (count - 1))));
    if (t > out.back() && t <= steps) out.push_back(t);
  }
  if (out.back() != steps) out.push_back(steps);
  return out;
}

FeatureRecoveryBatch feature_recovery_evaluation_set(std::uint64_t seed, int eval_size, double request_scale) {
  require_integer_in("eval_size", eval_size, 2, 1000000);
  Random rng = Random(seed).stream(kEvaluationStream);
  return sample_feature_recovery_batch(rng, eval_size, request_scale);
}

FeatureRecoveryIntervention feature_recovery_intervention_from_name(const std::string& name) {
  if (name == "erase_request") return FeatureRecoveryIntervention::erase_request;
  if (name == "erase_payload") return FeatureRecoveryIntervention::erase_payload;
  if (name == "irrelevant_shift") return FeatureRecoveryIntervention::irrelevant_shift;
  throw InputError("intervention must be \"erase_request\", \"erase_payload\" or \"irrelevant_shift\", got \"" +
                   name.substr(0, 40) + "\"");
}

FeatureRecoveryBatch feature_recovery_evaluation_set(std::uint64_t seed, int eval_size, double request_scale,
                                                     const Matrix& task_keys) {
  require_integer_in("eval_size", eval_size, 2, 1000000);
  Random rng = Random(seed).stream(kEvaluationStream);
  FeatureRecoveryBatch out;
  sample_feature_recovery_batch(rng, eval_size, request_scale, task_keys, out);
  return out;
}

Matrix feature_recovery_intervened_prediction(const FeatureRecoveryBatch& eval_set, const Matrix& mixing,
                                              const Matrix& w_q, const Matrix& w_v,
                                              FeatureRecoveryIntervention intervention, int feature, double shift,
                                              const Matrix& keys) {
  require_held_out(eval_set, mixing);
  Matrix request = eval_set.request;
  Matrix records = eval_set.records;
  switch (intervention) {
    case FeatureRecoveryIntervention::erase_request:
      require_index("request feature", feature, kFeatureWidth);
      request.col(kRequestFeatures + feature).setZero();
      break;
    case FeatureRecoveryIntervention::erase_payload:
      require_index("payload feature", feature, kFeatureWidth);
      records.col(kPayloadFeatures + feature).setZero();
      break;
    case FeatureRecoveryIntervention::irrelevant_shift:
      require_number_in("shift", shift, -kMaxFeatureRecoveryShift, kMaxFeatureRecoveryShift);
      request.middleCols(kPayloadFeatures, 2 * kFeatureWidth).array() += shift;  // payload and noise
      records.middleCols(kRequestFeatures, kFeatureWidth).array() += shift;
      records.middleCols(kNoiseFeatures, kFeatureWidth).array() += shift;
      break;
    default: throw InputError("unknown intervention");
  }
  return feature_recovery_forward(request * mixing, records * mixing, w_q, w_v, keys).prediction;
}

const Matrix& feature_recovery_intervention_reference(FeatureRecoveryIntervention intervention,
                                                      const Matrix& unintervened_prediction, const Matrix& target) {
  return intervention == FeatureRecoveryIntervention::irrelevant_shift ? unintervened_prediction : target;
}

double feature_recovery_intervention_mse(const FeatureRecoveryBatch& eval_set, const Matrix& mixing, const Matrix& w_q,
                                         const Matrix& w_v, FeatureRecoveryIntervention intervention, int feature,
                                         double shift, const Matrix& keys) {
  const Matrix changed =
      feature_recovery_intervened_prediction(eval_set, mixing, w_q, w_v, intervention, feature, shift, keys);
  const Matrix original =
      feature_recovery_forward(eval_set.request * mixing, eval_set.records * mixing, w_q, w_v, keys).prediction;
  return mean_squared_error(changed, feature_recovery_intervention_reference(intervention, original, eval_set.target));
}

FeatureRecoveryEvaluation evaluate_feature_recovery(const FeatureRecoveryBatch& eval_set, const Matrix& mixing,
                                                    const Matrix& w_q, const Matrix& w_v, double shift,
                                                    const Matrix& keys) {
  require_held_out(eval_set, mixing);
  require_number_in("shift", shift, -kMaxFeatureRecoveryShift, kMaxFeatureRecoveryShift);
  const Eigen::Index n = eval_set.size();
  const FeatureRecoveryForward f =
      feature_recovery_forward(eval_set.request * mixing, eval_set.records * mixing, w_q, w_v, keys);
  FeatureRecoveryEvaluation e;
  e.heldout_mse = mean_squared_error(f.prediction, eval_set.target);
  Matrix uniform = Matrix::Zero(n, kFeatureWidth);
  for (Eigen::Index b = 0; b < n; ++b)
    for (int i = 0; i < kRecordCount; ++i)
      uniform.row(b) += 0.25 * eval_set.records.block(kRecordCount * b + i, kPayloadFeatures, 1, kFeatureWidth);
  e.uniform_attention_mse = mean_squared_error(uniform, eval_set.target);
  // Each intervention's MSE against its reference (feature_recovery_intervention_reference).
  const auto intervention_mse = [&](FeatureRecoveryIntervention kind, int feature) {
    const Matrix changed =
        feature_recovery_intervened_prediction(eval_set, mixing, w_q, w_v, kind, feature, shift, keys);
    return mean_squared_error(changed, feature_recovery_intervention_reference(kind, f.prediction, eval_set.target));
  };
  for (int j = 0; j < kFeatureWidth; ++j) {
    e.query_r2[j] = coefficient_of_determination(f.query.col(j), eval_set.request.col(kRequestFeatures + j));
    e.value_r2[j] = coefficient_of_determination(f.values.col(j), eval_set.records.col(kPayloadFeatures + j));
    // Within the settings' bounds both are finite (kMinFeatureRecoveryScale); a held-out set whose
    // features barely vary could still make one 0/0, which no file may hold as a number.
    if (!std::isfinite(e.query_r2[j]) || !std::isfinite(e.value_r2[j])) {
      throw InputError("the R² of feature " + std::to_string(j + 1) + " is not finite: the held-out " +
                       (std::isfinite(e.query_r2[j]) ? "payload" : "request") +
                       " features do not vary enough over the " + std::to_string(eval_set.size()) +
                       " held-out examples; raise request_scale or eval_size");
    }
    e.erase_request_mse[j] = intervention_mse(FeatureRecoveryIntervention::erase_request, j);
    e.erase_payload_mse[j] = intervention_mse(FeatureRecoveryIntervention::erase_payload, j);
  }
  e.irrelevant_shift_mse = intervention_mse(FeatureRecoveryIntervention::irrelevant_shift, 0);
  e.response_query = mixing * w_q;
  e.response_value = mixing * w_v;
  return e;
}

FeatureRecoveryExample feature_recovery_example(const FeatureRecoveryBatch& eval_set, const Matrix& mixing,
                                                const Matrix& w_q, const Matrix& w_v, int index, const Matrix& keys,
                                                const Matrix& task_keys) {
  require_held_out(eval_set, mixing);
  require_index("example", index, eval_set.size());
  const Matrix z_request = eval_set.request.row(index);
  const Matrix z_records = eval_set.records.middleRows(kRecordCount * index, kRecordCount);
  const FeatureRecoveryForward f = feature_recovery_forward(z_request * mixing, z_records * mixing, w_q, w_v, keys);
  FeatureRecoveryExample e;
  e.request_features = z_request.middleCols(kRequestFeatures, kFeatureWidth);
  e.payloads = z_records.middleCols(kPayloadFeatures, kFeatureWidth);
  e.query = f.query;
  e.scores = f.scores;
  e.weights = f.weights;
  e.values = f.values;
  e.prediction = f.prediction;
  // The teacher's own routing: softmax(z_0..2·Kᵀ/√3) (feature_recovery_task.hpp).
  validate_feature_recovery_keys(task_keys, "task keys");
  const RowVector teacher_scores = e.request_features * task_keys.transpose() * kInverseSqrtKeyWidth;
  e.teacher_weights.resize(kRecordCount);
  key_softmax(teacher_scores.data(), e.teacher_weights.data());
  e.target = eval_set.target.row(index);
  return e;
}

FeatureRecoveryResult FeatureRecoveryTrainer::result() const {
  if (diverged() && !loss_divergence_.empty()) {
    throw InputError("training diverged at step " + std::to_string(diverged_at_) + ": " + loss_divergence_ +
                     " (learning_rate " + number_text(settings_.learning_rate) + "); lower the learning rate");
  }
  if (diverged()) {
    throw InputError("training diverged at step " + std::to_string(diverged_at_) +
                     ": the loss stopped being finite or W_q, W_v left ±" + number_text(kMaxWeightMagnitude) +
                     " (learning_rate " + number_text(settings_.learning_rate) + "); there are no results to evaluate");
  }
  FeatureRecoveryResult r;
  r.settings = settings_;
  r.mixing = mixing_;
  r.keys = keys_;
  r.w_q = w_q_;
  r.w_v = w_v_;
  r.loss_trace = loss_trace_;
  r.steps_taken = steps_taken();
  r.train_seconds = train_seconds_;
  const FeatureRecoveryBatch eval_set = feature_recovery_evaluation_set(
      settings_.seed, settings_.eval_size, settings_.request_scale, feature_recovery_task_keys(settings_));
  r.evaluation = evaluate_feature_recovery(eval_set, r.mixing, r.w_q, r.w_v, settings_.shift, r.keys);
  return r;
}

FeatureRecoveryModel::FeatureRecoveryModel(const FeatureRecoverySettings& settings, Matrix w_q, Matrix w_v, Matrix keys)
    : settings_(validated(settings)), w_q_(std::move(w_q)), w_v_(std::move(w_v)), keys_(std::move(keys)) {
  require_usable("w_q", w_q_);
  require_shape("w_q", w_q_, kLatentSize, kFeatureWidth);
  require_usable("w_v", w_v_);
  require_shape("w_v", w_v_, kLatentSize, kFeatureWidth);
  validate_feature_recovery_keys(keys_, "keys");
  task_keys_ = feature_recovery_task_keys(settings_);
}

FeatureRecoveryModel::FeatureRecoveryModel(const FeatureRecoveryTrainer& trainer)
    : FeatureRecoveryModel(trainer.settings(), trainer.w_q(), trainer.w_v(), trainer.keys()) {}

const Matrix& FeatureRecoveryModel::mixing() {
  if (mixing_.size() == 0) mixing_ = feature_recovery_mixing(settings_.seed);
  return mixing_;
}

const FeatureRecoveryBatch& FeatureRecoveryModel::eval_set() {
  if (!has_eval_set_) {
    eval_set_ =
        feature_recovery_evaluation_set(settings_.seed, settings_.eval_size, settings_.request_scale, task_keys_);
    has_eval_set_ = true;
  }
  return eval_set_;
}

const Matrix& FeatureRecoveryModel::clean_prediction() {
  if (!has_clean_) {
    const FeatureRecoveryBatch& e = eval_set();
    clean_ = feature_recovery_forward(e.request * mixing(), e.records * mixing(), w_q_, w_v_, keys_).prediction;
    has_clean_ = true;
  }
  return clean_;
}

FeatureRecoveryEvaluation FeatureRecoveryModel::evaluate() {
  return evaluate_feature_recovery(eval_set(), mixing(), w_q_, w_v_, settings_.shift, keys_);
}

FeatureRecoveryInterventionResult FeatureRecoveryModel::intervene(FeatureRecoveryIntervention intervention, int feature,
                                                                  double shift) {
  FeatureRecoveryInterventionResult r;
  r.after =
      feature_recovery_intervened_prediction(eval_set(), mixing(), w_q_, w_v_, intervention, feature, shift, keys_);
  const Matrix& before = clean_prediction();
  r.mse = mean_squared_error(r.after, feature_recovery_intervention_reference(intervention, before, eval_set_.target));
  r.heldout_mse = mean_squared_error(before, eval_set_.target);
  return r;
}

FeatureRecoveryExample FeatureRecoveryModel::example(int index) {
  return feature_recovery_example(eval_set(), mixing(), w_q_, w_v_, index, keys_, task_keys_);
}

FeatureRecoveryResult run_feature_recovery(const FeatureRecoverySettings& settings,
                                           const FeatureRecoveryProgress& progress, const std::atomic<bool>* stop) {
  FeatureRecoveryTrainer trainer(settings);
  while (!trainer.done()) {  // also ends at divergence
    if (stop != nullptr && stop->load()) {
      trainer.stop();
      break;
    }
    const TrainingProgress p = trainer.step(1);
    if (progress) progress(p);
  }
  return trainer.result();
}

}  // namespace headlab
