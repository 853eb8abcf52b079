// W_E and W_U held as float32 (a model read from an F32 file, core/transformer_config.hpp
// TransformerWeights) against the same values held as float64: every conversion float → double is
// exact and every product sums in the order of core/ordered_products.hpp, so each figure has the
// same bits. d_vocab 300 spans two of the 256-column chunks the float32 products convert at a time.
#include "formats/torch_checkpoint.hpp"
#include "formats/transformer_model.hpp"

#include "core/check.hpp"
#include "core/random.hpp"
#include "core/transformer_analysis.hpp"

#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <memory>

using headlab::Matrix;
using namespace headlab::formats;
using namespace headlab::transformer;

namespace {

// ARENA's induction model in miniature: LN, shortformer positions, two layers.
TransformerConfig small_arena_config() {
  return transformer_config({/*n_layers*/ 2, /*n_heads*/ 3, /*d_model*/ 8, /*d_head*/ 4, /*n_ctx*/ 12, /*d_vocab*/ 300},
                            Normalization::layer_norm, Positions::shortformer);
}

// The safetensors bytes of a random model with every tensor F32.
std::string f32_file(const TransformerConfig& c, std::uint64_t seed) {
  TransformerWeights w = zero_weights(c);
  headlab::Random rng(seed);
  for (auto& p : named_parameters(w)) *p.value = rng.normal_matrix(p.value->rows(), p.value->cols()) * 0.5;
  const std::string f64 = transformer_to_safetensors(w, false);
  SafetensorsFile file = read_safetensors(reinterpret_cast<const std::uint8_t*>(f64.data()), f64.size());
  for (auto& t : file.tensors) t.dtype = DType::F32;  // the writer rounds each value to nearest
  return write_safetensors(file.tensors);
}

TransformerWeights read(const TransformerConfig& c, const std::string& bytes) {
  SafetensorsFile listing;
  return transformer_weights_from_file(c, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), listing);
}

// The same weights with W_E and W_U held as float64.
TransformerWeights as_float64(TransformerWeights w) {
  w.W_E = w.W_E_f32.map().cast<double>();
  w.W_U = w.W_U_f32.map().cast<double>();
  w.W_E_f32 = {};
  w.W_U_f32 = {};
  return w;
}

void check_same_matrices(const std::vector<Matrix>& a, const std::vector<Matrix>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
}

}  // namespace

TEST_CASE("float32 embeddings: an F32 file keeps W_E and W_U as float32, its values exactly", "[formats]") {
  const auto c = small_arena_config();
  const std::string bytes = f32_file(c, 11);
  const TransformerWeights w = read(c, bytes);
  REQUIRE(float32_embeddings(w));
  CHECK(w.W_E.size() == 0);
  CHECK(w.W_U.size() == 0);
  CHECK(w.W_E_f32.rows() == 300);
  CHECK(w.W_U_f32.cols() == 300);
  // An F64 file of the same values is held as float64 and gives the same doubles.
  const TransformerWeights dense = as_float64(w);
  const TransformerWeights reread = read(c, transformer_to_safetensors(dense));
  CHECK_FALSE(float32_embeddings(reread));
  CHECK(reread.W_E == dense.W_E);
  CHECK(reread.W_U == dense.W_U);
  // The writer writes float32-held W_E and W_U as F32: read back, float32 again, the same bits.
  const TransformerWeights again = read(c, transformer_to_safetensors(w));
  REQUIRE(float32_embeddings(again));
  CHECK(again.W_E_f32.map() == w.W_E_f32.map());
  CHECK(again.W_U_f32.map() == w.W_U_f32.map());
  // One of W_E, W_U in F64: both float64 (one storage for the pair).
  SafetensorsFile file = read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  for (auto& t : file.tensors)
    if (t.name == "unembed.W_U") t.dtype = DType::F64;
  const TransformerWeights mixed = read(c, write_safetensors(file.tensors));
  CHECK_FALSE(float32_embeddings(mixed));
  CHECK(mixed.W_E == dense.W_E);
}

TEST_CASE("float32 embeddings: every figure has the bits of float64 storage of the same values", "[formats]") {
  const auto c = small_arena_config();
  const TransformerWeights f32 = read(c, f32_file(c, 12));
  REQUIRE(float32_embeddings(f32));
  const TransformerWeights f64 = as_float64(f32);
  const std::vector<int> prompt{5, 290, 17, 260, 3, 5, 290, 17, 260, 3, 5};

  const auto a = transformer_forward(f32, prompt);
  const auto b = transformer_forward(f64, prompt);
  CHECK(a.embed == b.embed);
  CHECK(a.logits == b.logits);
  for (int l = 0; l < c.n_layers; ++l) check_same_matrices(a.layers[l].pattern, b.layers[l].pattern);

  AnalysisRequest r;
  r.prompt = prompt;
  r.corrupted = {5, 290, 17, 260, 3, 7, 290, 17, 260, 3, 5};
  r.answer = 290;
  r.wrong = 17;
  r.sequences = 4;
  r.circuits = true;
  r.composition = true;
  r.logit_lens = true;
  r.head_svd = true;
  r.qk_attribution = true;
  r.qk_head = {1, 2};
  const auto x = analyze_transformer(f32, r);
  const auto y = analyze_transformer(f64, r);
  CHECK(x.token == y.token);
  CHECK(x.attribution.embed == y.attribution.embed);
  CHECK(x.attribution.heads == y.attribution.heads);
  CHECK(x.attribution.constant == y.attribution.constant);
  CHECK(x.attribution.logit == y.attribution.logit);
  CHECK(x.clean_loss == y.clean_loss);
  CHECK(x.ablation_loss == y.ablation_loss);
  CHECK(x.patching.normalised == y.patching.normalised);
  check_same_matrices(x.qk, y.qk);
  check_same_matrices(x.ov, y.ov);
  REQUIRE(x.lens);
  REQUIRE(y.lens);
  CHECK(x.lens->answer_probability == y.lens->answer_probability);
  check_same_matrices(x.lens->top_probability, y.lens->top_probability);
  REQUIRE(x.svd.size() == y.svd.size());
  for (std::size_t i = 0; i < x.svd.size(); ++i) {
    CHECK(x.svd[i].ov_input == y.svd[i].ov_input);
    CHECK(x.svd[i].ov_output == y.svd[i].ov_output);
    CHECK(x.svd[i].qk_key == y.svd[i].qk_key);
  }
}

TEST_CASE("float32 embeddings: the parameter limit is accepted at 128 Mi and refused one tensor row past it",
          "[formats]") {
  // 1 layer, 1 head, d_model 2,048, d_head 1, n_ctx 4,082, d_vocab 30,717, learned positions, no
  // normalisation: 30,717 · (2 · 2,048 + 1) + 4 · 2,048 + 3 + 2,048 + 4,082 · 2,048 = 134,217,728.
  auto c = transformer_config({1, 1, 2048, 1, 4082, 30717});
  REQUIRE(parameter_count(c) == kMaxParameters);
  CHECK_NOTHROW(validate_config(c));
  c.n_ctx = 4083;  // one more row of W_pos: 2,048 parameters past the limit
  CHECK_THROWS_WITH(validate_config(c), "the model has 134219776 parameters; at most 134217728 are supported");
}

TEST_CASE("float32 embeddings: F32 W_E and W_U are read in place from a safetensors file and a torch.save checkpoint",
          "[formats]") {
  // export/model.pt: every tensor float32 (torch.save aligns storages to 64 bytes), under
  // TransformerLens 4 names: embed.weight is W_E as laid out (read in place), unembed.weight is W_U
  // transposed (converted into storage of its own).
  const auto c = transformer_config_from_json(headlab::test::fixture_file("export/model.json"));
  const auto pt = std::make_shared<const std::string>(headlab::test::fixture_file("export/model.pt"));
  const std::string st = f32_file(small_arena_config(), 13);
  const auto st_bytes = std::make_shared<const std::string>(st);
  struct Case {
    TransformerConfig config;
    std::shared_ptr<const std::string> bytes;
    bool w_u_in_place;
  };
  for (const Case& k : {Case{c, pt, false}, Case{small_arena_config(), st_bytes, true}}) {
    const auto* begin = reinterpret_cast<const std::uint8_t*>(k.bytes->data());
    const auto inside = [&](const float* p) {
      const auto* b = reinterpret_cast<const std::uint8_t*>(p);
      return b >= begin && b < begin + k.bytes->size();
    };
    SafetensorsFile listing;
    const TransformerWeights viewed = transformer_weights_from_file(k.config, begin, k.bytes->size(), listing, k.bytes);
    const TransformerWeights copied = transformer_weights_from_file(k.config, begin, k.bytes->size(), listing);
    REQUIRE(float32_embeddings(viewed));
    REQUIRE(float32_embeddings(copied));
    CHECK(inside(viewed.W_E_f32.data()));
    CHECK(inside(viewed.W_U_f32.data()) == k.w_u_in_place);
    CHECK_FALSE(inside(copied.W_E_f32.data()));
    CHECK(viewed.W_E_f32.map() == copied.W_E_f32.map());
    CHECK(viewed.W_U_f32.map() == copied.W_U_f32.map());
    const std::vector<int> prompt{1, 2, 3, 1, 2};
    CHECK(transformer_forward(viewed, prompt).logits == transformer_forward(as_float64(copied), prompt).logits);
  }
  // The checkpoint read one tensor at a time holds the values read_torch_checkpoint decodes whole.
  const SafetensorsFile whole = read_torch_checkpoint(reinterpret_cast<const std::uint8_t*>(pt->data()), pt->size());
  const TransformerWeights eager = transformer_weights_from_safetensors(c, whole);
  SafetensorsFile listing;
  const TransformerWeights lazy =
      transformer_weights_from_file(c, reinterpret_cast<const std::uint8_t*>(pt->data()), pt->size(), listing, pt);
  CHECK(eager.W_E_f32.map() == lazy.W_E_f32.map());
  CHECK(eager.layers[0].W_Q == lazy.layers[0].W_Q);
  CHECK(listing.tensors.size() == whole.tensors.size());
}
