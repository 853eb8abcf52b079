// The trainer protocol (docs/model-pattern.md, core/training_progress.hpp) held for every trainer
// in the core by one templated test: max-digit, feature recovery, the transformer. Each case is a
// run of a few steps on a small batch, so the whole file costs well under a second.
#include "core/feature_recovery_experiment.hpp"
#include "core/limits.hpp"
#include "core/max_digit_training.hpp"
#include "core/transformer_training.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace headlab;

namespace {

constexpr long kSteps = 6;

// Every weight of a trainer, in its parameter order, as doubles.
std::vector<double> flatten(const std::vector<const Matrix*>& matrices) {
  std::vector<double> out;
  for (const Matrix* m : matrices) out.insert(out.end(), m->data(), m->data() + m->size());
  return out;
}

struct MaxDigitCase {
  using Settings = max_digit::MaxDigitTrainingSettings;
  using Trainer = max_digit::MaxDigitTrainer;
  static constexpr long kLeastSteps = 1;  // a run of no steps has no loss to report
  static Settings settings(std::uint64_t seed) {
    Settings s;
    s.seed = seed;
    s.steps = kSteps;
    s.batch_size = 8;
    return s;
  }
  static std::vector<double> weights(const Trainer& t) {
    const max_digit::MaxDigitWeights w = t.result().weights;
    return flatten(max_digit::parameter_list(w));
  }
};

struct FeatureRecoveryCase {
  using Settings = FeatureRecoverySettings;
  using Trainer = FeatureRecoveryTrainer;
  static constexpr long kLeastSteps = 0;  // a run of no steps is the initial projections, evaluated
  static Settings settings(std::uint64_t seed) {
    Settings s;
    s.seed = seed;
    s.steps = kSteps;
    s.batch_size = 8;
    s.eval_size = 16;
    return s;
  }
  static std::vector<double> weights(const Trainer& t) { return flatten(t.parameters()); }
};

struct TransformerCase {
  using Settings = transformer::TransformerTrainingSettings;
  using Trainer = transformer::TransformerTrainer;
  static constexpr long kLeastSteps = 1;
  static Settings settings(std::uint64_t seed) {
    Settings s;
    s.seed = seed;
    s.model.n_heads = 2;
    s.model.d_model = 8;
    s.model.d_head = 4;
    s.model.n_ctx = 8;
    s.model.d_vocab = 6;
    s.steps = kSteps;
    s.batch_size = 4;
    return s;
  }
  static std::vector<double> weights(const Trainer& t) { return flatten(transformer::parameter_list(t.result())); }
};

// Bitwise equality of two runs' weights (== on doubles, so a NaN would fail it too).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i])) return false;
  }
  return true;
}

}  // namespace

TEMPLATE_TEST_CASE("every trainer is deterministic from its seed, however the steps are chunked", "[trainer_protocol]",
                   MaxDigitCase, FeatureRecoveryCase, TransformerCase) {
  typename TestType::Trainer whole(TestType::settings(7)), chunked(TestType::settings(7)), other(TestType::settings(8));
  const TrainingProgress p = whole.step(kSteps);
  chunked.step(2);
  chunked.step(1);
  const TrainingProgress q = chunked.step(kSteps);  // more than remain: runs the last 3
  other.step(kSteps);
  CHECK(p.steps_taken == kSteps);
  CHECK(q.steps_taken == kSteps);
  CHECK(p.loss == q.loss);
  CHECK(same_bits(TestType::weights(whole), TestType::weights(chunked)));
  CHECK_FALSE(same_bits(TestType::weights(whole), TestType::weights(other)));
}

TEMPLATE_TEST_CASE("every trainer accepts steps up to the shared limit and refuses one more", "[trainer_protocol]",
                   MaxDigitCase, FeatureRecoveryCase, TransformerCase) {
  auto s = TestType::settings(0);
  s.steps = kMaxTrainingSteps;
  CHECK_NOTHROW(s.validate());
  s.steps = kMaxTrainingSteps + 1;
  const std::string range = "steps must lie in [" + std::to_string(TestType::kLeastSteps) + ", 10000000], got ";
  CHECK_THROWS_WITH(typename TestType::Trainer(s), range + "10000001");
  s.steps = TestType::kLeastSteps - 1;
  CHECK_THROWS_WITH(typename TestType::Trainer(s), range + std::to_string(TestType::kLeastSteps - 1));
}

TEMPLATE_TEST_CASE("every trainer honours stop: done from then on, no further step", "[trainer_protocol]", MaxDigitCase,
                   FeatureRecoveryCase, TransformerCase) {
  typename TestType::Trainer t(TestType::settings(3));
  t.step(2);
  const std::vector<double> at_stop = TestType::weights(t);
  t.stop();
  CHECK(t.progress().done);
  const TrainingProgress after = t.step(kSteps);
  CHECK(after.steps_taken == 2);
  CHECK(after.steps_total == kSteps);
  CHECK(after.done);
  CHECK(same_bits(TestType::weights(t), at_stop));
}

TEMPLATE_TEST_CASE("every trainer's progress is monotone with a finite loss after each step", "[trainer_protocol]",
                   MaxDigitCase, FeatureRecoveryCase, TransformerCase) {
  typename TestType::Trainer t(TestType::settings(5));
  const TrainingProgress before = t.progress();
  CHECK(before.steps_taken == 0);
  CHECK(before.steps_total == kSteps);
  CHECK(std::isnan(before.loss));  // no step, no loss
  CHECK_FALSE(before.done);
  for (long k = 1; k <= kSteps; ++k) {
    const TrainingProgress p = t.step(1);
    CHECK(p.steps_taken == k);
    CHECK(p.steps_total == kSteps);
    CHECK(std::isfinite(p.loss));
    CHECK(p.done == (k == kSteps));
  }
  CHECK(t.step(1).steps_taken == kSteps);  // done: no step past the total
  CHECK_THROWS_WITH(t.step(-1), "step count must be ≥ 0, got -1");
}
