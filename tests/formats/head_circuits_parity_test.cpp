// Composition scores, the logit lens and head SVDs against the torch float64 reference fixtures
// written by tests/data/head_circuits/make_fixtures.py (the models of tests/data/transformer: no
// normalisation, LN, LNPre, F32 storage).
#include "core/tolerances.hpp"
#include "core/transformer_analysis.hpp"
#include "formats/file_io.hpp"
#include "formats/safetensors.hpp"
#include "formats/transformer_model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using namespace headlab;
using namespace headlab::formats;
using namespace headlab::transformer;

namespace {

std::string data_path(const std::string& dir, const std::string& name) {
  return std::string(HEADLAB_TEST_DATA) + "/" + dir + "/" + name;
}

SafetensorsFile read_file(const std::string& path) {
  const std::string bytes = read_text_file(path, "fixture", 1 << 24);
  return read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

// |got − want| / max(1, |want|), the worst over a list of pairs.
struct Worst {
  double value = 0.0;
  void add(double got, double want) { value = std::max(value, std::abs(got - want) / std::max(1.0, std::abs(want))); }
};

}  // namespace

TEST_CASE("composition, logit lens and head SVD match the PyTorch float64 reference", "[head_circuits_parity]") {
  for (const char* name : {"one_layer_plain", "two_layer_ln_pos", "two_layer_lnpre_pos", "three_layer_ln_f32"}) {
    INFO(name);
    const auto config = transformer_config_from_json(
        read_text_file(data_path("transformer", std::string(name) + ".json"), "fixture", 1 << 20));
    const auto w = transformer_weights_from_safetensors(
        config, read_file(data_path("transformer", std::string(name) + ".safetensors")));
    const auto model_expected = read_file(data_path("transformer", std::string(name) + ".expected.safetensors"));
    const auto ex = read_file(data_path("head_circuits", std::string(name) + ".circuits.safetensors"));
    const auto values = [&](const char* key) { return ex.find(key)->values; };
    const int L = config.n_layers, H = config.n_heads, n = L * H, c = config.d_head, V = config.d_vocab;
    const double bound = headlab::test::kCircuitReferenceRelative;

    const auto comp = composition_scores(w, 8, 0);
    for (const auto& [key, m] :
         {std::pair<const char*, const Matrix*>{"comp_q", &comp.q}, {"comp_k", &comp.k}, {"comp_v", &comp.v}}) {
      INFO(key);
      const auto want = values(key);
      REQUIRE(want.size() == static_cast<std::size_t>(n * n));
      Worst worst;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) worst.add((*m)(i, j), want[static_cast<std::size_t>(i * n + j)]);
      CHECK(worst.value <= bound);
    }

    const auto svds = head_svds(w, 1);
    Worst sv, eig, copying, readings;
    for (int i = 0; i < n; ++i) {
      const auto& s = svds[static_cast<std::size_t>(i)];
      for (int k = 0; k < c; ++k) {
        sv.add(s.ov_singular_values(k), values("ov_sv")[static_cast<std::size_t>(i * c + k)]);
        sv.add(s.qk_singular_values(k), values("qk_sv")[static_cast<std::size_t>(i * c + k)]);
        const auto& l = s.ov_eigenvalues[static_cast<std::size_t>(k)];
        eig.add(std::sqrt(l.real() * l.real() + l.imag() * l.imag()),
                values("eig_abs")[static_cast<std::size_t>(i * c + k)]);
      }
      copying.add(s.copying, values("copying")[static_cast<std::size_t>(i)]);
      for (int t = 0; t < V; ++t) {
        const auto at = static_cast<std::size_t>(i * V + t);
        readings.add(s.ov_input(0, t), values("ov_input")[at]);
        readings.add(s.ov_output(0, t), values("ov_output")[at]);
        readings.add(s.qk_query(0, t), values("qk_query")[at]);
        readings.add(s.qk_key(0, t), values("qk_key")[at]);
      }
    }
    CHECK(sv.value <= bound);
    CHECK(eig.value <= bound);
    CHECK(copying.value <= bound);
    CHECK(readings.value <= bound);

    std::vector<int> tokens;
    for (double t : model_expected.find("tokens")->values) tokens.push_back(static_cast<int>(t));
    const int T = static_cast<int>(tokens.size());
    const auto lens = logit_lens(w, tokens, {}, 3);
    const auto answers = values("lens_answers");
    for (int i = 0; i < T; ++i)
      CHECK(lens.answers[static_cast<std::size_t>(i)] == static_cast<int>(answers[static_cast<std::size_t>(i)]));
    const auto probability = values("lens_probability");
    REQUIRE(probability.size() == static_cast<std::size_t>((L + 1) * T * V));
    Worst lens_worst;
    for (int s = 0; s <= L; ++s) {
      for (int i = 0; i < T; ++i) {
        const auto row = static_cast<std::size_t>((s * T + i) * V);
        lens_worst.add(lens.answer_probability(s, i),
                       probability[row + static_cast<std::size_t>(lens.answers[static_cast<std::size_t>(i)])]);
        for (int r = 0; r < 3; ++r) {
          const auto token = static_cast<std::size_t>(lens.top_tokens[static_cast<std::size_t>(s)](i, r));
          lens_worst.add(lens.top_probability[static_cast<std::size_t>(s)](i, r), probability[row + token]);
        }
        // The top tokens are the reference's three most probable.
        std::vector<double> p(probability.begin() + static_cast<long>(row),
                              probability.begin() + static_cast<long>(row) + V);
        std::sort(p.rbegin(), p.rend());
        CHECK(std::abs(lens.top_probability[static_cast<std::size_t>(s)](i, 2) - p[2]) <= bound);
      }
    }
    CHECK(lens_worst.value <= bound);
  }
}
