// Float16 and bfloat16 weights in both file formats: the bytes are torch's own
// (tests/data/dtypes/make_fixtures.py), each value read exactly as torch converts it to float64.
#include "formats/file_io.hpp"
#include "formats/safetensors.hpp"
#include "formats/torch_checkpoint.hpp"
#include "formats/transformer_model.hpp"

#include "core/check.hpp"
#include "core/transformer.hpp"

#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using headlab::InputError;
using headlab::Matrix;
using namespace headlab::formats;
using namespace headlab::transformer;

namespace {

using headlab::test::bytes_of;
using headlab::test::fixture_file;
using headlab::test::read_weights_file;

// Every value of both files, bit for bit (−0.0 and ±inf included).
void check_same_values(const SafetensorsFile& got, const SafetensorsFile& want) {
  REQUIRE(got.tensors.size() == want.tensors.size());
  for (std::size_t i = 0; i < got.tensors.size(); ++i) {
    INFO(want.tensors[i].name);
    CHECK(got.tensors[i].name == want.tensors[i].name);
    CHECK(got.tensors[i].shape == want.tensors[i].shape);
    REQUIRE(got.tensors[i].values.size() == want.tensors[i].values.size());
    CHECK(std::memcmp(got.tensors[i].values.data(), want.tensors[i].values.data(), 8 * got.tensors[i].values.size()) ==
          0);
  }
}

}  // namespace

TEST_CASE("dtypes: F16 and BF16 safetensors tensors read as torch converts them to float64", "[formats]") {
  const auto file = read_weights_file(fixture_file("dtypes/dtypes.safetensors"));
  check_same_values(file, read_weights_file(fixture_file("dtypes/dtypes.expected.safetensors")));
  CHECK(file.find("f16")->dtype == DType::F16);
  CHECK(file.find("bf16")->dtype == DType::BF16);
  CHECK(file.find("f32")->dtype == DType::F32);
  CHECK(file.find("mask")->dtype == DType::BOOL);
  // By hand: float16 0.1 is 1638 · 2⁻¹⁴, its largest 65504, 6e-8 the subnormal 2⁻²⁴; bfloat16 0.1 is
  // 0x3DCD (float32 0.1, 0x3DCCCCCD, rounded to nearest at 8 significant bits) = 205 · 2⁻¹¹.
  CHECK(file.find("f16")->values[0] == 1638.0 / 16384.0);
  CHECK(file.find("f16")->values[2] == 65504.0);
  CHECK(file.find("f16")->values[3] == std::ldexp(1.0, -24));
  CHECK(std::signbit(file.find("f16")->values[4]));
  CHECK(file.find("f16")->first_non_finite == 5);
  CHECK(file.find("bf16")->values[0] == 205.0 / 2048.0);
  CHECK(float16_to_double(0x7E00) != float16_to_double(0x7E00));  // NaN
  CHECK(float16_to_double(0xFC00) == -INFINITY);
  CHECK(bfloat16_to_double(0x3F80) == 1.0);
}

TEST_CASE("dtypes: a model in F16 or BF16 reads the same from safetensors and torch.save", "[formats]") {
  const TransformerConfig c = transformer_config_from_json(fixture_file("transformer/two_layer_ln_pos.json"));
  for (const std::string d : {"f16", "bf16"}) {
    INFO(d);
    const std::string stem = "dtypes/two_layer_ln_pos." + d;
    const auto st = read_weights_file(fixture_file(stem + ".safetensors"));
    const auto pt = read_weights_file(fixture_file(stem + ".pt"));
    const auto expected = read_weights_file(fixture_file(stem + ".expected.safetensors"));
    check_same_values(st, expected);
    check_same_values(pt, expected);
    CHECK(st.find("blocks.0.attn.W_Q")->dtype == (d == "f16" ? DType::F16 : DType::BF16));
    CHECK(pt.find("blocks.0.attn.W_Q")->dtype == (d == "f16" ? DType::F16 : DType::BF16));
    // The weights of all three are one model, bit for bit.
    const auto a = transformer_weights_from_safetensors(c, st);
    const auto b = transformer_weights_from_safetensors(c, pt);
    const auto e = transformer_weights_from_safetensors(c, expected);
    // F16 / BF16 W_E and W_U are held as float32 (the same values); the F64 file's as float64.
    CHECK(headlab::transformer::float32_embeddings(a));
    CHECK(headlab::transformer::float32_embeddings(b));
    CHECK_FALSE(headlab::transformer::float32_embeddings(e));
    Matrix scratch_a, scratch_b, scratch_u;
    CHECK(headlab::transformer::embedding_f64(a, scratch_a) == e.W_E);
    CHECK(headlab::transformer::embedding_f64(b, scratch_b) == e.W_E);
    CHECK(a.layers[1].W_O == e.layers[1].W_O);
    CHECK(b.layers[1].W_O == e.layers[1].W_O);
    CHECK(headlab::transformer::unembedding_f64(a, scratch_u) == e.W_U);
    CHECK(b.ln_final_w == e.ln_final_w);
  }
}

TEST_CASE("dtypes: the safetensors writer writes F16 and BF16 values exactly or not at all", "[formats]") {
  // ±0, normal, the largest, subnormals (the smallest, the largest), ±inf; for BF16 a value near its
  // largest (0xFF61, −2.99e38).
  std::vector<Tensor> tensors{{"a", DType::F16, {8}, {}, -1}, {"b", DType::BF16, {5}, {}, -1}};
  tensors[0].values = {0.0,     -0.0, 1.0, 65504.0, -std::ldexp(1.0, -24), std::ldexp(1023.0, -24), 1638.0 / 16384.0,
                       INFINITY};
  tensors[1].values = {0.0, 1.0, 205.0 / 2048.0, bfloat16_to_double(0xFF61), -INFINITY};
  const std::string bytes = write_safetensors(tensors);
  const auto back = read_safetensors(bytes_of(bytes), bytes.size());
  CHECK(back.find("a")->dtype == DType::F16);
  CHECK(back.find("b")->dtype == DType::BF16);
  CHECK(std::memcmp(back.find("a")->values.data(), tensors[0].values.data(), 8 * 8) == 0);
  CHECK(std::memcmp(back.find("b")->values.data(), tensors[1].values.data(), 8 * 5) == 0);
  // A value the format does not hold is refused, naming the tensor; so is one past its range.
  tensors[0].values[2] = 0.1;
  CHECK_THROWS_WITH(write_safetensors(tensors),
                    "safetensors writer: tensor a holds 0.1, which F16 does not hold exactly");
  tensors[0].values[2] = 65536.0;
  CHECK_THROWS_WITH(write_safetensors(tensors),
                    "safetensors writer: tensor a holds 65536, which F16 does not hold exactly");
  tensors[0].values[2] = 1.0;
  tensors[1].values[2] = 0.1;
  CHECK_THROWS_WITH(write_safetensors(tensors),
                    "safetensors writer: tensor b holds 0.1, which BF16 does not hold exactly");
}
