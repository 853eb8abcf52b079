// A prompt's next-token loss with each head ablated (core prompt_ablation_loss) against the PyTorch
// float64 reference written by tests/data/prompt_ablation/make_fixtures.py, on two models of
// tests/data/transformer: zero ablation, and mean ablation over reference sequences of unequal
// lengths (each position averaged over the sequences that reach it).
#include "core/check.hpp"
#include "core/tolerances.hpp"
#include "core/transformer_analysis.hpp"
#include "formats/json.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using headlab::InputError;
using namespace headlab::transformer;
namespace fm = headlab::formats;

namespace {

std::vector<int> ints(const fm::JsonValue& a) {
  std::vector<int> out;
  for (const auto& v : a.items()) out.push_back(static_cast<int>(v.as_double()));
  return out;
}

void check_losses(const headlab::Matrix& got, const fm::JsonValue& expected) {
  REQUIRE(static_cast<std::size_t>(got.rows()) == expected.size());
  for (Eigen::Index l = 0; l < got.rows(); ++l) {
    REQUIRE(static_cast<std::size_t>(got.cols()) == expected[l].size());
    for (Eigen::Index h = 0; h < got.cols(); ++h) {
      INFO("head " << l << "." << h);
      CHECK_THAT(got(l, h),
                 Catch::Matchers::WithinAbs(expected[l][h].as_double(), headlab::test::kPromptLossReferenceBound));
    }
  }
}

}  // namespace

TEST_CASE("prompt next-token loss with each head ablated matches the PyTorch reference within 1e-9",
          "[prompt_ablation_parity]") {
  for (const std::string name : {"two_layer_ln_pos", "one_layer_plain"}) {
    INFO(name);
    const auto weights = headlab::test::transformer_fixture("transformer/" + name);
    const auto doc =
        fm::parse_json(headlab::test::fixture_file("prompt_ablation/" + name + ".expected.json"), "fixture");
    const auto prompt = ints(*doc.find("prompt"));
    MeanSource means;
    for (const auto& s : doc.find("reference")->items()) means.reference.push_back(ints(s));

    const auto zero = prompt_ablation_loss(weights, prompt, Ablation::zero, means);
    CHECK_THAT(zero.clean_loss, Catch::Matchers::WithinAbs(doc.find("clean_loss")->as_double(),
                                                           headlab::test::kPromptLossReferenceBound));
    check_losses(zero.loss, *doc.find("zero"));

    const auto mean = prompt_ablation_loss(weights, prompt, Ablation::mean, means);
    CHECK(mean.clean_loss == zero.clean_loss);
    check_losses(mean.loss, *doc.find("mean_reference"));

    // The figure's logits come from ablated_forward: with one head mean-ablated over the same
    // reference, its next-token loss is the loss above (the same resumed sum, in another order).
    const auto run = ablated_forward(weights, prompt, {{0, 1}}, Ablation::mean, means);
    TokenSequence s;
    s.tokens = prompt;
    CHECK_THAT(sequence_cross_entropy(run.logits, s) / static_cast<double>(prompt.size() - 1),
               Catch::Matchers::WithinAbs(mean.loss(0, 1), headlab::test::kPromptLossReferenceBound));
  }
}

TEST_CASE("prompt ablation loss: repeated random sequences by default, and bad inputs named",
          "[prompt_ablation_parity]") {
  const auto weights = headlab::test::transformer_fixture("transformer/two_layer_ln_pos");
  const std::vector<int> prompt{3, 16, 5, 3, 16, 5, 0, 9};
  // Without reference sequences the means are ablated_forward's (repeated random sequences of `seed`):
  // the same bits as that run's mean ablation of the one head, for every head.
  MeanSource random;
  random.sequences = 8;
  random.seed = 3;
  const auto losses = prompt_ablation_loss(weights, prompt, Ablation::mean, random);
  for (int l = 0; l < 2; ++l) {
    for (int h = 0; h < 3; ++h) {
      const auto old_api = ablated_forward(weights, prompt, {{l, h}}, Ablation::mean, 8, 3);
      const auto new_api = ablated_forward(weights, prompt, {{l, h}}, Ablation::mean, random);
      CHECK(old_api.logits == new_api.logits);
      TokenSequence s;
      s.tokens = prompt;
      CHECK_THAT(sequence_cross_entropy(new_api.logits, s) / 7.0,
                 Catch::Matchers::WithinAbs(losses.loss(l, h), headlab::test::kPromptLossReferenceBound));
    }
  }
  CHECK(losses.clean_loss > 0.0);

  const auto message = [&](const std::vector<int>& p, const MeanSource& m) {
    try {
      prompt_ablation_loss(weights, p, Ablation::mean, m);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message({3}, random) == "the prompt has 1 token; its next-token loss needs at least 2");
  MeanSource short_reference;
  short_reference.reference = {{1, 2, 3}, {4, 5, 6, 7, 8}};
  CHECK(message(prompt, short_reference) ==
        "mean ablation over the reference sequences: the prompt has 8 tokens, the longest reference sequence 5, "
        "so positions from 5 on have no mean");
  MeanSource bad_token;
  bad_token.reference = {{1, 2, 3, 4, 5, 6, 7, 8}, {1, 99}};
  CHECK(message(prompt, bad_token) == "reference sequence 1: token 99 at position 1 is outside the vocabulary [0, 17)");
  MeanSource no_sequences;
  no_sequences.sequences = 0;
  CHECK(message(prompt, no_sequences) == "sequences must be in [1, 10000], got 0");
}
