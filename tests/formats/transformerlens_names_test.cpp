// TransformerLens 4 bridge names (formats/transformerlens_names.hpp) through the weights reader:
// the fixtures of tests/data/transformerlens_names/make_fixtures.py are a NativeModel-shaped model
// under the bridge's names (safetensors and torch.save), the same weights under TransformerLens ≤ 3
// names converted by torch, and the float64 forward pass of NativeModel written out in torch.
#include "formats/transformerlens_names.hpp"

#include "core/check.hpp"
#include "core/tolerances.hpp"
#include "core/transformer.hpp"
#include "core/transformer_layout.hpp"
#include "formats/file_io.hpp"
#include "formats/json.hpp"
#include "formats/safetensors.hpp"
#include "formats/torch_checkpoint.hpp"
#include "formats/transformer_model.hpp"

#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::InputError;
using headlab::Matrix;
using namespace headlab::formats;
using namespace headlab::transformer;

namespace {

using headlab::test::bytes_of;
using headlab::test::fixture_file;
using headlab::test::read_weights_file;

TransformerConfig config() {
  return transformer_config_from_json(fixture_file("transformerlens_config/bridge_native_ln.json"));
}

SafetensorsFile bridge_file() { return read_weights_file(fixture_file("transformerlens_names/bridge.safetensors")); }

// The bridge file with tensor `name` replaced by `t` (removed when t has no name; added when absent).
SafetensorsFile edited(const std::string& name, const Tensor& t) {
  SafetensorsFile file = bridge_file();
  std::vector<Tensor> kept;
  bool found = false;
  for (auto& x : file.tensors) {
    if (x.name != name) kept.push_back(x);
    else if (found = true; !t.name.empty()) kept.push_back(t);
  }
  if (!found) kept.push_back(t);
  file.tensors = kept;
  return file;
}

std::string refusal(const SafetensorsFile& file) {
  try {
    transformer_weights_from_safetensors(config(), file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("transformerlens names: the bridge's names and shapes read as the legacy file, bit for bit", "[formats]") {
  const TransformerConfig c = config();
  const auto legacy = transformer_weights_from_safetensors(
      c, read_weights_file(fixture_file("transformerlens_names/legacy.safetensors")));
  for (const char* file : {"transformerlens_names/bridge.safetensors", "transformerlens_names/bridge.pt"}) {
    INFO(file);
    auto w = transformer_weights_from_safetensors(c, read_weights_file(fixture_file(file)));
    auto a = named_parameters(w);
    auto b = named_parameters(const_cast<TransformerWeights&>(legacy));
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO(a[i].name);
      CHECK(*a[i].value == *b[i].value);
    }
  }
}

TEST_CASE("transformerlens names: the bridge file's forward pass matches NativeModel's in float64", "[formats]") {
  const TransformerConfig c = config();
  const auto w = transformer_weights_from_safetensors(c, bridge_file());
  const JsonValue ref = parse_json(fixture_file("transformerlens_names/reference.json"), "reference");
  std::vector<int> tokens;
  for (const auto& t : ref.find("prompt")->items()) tokens.push_back(static_cast<int>(t.as_unsigned()));
  const auto a = transformer_forward(w, tokens);
  const Matrix logits = matrix_from_json(*ref.find("logits"), "logits");
  REQUIRE(logits.rows() == a.logits.rows());
  REQUIRE(logits.cols() == a.logits.cols());
  CHECK((a.logits - logits).cwiseAbs().maxCoeff() <= headlab::test::kReferenceParityBound);
  const auto& patterns = ref.find("patterns")->items();
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h) {
      const Matrix p = matrix_from_json(patterns[l].items()[h], "pattern");
      CHECK((a.layers[l].pattern[h] - p).cwiseAbs().maxCoeff() <= headlab::test::kReferenceParityBound);
    }
}

// examples/own-model/export_model.py on plain PyTorch (tests/data/export/make_fixtures.py runs it):
// torch.save of a bridge-named float32 state_dict and headlab's small config, read as the CLI reads
// them, against the exporter's own torch module in float64 on the same float32 values.
TEST_CASE("transformerlens names: the example exporter's files run as its torch module does", "[formats]") {
  const std::string weights = fixture_file("export/model.pt");
  const auto w = read_transformer(fixture_file("export/model.json"), bytes_of(weights), weights.size());
  const JsonValue ref = parse_json(fixture_file("export/reference.json"), "reference");
  std::vector<int> tokens;
  for (const auto& t : ref.find("prompt")->items()) tokens.push_back(static_cast<int>(t.as_unsigned()));
  const Matrix logits = matrix_from_json(*ref.find("logits"), "logits");
  const auto a = transformer_forward(w, tokens);
  REQUIRE(logits.rows() == a.logits.rows());
  REQUIRE(logits.cols() == a.logits.cols());
  CHECK((a.logits - logits).cwiseAbs().maxCoeff() <= headlab::test::kReferenceParityBound);
}

TEST_CASE("transformerlens names: a mixed, mis-shaped, missing or misplaced bridge tensor is named", "[formats]") {
  Tensor legacy_q{"blocks.0.attn.W_Q", DType::F64, {3, 8, 4}, std::vector<double>(96, 0.1), -1};
  CHECK(refusal(edited("blocks.0.attn.W_Q", legacy_q)) ==
        "the file mixes TransformerLens 4 names (blocks.0.attn.k.bias) and TransformerLens ≤ 3 names "
        "(blocks.0.attn.W_Q); a file holds one model's state_dict under one naming");
  Tensor transposed{"blocks.1.attn.q.weight", DType::F64, {8, 12}, std::vector<double>(96, 0.1), -1};
  CHECK(refusal(edited("blocks.1.attn.q.weight", transposed)) ==
        "blocks.1.attn.q.weight has shape [8, 12]; the config implies [n_heads·d_head, d_model] = [12, 8]");
  Tensor o{"blocks.0.attn.o.weight", DType::F64, {12, 8}, std::vector<double>(96, 0.1), -1};
  CHECK(refusal(edited("blocks.0.attn.o.weight", o)) ==
        "blocks.0.attn.o.weight has shape [12, 8]; the config implies [d_model, n_heads·d_head] = [8, 12]");
  Tensor u{"unembed.weight", DType::F64, {8, 11}, std::vector<double>(88, 0.1), -1};
  CHECK(refusal(edited("unembed.weight", u)) ==
        "unembed.weight has shape [8, 11]; the config implies [d_vocab, d_model] = [11, 8]");
  CHECK(refusal(edited("blocks.1.attn.o.weight", Tensor{})) ==
        "blocks.1.attn.o.weight (blocks.1.attn.W_O) is missing from the file");
  Tensor late{"blocks.2.attn.q.weight", DType::F64, {12, 8}, std::vector<double>(96, 0.1), -1};
  CHECK(refusal(edited("blocks.2.attn.q.weight", late)) ==
        "blocks.2.attn.q.weight is TransformerLens 4's name of blocks.2.attn.W_Q: blocks.2.attn.W_Q belongs to layer "
        "2; config.n_layers = 2");
  Tensor mlp{"blocks.0.mlp.in.weight", DType::F64, {32, 8}, std::vector<double>(256, 0.1), -1};
  CHECK(
      refusal(edited("blocks.0.mlp.in.weight", mlp)).rfind("blocks.0.mlp.in.weight: MLP blocks are not supported", 0) ==
      0);
  Tensor flag{"blocks.0.ln1.weight", DType::BOOL, {8}, std::vector<double>(8, 1), -1};
  CHECK(refusal(edited("blocks.0.ln1.weight", flag)) ==
        "blocks.0.ln1.weight has dtype BOOL; it needs F64, F32, F16 or BF16");
  // A non-finite value is named by the file's tensor and its flat index in the file's order.
  SafetensorsFile nan = bridge_file();
  for (auto& t : nan.tensors)
    if (t.name == "blocks.0.attn.q.weight") {
      t.values[9] = NAN;  // row 1, column 1 of [12, 8]: W_Q[0][1][1]
      t.first_non_finite = 9;
    }
  CHECK(refusal(nan).rfind("blocks.0.attn.q.weight has a non-finite value (nan) at flat index 9", 0) == 0);
  // The unembedding's bias (NativeModel's head has none) is read when present.
  Tensor bias{"unembed.bias", DType::F64, {11}, std::vector<double>(11, 0.25), -1};
  const auto w = transformer_weights_from_safetensors(config(), edited("unembed.bias", bias));
  CHECK(w.b_U(0, 10) == 0.25);
}

TEST_CASE("transformerlens names: every bridge row stands for a row of the layout", "[formats]") {
  for (const auto& row : kBridgeNames) {
    INFO(row.bridge);
    bool found = false;
    for (const auto& l : kTransformerLayout) found = found || std::string(l.name) == row.layout;
    CHECK(found);
    const std::string example =
        std::string(row.bridge).rfind("blocks.{l}.", 0) == 0 ? "blocks.1." + std::string(row.bridge + 11) : row.bridge;
    const BridgeMatch m = match_bridge_name(example);
    REQUIRE(m.row == &row);
    CHECK(bridge_name_of(m.layout_name) == example);
  }
  CHECK(match_bridge_name("blocks.1.attn.W_Q").row == nullptr);
  CHECK(match_bridge_name("blocks..attn.q.weight").row == nullptr);
  CHECK(match_bridge_name("embed.weights").row == nullptr);
}
