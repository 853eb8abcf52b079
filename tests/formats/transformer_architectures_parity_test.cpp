// The core against the independent float64 PyTorch reference of tests/data/archs/make_fixtures.py
// for RoPE (NeoX and GPT-J pairs, partial rotary_dim, rotary_base), RMSNorm / RMSPre, no biases,
// shortformer positions, grouped and multi-query key-value heads and attn_scale, each model read
// from its safetensors file and from its torch.save .pt file: logits, patterns, the direct logit
// attribution (final scale frozen) and the token QK circuit at two query-key offsets.
#include "core/tolerances.hpp"
#include "core/transformer_analysis.hpp"
#include "formats/file_io.hpp"
#include "formats/safetensors.hpp"
#include "formats/torch_checkpoint.hpp"
#include "formats/transformer_model.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace headlab::formats;
using namespace headlab::transformer;
using headlab::Matrix;

namespace {

std::string data_path(const std::string& name) { return std::string(HEADLAB_TEST_DATA) + "/archs/" + name; }

SafetensorsFile read_file(const std::string& path) {
  const std::string bytes = read_text_file(path, "fixture", 1 << 24);
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  return looks_like_zip(data, bytes.size()) ? read_torch_checkpoint(data, bytes.size())
                                            : read_safetensors(data, bytes.size());
}

double worst_difference(const Matrix& actual, const std::vector<double>& expected) {
  REQUIRE(expected.size() == static_cast<std::size_t>(actual.size()));
  double worst = 0;
  for (Eigen::Index i = 0; i < actual.size(); ++i)
    worst = std::max(worst, std::abs(actual.data()[i] - expected[static_cast<std::size_t>(i)]));
  return worst;
}

}  // namespace

TEST_CASE("RoPE, RMSNorm, shortformer and grouped heads match the PyTorch reference within 1e-10",
          "[transformer_parity]") {
  const double bound = headlab::test::kReferenceParityBound;
  for (const char* name : {"rope_neox_rms_nobias", "rope_gptj_partial_gqa", "shortformer_ln", "mqa_nopos_lnpre"}) {
    INFO(name);
    const auto config =
        transformer_config_from_json(read_text_file(data_path(std::string(name) + ".json"), "fixture", 1 << 20));
    const auto weights =
        transformer_weights_from_safetensors(config, read_file(data_path(std::string(name) + ".safetensors")));
    // The .pt file holds the same state_dict: the same weights, bit for bit.
    const auto from_pt = transformer_weights_from_safetensors(config, read_file(data_path(std::string(name) + ".pt")));
    CHECK(parameter_list(from_pt).size() == parameter_list(weights).size());
    for (std::size_t i = 0; i < parameter_list(weights).size(); ++i)
      CHECK(*parameter_list(from_pt)[i] == *parameter_list(weights)[i]);
    const auto expected = read_file(data_path(std::string(name) + ".expected.safetensors"));
    std::vector<int> tokens;
    for (double t : expected.find("tokens")->values) tokens.push_back(static_cast<int>(t));
    const auto a = transformer_forward(weights, tokens);
    CHECK(worst_difference(a.logits, expected.find("logits")->values) <= bound);
    const int T = static_cast<int>(tokens.size()), H = config.n_heads;
    const auto& patterns = expected.find("patterns")->values;
    for (int l = 0; l < config.n_layers; ++l)
      for (int h = 0; h < H; ++h) {
        const auto first = patterns.begin() + static_cast<std::ptrdiff_t>((l * H + h) * T * T);
        CHECK(worst_difference(a.layers[l].pattern[h], std::vector<double>(first, first + T * T)) <= bound);
      }
    const int token = static_cast<int>(expected.find("dla_token")->values[0]);
    const auto d = direct_logit_attribution(weights, tokens, T - 1, token);
    CHECK(std::abs(d.embed - expected.find("dla_embed")->values[0]) <= bound);
    CHECK(std::abs(d.pos_embed - expected.find("dla_pos_embed")->values[0]) <= bound);
    CHECK(worst_difference(d.heads, expected.find("dla_heads")->values) <= bound);
    for (int offset : {0, 3}) {
      INFO("QK circuit at offset " << offset);
      CHECK(worst_difference(qk_circuit(weights, 0, 0, offset),
                             expected.find("qk_offset_" + std::to_string(offset))->values) <= bound);
    }
  }
}

// The writer's rotary tables (transformer_to_safetensors with buffers, for a file TransformerLens's
// load_state_dict(strict=True) accepts) against the reference's float32 tables, GPT-NeoX and GPT-J:
// equal to float32 rounding, a half unit in the last place of numbers of magnitude ≤ 1 (2^-25),
// doubled for the reference's own float64 → float32 conversion of a different sin.
TEST_CASE("the writer's rotary tables are TransformerLens's", "[transformer_parity]") {
  const double float32_bound = std::ldexp(1.0, -24);
  for (const char* name : {"rope_neox_rms_nobias", "rope_gptj_partial_gqa"}) {
    INFO(name);
    const auto config =
        transformer_config_from_json(read_text_file(data_path(std::string(name) + ".json"), "fixture", 1 << 20));
    const auto file = read_file(data_path(std::string(name) + ".safetensors"));
    const auto written_bytes = transformer_to_safetensors(transformer_weights_from_safetensors(config, file));
    const auto written =
        read_safetensors(reinterpret_cast<const std::uint8_t*>(written_bytes.data()), written_bytes.size());
    for (const char* table : {"blocks.1.attn.rotary_sin", "blocks.1.attn.rotary_cos"}) {
      INFO(table);
      const auto& ours = written.find(table)->values;
      const auto& theirs = file.find(table)->values;
      REQUIRE(ours.size() == theirs.size());
      double worst = 0;
      for (std::size_t i = 0; i < ours.size(); ++i) worst = std::max(worst, std::abs(ours[i] - theirs[i]));
      CHECK(worst <= float32_bound);
    }
  }
}
