#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/max_digit.hpp"
#include "core/max_digit_analysis.hpp"
#include "core/max_digit_training.hpp"
#include "core/tolerances.hpp"
#include "support/gradient_check.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>

using namespace headlab;
using namespace headlab::max_digit;
using headlab::test::kEpsilon;

namespace {

// Independent textbook forward: all nine positions through attention_forward (causal),
// heads' readings times W_O added to the residual, the ANS row times W_U.
std::array<double, kVocab> generic_logits(const MaxDigitWeights& w, const std::vector<int>& digits,
                                          const std::vector<AttentionPatch>& patches = {}) {
  const auto tokens = prompt_tokens(digits);
  Matrix x(kPromptLength, kDModel);
  for (int p = 0; p < kPromptLength; ++p) x.row(p) = w.E.row(tokens[p]);
  Matrix residual = x;
  for (int h = 0; h < kHeads; ++h) {
    AttentionOptions options;
    options.causal = true;
    for (const auto& patch : patches) {
      if (patch.head != h) continue;
      Matrix weights = attention_forward(x, w.W_Q[h], w.W_K[h], w.W_V[h], options).weights;
      weights.row(kAnsPosition).setZero();
      weights(kAnsPosition, patch.position) = 1.0;
      options.weights_override = weights;
    }
    residual += attention_forward(x, w.W_Q[h], w.W_K[h], w.W_V[h], options).reading * w.W_O[h];
  }
  const RowVector logits = residual.row(kAnsPosition) * w.W_U;
  std::array<double, kVocab> out{};
  for (int j = 0; j < kVocab; ++j) out[j] = logits(j);
  return out;
}

MaxDigitWeights random_weights(double scale, std::uint64_t seed) {
  MaxDigitTrainingSettings s;
  s.seed = seed;
  s.init_scale = scale;
  return initial_weights(s);
}

double max_abs(const std::array<double, kVocab>& a) {
  double m = 0;
  for (double x : a) m = std::max(m, std::abs(x));
  return m;
}

// Both forwards sum the same ≤ 9·16·64·4 + 64 products per logit in different orders;
// a sum of n terms errs by at most n·ε·Σ|terms|, and Σ|terms| is bounded here by
// 10·(1 + max|logit|) for these well-conditioned weights (no cancellation by more than 10×).
double forward_agreement_bound(double magnitude) {
  return headlab::test::dot_product_bound(9 * 16 + 64 + 16, 10.0 * (1.0 + magnitude));
}

}  // namespace

TEST_CASE("max-digit: the per-token-table forward equals a generic forward over nine positions", "[max_digit]") {
  Random rng(11);
  for (double scale : {0.1, 1.0, 3.0}) {
    const MaxDigitWeights w = random_weights(scale, 5);
    for (int n = 0; n < 40; ++n) {
      const std::vector<int> digits = sample_list(rng);
      const auto fast = forward_logits(w, digits);
      const auto slow = generic_logits(w, digits);
      const double bound = forward_agreement_bound(max_abs(slow));
      for (int j = 0; j < kVocab; ++j) CHECK(std::abs(fast[j] - slow[j]) <= bound);
      // the ANS row of the attention agrees with attention_forward's last row
      const Matrix rows = ans_attention(w, digits);
      const auto tokens = prompt_tokens(digits);
      Matrix x(kPromptLength, kDModel);
      for (int p = 0; p < kPromptLength; ++p) x.row(p) = w.E.row(tokens[p]);
      for (int h = 0; h < kHeads; ++h) {
        AttentionOptions o;
        o.causal = true;
        const Matrix a = attention_forward(x, w.W_Q[h], w.W_K[h], w.W_V[h], o).weights;
        for (int p = 0; p < kPromptLength; ++p) CHECK(std::abs(rows(h, p) - a(kAnsPosition, p)) <= 64 * kEpsilon);
      }
    }
  }
}

TEST_CASE("max-digit: the backward matches central finite differences", "[max_digit][gradient]") {
  const MaxDigitWeights w0 = random_weights(1.0, 3);
  Random rng(4);
  const std::vector<TokenCounts> batch = sample_batch(rng, 24);
  MaxDigitGradients g = zero_gradients();
  max_digit_loss_backward(w0, batch, g);
  const auto grads = g.list();
  const auto names = parameter_names();
  // kMaxDigitGradient (tests/core/tolerances.hpp): 12 random
  // entries of every matrix, and all of E[ANS], which feeds every query and the residual.
  const test::GradientTolerance tolerance = test::kMaxDigitGradient;
  Random pick(9);
  for (std::size_t m = 0; m < grads.size(); ++m) {
    MaxDigitWeights w = w0;
    Matrix& p = *parameter_list(w)[m];
    std::vector<test::Entry> entries;
    for (int n = 0; n < 12; ++n) {
      const auto i = static_cast<Eigen::Index>(pick.below(static_cast<std::uint32_t>(p.rows())));
      const auto j = static_cast<Eigen::Index>(pick.below(static_cast<std::uint32_t>(p.cols())));
      entries.emplace_back(i, j);
    }
    test::check_gradient(names[m], [&] { return max_digit_loss(w, batch); }, p, *grads[m], tolerance, entries);
  }
  MaxDigitWeights w = w0;
  std::vector<test::Entry> ans_row;
  for (Eigen::Index i = 0; i < kDModel; ++i) ans_row.emplace_back(kAns, i);
  test::check_gradient("E", [&] { return max_digit_loss(w, batch); }, w.E, g.dE, tolerance, ans_row);
}

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

TEST_CASE("max-digit: bad weights and settings give clear messages", "[max_digit]") {
  MaxDigitWeights w = random_weights(0.1, 1);
  MaxDigitWeights bad = w;
  bad.W_K[2] = Matrix::Zero(64, 15);
  CHECK_THROWS_WITH(validate_weights(bad), "W_K[2] must be 64 × 16, got 64 × 15");
  bad = w;
  bad.W_O.pop_back();
  CHECK_THROWS_WITH(validate_weights(bad), Catch::Contains("W_O must hold 4 matrices (one per head), got 3"));
  bad = w;
  bad.E(3, 5) = NAN;
  CHECK_THROWS_WITH(validate_weights(bad), Catch::Contains("E (14 × 64) has a non-finite entry"));
  CHECK_THROWS_WITH(require_format_version(2), Catch::Contains("format_version 2"));
  MaxDigitTrainingSettings s;
  s.learning_rate = 0;
  CHECK_THROWS_WITH(s.validate(), "learning_rate must be finite and > 0, got 0");
  s = {};
  s.batch_size = 0;
  CHECK_THROWS_WITH(s.validate(), "batch_size must lie in [1, 1000000], got 0");
  s = {};
  s.init_scale = -1;
  CHECK_THROWS_WITH(s.validate(), "init_scale must lie in (0, 10000], got -1");
  s.init_scale = 1e100;  // once reached a NaN-to-integer conversion in the exp
  CHECK_THROWS_WITH(s.validate(), "init_scale must lie in (0, 10000], got 1e+100");
  s.init_scale = kMaxInitScale;
  CHECK_NOTHROW(s.validate());
  s = {};
  s.steps = -1;
  CHECK_THROWS_WITH(MaxDigitTrainer(s), "steps must lie in [0, 10000000], got -1");
  s = {};
  s.weight_decay = 1000;
  CHECK_THROWS_WITH(s.validate(), Catch::StartsWith("weight_decay must be finite, ≥ 0 and below 1 / learning_rate"));
  CHECK_THROWS_WITH(patch_attention(w, {1, 2}, {{4, 0}}), Catch::Contains("patch head"));
  CHECK_THROWS_WITH(patch_attention(w, {1, 2}, {{0, 9}}), Catch::Contains("patch position"));
  CHECK_THROWS_WITH(subspace_accuracy(w, Basis::w_o, 0), Catch::Contains("k must lie in 1…64"));
  CHECK_THROWS_WITH(basis_from_name("w_x"), Catch::Contains("basis"));
}

TEST_CASE("max-digit: unit-norm unembedding keeps every column of W_U at norm one", "[max_digit][training]") {
  MaxDigitTrainingSettings s;
  s.steps = 50;
  s.unit_norm_unembedding = true;
  const MaxDigitWeights w = train_max_digit(s);
  CHECK(w.unit_norm_unembedding);
  // Renormalisation: a length-64 sum of squares, a square root and 64 products.
  for (int j = 0; j < kVocab; ++j) CHECK(std::abs(w.W_U.col(j).norm() - 1.0) <= 4 * 64 * kEpsilon);
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
  CHECK_THAT(t.divergence_message(), Catch::StartsWith("training diverged at step 1:") && Catch::Contains("learning_rate 1e+300"));
  CHECK_THROWS_WITH(train_max_digit(s), Catch::StartsWith("training diverged at step 1:"));
  // A healthy run never reports divergence.
  s.learning_rate = 3e-3;
  MaxDigitTrainer healthy(s);
  CHECK(healthy.step(50).steps_taken == 50);
  CHECK(healthy.diverged_at() == 0);
}
