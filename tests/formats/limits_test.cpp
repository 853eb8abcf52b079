// docs/limits.md, the readers' rows, kept exactly: each limit is read at the limit and refused one
// past it with the documented message. One table; each row reads its input at `limit + extra`
// (extra 0 or 1). Inputs are built in memory at the real limits where that costs at most a few
// tens of MB (the JSON document, the weights file, the config, the safetensors header); the
// 512 MiB safetensors file is read through its limit parameter, and its CLI path is checked on a
// sparse file one byte past the limit (the size is refused before a byte is read).
#include "core/check.hpp"
#include "core/feature_recovery_experiment.hpp"
#include "core/max_digit_model.hpp"
#include "core/max_digit_task.hpp"
#include "core/max_digit_training.hpp"
#include "core/transformer.hpp"
#include "core/transformer_training.hpp"
#include "formats/file_io.hpp"
#include "formats/json.hpp"
#include "formats/max_digit_weights.hpp"
#include "formats/safetensors.hpp"
#include "formats/transformer_model.hpp"
#include "support/shipped_data.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace headlab;
using namespace headlab::formats;
namespace tf = headlab::transformer;
using headlab::test::shipped_file;

namespace {

struct LimitRow {
  std::string input;                            // the docs/limits.md row
  std::function<void(std::size_t extra)> read;  // reads the input at the limit + extra
  std::string beyond;                           // what the message one past the limit says
};

std::string padded(std::string text, std::size_t size) {
  REQUIRE(text.size() <= size);
  text.resize(size, ' ');  // JSON allows any amount of trailing white space
  return text;
}

// The shortest text of the double just above x (1e6 → "1000000.0000000001").
std::string just_above(double x) {
  JsonWriter w;
  w.value(std::nextafter(x, 2 * x));
  return w.text();
}

std::string with_length_prefix(const std::string& header, const std::string& data) {
  std::string out;
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((static_cast<std::uint64_t>(header.size()) >> (8 * i)) & 0xFF));
  return out + header + data;
}

SafetensorsFile read_bytes(const std::string& bytes, const SafetensorsLimits& limits = {}) {
  return read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), limits);
}

// A header of n empty F32 tensors (shape [0], data_offsets [0, 0]: they tile an empty buffer).
std::string empty_tensors(std::size_t n) {
  std::string h = "{";
  for (std::size_t i = 0; i < n; ++i) {
    h += (i ? ",\"t" : "\"t") + std::to_string(i) + R"(":{"dtype":"F32","shape":[0],"data_offsets":[0,0]})";
  }
  return h + "}";
}

// The smallest transformer (1 layer, 1 head, d_model 2, d_head 2, n_ctx 2, d_vocab 3) with
// embed.W_E[0][0] = `entry`, as config text and safetensors bytes.
std::pair<std::string, std::string> model_with_entry(const std::string& entry) {
  const auto c = tf::transformer_config({1, 1, 2, 2, 2, 3});
  const auto zero = tf::zero_weights(c);
  auto file = read_bytes(transformer_to_safetensors(zero));
  std::vector<Tensor> tensors = file.tensors;
  for (auto& t : tensors) {
    if (t.name == "embed.W_E") t.values[0] = parse_json(entry, "entry").as_double();
  }
  return {transformer_config_to_json(c), write_safetensors(tensors)};
}

}  // namespace

TEST_CASE("limits: every reader's limit is read at the limit and refused one past it, as docs/limits.md says",
          "[formats][limits]") {
  const JsonLimits json;
  const SafetensorsLimits st;
  // The largest document, built once: "0" then white space.
  std::string document(json.max_bytes + 1, ' ');
  document[0] = '0';
  const std::string weights = shipped_file("max-digit-seed0.json");
  const auto weights_with_first_e = [&](const std::string& value) {
    std::string t = weights;
    const auto from = t.find("\"E\":[[") + 6;
    return t.replace(from, t.find(',', from) - from, value);
  };
  const std::string config = R"({"n_layers":1,"n_heads":1,"d_model":2,"d_head":2,"n_ctx":2,"d_vocab":3})";
  const std::string two_floats(8, '\0');
  const std::string one_tensor_end = R"(":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

  const std::vector<LimitRow> rows{
      {"headlab attention stdin, document size",
       [&](std::size_t extra) { parse_json(std::string_view(document).substr(0, json.max_bytes + extra), "stdin"); },
       "stdin is larger than 67108864 bytes (67108865 bytes)"},
      {"any JSON reader, nesting depth",
       [&](std::size_t extra) {
         const std::size_t n = static_cast<std::size_t>(json.max_depth) + extra;
         parse_json(std::string(n, '[') + std::string(n, ']'), "w");
       },
       "values nested deeper than 64 levels"},
      {"any JSON reader, nesting depth (objects)",
       [&](std::size_t extra) {
         std::string text;
         const std::size_t n = static_cast<std::size_t>(json.max_depth) + extra;
         for (std::size_t i = 0; i < n; ++i) text += "{\"k\":";
         parse_json(text + "1" + std::string(n, '}'), "w");
       },
       "values nested deeper than 64 levels"},
      {"any JSON reader, one string",
       [&](std::size_t extra) { parse_json("[\"" + std::string(json.max_string_bytes + extra, 's') + "\"]", "w"); },
       "a string longer than 65536 bytes"},
      {"any JSON reader, one key",
       [&](std::size_t extra) { parse_json("{\"" + std::string(json.max_string_bytes + extra, 'k') + "\":1}", "w"); },
       "a string longer than 65536 bytes"},
      {"any JSON reader, one string counted in bytes after unescaping (\\u00e9 is 2 bytes)",
       [&](std::size_t extra) {
         std::string text = "[\"";
         for (std::size_t i = 0; i < json.max_string_bytes / 2; ++i) text += "\\u00e9";
         parse_json(text + std::string(extra, 's') + "\"]", "w");
       },
       "a string longer than 65536 bytes"},
      {"max-digit weights file, size",
       [&](std::size_t extra) { read_max_digit_weights(padded(weights, kMaxDigitWeightsMaxBytes + extra)); },
       "the weights file is larger than 16777216 bytes"},
      {"max-digit weights, |entry| of every matrix",
       [&](std::size_t extra) {
         read_max_digit_weights(weights_with_first_e(extra ? just_above(kMaxWeightMagnitude) : "1e6"));
       },
       "E (14 × 64) has an entry 1e+06 at row 0, column 0 beyond the magnitude limit ±1e+06"},
      {"max-digit weights, |entry| of every matrix (negative)",
       [&](std::size_t extra) {
         read_max_digit_weights(weights_with_first_e(extra ? "-" + just_above(kMaxWeightMagnitude) : "-1e6"));
       },
       "beyond the magnitude limit ±1e+06"},
      {"safetensors file, size (the reader, at its limit parameter)",
       [&](std::size_t extra) {
         const std::string bytes = with_length_prefix("{\"a" + one_tensor_end, two_floats);
         SafetensorsLimits limits;
         limits.max_file_bytes = bytes.size() - extra;  // the same file is one byte past a limit one smaller
         read_bytes(bytes, limits);
       },
       "the file has 70 bytes; the limit is 69"},
      {"safetensors header, size",
       [&](std::size_t extra) {
         read_bytes(with_length_prefix(padded("{\"a" + one_tensor_end, st.max_header_bytes + extra), two_floats));
       },
       "the header length 1048577 exceeds the limit of 1048576 bytes"},
      {"safetensors header, tensors",
       [&](std::size_t extra) { read_bytes(with_length_prefix(empty_tensors(st.max_tensors + extra), "")); },
       "the header lists 4097 tensors; the limit is 4096"},
      {"safetensors header, tensor name length",
       [&](std::size_t extra) {
         read_bytes(
             with_length_prefix("{\"" + std::string(st.max_name_length + extra, 'n') + one_tensor_end, two_floats));
       },
       "its name has 257 bytes; the limit is 256"},
      {"safetensors header, tensor rank",
       [&](std::size_t extra) {
         std::string shape = "[2";
         for (std::size_t i = 1; i < st.max_rank + extra; ++i) shape += ",1";
         read_bytes(
             with_length_prefix(R"({"a":{"dtype":"F32","shape":)" + shape + R"(],"data_offsets":[0,8]}})", two_floats));
       },
       "has 5 dimensions; at most 4"},
      {"transformer config file, size",
       [&](std::size_t extra) { transformer_config_from_json(padded(config, kMaxConfigBytes + extra)); },
       "config: the file has 4194305 bytes; the limit is 4194304"},
      {"transformer weights, |entry| of every tensor",
       [&](std::size_t extra) {
         const auto [config_text, bytes] = model_with_entry(extra ? just_above(kMaxWeightMagnitude) : "1e6");
         read_transformer(config_text, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
       },
       "embed.W_E has an entry 1e+06 at flat index 0 beyond the magnitude limit ±1e+06"},
      {"transformer weights, |entry| of every tensor (negative)",
       [&](std::size_t extra) {
         const auto [config_text, bytes] = model_with_entry(extra ? "-" + just_above(kMaxWeightMagnitude) : "-1e6");
         read_transformer(config_text, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
       },
       "embed.W_E has an entry -1e+06 at flat index 0 beyond the magnitude limit ±1e+06"},
  };
  for (const auto& row : rows) {
    INFO(row.input);
    CHECK_NOTHROW(row.read(0));
    CHECK_THROWS_WITH(row.read(1), Catch::Contains(row.beyond));
  }
  // The tensor count excludes __metadata__: 4096 tensors and the metadata are read.
  CHECK(read_bytes(
            with_length_prefix(R"({"__metadata__":{"format":"pt"},)" + empty_tensors(st.max_tensors).substr(1), ""))
            .tensors.size() == st.max_tensors);
}

TEST_CASE("limits: the command line's file-size limits are read at the limit and refused one past it",
          "[formats][limits]") {
  const auto dir = std::filesystem::temp_directory_path() / "headlab-limits-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "input").string();
  // `headlab model --config`: read_text_file bounded by kMaxConfigBytes (4 MiB, written for real).
  for (std::size_t extra : {0, 1}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << std::string(kMaxConfigBytes + extra, ' ');
    if (extra == 0) {
      CHECK(read_text_file(path, "--config", kMaxConfigBytes).size() == kMaxConfigBytes);
    } else {
      CHECK_THROWS_WITH(read_text_file(path, "--config", kMaxConfigBytes),
                        "--config: \"" + path + "\" is larger than 4194304 bytes");
    }
  }
  // `headlab model --weights`: a sparse file one byte past 512 MiB (no data blocks on disk) is
  // refused from its size alone.
  std::filesystem::resize_file(path, SafetensorsLimits{}.max_file_bytes + 1);
  CHECK_THROWS_WITH(read_text_file(path, "--weights", SafetensorsLimits{}.max_file_bytes),
                    "--weights: \"" + path + "\" is larger than 536870912 bytes");
  // At the limit (the same check, a limit one byte larger) the size passes; 512 MiB are not read here.
  std::filesystem::resize_file(path, 16);
  CHECK(read_text_file(path, "--weights", 16).size() == 16);
  CHECK_THROWS_WITH(read_text_file(path, "--weights", 15), Catch::Contains("is larger than 15 bytes"));
  std::filesystem::remove_all(dir);
}

// The settings rows of docs/limits.md (the command line's flags and the widgets' fields reach
// these validate() calls): each at the limit and one past it (the next double, one more digit).
TEST_CASE("limits: every setting's limit is accepted at the limit and refused one past it, as docs/limits.md says",
          "[formats][limits]") {
  const auto above = [](double x) { return std::nextafter(x, 2 * x); };
  const std::vector<LimitRow> rows{
      {"max-digit training, init_scale",
       [&](std::size_t extra) {
         max_digit::MaxDigitTrainingSettings s;
         s.init_scale = extra ? above(kMaxInitScale) : kMaxInitScale;
         s.validate();
       },
       "init_scale must lie in (0, 10000]"},
      {"feature-recovery request_scale",
       [&](std::size_t extra) {
         FeatureRecoverySettings s;
         s.request_scale = extra ? above(kMaxFeatureRecoveryScale) : kMaxFeatureRecoveryScale;
         s.validate();
       },
       "request_scale must lie in [1e-06, 1e+06]"},
      {"feature-recovery init_scale",
       [&](std::size_t extra) {
         FeatureRecoverySettings s;
         s.init_scale = extra ? above(kMaxInitScale) : kMaxInitScale;
         s.validate();
       },
       "init_scale must lie in (0, 10000]"},
      {"transformer training, init_scale",
       [&](std::size_t extra) {
         tf::TransformerTrainingSettings s;
         s.init_scale = extra ? above(kMaxInitScale) : kMaxInitScale;
         s.validate();
       },
       "init_scale must lie in (0, 10000]"},
      {"AdamW training, learning_rate × weight_decay (below 1: the limit is the largest product under 1)",
       [&](std::size_t extra) {
         max_digit::MaxDigitTrainingSettings s;
         s.learning_rate = 1;
         s.weight_decay = extra ? 1.0 : std::nextafter(1.0, 0.0);
         s.validate();
       },
       "learning_rate × weight_decay must be below 1"},
      {"AdamW training (induction), learning_rate × weight_decay",
       [&](std::size_t extra) {
         tf::TransformerTrainingSettings s;
         s.learning_rate = 1;
         s.weight_decay = extra ? 1.0 : std::nextafter(1.0, 0.0);
         s.validate();
       },
       "learning_rate × weight_decay must be below 1"},
      {"max-digit list of digits",
       [&](std::size_t extra) {
         max_digit::prompt_tokens(std::vector<int>(static_cast<std::size_t>(max_digit::kMaxListLength) + extra, 3));
       },
       "digits must hold 1 to 6 digits, got 7"},
  };
  for (const auto& row : rows) {
    INFO(row.input);
    CHECK_NOTHROW(row.read(0));
    CHECK_THROWS_WITH(row.read(1), Catch::Contains(row.beyond));
  }
}
