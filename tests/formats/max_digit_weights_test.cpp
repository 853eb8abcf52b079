#include "formats/max_digit_weights.hpp"
#include "core/check.hpp"
#include "formats/file_io.hpp"
#include "formats/json.hpp"
#include "support/shipped_data.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace headlab;
using namespace headlab::formats;
namespace md = headlab::max_digit;

using headlab::test::shipped_file;

namespace {
// The shipped file's own recipe (its "training" object), to write it again.
md::MaxDigitTrainingSettings recipe_of(const JsonValue& file, double& final_loss) {
  const JsonValue& t = field(file, "training");
  md::MaxDigitTrainingSettings s;
  s.seed = static_cast<std::uint64_t>(field(t, "seed").as_double());
  s.steps = static_cast<long>(field(t, "steps").as_double());
  s.batch_size = static_cast<int>(field(t, "batch_size").as_double());
  s.learning_rate = field(t, "learning_rate").as_double();
  s.weight_decay = field(t, "weight_decay").as_double();
  s.init_scale = field(t, "init_scale").as_double();
  s.unit_norm_unembedding = field(file, "unit_norm_unembedding").as_bool();
  final_loss = field(t, "final_batch_loss").as_double();
  return s;
}
}  // namespace

TEST_CASE("weights file: read then written again gives the shipped bytes", "[formats][max_digit_weights]") {
  for (const char* name : {"max-digit-seed0.json", "max-digit-seed0-unit-norm.json"}) {
    const std::string text = shipped_file(name);
    const md::MaxDigitWeights w = read_max_digit_weights(text);
    double loss = 0;
    const md::MaxDigitTrainingSettings s = recipe_of(parse_json(text, name), loss);
    CHECK(write_max_digit_weights(w, &s, loss) == text);
  }
}

TEST_CASE("weights file: every kind of bad file has its own short message", "[formats][max_digit_weights][errors]") {
  const std::string good = shipped_file("max-digit-seed0.json");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK_THROWS_WITH(read_max_digit_weights(with("\"format_version\":1", "\"format_version\":2")),
                    "format_version 2 is not supported; this core reads version 1");
  CHECK_THROWS_WITH(read_max_digit_weights(with("\"d_model\":64", "\"d_model\":32")), "d_model must be 64, got 32");
  CHECK_THROWS_WITH(read_max_digit_weights(with("\"ANS\"", "\"END\"")), "vocab[13] must be \"ANS\", got \"END\"");
  CHECK_THROWS_WITH(read_max_digit_weights(with("\"W_V\"", "\"W_v\"")), "missing field \"W_V\"");
  CHECK_THROWS_WITH(read_max_digit_weights(with("\"unit_norm_unembedding\":false", "\"unit_norm_unembedding\":0")),
                    "unit_norm_unembedding must be true or false");
  CHECK_THROWS_WITH(read_max_digit_weights(with("\"W_U\":[[", "\"W_U\":[[1e999,")),
                    Catch::Contains("is not valid JSON: number overflow parsing '1e999'"));
  // Finite but huge: refused by magnitude, naming the matrix, the entry and the limit (1e200 once
  // overflowed every logit; std::to_string would print it with 200 digits).
  // The first entry of a matrix replaced by `value`.
  auto first_entry = [&](const std::string& matrix, const std::string& value) {
    std::string t = good;
    const auto at = t.find("\"" + matrix + "\":[[");
    REQUIRE(at != std::string::npos);
    const auto from = at + matrix.size() + 5, to = t.find(',', from);
    return t.replace(from, to - from, value);
  };
  CHECK_THROWS_WITH(
      read_max_digit_weights(first_entry("E", "1e200")),
      Catch::Contains("E (14 × 64) has an entry 1e+200 at row 0, column 0 beyond the magnitude limit ±1e+06"));
  CHECK_THROWS_WITH(read_max_digit_weights(first_entry("W_U", "-1000001")),
                    Catch::Contains("W_U (64 × 14) has an entry -1e+06 at row 0, column 0 beyond"));
  CHECK_THROWS_WITH(read_max_digit_weights(with("\"format_version\":1", "\"format_version\":1.0000000000000002")),
                    "format_version 1.0000000000000002 is not supported; this core reads version 1");
  CHECK_THROWS_WITH(read_max_digit_weights("[" + std::string(100000, '[')),
                    Catch::Contains("nested deeper than 8 levels"));
  // A scalar field holding a 100,000-deep value or a 1 MB string: refused by the reader's limits
  // with a short excerpt, not dumped into the message.
  for (const std::string& value :
       {std::string(100000, '[') + std::string(100000, ']'), "\"" + std::string(1 << 20, 'a') + "\""}) {
    try {
      read_max_digit_weights(with("\"format_version\":1", "\"format_version\":" + value));
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).size() < 200);
    }
  }
  CHECK_THROWS_WITH(read_max_digit_weights(std::string(kMaxDigitWeightsMaxBytes + 1, ' ')),
                    Catch::StartsWith("the weights file is larger than"));
  CHECK_THROWS_WITH(read_max_digit_weights("[]"), "the weights file must be a JSON object");
}
