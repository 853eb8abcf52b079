// Attribution patching (core/attribution_patching.hpp): its hand-written gradients against central
// finite differences of the real patches (every architecture the own-model path opens), the
// independent PyTorch autograd reference of tests/data/batch_patching/make_attribution_fixtures.py,
// exactness where the metric is linear, the node = direct + edges decomposition, and bad input.
#include "core/attribution_patching.hpp"

#include "core/check.hpp"
#include "core/circuit_faithfulness.hpp"
#include "core/induction_task.hpp"
#include "core/normalization.hpp"
#include "core/tolerances.hpp"
#include "formats/json.hpp"
#include "support/gradient_check.hpp"
#include "support/patching_fixtures.hpp"
#include "support/random_transformer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using headlab::InputError;
using headlab::Matrix;
using headlab::PromptPair;
using namespace headlab::transformer;
namespace fm = headlab::formats;

namespace {

const fm::JsonValue& expected() { return headlab::test::patching_reference("attribution_expected.json"); }

using headlab::test::random_transformer;

// The fixture model and the architectures of the backward test: RMSNorm + NeoX rotary + grouped
// heads, RMSPre + GPT-J rotary + attn_scale, LayerNorm + shortformer positions + one key-value head.
std::vector<TransformerWeights> architectures() {
  std::vector<TransformerWeights> models{headlab::test::patching_model()};
  const TransformerSizes sizes{2, 4, 6, 4, 5, 7};
  auto rope = transformer_config(sizes, Normalization::rms, Positions::rotary);
  rope.rotary_dim = 4;
  rope.n_key_value_heads = 2;
  auto gptj = transformer_config(sizes, Normalization::rms_pre, Positions::rotary);
  gptj.rotary_dim = 2;
  gptj.rotary_base = 50;
  gptj.rotary_adjacent_pairs = true;
  gptj.attn_scale = 1.5;
  auto shortformer = transformer_config(sizes, Normalization::layer_norm, Positions::shortformer);
  shortformer.n_key_value_heads = 1;
  for (const auto& c : {rope, gptj, shortformer}) models.push_back(random_transformer(c, 5, 0.6));
  return models;
}

}  // namespace

TEST_CASE("attribution gradients match central differences of the real node and path patches", "[attribution]") {
  for (const TransformerWeights& w : architectures()) {
    const auto& c = w.config;
    INFO(normalization_name(c.normalization) << ", " << positions_name(c.positions) << ", G = " << key_value_heads(c));
    const PromptPair pair =
        c.d_vocab == 17 ? headlab::test::patching_pairs(w)[0] : PromptPair{{1, 4, 2, 1, 4}, {1, 4, 3, 1, 4}, 2, 6};
    const PairRuns r = pair_runs(w, pair);
    REQUIRE(std::abs(r.span) > 0.05);
    const LogitDifferenceGradients g = logit_difference_gradients(w, r.clean, pair.answer, pair.wrong);
    for (int l = 0; l < c.n_layers; ++l) {
      const auto& clean = r.clean.layers[static_cast<std::size_t>(l)];
      const auto& lw = w.layers[static_cast<std::size_t>(l)];
      for (int h = 0; h < c.n_heads; ++h) {
        // Node: e as a function of head (l, h)'s output (T × d); ∂e/∂output = −∂LD/∂resid_post_l / span.
        Matrix output = clean.head_output[static_cast<std::size_t>(h)];
        const auto node = [&] { return head_output_effect(r, l, h, output); };
        headlab::test::check_gradient("node " + std::to_string(l) + "." + std::to_string(h), node, output,
                                      -g.resid_post[static_cast<std::size_t>(l)] / r.span,
                                      headlab::test::kPatchEffectGradient);
        // Receiver input κ: e as a function of the resid_pre that only that input reads (path patching's
        // receiver_output); ∂e/∂resid_pre = −receiver_input / span.
        for (int input = 0; input < kReceiverInputs; ++input) {
          Matrix resid = clean.resid_pre;
          const auto receiver = [&] {
            headlab::Vector scale;
            const Matrix x = normalize(c, resid, lw.ln_w, lw.ln_b, scale);
            return head_output_effect(r, l, h, receiver_output(r, l, h, input, x));
          };
          const auto& analytic = g.receiver_input[static_cast<std::size_t>((l * c.n_heads + h) * 3 + input)];
          headlab::test::check_gradient(
              "input " + std::to_string(input) + " of " + std::to_string(l) + "." + std::to_string(h), receiver, resid,
              -analytic / r.span, headlab::test::kPatchEffectGradient);
        }
      }
    }
  }
}

TEST_CASE("attribution patching matches the PyTorch float64 autograd reference per pair within 1e-9", "[attribution]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = headlab::test::patching_pairs(w);
  REQUIRE(pairs.size() == 66);
  const AttributionPatching a = attribution_patching(w, pairs);
  REQUIRE(a.edges.size() == 9);
  const auto& node_estimate = expected().find("node_estimate")->items();
  const auto& node_actual = expected().find("node_actual")->items();
  const auto& edge_estimate = expected().find("edge_estimate")->items();
  REQUIRE(node_estimate.size() == pairs.size());
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Matrix ne =
        fm::matrix_from_json(fm::JsonValue(std::vector<fm::JsonValue>{node_estimate[i]}), "node_estimate");
    const Matrix na = fm::matrix_from_json(fm::JsonValue(std::vector<fm::JsonValue>{node_actual[i]}), "node_actual");
    const Matrix ee = fm::matrix_from_json(edge_estimate[i], "edge_estimate");
    REQUIRE(ne.cols() == 6);
    REQUIRE(ee.rows() == 9);
    worst = std::max({worst, (ne - a.node_estimate[i]).cwiseAbs().maxCoeff(),
                      (na - a.node_actual[i]).cwiseAbs().maxCoeff(), (ee - a.edge_estimate[i]).cwiseAbs().maxCoeff()});
    largest = std::max({largest, ne.cwiseAbs().maxCoeff(), ee.cwiseAbs().maxCoeff()});
  }
  CHECK(worst < headlab::test::kPatchingReferenceBound);
  CHECK(largest > 0.1);  // the estimates are not all zero (a zero gradient would pass the bound too)
  // Rank correlations: ranks of means that agree within 1e-9 are the same ranks unless two means
  // lie within 2e-9 of each other, so the correlations are equal to rounding.
  CHECK_THAT(a.node_agreement.spearman,
             Catch::Matchers::WithinAbs(expected().find("node_spearman")->as_double(), 1e-12));
  CHECK_THAT(a.edge_agreement.spearman,
             Catch::Matchers::WithinAbs(expected().find("edge_spearman")->as_double(), 1e-12));
  const auto& by_input = expected().find("edge_input_spearman")->items();
  for (int k = 0; k < 3; ++k)
    CHECK_THAT(a.edge_input_spearman[static_cast<std::size_t>(k)],
               Catch::Matchers::WithinAbs(by_input[static_cast<std::size_t>(k)].as_double(), 1e-12));
  // The approximation is informative here but not exact: rank agreement well above 0, below 1.
  CHECK(a.node_agreement.spearman > 0.5);
  CHECK(a.node_agreement.spearman < 1.0);
  for (const char* kind : {"node_largest", "edge_largest"}) {
    INFO(kind);
    const auto& want = expected().find(kind)->items();
    const auto& got = std::string(kind) == "node_largest" ? a.node_agreement.largest : a.edge_agreement.largest;
    REQUIRE(got.size() == want.size());
    for (std::size_t j = 0; j < want.size(); ++j) {
      CHECK(got[j].cell == want[j].find("cell")->as_double());
      CHECK_THAT(got[j].gap, Catch::Matchers::WithinAbs(want[j].find("gap")->as_double(),
                                                        2 * headlab::test::kPatchingReferenceBound));
    }
  }
}

TEST_CASE("the real node patches are batch patching's z cells; the real edges are path patching's", "[attribution]") {
  // Batch patching normalises by head_position_patching's logit differences, attribution patching by
  // pair_runs', the same forward read in another order: equal to ≈ 1e-15 relative; effects of order
  // one divided by spans > 0.1 agree within 1e-12. Path patching runs the very same function per
  // pair: the same bits.
  const auto w = headlab::test::patching_model();
  const auto all = headlab::test::patching_pairs(w);
  const std::vector<PromptPair> pairs(all.begin(), all.begin() + 4);
  IntervalSettings quick;
  quick.resamples = quick.permutations = kMinResamples;
  const AttributionPatching a = attribution_patching(w, pairs);
  const BatchPatching b = batch_patching(w, pairs, quick);
  const PathPatching p = path_patching(w, pairs, quick);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    for (Eigen::Index n = 0; n < a.node_actual[i].cols(); ++n)
      CHECK_THAT(a.node_actual[i](0, n), Catch::Matchers::WithinAbs(b.head_component.effects[i](n, 3), 1e-12));
    CHECK(a.edge_actual[i] == p.grid.effects[i]);
  }
}

TEST_CASE("attribution patching is exact where the metric is linear: one layer, no normalisation", "[attribution]") {
  // One layer and no final normalisation: LD is linear in each head's output (the logits read the
  // residual stream through W_U alone), so the estimate is the real patch up to rounding: values of
  // order one from dot products of T·d ≤ 48 terms, ≈ 1e-14; the bound 1e-12 leaves two orders.
  const auto w = headlab::test::transformer_fixture("transformer/one_layer_plain");
  REQUIRE(w.config.normalization == Normalization::none);
  const std::vector<PromptPair> pairs{{{1, 2, 3, 1, 2}, {1, 2, 4, 1, 2}, 3, 4}, {{5, 6, 7, 5}, {5, 8, 7, 5}, 6, 8}};
  std::vector<PromptPair> one{pairs[0]};
  const AttributionPatching a = attribution_patching(w, one);
  CHECK(a.edges.empty());
  CHECK(a.edge_agreement.largest.empty());
  CHECK(std::isnan(a.edge_agreement.spearman));
  double largest = 0;
  for (Eigen::Index n = 0; n < a.node_estimate_mean.cols(); ++n) {
    CHECK_THAT(a.node_estimate_mean(0, n), Catch::Matchers::WithinAbs(a.node_actual_mean(0, n), 1e-12));
    largest = std::max(largest, std::abs(a.node_actual_mean(0, n)));
  }
  CHECK(largest > 0.01);
  CHECK_THROWS_WITH(attribution_patching(w, pairs), Catch::Contains("pair 1 has 4 tokens, pair 0 has 5"));
}

TEST_CASE("a sender's node estimate is its direct path plus its edges into every later receiver input",
          "[attribution]") {
  // ∂LD/∂resid_post_0 = ∂LD/∂resid_post_1 + Σ_{h,κ} ∂LD/∂resid_pre_1 through (h, κ): a layer-0 node's
  // estimate splits exactly (to rounding, sums of ≈ 10 terms of order one: 1e-12) into its estimate
  // along the direct path and its 3H edge estimates.
  const auto w = headlab::test::patching_model();
  const auto pairs = headlab::test::patching_pairs(w);
  const PairRuns r = pair_runs(w, pairs[3]);
  const PairAttribution p = pair_attribution(r);
  const LogitDifferenceGradients g = logit_difference_gradients(w, r.clean, pairs[3].answer, pairs[3].wrong);
  const int H = w.config.n_heads;
  for (int h = 0; h < H; ++h) {
    const Matrix delta = r.corrupted.layers[0].head_output[static_cast<std::size_t>(h)] -
                         r.clean.layers[0].head_output[static_cast<std::size_t>(h)];
    double sum = -(delta.array() * g.resid_post[1].array()).sum() / r.span;
    for (int receiver = 0; receiver < H; ++receiver) sum += p.edges.row(h * H + receiver).sum();
    CHECK_THAT(p.nodes(0, h), Catch::Matchers::WithinAbs(sum, 1e-12));
  }
}

TEST_CASE("Spearman's rank correlation: ties averaged, undefined when one side is constant", "[attribution]") {
  const double x[] = {1, 2, 3, 4}, reversed[] = {4, 3, 2, 1}, tied[] = {1, 1, 2, 3}, flat[] = {2, 2, 2, 2};
  CHECK(spearman_correlation(x, x, 4) == 1.0);
  CHECK(spearman_correlation(x, reversed, 4) == -1.0);
  // Ranks of `tied`: 1.5, 1.5, 3, 4 (centre 2.5): Σ (r_x − 2.5)(r_t − 2.5) = 1.5 + 0.5 + 0.25 + 2.25 = 4.5,
  // Σ (r_x − 2.5)² = 5, Σ (r_t − 2.5)² = 4.5, every sum exact in binary: ρ = 4.5 / √22.5 with the same
  // two roundings (√, ÷), so 0 ulp apart.
  CHECK_THAT(spearman_correlation(x, tied, 4), Catch::Matchers::WithinULP(4.5 / std::sqrt(22.5), 0));
  CHECK(std::isnan(spearman_correlation(x, flat, 4)));
  CHECK(std::isnan(spearman_correlation(x, x, 1)));
}

TEST_CASE("attribution patching names bad input", "[attribution]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = headlab::test::patching_pairs(w);
  const std::vector<PromptPair> few(pairs.begin(), pairs.begin() + 2);
  CHECK_THROWS_WITH(attribution_patching(w, few, 0), Catch::Contains("disagreements must lie in [1, 100], got 0"));
  std::vector<PromptPair> same = few;
  same[1].corrupted = same[1].clean;
  CHECK_THROWS_WITH(attribution_patching(w, same),
                    Catch::Contains("pair 1: the clean and corrupted prompts give the same logit difference"));
  std::vector<PromptPair> bad = few;
  bad[0].answer = 17;
  CHECK_THROWS_AS(attribution_patching(w, bad), InputError);
}

TEST_CASE("attribution patching and faithfulness refuse pairs beyond their memory bound before a pass",
          "[attribution]") {
  // 16 heads a layer and induction pairs of 2047 tokens: beside the two runs (≈ 2 GiB of patterns),
  // attribution patching's gradients and head-output changes, L·H·4 + L + 8 matrices of T × d.
  const TransformerConfig c = transformer_config({2, 16, 16, 4, 2048, 3000});
  const TransformerWeights w = zero_weights(c);
  const auto pairs = induction_pairs(c, 1, 1);
  REQUIRE(pairs[0].clean.size() == 2047);
  const double extra = 2 * 16 * (kReceiverInputs + 1) + 2 + 8;
  const auto mib = std::to_string(static_cast<long long>(std::ceil(pair_working_bytes(c, 2047, extra) / 1048576.0)));
  CHECK_THROWS_WITH(
      attribution_patching(w, pairs),
      Catch::Matchers::StartsWith("attribution patching of prompt pairs of 2047 tokens would hold about " + mib +
                                  " MiB at once"));
  CHECK_THROWS_WITH(circuit_faithfulness(w, pairs, {{1, 0}}, CircuitAblation::corrupted, IntervalSettings{}),
                    Catch::Matchers::StartsWith("circuit faithfulness of prompt pairs of 2047 tokens"));
}
