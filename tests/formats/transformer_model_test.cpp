#include "formats/transformer_model.hpp"

#include "core/check.hpp"
#include "core/random.hpp"
#include "core/transformer_layout.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::InputError;
using headlab::Matrix;
using namespace headlab::formats;
using namespace headlab::transformer;

namespace {

TransformerConfig config_ln() {
  return transformer_config({/*n_layers*/ 2, /*n_heads*/ 3, /*d_model*/ 4, /*d_head*/ 2, /*n_ctx*/ 5, /*d_vocab*/ 6},
                            Normalization::layer_norm);
}

TransformerWeights random_model(const TransformerConfig& c, std::uint64_t seed) {
  TransformerWeights w = zero_weights(c);
  headlab::Random rng(seed);
  for (auto& p : named_parameters(w)) *p.value = rng.normal_matrix(p.value->rows(), p.value->cols());
  return w;
}

SafetensorsFile parse(const std::string& bytes) {
  return read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

// The file of a model with tensor `name` replaced (removed when `replacement` has an empty name;
// `replacement` added when no tensor is called `name`).
SafetensorsFile edited(const TransformerWeights& w, const std::string& name, const Tensor& replacement) {
  auto file = parse(transformer_to_safetensors(w));
  std::vector<Tensor> kept;
  bool found = false;
  for (auto& t : file.tensors) {
    if (t.name != name) {
      kept.push_back(t);
    } else {
      found = true;
      if (!replacement.name.empty()) kept.push_back(replacement);
    }
  }
  if (!found) kept.push_back(replacement);
  return parse(write_safetensors(kept));
}

}  // namespace

TEST_CASE("transformer model: config and weights round-trip through JSON and safetensors bit for bit", "[formats]") {
  for (auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre}) {
    auto c = config_ln();
    c.normalization = norm;
    c.positions = norm != Normalization::layer_norm_pre ? Positions::learned : Positions::none;
    c.token_names = {"a", "b", "c", "d", "e", "\"f\""};
    const auto w = random_model(c, 3);
    const std::string config_text = transformer_config_to_json(c);
    const std::string bytes = transformer_to_safetensors(w);
    const auto back = read_transformer(config_text, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    CHECK(back.config.token_names == c.token_names);
    CHECK(back.config.normalization == norm);
    auto a = named_parameters(const_cast<TransformerWeights&>(w));
    auto b = named_parameters(const_cast<TransformerWeights&>(back));
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO(a[i].name);
      CHECK(a[i].name == b[i].name);
      CHECK(*a[i].value == *b[i].value);
    }
    // TransformerLens's buffers are written (load_state_dict strict) and accepted on reading.
    const auto file = parse(bytes);
    REQUIRE(file.find("blocks.1.attn.mask") != nullptr);
    CHECK(file.find("blocks.1.attn.IGNORE")->first_non_finite == 0);
  }
}

TEST_CASE("transformer model: F32 tensors and absent biases are accepted", "[formats]") {
  const auto c = config_ln();
  const auto w = random_model(c, 4);
  auto file = parse(transformer_to_safetensors(w));
  std::vector<Tensor> kept;
  for (auto t : file.tensors) {
    if (t.name.find(".b_") != std::string::npos) continue;  // drop every attention bias and b_U
    t.dtype = DType::F32;
    kept.push_back(t);
  }
  const auto back = transformer_weights_from_safetensors(c, parse(write_safetensors(kept)));
  CHECK(back.layers[1].b_Q.isZero(0));
  CHECK(back.b_U.isZero(0));
  // F32 W_E and W_U are held as float32, each value the file's.
  REQUIRE(headlab::transformer::float32_embeddings(back));
  CHECK(back.W_E.size() == 0);
  CHECK(back.W_E_f32.map()(2, 3) == static_cast<float>(w.W_E(2, 3)));
  CHECK(back.W_U_f32.map()(1, 4) == static_cast<float>(w.W_U(1, 4)));
}

TEST_CASE("transformer model: unsupported, unknown, missing, mis-shaped and NaN tensors are named", "[formats]") {
  const auto c = config_ln();
  const auto w = random_model(c, 5);
  const Tensor none{};
  CHECK_THROWS_WITH(
      transformer_weights_from_safetensors(
          c, edited(w, "x", {"blocks.0.mlp.W_in", DType::F64, {4, 16}, std::vector<double>(64, 0.0), -1})),
      Catch::Contains("blocks.0.mlp.W_in: MLP blocks are not supported"));
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(
                        c, edited(w, "x", {"blocks.1.ln2.w", DType::F64, {4}, std::vector<double>(4, 1.0), -1})),
                    Catch::Contains("blocks.1.ln2.w"));
  CHECK_THROWS_WITH(
      transformer_weights_from_safetensors(c, edited(w, "x", {"blocks.0.attn.rotary_sin", DType::F64, {1}, {0.0}, -1})),
      "blocks.0.attn.rotary_sin is present but config.positional_embedding is \"standard\"");
  CHECK_THROWS_WITH(
      transformer_weights_from_safetensors(c, edited(w, "x", {"decoder.weight", DType::F64, {1}, {0.0}, -1})),
      Catch::Contains("unknown tensor decoder.weight"));
  CHECK_THROWS_WITH(
      transformer_weights_from_safetensors(c, edited(w, "x", {"blocks.2.attn.W_Q", DType::F64, {1}, {0.0}, -1})),
      Catch::Contains("belongs to layer 2; config.n_layers = 2"));
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(c, edited(w, "blocks.1.attn.W_V", none)),
                    Catch::Contains("blocks.1.attn.W_V is missing"));
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(c, edited(w, "ln_final.w", none)),
                    Catch::Contains("ln_final.w is missing"));
  CHECK_THROWS_WITH(
      transformer_weights_from_safetensors(
          c, edited(w, "blocks.0.attn.W_O",
                    {"blocks.0.attn.W_O", DType::F64, {3, 4, 2}, std::vector<double>(24, 0.0), -1})),
      Catch::Contains(
          "blocks.0.attn.W_O has shape [3, 4, 2]; the config implies [n_heads, d_head, d_model] = [3, 2, 4]"));
  std::vector<double> nan_values(24, 0.5);
  nan_values[7] = NAN;
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(
                        c, edited(w, "embed.W_E", {"embed.W_E", DType::F64, {6, 4}, nan_values, -1})),
                    Catch::Contains("embed.W_E has a non-finite value (nan) at flat index 7"));
  // Finite but huge: refused by magnitude (1e100 overflowed the residual to all-zero logits).
  std::vector<double> huge(24, 0.5);
  huge[3] = -1e100;
  CHECK_THROWS_WITH(
      transformer_weights_from_safetensors(c, edited(w, "embed.W_E", {"embed.W_E", DType::F64, {6, 4}, huge, -1})),
      "embed.W_E has an entry -1e+100 at flat index 3 beyond the magnitude limit ±1e+06");
  huge[3] = headlab::kMaxWeightMagnitude;
  CHECK_NOTHROW(
      transformer_weights_from_safetensors(c, edited(w, "embed.W_E", {"embed.W_E", DType::F64, {6, 4}, huge, -1})));
  std::vector<double> mask(25, 1.0);  // all ones: not causal
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(
                        c, edited(w, "blocks.0.attn.mask", {"blocks.0.attn.mask", DType::BOOL, {5, 5}, mask, -1})),
                    Catch::Contains("not the causal mask at (0, 1)"));
  // Config disagreeing with the tensors.
  auto pre = c;
  pre.normalization = Normalization::layer_norm_pre;
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(pre, parse(transformer_to_safetensors(w))),
                    Catch::Contains("config.normalization is \"LNPre\""));
  auto nopos = c;
  nopos.positions = Positions::none;
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(nopos, parse(transformer_to_safetensors(w))),
                    Catch::Contains("pos_embed.W_pos is present"));
  auto wider = c;
  wider.d_vocab = 7;
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(wider, parse(transformer_to_safetensors(w))),
                    Catch::Contains("embed.W_E has shape [6, 4]"));
}

// TransformerLens from 3.5 saves the mask as an empty [0, 0] placeholder and its rotary tables with
// min(n_ctx, 2048) rows: read as the layout's buffers are, the weights unchanged; other shapes refused.
TEST_CASE("transformer model: TransformerLens 3.5's placeholder mask and shorter rotary tables read", "[formats]") {
  auto c = config_ln();
  const auto w = random_model(c, 5);
  const auto read = [&](const TransformerConfig& config, const SafetensorsFile& f) {
    return transformer_weights_from_safetensors(config, f);
  };
  const Tensor empty_mask{"blocks.1.attn.mask", DType::BOOL, {0, 0}, {}, -1};
  const auto from_placeholder = read(c, edited(w, "blocks.1.attn.mask", empty_mask));
  CHECK(from_placeholder.layers[1].W_Q[2] == w.layers[1].W_Q[2]);
  CHECK_THROWS_WITH(read(c, edited(w, "blocks.1.attn.mask", {"blocks.1.attn.mask", DType::BOOL, {5, 0}, {}, -1})),
                    "blocks.1.attn.mask has shape [5, 0]; the config implies [n_ctx, n_ctx] = [5, 5]");

  auto r = c;
  r.positions = Positions::rotary;
  r.rotary_dim = 2;
  const auto wr = random_model(r, 6);
  const auto table = [](std::int64_t rows, std::int64_t cols) {
    return Tensor{"blocks.0.attn.rotary_sin",
                  DType::F32,
                  {rows, cols},
                  std::vector<double>(static_cast<std::size_t>(rows * cols), 0.5),
                  -1};
  };
  for (std::int64_t rows : {1, 3, 5}) {
    INFO(rows);
    CHECK(read(r, edited(wr, "blocks.0.attn.rotary_sin", table(rows, 2))).layers[0].W_K[1] == wr.layers[0].W_K[1]);
  }
  CHECK_THROWS_WITH(read(r, edited(wr, "blocks.0.attn.rotary_sin", table(6, 2))),
                    "blocks.0.attn.rotary_sin has shape [6, 2]; the config implies [n_ctx, rotary_dim] = [5, 2]");
  CHECK_THROWS_WITH(read(r, edited(wr, "blocks.0.attn.rotary_sin", table(3, 1))),
                    "blocks.0.attn.rotary_sin has shape [3, 1]; the config implies [n_ctx, rotary_dim] = [5, 2]");
  CHECK_THROWS_WITH(read(r, edited(wr, "blocks.0.attn.rotary_sin", table(0, 2))),
                    "blocks.0.attn.rotary_sin has shape [0, 2]; the config implies [n_ctx, rotary_dim] = [5, 2]");
}

TEST_CASE("transformer config: bad JSON and fields are named", "[formats]") {
  const std::string base = R"("n_layers":1,"n_heads":1,"d_model":2,"d_head":2,"n_ctx":3,"d_vocab":4)";
  CHECK(transformer_config_from_json("{" + base + "}").positions == Positions::learned);
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base + R"(,"foo":"gelu"})"),
                    Catch::Contains("unknown field \"foo\""));
  // A field of TransformerLens's own config makes it one (formats/transformerlens_config.hpp).
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base + R"(,"act_fn":"gelu"})"),
                    Catch::StartsWith("config: attn_only = false (TransformerLens's default) asks for MLP blocks"));
  CHECK_THROWS_WITH(transformer_config_from_json(R"({"n_layers":1})"), Catch::Contains("n_heads is missing"));
  CHECK_THROWS_WITH(
      transformer_config_from_json("{" + base + R"(,"normalization":"BatchNorm"})"),
      Catch::EndsWith(R"(normalization must be "LN", "LNPre", "RMS", "RMSPre" or "none", got "BatchNorm")"));
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base + R"(,"positional_embedding":"alibi"})"),
                    Catch::Contains(R"(, "rotary" or "none", got "alibi")"));
  CHECK_THROWS_WITH(
      transformer_config_from_json("{" + base + R"(,"positional_embedding":"rotary"})"),
      Catch::EndsWith("config.rotary_dim must be even and lie in [2, d_head = 2] for rotary positions, got 0"));
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base + R"(,"rotary_dim":2})"),
                    Catch::Contains("config.rotary_dim = 2 is only for rotary positions"));
  CHECK_THROWS_WITH(transformer_config_from_json(
                        "{" + base + R"(,"positional_embedding":"rotary","rotary_dim":2,"rotary_base":0.5})"),
                    Catch::EndsWith("config.rotary_base must lie in [1, 1e+12], got 0.5"));
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base + R"(,"n_key_value_heads":2})"),
                    Catch::EndsWith("config.n_key_value_heads = 2 must divide n_heads = 1 (or be 0: no grouping)"));
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base + R"(,"attn_scale":-1})"),
                    Catch::Contains("config.attn_scale must lie in"));
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base + R"(,"rotary_adjacent_pairs":1})"),
                    Catch::Contains("rotary_adjacent_pairs must be true or false"));
  CHECK(transformer_config_from_json("{" + base + R"(,"attn_scale":1})").attn_scale == 1.0);
  CHECK_THROWS_WITH(
      transformer_config_from_json(R"({"n_layers":9,"n_heads":1,"d_model":2,"d_head":2,"n_ctx":3,"d_vocab":4})"),
      Catch::EndsWith("config.n_layers must lie in [1, 4], got 9"));
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base + R"(,"token_names":["a"]})"),
                    Catch::Contains("token_names has 1"));
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base + R"(,"eps":0})"), Catch::Contains("eps"));
  CHECK_THROWS_WITH(transformer_config_from_json("{" + base), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(transformer_config_from_json(R"({"token_names":[[["x"]]]})"), Catch::Contains("deeper than 2"));
  CHECK_THROWS_WITH(
      transformer_config_from_json(R"({"n_layers":1,"n_heads":1,"d_model":2.5,"d_head":2,"n_ctx":3,"d_vocab":4})"),
      Catch::Contains("d_model must be an integer"));
}

TEST_CASE("transformer model: a layer index has one spelling, so no tensor aliases another", "[formats]") {
  const auto c = config_ln();
  const auto w = random_model(c, 6);
  // "blocks.00.attn.W_Q" parsed to layer 0 too and, sorted after "blocks.0.attn.W_Q", replaced it.
  const Tensor alias{"blocks.00.attn.W_Q", DType::F64, {3, 4, 2}, std::vector<double>(24, 0.25), -1};
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(c, edited(w, "x", alias)),
                    "blocks.00.attn.W_Q: the layer index 00 has a leading zero; layer 0 is written blocks.0.");
  const Tensor alias1{"blocks.01.ln1.w", DType::F64, {4}, std::vector<double>(4, 1.0), -1};
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(c, edited(w, "x", alias1)),
                    Catch::Contains("leading zero; layer 1"));
  // A file built in code (not through the reader) with one name twice.
  auto file = parse(transformer_to_safetensors(w));
  file.tensors.push_back(*file.find("embed.W_E"));
  CHECK_THROWS_WITH(transformer_weights_from_safetensors(c, file), "embed.W_E appears twice");
}

TEST_CASE("transformer model: every row of the layout is required, optional or a buffer when read", "[formats]") {
  const auto c = config_ln();
  const auto w = random_model(c, 7);
  const Tensor none{};
  for_each_tensor(c, [&](const TensorLayout& row, int layer) {
    if (!present(c, row.presence)) return;
    const std::string name = tensor_name(row, layer);
    INFO(name);
    const auto file = edited(w, name, none);  // the file without this tensor
    if (row.role == Role::required) {
      CHECK_THROWS_WITH(transformer_weights_from_safetensors(c, file), name + " is missing from the file");
      return;
    }
    const auto back = transformer_weights_from_safetensors(c, file);
    if (row.role == Role::optional) CHECK(matrix_of(back, row, layer)->isZero(0));  // an absent bias is zero
    // Every other parameter is read as written.
    for_each_tensor(c, [&](const TensorLayout& other, int other_layer) {
      if (other.role == Role::buffer || !present(c, other.presence) || (&other == &row && other_layer == layer)) return;
      if (const auto* heads = heads_of(back, other, other_layer)) {
        CHECK(*heads == *heads_of(w, other, other_layer));
      } else {
        CHECK(*matrix_of(back, other, other_layer) == *matrix_of(w, other, other_layer));
      }
    });
  });
  // A row the config does not give the model is refused, naming the setting.
  auto bare = c;
  bare.normalization = Normalization::none;
  bare.positions = Positions::none;
  const auto wb = random_model(bare, 8);
  int refused = 0;
  for_each_tensor(c, [&](const TensorLayout& row, int layer) {
    if (!present(c, row.presence) || present(bare, row.presence)) return;
    const std::string name = tensor_name(row, layer);
    INFO(name);
    std::size_t count = 1;
    for (auto n : tensor_shape(c, row)) count *= static_cast<std::size_t>(n);
    const Tensor extra{name, DType::F64, tensor_shape(c, row), std::vector<double>(count, 0.5), -1};
    CHECK_THROWS_WITH(transformer_weights_from_safetensors(bare, edited(wb, name, extra)),
                      name + " is present but " + absence_reason(bare, row.presence));
    ++refused;
  });
  CHECK(refused == 1 + 2 * 2 + 2);  // W_pos, ln1.w and ln1.b of both layers, ln_final.w and .b
}
