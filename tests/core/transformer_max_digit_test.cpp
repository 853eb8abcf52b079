// core/transformer_max_digit: the max-digit model as a one-layer attention-only transformer.
#include "core/transformer_max_digit.hpp"

#include "core/max_digit.hpp"
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
