// The core's forward and direct logit attribution against the PyTorch float64 reference fixtures
// written by tests/data/transformer/make_fixtures.py (random models with and without LayerNorm,
// LNPre, positional embedding, F32 storage; the files carry TransformerLens's mask / IGNORE buffers).
#include "core/tolerances.hpp"
#include "core/transformer_analysis.hpp"
#include "formats/file_io.hpp"
#include "formats/safetensors.hpp"
#include "formats/transformer_model.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace headlab::formats;
using namespace headlab::transformer;

namespace {

std::string data_path(const std::string& name) { return std::string(HEADLAB_TEST_DATA) + "/transformer/" + name; }

SafetensorsFile read_file(const std::string& path) {
  const std::string bytes = read_text_file(path, "fixture", 1 << 24);
  return read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

TEST_CASE("transformer forward and DLA match the PyTorch reference fixtures within 1e-10", "[transformer_parity]") {
  for (const char* name : {"one_layer_plain", "two_layer_ln_pos", "two_layer_lnpre_pos", "three_layer_ln_f32"}) {
    INFO(name);
    const auto config =
        transformer_config_from_json(read_text_file(data_path(std::string(name) + ".json"), "fixture", 1 << 20));
    const auto weights =
        transformer_weights_from_safetensors(config, read_file(data_path(std::string(name) + ".safetensors")));
    const auto expected = read_file(data_path(std::string(name) + ".expected.safetensors"));
    std::vector<int> tokens;
    for (double t : expected.find("tokens")->values) tokens.push_back(static_cast<int>(t));
    const auto a = transformer_forward(weights, tokens);
    const int T = static_cast<int>(tokens.size()), V = config.d_vocab, H = config.n_heads;
    const double bound = headlab::test::kReferenceParityBound;
    const auto& logits = expected.find("logits")->values;
    REQUIRE(logits.size() == static_cast<std::size_t>(T * V));
    double worst = 0;
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < V; ++j) worst = std::max(worst, std::abs(a.logits(i, j) - logits[i * V + j]));
    CHECK(worst <= bound);
    const auto& patterns = expected.find("patterns")->values;
    worst = 0;
    for (int l = 0; l < config.n_layers; ++l)
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < T; ++i)
          for (int j = 0; j < T; ++j)
            worst = std::max(worst, std::abs(a.layers[l].pattern[h](i, j) - patterns[((l * H + h) * T + i) * T + j]));
    CHECK(worst <= bound);
    const int token = static_cast<int>(expected.find("dla_token")->values[0]);
    const auto d = direct_logit_attribution(weights, tokens, T - 1, token);
    CHECK(std::abs(d.embed - expected.find("dla_embed")->values[0]) <= bound);
    CHECK(std::abs(d.pos_embed - expected.find("dla_pos_embed")->values[0]) <= bound);
    const auto& heads = expected.find("dla_heads")->values;
    for (int l = 0; l < config.n_layers; ++l)
      for (int h = 0; h < H; ++h) CHECK(std::abs(d.heads(l, h) - heads[l * H + h]) <= bound);
  }
}
