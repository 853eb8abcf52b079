// The max-digit transformer (core/max_digit_model.hpp): the per-token-table forward against a
// textbook forward, the hand-written backward against finite differences, and the messages for
// bad weights and settings.
#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/max_digit.hpp"
#include "core/max_digit_analysis.hpp"
#include "core/max_digit_training.hpp"
#include "core/tolerances.hpp"
#include "support/gradient_check.hpp"
#include "support/max_digit_reference.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>

using namespace headlab;
using namespace headlab::max_digit;
using namespace headlab::test::max_digit_reference;
using headlab::test::kEpsilon;

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
    test::check_gradient(
        names[m], [&] { return max_digit_loss(w, batch); }, p, *grads[m], tolerance,
        test::random_entries(pick, p.rows(), p.cols(), 12));
  }
  MaxDigitWeights w = w0;
  std::vector<test::Entry> ans_row;
  for (Eigen::Index i = 0; i < kDModel; ++i) ans_row.emplace_back(kAns, i);
  test::check_gradient(
      "E", [&] { return max_digit_loss(w, batch); }, w.E, g.dE, tolerance, ans_row);
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
  s.init_scale = headlab::kMaxInitScale;
  CHECK_NOTHROW(s.validate());
  s = {};
  s.steps = -1;
  CHECK_THROWS_WITH(MaxDigitTrainer(s), "steps must lie in [1, 10000000], got -1");
  s = {};
  s.weight_decay = 1000;
  CHECK_THROWS_WITH(s.validate(),
                    "learning_rate × weight_decay must be below 1 (AdamW multiplies each weight by 1 − their "
                    "product per step), got 0.003 × 1000 = 3");
  CHECK_THROWS_WITH(patch_attention(w, {1, 2}, {{4, 0}}), Catch::Contains("patch head"));
  CHECK_THROWS_WITH(patch_attention(w, {1, 2}, {{0, 9}}), Catch::Contains("patch position"));
  CHECK_THROWS_WITH(subspace_accuracy(w, Basis::w_o, 0), Catch::Contains("k must lie in 1…64"));
  CHECK_THROWS_WITH(basis_from_name("w_x"), Catch::Contains("basis"));
}
