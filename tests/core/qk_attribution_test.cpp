#include "core/qk_attribution.hpp"

#include "core/check.hpp"
#include "core/random.hpp"
#include "core/tolerances.hpp"
#include "support/random_transformer.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::InputError;
using headlab::Matrix;
using headlab::Random;
using namespace headlab::transformer;

namespace {

// 3 layers of 2 heads, d_model 6, d_head 3, n_ctx 5: layer 2 reads 4 earlier heads (S = 7 with W_pos).
TransformerConfig small_config(Normalization norm, bool positional, double attn_scale = 0) {
  TransformerConfig c = transformer_config({3, 2, 6, 3, 5, 7}, norm, positional ? Positions::learned : Positions::none);
  c.attn_scale = attn_scale;
  return c;
}

// Random models (tests/support/random_transformer.hpp): biases non-zero, so the bias source matters.
using headlab::test::random_transformer;

const std::vector<int> kPrompt{3, 0, 6, 3, 1};

// One layout per case: the positions (rotary in both pairings, GPT-J on half of d_head), grouping
// and biases the own-model path opens, on 3 layers of 2 heads, d_model 6, d_head 4, n_ctx 5.
struct Layout {
  Positions positions;
  bool adjacent_pairs;  // rotary only: GPT-J pairs on rotary_dim 2, else GPT-NeoX on all 4
  int key_value_heads;  // 0 = one per head, 1 = multi-query
  bool biases;
};

TransformerConfig layout_config(Normalization norm, const Layout& layout) {
  TransformerConfig c = transformer_config({3, 2, 6, 4, 5, 7}, norm, layout.positions);
  if (layout.positions == Positions::rotary) {
    c.rotary_dim = layout.adjacent_pairs ? 2 : 4;
    c.rotary_adjacent_pairs = layout.adjacent_pairs;
    c.rotary_base = layout.adjacent_pairs ? 50.0 : 10000.0;
  }
  c.n_key_value_heads = layout.key_value_heads;
  return c;
}

// The split is exact (to rounding) and its scores are the forward pass's, for every head and query.
void check_parts_sum_to_scores(const TransformerWeights& w) {
  const auto run = transformer_forward(w, kPrompt);
  int checked = 0;
  for (int l = 0; l < 3; ++l) {
    for (int h = 0; h < 2; ++h) {
      for (int i = 0; i < 5; ++i) {
        const auto qk = qk_attribution(w, run, l, h, i);
        REQUIRE(qk.parts.size() == static_cast<std::size_t>(i + 1));
        for (int j = 0; j <= i; ++j) {
          const Matrix& p = qk.parts[static_cast<std::size_t>(j)];
          const double magnitude = p.cwiseAbs().sum();
          CHECK(std::abs(p.sum() - qk.scores(j)) <= headlab::test::kQkPartsSumRelative * magnitude);
          ++checked;
        }
        // The scores are the forward pass's own: its causal softmax gives the pattern, bit for bit.
        Matrix row = Matrix::Zero(1, 5);
        row.leftCols(i + 1) = qk.scores;
        causal_softmax(row, i);
        CHECK((row.row(0) - run.layers[l].pattern[h].row(i)).cwiseAbs().maxCoeff() == 0.0);
      }
    }
  }
  CHECK(checked == 3 * 2 * 15);
}

}  // namespace

TEST_CASE("QK attribution: the parts sum to the forward pass's scores within 1e-12 relative", "[qk_attribution]") {
  for (auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre}) {
    for (bool positional : {false, true}) {
      // attn_scale 2.5 (TransformerLens's own divisor) with LNPre, √d_head otherwise.
      const double attn_scale = norm == Normalization::layer_norm_pre ? 2.5 : 0.0;
      check_parts_sum_to_scores(random_transformer(small_config(norm, positional, attn_scale), 21, 0.8));
    }
  }
}

TEST_CASE("QK attribution is exact for every normalisation, positions, grouping and bias layout", "[qk_attribution]") {
  const std::vector<Layout> layouts{
      {Positions::none, false, 0, true},        {Positions::learned, false, 1, true},
      {Positions::shortformer, false, 0, true}, {Positions::shortformer, false, 1, false},
      {Positions::rotary, false, 0, true},      {Positions::rotary, true, 1, true},
      {Positions::rotary, false, 1, false},     {Positions::learned, false, 0, false},
  };
  for (auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre, Normalization::rms,
                    Normalization::rms_pre}) {
    for (const Layout& layout : layouts) {
      INFO("normalization " << normalization_name(norm) << ", positions " << positions_name(layout.positions)
                            << (layout.adjacent_pairs ? " (adjacent pairs)" : "") << ", key-value heads "
                            << layout.key_value_heads << (layout.biases ? ", biases" : ", no biases"));
      auto w = random_transformer(layout_config(norm, layout), 31, 0.8);
      if (!layout.biases) {
        for (auto& p : named_parameters(w))
          if (p.name.find(".b_") != std::string::npos) p.value->setZero();
      }
      check_parts_sum_to_scores(w);
    }
  }
}

TEST_CASE("QK attribution: shortformer positions are a source on both sides, outside the residual stream",
          "[qk_attribution]") {
  auto w = random_transformer(layout_config(Normalization::rms, {Positions::shortformer, false, 0, true}), 9, 0.7);
  const auto run = transformer_forward(w, kPrompt);
  // Sources of layer 1: embed 0, pos 1, L0H0 2, L0H1 3, bias 4. W_pos enters q and k unnormalised.
  const auto qk = qk_attribution(w, run, 1, 0, 4);
  REQUIRE(qk.sources == std::vector<std::string>{"embed", "pos", "L0H0", "L0H1", "bias"});
  for (const Matrix& p : qk.parts) {
    CHECK(p.row(1).cwiseAbs().maxCoeff() > 0.0);
    CHECK(p.col(1).cwiseAbs().maxCoeff() > 0.0);
  }
  // The (pos, pos) part is W_pos[i] W_Q · W_pos[j] W_K / attn_scale whatever the tokens say.
  const auto other = qk_attribution(w, transformer_forward(w, {6, 6, 2, 5, 0}), 1, 0, 4);
  for (std::size_t j = 0; j < qk.parts.size(); ++j) CHECK(other.parts[j](1, 1) == qk.parts[j](1, 1));
}

TEST_CASE("QK attribution: sources are embed, pos, every earlier head, bias", "[qk_attribution]") {
  const auto with_pos = small_config(Normalization::layer_norm, true);
  CHECK(qk_source_names(with_pos, 0) == std::vector<std::string>{"embed", "pos", "bias"});
  CHECK(qk_source_names(with_pos, 2) ==
        std::vector<std::string>{"embed", "pos", "L0H0", "L0H1", "L1H0", "L1H1", "bias"});
  CHECK(qk_source_names(small_config(Normalization::none, false), 1) ==
        std::vector<std::string>{"embed", "L0H0", "L0H1", "bias"});
}

TEST_CASE("QK attribution: a source that writes nothing carries no part", "[qk_attribution]") {
  auto w = random_transformer(small_config(Normalization::layer_norm, true), 5, 0.7);
  w.layers[0].W_O[1].setZero();  // L0H1 writes nothing into the residual stream
  w.W_pos.setZero();             // nor does pos
  const auto run = transformer_forward(w, kPrompt);
  const auto qk = qk_attribution(w, run, 2, 0, 4);
  // Sources: embed 0, pos 1, L0H0 2, L0H1 3, L1H0 4, L1H1 5, bias 6.
  for (const Matrix& p : qk.parts) {
    CHECK(p.row(1).cwiseAbs().maxCoeff() == 0.0);
    CHECK(p.col(1).cwiseAbs().maxCoeff() == 0.0);
    CHECK(p.row(3).cwiseAbs().maxCoeff() == 0.0);
    CHECK(p.col(3).cwiseAbs().maxCoeff() == 0.0);
    CHECK(p.row(2).cwiseAbs().maxCoeff() > 0.0);  // the live head does carry parts
  }
  // Without normalisation and without any bias, the bias source is zero too.
  auto plain = random_transformer(small_config(Normalization::none, false), 5, 0.7);
  for (auto& p : named_parameters(plain))
    if (p.name.find(".b_") != std::string::npos) p.value->setZero();
  const auto plain_qk = qk_attribution(plain, transformer_forward(plain, kPrompt), 1, 1, 3);
  for (const Matrix& p : plain_qk.parts) {
    CHECK(p.row(3).cwiseAbs().maxCoeff() == 0.0);
    CHECK(p.col(3).cwiseAbs().maxCoeff() == 0.0);
  }
}

TEST_CASE("QK attribution: the T × T table holds each query's parts bit for bit", "[qk_attribution]") {
  const auto w = random_transformer(small_config(Normalization::layer_norm_pre, true), 8, 0.6);
  const auto run = transformer_forward(w, kPrompt);
  const auto table = qk_attribution_table(w, run, 1, 1);
  const std::size_t S = table.sources.size();
  REQUIRE(S == 5);
  REQUIRE(table.parts.size() == 5 * 5 * S * S);
  for (int i = 0; i < 5; ++i) {
    const auto qk = qk_attribution(w, run, 1, 1, i);
    for (int j = 0; j < 5; ++j) {
      const double* cell = table.parts.data() + static_cast<std::size_t>(i * 5 + j) * S * S;
      for (std::size_t a = 0; a < S; ++a) {
        for (std::size_t b = 0; b < S; ++b) {
          const double want = j <= i ? qk.parts[j](a, b) : 0.0;
          CHECK(cell[a * S + b] == want);
        }
      }
      CHECK(table.scores(i, j) == (j <= i ? qk.scores(j) : 0.0));
    }
  }
}

TEST_CASE("QK attribution: a head, layer or position outside the model is refused by name", "[qk_attribution]") {
  const auto w = random_transformer(small_config(Normalization::layer_norm, true), 3, 0.5);
  const auto run = transformer_forward(w, {1, 2, 3});
  CHECK_THROWS_WITH(qk_attribution(w, run, 3, 0, 0), "qk attribution: layer 3 is outside the model's layers [0, 3)");
  CHECK_THROWS_WITH(qk_attribution(w, run, -1, 0, 0), "qk attribution: layer -1 is outside the model's layers [0, 3)");
  CHECK_THROWS_WITH(qk_attribution(w, run, 1, 2, 0), "qk attribution: head 2 is outside layer 1's heads [0, 2)");
  CHECK_THROWS_WITH(qk_attribution(w, run, 1, 0, 3), "qk attribution: position = 3 is out of range [0, 3)");
  CHECK_THROWS_AS(qk_attribution_table(w, run, 0, 5), InputError);
  const auto other = random_transformer(transformer_config({1, 2, 6, 3, 5, 7}), 3, 0.5);
  CHECK_THROWS_WITH(qk_attribution(other, run, 0, 0, 0),
                    Catch::StartsWith("qk attribution needs the forward pass of this model"));
}
