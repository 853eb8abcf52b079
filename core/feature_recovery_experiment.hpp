// The feature-recovery experiment: training W_q and W_v with Adam on fresh
// batches, then evaluation and interventions on a held-out set.
//
// One integer seed fixes everything through independent sub-streams of
// Random(seed) (see FeatureRecoveryStream): R, the initialisation, every batch
// in step order and the evaluation set.
#pragma once

#include "core/adam.hpp"
#include "core/feature_recovery_model.hpp"
#include "core/feature_recovery_task.hpp"
#include "core/matrix.hpp"
#include "core/random.hpp"
#include "core/training_progress.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace headlab {


struct FeatureRecoverySettings {
  std::uint64_t seed = 0;
  int steps = 1200;             // Adam updates, each on a fresh batch; 0 ≤ steps ≤ kMaxTrainingSteps
  int batch_size = 128;         // examples per step; 1 ≤ batch_size ≤ 10⁵
  double learning_rate = 0.03;  // Adam step size, the draft's value
  double beta1 = 0.9;           // Adam first-moment decay (PyTorch's default, as in the draft)
  double beta2 = 0.999;         // Adam second-moment decay (PyTorch's default)
  double epsilon = 1e-8;        // Adam denominator guard (PyTorch's default)
  // W_q, W_v entries start as N(0, init_scale²); 1/3 = 1/√9 gives query and value
  // coordinates of unit variance at step 0 for unit-variance inputs.
  double init_scale = 1.0 / 3.0;
  int eval_size = 4096;        // held-out examples; 2 ≤ eval_size ≤ 10⁶
  double request_scale = 1.8;  // standard deviation of the request's request features
  double shift = 5.0;          // added to every irrelevant latent coordinate in the shift intervention
  // Learn the keys K (4 × 3) too, from N(0, 1) entries drawn after W_q, W_v on the
  // initialisation stream. Then Q A, K A^{−T} fit equally well for any invertible A, and
  // R·W_q need not be the identity block (the first article's change of basis). Trained on
  // the reference path (feature_recovery_forward/backward in observed coordinates).
  bool learned_keys = false;
  // The task's keys K (4 × 3) when not the tetrahedron (empty: the tetrahedron). Teacher and
  // model both route by them, so keys whose differences miss a direction
  // (lost_query_directions) leave that query direction without any gradient. Entries in
  // [−10, 10]; excludes learned_keys.
  Matrix fixed_keys;

  // Throws InputError naming the first setting out of its range by its field name.
  void validate() const;
};

struct FeatureRecoveryResult;

// Steppable training (the trainer protocol of docs/model-pattern.md). Deterministic: the same
// settings give the same bits after N steps however the N steps are split across calls of step().
class FeatureRecoveryTrainer {
 public:
  explicit FeatureRecoveryTrainer(const FeatureRecoverySettings& settings);
  // Adam holds pointers to w_q_ and w_v_: the trainer stays where it was built.
  FeatureRecoveryTrainer(const FeatureRecoveryTrainer&) = delete;
  FeatureRecoveryTrainer& operator=(const FeatureRecoveryTrainer&) = delete;

  // Advances min(n, steps − steps_taken()) steps (n ≥ 0; none once done()). Stops early at the
  // first step whose loss or updated W_q, W_v is not finite (divergence): that step's loss is
  // recorded and no further step is taken. So is a run whose last steps' loss ends above twice
  // its first loss and the zero prediction's (core/loss_divergence.hpp), found at its last step.
  TrainingProgress step(long n);
  TrainingProgress progress() const;
  // Ends training early: done() from now on, and result() holds the steps taken so far.
  void stop() { stopped_ = true; }
  long steps_taken() const { return static_cast<long>(loss_trace_.size()); }
  long steps_total() const { return settings_.steps; }
  bool done() const { return stopped_ || steps_taken() >= settings_.steps || diverged(); }
  // Training diverged: some loss or gradient stopped being finite, or an update left a
  // parameter beyond ±kMaxWeightMagnitude (core/limits.hpp). diverged_at() is the 1-based step
  // at which it happened (0 while training is healthy).
  bool diverged() const { return diverged_at_ > 0; }
  int diverged_at() const { return diverged_at_; }
  // The run so far, evaluated on the held-out set. Throws InputError "training diverged at
  // step N: …" after a divergence (there is nothing to evaluate).
  FeatureRecoveryResult result() const;

  const FeatureRecoverySettings& settings() const { return settings_; }
  const Matrix& mixing() const { return mixing_; }          // R, 9 × 9
  const Matrix& w_q() const { return w_q_; }                // 9 × 3
  const Matrix& w_v() const { return w_v_; }                // 9 × 3
  const Matrix& keys() const { return keys_; }              // 4 × 3: the fixed keys unless learned_keys
  Matrix response_query() const { return mixing_ * w_q_; }  // R·W_q, 9 × 3
  Matrix response_value() const { return mixing_ * w_v_; }  // R·W_v, 9 × 3
  // Training loss of step t (the batch loss before update t), t = 0 … steps_taken() − 1.
  const std::vector<double>& loss_trace() const { return loss_trace_; }
  // The trainable parameters in Adam's order: W_q then W_v. Nothing else is updated.
  // With learned_keys, K follows them.
  std::vector<const Matrix*> parameters() const {
    if (settings_.learned_keys) return {&w_q_, &w_v_, &keys_};
    return {&w_q_, &w_v_};
  }

 private:
  // One training step of each path (the loss recorded, the weights updated unless it diverged).
  void learned_keys_step();
  void latent_step();
  // The loss rule (core/loss_divergence.hpp) over the whole loss trace, at the last step.
  void apply_loss_rule();

  FeatureRecoverySettings settings_;
  Matrix mixing_;
  Matrix w_q_, w_v_;
  Matrix dw_q_, dw_v_;
  Matrix keys_, dkeys_;
  Matrix task_keys_;  // the teacher's keys (4 × 3)
  bool chosen_keys_;  // task_keys_ are not the tetrahedron
  Adam adam_;
  Random batches_;
  FeatureRecoveryBatch batch_;  // reused every step
  std::vector<double> loss_trace_;
  int diverged_at_ = 0;
  std::string loss_divergence_;  // the loss rule's reason, when it ended training
  bool stopped_ = false;
  double train_seconds_ = 0.0;  // wall time inside step()
};

// Steps at which a training replay keeps a snapshot of W_q, W_v and the loss: 0 (the
// initialisation), then about `count` − 1 steps spaced evenly in log(1 + t) up to
// `steps`, so early steps, where the response maps change fastest, are dense
// (1, 2, 3, … then ever wider gaps). Strictly increasing, first 0, last `steps`;
// fewer than `count` entries when steps is small. Throws unless 0 ≤ steps ≤ kMaxTrainingSteps
// and 2 ≤ count ≤ 10⁴.
std::vector<int> feature_recovery_replay_steps(int steps, int count);

// The held-out set: eval_size examples from stream kEvaluationStream of Random(seed).
FeatureRecoveryBatch feature_recovery_evaluation_set(std::uint64_t seed, int eval_size, double request_scale);
// The same examples with the teacher routing by `task_keys` (4 × 3; see FeatureRecoverySettings::fixed_keys).
FeatureRecoveryBatch feature_recovery_evaluation_set(std::uint64_t seed, int eval_size, double request_scale,
                                                     const Matrix& task_keys);
// The keys the task's teacher routes by: settings.fixed_keys, or the tetrahedron when it is empty.
Matrix feature_recovery_task_keys(const FeatureRecoverySettings& settings);

enum class FeatureRecoveryIntervention {
  erase_request,     // set request feature `feature` of the request to 0
  erase_payload,     // set payload feature `feature` of every record to 0
  irrelevant_shift,  // add `shift` to the request's payload and noise features and to
                     // every record's request and noise features
};

// "erase_request", "erase_payload" or "irrelevant_shift"; InputError naming the three otherwise.
FeatureRecoveryIntervention feature_recovery_intervention_from_name(const std::string& name);

// Applies the intervention to the latent held-out set, re-mixes it with R and
// returns the model's prediction (B × 3). feature ∈ {0, 1, 2} for the erasures.
Matrix feature_recovery_intervened_prediction(const FeatureRecoveryBatch& eval_set, const Matrix& mixing,
                                              const Matrix& w_q, const Matrix& w_v,
                                              FeatureRecoveryIntervention intervention, int feature, double shift,
                                              const Matrix& keys = feature_recovery_keys());

// What an intervention's error is measured against: the erasures remove information the target
// needs, so their prediction is compared with the kept target (how much the answer suffers);
// the shift touches only coordinates the model should ignore, so its prediction is compared with
// the unintervened prediction (how much anything moved at all). Returns one of the two arguments.
const Matrix& feature_recovery_intervention_reference(FeatureRecoveryIntervention intervention,
                                                      const Matrix& unintervened_prediction, const Matrix& target);

// MSE of an intervention against feature_recovery_intervention_reference.
double feature_recovery_intervention_mse(const FeatureRecoveryBatch& eval_set, const Matrix& mixing, const Matrix& w_q,
                                         const Matrix& w_v, FeatureRecoveryIntervention intervention, int feature,
                                         double shift, const Matrix& keys = feature_recovery_keys());

struct FeatureRecoveryEvaluation {
  double heldout_mse = 0.0;            // prediction against the teacher's target
  double uniform_attention_mse = 0.0;  // (1/4)·Σ_i payload_i against the target
  // R² = 1 − Σ(c − f)² / Σ(f − mean f)² of coordinate c as a reading of feature f,
  // with no fitted scale or offset: query coordinate j against request feature j of
  // each request; value coordinate j against payload feature j of every record.
  std::array<double, 3> query_r2{};
  std::array<double, 3> value_r2{};
  std::array<double, 3> erase_request_mse{};  // per request feature
  std::array<double, 3> erase_payload_mse{};  // per payload feature
  double irrelevant_shift_mse = 0.0;
  Matrix response_query;  // R·W_q
  Matrix response_value;  // R·W_v
};

// keys: 4 × 3, the model's keys (the fixed ones unless they were learned).
FeatureRecoveryEvaluation evaluate_feature_recovery(const FeatureRecoveryBatch& eval_set, const Matrix& mixing,
                                                    const Matrix& w_q, const Matrix& w_v, double shift,
                                                    const Matrix& keys = feature_recovery_keys());

// One held-out example traced through the student and the teacher, for the schematic
// figure (request → four records → scores against the fixed keys → softmax → mixture of
// payloads → prediction beside the target).
struct FeatureRecoveryExample {
  RowVector request_features;  // 1 × 3, the request's latent request features z_0..2
  Matrix payloads;             // 4 × 3, each record's latent payload features z_3..5
  RowVector query;             // 1 × 3, x_request·W_q
  RowVector scores;            // 1 × 4, query·Kᵀ/√3
  RowVector weights;           // 1 × 4, softmax(scores)
  Matrix values;               // 4 × 3, x_record_i·W_v
  RowVector prediction;        // 1 × 3, Σ_i weights_i·values_i
  RowVector teacher_weights;   // 1 × 4, softmax(z_0..2·Kᵀ/√3)
  RowVector target;            // 1 × 3, Σ_i teacher_weights_i·payload_i
};

// Example `index` (0 ≤ index < eval_set.size()) of the held-out set under W_q, W_v (9 × 3 each).
// keys: the model's 4 × 3 keys (the fixed ones unless learned); task_keys: the teacher's.
FeatureRecoveryExample feature_recovery_example(const FeatureRecoveryBatch& eval_set, const Matrix& mixing,
                                                const Matrix& w_q, const Matrix& w_v, int index,
                                                const Matrix& keys = feature_recovery_keys(),
                                                const Matrix& task_keys = feature_recovery_keys());

struct FeatureRecoveryResult {
  FeatureRecoverySettings settings;
  Matrix mixing;
  Matrix keys;
  Matrix w_q, w_v;
  std::vector<double> loss_trace;
  FeatureRecoveryEvaluation evaluation;
  long steps_taken = 0;        // < settings.steps when stopped
  double train_seconds = 0.0;  // wall time of the training steps only
};

// One intervention on a held model's held-out set (FeatureRecoveryModel::intervene).
struct FeatureRecoveryInterventionResult {
  Matrix after;              // B × 3, the prediction with the intervention
  double mse = 0.0;          // `after` against feature_recovery_intervention_reference
  double heldout_mse = 0.0;  // the clean prediction against the teacher's target
};

// A run's W_q, W_v held with what every analysis of them reads: R of the seed, the held-out set
// (eval_size examples of kEvaluationStream, routed by the task keys) and the clean prediction on
// it, each computed at the first request that needs it and kept (the set of 4,096 examples is
// ≈ 184,000 normal draws and 1.6 MB). The model a page's feature-recovery figures ask
// (docs/model-pattern.md, "One host per model"): its answers are those of the free functions
// (evaluate_feature_recovery, feature_recovery_intervened_prediction, feature_recovery_example) on
// the same inputs, bit for bit, since every draw is a function of (seed, eval_size,
// request_scale, task keys) alone and the same kernels run in the same order.
class FeatureRecoveryModel {
 public:
  // Reads settings' seed, eval_size, request_scale, shift (evaluate's) and fixed_keys, after
  // validate(); w_q, w_v: 9 × 3 each; keys: the model's 4 × 3 keys (the tetrahedron unless learned).
  FeatureRecoveryModel(const FeatureRecoverySettings& settings, Matrix w_q, Matrix w_v,
                       Matrix keys = feature_recovery_keys());
  // The trainer's run so far: its settings, W_q, W_v and keys, copied in C++ (nothing crosses to JS).
  explicit FeatureRecoveryModel(const FeatureRecoveryTrainer& trainer);

  const FeatureRecoverySettings& settings() const { return settings_; }
  const Matrix& w_q() const { return w_q_; }
  const Matrix& w_v() const { return w_v_; }
  const Matrix& keys() const { return keys_; }
  const Matrix& task_keys() const { return task_keys_; }
  const Matrix& mixing();                  // R, 9 × 9
  const FeatureRecoveryBatch& eval_set();  // the held-out set
  const Matrix& clean_prediction();        // B × 3, W_q, W_v on the held-out set without intervention

  // evaluate_feature_recovery on the held-out set, with settings().shift.
  FeatureRecoveryEvaluation evaluate();
  // feature_recovery_intervened_prediction and its MSE against its reference.
  FeatureRecoveryInterventionResult intervene(FeatureRecoveryIntervention intervention, int feature, double shift);
  // feature_recovery_example of held-out example `index`, traced with the model's keys and the task's.
  FeatureRecoveryExample example(int index);

 private:
  FeatureRecoverySettings settings_;
  Matrix w_q_, w_v_, keys_, task_keys_;
  Matrix mixing_;  // empty until asked for
  bool has_eval_set_ = false;
  FeatureRecoveryBatch eval_set_;
  bool has_clean_ = false;
  Matrix clean_;
};

// Called after every step.
using FeatureRecoveryProgress = std::function<void(const TrainingProgress&)>;

// Trains one step at a time (stopping early between steps once *stop is true), then returns
// result(); throws as result() does when training diverges.
FeatureRecoveryResult run_feature_recovery(const FeatureRecoverySettings& settings,
                                           const FeatureRecoveryProgress& progress = {},
                                           const std::atomic<bool>* stop = nullptr);

}  // namespace headlab
