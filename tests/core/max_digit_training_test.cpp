// Max-digit training (core/max_digit_training.hpp): determinism and chunking, the unit-norm
// unembedding, the recipe's acceptance figures for seeds 0–2 and divergence.
#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/max_digit.hpp"
#include "core/max_digit_analysis.hpp"
#include "core/max_digit_training.hpp"
#include "core/tolerances.hpp"
#include "support/max_digit_reference.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>

using namespace headlab;
using namespace headlab::max_digit;
using namespace headlab::test::max_digit_reference;
using headlab::test::kEpsilon;

TEST_CASE("max-digit: training is deterministic and independent of chunking", "[max_digit][training]") {
  MaxDigitTrainingSettings s;
  s.seed = 7;
  s.steps = 120;
  const MaxDigitWeights a = train_max_digit(s);
  MaxDigitTrainer chunked(s);
  TrainingProgress p = chunked.progress();
  CHECK(p.steps_taken == 0);
  CHECK(std::isnan(p.loss));
  for (long chunk : {1L, 7L, 50L, 1000L}) p = chunked.step(chunk);
  CHECK(p.steps_taken == 120);
  CHECK(p.steps_total == 120);
  CHECK(p.done);
  CHECK(chunked.step(5).steps_taken == 120);
  CHECK(chunked.result().final_batch_loss == p.loss);
  const MaxDigitWeights& b = chunked.weights();
  CHECK(a.E == b.E);
  for (int h = 0; h < kHeads; ++h) {
    CHECK(a.W_Q[h] == b.W_Q[h]);
    CHECK(a.W_K[h] == b.W_K[h]);
    CHECK(a.W_V[h] == b.W_V[h]);
    CHECK(a.W_O[h] == b.W_O[h]);
  }
  CHECK(a.W_U == b.W_U);
  s.seed = 8;
  CHECK(train_max_digit(s).E != a.E);
  // stop(): done at once, no further step, and the result holds the steps taken.
  MaxDigitTrainer stopped(s);
  stopped.step(3);
  stopped.stop();
  CHECK(stopped.progress().done);
  CHECK(stopped.step(10).steps_taken == 3);
  CHECK(stopped.result().steps_taken == 3);
}

TEST_CASE("max-digit: unit-norm unembedding keeps every column of W_U at norm one", "[max_digit][training]") {
  MaxDigitTrainingSettings s;
  s.steps = 50;
  s.unit_norm_unembedding = true;
  const MaxDigitWeights w = train_max_digit(s);
  CHECK(w.unit_norm_unembedding);
  // Renormalisation in single precision (the trainer's): a length-64 sum of squares, a square root,
  // a division and 64 products, each rounding by at most FLT_EPSILON/2 of its value.
  for (int j = 0; j < kVocab; ++j) {
    CHECK(std::abs(w.W_U.col(j).norm() - 1.0) <= 4 * 64 * std::numeric_limits<float>::epsilon());
  }
}

// The default recipe for one seed, with the article's figures and the analyses' invariants.
static void check_seed(std::uint64_t seed) {
  MaxDigitTrainingSettings s;
  s.seed = seed;
  const MaxDigitWeights w = train_max_digit(s);
  INFO("seed " << seed);
  CHECK(readout_accuracy(w, Readout{}).accuracy == 1.0);
  CHECK(residual_free_accuracy(w).accuracy == 1.0);
  CHECK(subspace_accuracy(w, Basis::w_o, 3).accuracy == 1.0);
  CHECK(subspace_accuracy(w, Basis::w_u, 3).accuracy == 1.0);

  // Ablating every head leaves x_ANS·W_U: one answer for every list.
  const AccuracyReport none = ablation_accuracy(w, {true, true, true, true});
  const AccuracyReport residual = residual_only_accuracy(w);
  CHECK(none.correct == residual.correct);
  CHECK(none.by_max == residual.by_max);

  for (Basis basis : {Basis::w_o, Basis::w_u}) {
    const PrincipalDirections pd = principal_directions(w, basis);
    // Orthonormal: a 64×64 eigenvector matrix from Jacobi/QR sweeps is orthogonal to ~64·ε per entry.
    const Matrix gram = pd.directions.transpose() * pd.directions;
    CHECK((gram - Matrix::Identity(64, 64)).cwiseAbs().maxCoeff() <= 1e3 * kEpsilon);
    double ratio_sum = 0;
    for (int i = 0; i < 64; ++i) {
      if (i > 0) CHECK(pd.variance[i] <= pd.variance[i - 1]);
      ratio_sum += pd.variance_ratio[i];
    }
    CHECK(std::abs(ratio_sum - 1.0) <= 64 * kEpsilon);
    // Full rank: P = U Uᵀ = I, so the projected readout is the residual-free readout.
    const AccuracyReport full = subspace_accuracy(w, basis, 64);
    CHECK(full.correct == residual_free_accuracy(w).correct);
    // Subspace accuracy never needs more than 8 directions here, and grows to 100% by k = 3.
    CHECK(subspace_accuracy(w, basis, 8).accuracy == 1.0);
  }
  const Matrix cosine = cosine_top3(w);
  CHECK(cosine.maxCoeff() <= 1.0 + 1e-12);

  // Patching on (2, 3, 4, 5, 6): every head on the 4 (position 3) answers 4, and the
  // patched logits equal a generic forward with the same one-hot rows.
  std::vector<AttentionPatch> every;
  for (int h = 0; h < kHeads; ++h) every.push_back({h, 3});
  const PatchResult all = patch_attention(w, {2, 3, 4, 5, 6}, every);
  CHECK(all.original_answer == 6);
  CHECK(all.answer == 4);
  const auto slow = generic_logits(w, {2, 3, 4, 5, 6}, every);
  for (int j = 0; j < kVocab; ++j) CHECK(std::abs(all.logits[j] - slow[j]) <= forward_agreement_bound(max_abs(slow)));
  for (int h = 0; h < kHeads; ++h) {
    const PatchResult one = patch_attention(w, {2, 3, 4, 5, 6}, {{h, 3}});
    const auto slow_one = generic_logits(w, {2, 3, 4, 5, 6}, {{h, 3}});
    for (int j = 0; j < kVocab; ++j) {
      CHECK(std::abs(one.logits[j] - slow_one[j]) <= forward_agreement_bound(max_abs(slow_one)));
    }
  }

  // Contributions: corrections = outputs − defaults, and the sum row is the column sum.
  const Contributions c = contributions(w, {2, 3, 4, 5, 6}, Basis::w_o, 3);
  CHECK((c.corrections - (c.head_outputs - c.default_outputs)).cwiseAbs().maxCoeff() == 0.0);
  CHECK((c.head_sum - c.head_outputs.colwise().sum()).cwiseAbs().maxCoeff() == 0.0);
  CHECK(c.answer == 6);
}

TEST_CASE("max-digit acceptance: seed 0", "[max_digit][acceptance]") { check_seed(0); }
TEST_CASE("max-digit acceptance: seed 1", "[max_digit][acceptance]") { check_seed(1); }
TEST_CASE("max-digit acceptance: seed 2", "[max_digit][acceptance]") { check_seed(2); }

TEST_CASE("max-digit: a learning rate too large for the weight decay is named as both settings",
          "[max_digit][training][limits]") {
  MaxDigitTrainingSettings s;
  s.learning_rate = 1e6;  // weight_decay keeps its default 0.1: the product, not the decay, is wrong
  CHECK_THROWS_WITH(s.validate(),
                    "learning_rate × weight_decay must be below 1 (AdamW multiplies each weight by 1 − their "
                    "product per step), got 1e+06 × 0.1 = 100000");
  s.learning_rate = 3e-3;
  s.weight_decay = -1;
  CHECK_THROWS_WITH(s.validate(), "weight_decay must be finite and ≥ 0, got -1");
}

TEST_CASE("max-digit: divergence ends training at its step with a message, never a NaN weight",
          "[max_digit][training][limits]") {
  MaxDigitTrainingSettings s;
  s.steps = 50;
  s.batch_size = 8;
  s.weight_decay = 0;
  s.learning_rate = 1e300;  // the first update moves every weight by ~1e300, past the 1e6 limit
  MaxDigitTrainer t(s);
  const TrainingProgress p = t.step(50);
  CHECK(p.done);
  CHECK(t.diverged_at() == 1);
  CHECK(p.steps_taken == 0);
  CHECK(t.step(10).steps_taken == 0);
  CHECK_THAT(t.divergence_message(),
             Catch::StartsWith("training diverged at step 1:") && Catch::Contains("learning_rate 1e+300"));
  CHECK_THROWS_WITH(train_max_digit(s), Catch::StartsWith("training diverged at step 1:"));
  // A healthy run never reports divergence.
  s.learning_rate = 3e-3;
  MaxDigitTrainer healthy(s);
  CHECK(healthy.step(50).steps_taken == 50);
  CHECK(healthy.diverged_at() == 0);
}
