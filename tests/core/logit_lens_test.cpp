#include "core/logit_lens.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/random.hpp"

#include <catch2/catch.hpp>

using headlab::InputError;
using headlab::Random;
using namespace headlab::transformer;

TEST_CASE("logit lens: the last stage is the model's own softmax, bit for bit; answers default to the next token",
          "[logit_lens]") {
  for (const auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre}) {
    TransformerWeights w = zero_weights(transformer_config({2, 2, 8, 4, 6, 10}, norm));
    Random rng(1);
    for (auto& p : named_parameters(w)) *p.value = rng.normal_matrix(p.value->rows(), p.value->cols(), 0.7);
    const std::vector<int> tokens{3, 1, 4, 1, 5};
    const auto run = transformer_forward(w, tokens);
    const auto lens = logit_lens(w, tokens, {}, 3);
    REQUIRE(lens.answer_probability.rows() == 3);
    CHECK(std::vector<int>(lens.answers.begin(), lens.answers.begin() + 4) == std::vector<int>{1, 4, 1, 5});
    Eigen::Index best = 0;
    run.logits.row(4).maxCoeff(&best);
    CHECK(lens.answers[4] == best);
    for (int i = 0; i < 5; ++i) {
      // Probabilities from the model's logits by the same softmax.
      const double top = run.logits.row(i).maxCoeff();
      double total = 0.0;
      for (int t = 0; t < 10; ++t) total += headlab::exp_nonpositive(run.logits(i, t) - top);
      const int answer = lens.answers[static_cast<std::size_t>(i)];
      CHECK(lens.answer_probability(2, i) == headlab::exp_nonpositive(run.logits(i, answer) - top) / total);
      CHECK(lens.top_tokens[2](i, 0) == [&] {
        Eigen::Index b = 0;
        run.logits.row(i).maxCoeff(&b);
        return double(b);
      }());
      for (int s = 0; s < 3; ++s) {
        CHECK(lens.top_probability[static_cast<std::size_t>(s)](i, 0) >=
              lens.top_probability[static_cast<std::size_t>(s)](i, 1));
        CHECK((lens.answer_rank(s, i) == 0) == (lens.top_tokens[static_cast<std::size_t>(s)](i, 0) == answer));
      }
    }
    CHECK_THROWS_WITH(logit_lens(w, tokens, {1, 2}, 3), Catch::Contains("answers: 2 tokens for a prompt of 5"));
    CHECK_THROWS_WITH(logit_lens(w, tokens, {1, 2, 3, 4, 10}, 3), Catch::Contains("answers[4] = 10"));
    CHECK_THROWS_WITH(logit_lens(w, tokens, {}, 11), Catch::Contains("top"));
  }
}
