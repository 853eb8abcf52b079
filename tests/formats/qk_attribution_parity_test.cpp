// QK attribution against the PyTorch float64 reference written by
// tests/data/qk_attribution/make_fixtures.py, on the models of tests/data/transformer (no
// normalisation, LN, LNPre, F32 storage; with and without learned positions) and tests/data/archs
// (RMS with GPT-NeoX rotary and no biases, RMSPre with partial GPT-J rotary and grouped heads,
// LN with shortformer positions, LNPre with one key-value head).
#include "core/qk_attribution.hpp"
#include "core/tolerances.hpp"
#include "formats/file_io.hpp"
#include "formats/safetensors.hpp"
#include "formats/transformer_model.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

using namespace headlab::formats;
using namespace headlab::transformer;

namespace {

std::string data_path(const std::string& name) { return std::string(HEADLAB_TEST_DATA) + "/" + name; }

SafetensorsFile read_file(const std::string& path) {
  const std::string bytes = read_text_file(path, "fixture", 1 << 24);
  return read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

TEST_CASE("QK attribution matches the PyTorch reference fixture within 1e-9", "[qk_attribution_parity]") {
  const auto expected = read_file(data_path("qk_attribution/qk_attribution.expected.safetensors"));
  const std::vector<std::pair<std::string, std::string>> models{{"transformer", "one_layer_plain"},
                                                                {"transformer", "two_layer_ln_pos"},
                                                                {"transformer", "two_layer_lnpre_pos"},
                                                                {"transformer", "three_layer_ln_f32"},
                                                                {"archs", "rope_neox_rms_nobias"},
                                                                {"archs", "rope_gptj_partial_gqa"},
                                                                {"archs", "shortformer_ln"},
                                                                {"archs", "mqa_nopos_lnpre"}};
  for (const auto& [folder, name] : models) {
    INFO(name);
    const std::string model = data_path(folder + "/" + name);
    const auto config = transformer_config_from_json(read_text_file(model + ".json", "fixture", 1 << 20));
    const auto weights = transformer_weights_from_safetensors(config, read_file(model + ".safetensors"));
    const auto forward = read_file(model + ".expected.safetensors");
    std::vector<int> tokens;
    for (double t : forward.find("tokens")->values) tokens.push_back(static_cast<int>(t));
    const auto& query = expected.find(name + ".query")->values;
    const auto qk = qk_attribution(weights, transformer_forward(weights, tokens), static_cast<int>(query[0]),
                                   static_cast<int>(query[1]), static_cast<int>(query[2]));
    const auto S = static_cast<Eigen::Index>(qk.sources.size());
    const auto& parts = expected.find(name + ".parts")->values;
    const auto& scores = expected.find(name + ".scores")->values;
    REQUIRE(parts.size() == qk.parts.size() * static_cast<std::size_t>(S * S));
    REQUIRE(scores.size() == qk.parts.size());
    double worst = 0;
    for (std::size_t j = 0; j < qk.parts.size(); ++j) {
      for (Eigen::Index a = 0; a < S; ++a)
        for (Eigen::Index b = 0; b < S; ++b)
          worst = std::max(worst, std::abs(qk.parts[j](a, b) - parts[(j * S + a) * S + b]));
      worst = std::max(worst, std::abs(qk.scores(static_cast<Eigen::Index>(j)) - scores[j]));
    }
    CHECK(worst <= headlab::test::kQkReferenceParityBound);
  }
}
