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
