// core/transformer_max_digit: the max-digit model as a one-layer attention-only transformer.
#include "core/transformer_max_digit.hpp"

#include "core/batch_patching.hpp"
#include "core/max_digit.hpp"
#include "core/max_digit_task.hpp"
#include "core/max_digit_training.hpp"
#include "core/random.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using headlab::Random;
using namespace headlab::transformer;

TEST_CASE("the max-digit model through the transformer forward gives the per-token-table logits",
          "[transformer][max_digit]") {
  // Initial weights at two scales and weights after 300 steps of the article's recipe
  // (logits of order ten, as in the shipped model).
  headlab::max_digit::MaxDigitTrainingSettings s;
  s.seed = 7;
  std::vector<headlab::max_digit::MaxDigitWeights> models;
  for (double init_scale : {0.1, 1.0}) {
    s.init_scale = init_scale;
    models.push_back(headlab::max_digit::initial_weights(s));
  }
  s.init_scale = 0.1;
  s.steps = 300;
  models.push_back(headlab::max_digit::train_max_digit(s));
  for (const auto& m : models) {
    const auto w = from_max_digit(m);
    Random rng(3);
    double worst = 0, largest = 0;
    for (int example = 0; example < 200; ++example) {
      const auto digits = headlab::max_digit::sample_list(rng);
      const auto prompt = headlab::max_digit::prompt_tokens(digits);
      const auto a = transformer_forward(w, std::vector<int>(prompt.begin(), prompt.end()));
      const auto expected = headlab::max_digit::forward_logits(m, digits);
      for (int j = 0; j < headlab::max_digit::kVocab; ++j) {
        worst = std::max(worst, std::abs(a.logits(headlab::max_digit::kAnsPosition, j) - expected[j]));
        largest = std::max(largest, std::abs(expected[j]));
      }
    }
    INFO("largest |logit| " << largest << ", worst difference " << worst);
    CHECK(worst <= headlab::test::kSameModelLogitBound);
  }
}

TEST_CASE("the max-digit model as a transformer: its config and token names", "[transformer][max_digit]") {
  namespace md = headlab::max_digit;
  md::MaxDigitTrainingSettings s;
  const TransformerWeights w = from_max_digit(md::initial_weights(s));
  const TransformerConfig& c = w.config;
  CHECK(c.n_layers == 1);
  CHECK(c.n_heads == md::kHeads);
  CHECK(c.d_model == md::kDModel);
  CHECK(c.d_head == md::kDHead);
  CHECK(c.n_ctx == md::kPromptLength);
  CHECK(c.d_vocab == md::kVocab);
  CHECK(c.normalization == Normalization::none);
  CHECK(c.positions == Positions::none);
  const auto& names = md::vocab_names();
  REQUIRE(c.token_names.size() == names.size());
  CHECK(std::equal(names.begin(), names.end(), c.token_names.begin()));
  CHECK(c.token_names.back() == "ANS");
  CHECK_NOTHROW(validate_config(c));
}

// The appendix's batch-patching claims ("Patching over a batch of lists",
// site/pages/articles/max-digit-heads-appendix.html), for the default recipe's seeds 0–4: over 64
// max-digit pairs (pair seed 0: the list's maximum m replaced by a smaller digit; answer m, wrong the
// corrupted maximum),
//   - a head patched at any position but ANS changes nothing (one layer: a head's output at position p
//     reaches only p's logits), exactly 0 in every pair;
//   - at ANS the four heads' effects add up to 1 in every pair: with no normalisation the logit
//     difference at ANS is the embedding's part (the same ANS token in both prompts) plus each head's
//     write, so the four changes make up the whole difference — to rounding, a few ε of the logit
//     differences (≈ 10) divided by the span (> 0.1): 1e-12;
//   - no head carries the answer alone: each head's mean effect at ANS lies in (0.15, 0.4).
// Each seed trains once (4,000 steps of batch 256, about 0.3 s natively): "acceptance" cases.
namespace {

constexpr double kEffectsSumBound = 1e-12;

void check_appendix_claims(std::uint64_t seed) {
  namespace md = headlab::max_digit;
  md::MaxDigitTrainingSettings s;
  s.seed = seed;
  const TransformerWeights w = from_max_digit(md::train_max_digit(s));
  const BatchPatching b = batch_patching(w, md::max_digit_pairs(0, 64), IntervalSettings{});
  const auto& g = b.head_position;
  const Eigen::Index ans = md::kAnsPosition;
  REQUIRE(g.mean.rows() == md::kHeads);
  REQUIRE(g.mean.cols() == ans + 1);
  INFO("seed " << seed << ": mean effect at ANS " << g.mean.col(ans).transpose());
  double worst_sum = 0;
  for (const headlab::Matrix& e : g.effects) {
    CHECK((e.leftCols(ans).array() == 0.0).all());
    worst_sum = std::max(worst_sum, std::abs(e.col(ans).sum() - 1.0));
  }
  CHECK(worst_sum <= kEffectsSumBound);
  for (int h = 0; h < md::kHeads; ++h) {
    CHECK(g.mean(h, ans) > 0.15);
    CHECK(g.mean(h, ans) < 0.4);
  }
}

}  // namespace

TEST_CASE("max-digit appendix claims acceptance: seed 0", "[transformer][max_digit][claims][acceptance]") {
  check_appendix_claims(0);
}
TEST_CASE("max-digit appendix claims acceptance: seed 1", "[transformer][max_digit][claims][acceptance]") {
  check_appendix_claims(1);
}
TEST_CASE("max-digit appendix claims acceptance: seed 2", "[transformer][max_digit][claims][acceptance]") {
  check_appendix_claims(2);
}
TEST_CASE("max-digit appendix claims acceptance: seed 3", "[transformer][max_digit][claims][acceptance]") {
  check_appendix_claims(3);
}
TEST_CASE("max-digit appendix claims acceptance: seed 4", "[transformer][max_digit][claims][acceptance]") {
  check_appendix_claims(4);
}
