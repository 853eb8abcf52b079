// The test fixtures under tests/data/ (each folder's make_fixtures.py writes them): their text, a
// weights file in either format, a transformer fixture as the CLI reads one, and float32 values as
// a weights file holds them.
#pragma once

#include "formats/file_io.hpp"
#include "formats/safetensors.hpp"
#include "formats/torch_checkpoint.hpp"
#include "formats/transformer_model.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

namespace headlab::test {

// The bytes of tests/data/<path>; `limit` (16 MiB by default, above every fixture) only guards a
// test against a wrong path, the readers' own limits are tested on their own.
inline std::string fixture_file(const std::string& path, std::size_t limit = std::size_t{1} << 24) {
  return formats::read_text_file(std::string(HEADLAB_TEST_DATA) + "/" + path, "fixture", limit);
}

inline const std::uint8_t* bytes_of(const std::string& s) { return reinterpret_cast<const std::uint8_t*>(s.data()); }

// The float32 values as a weights file stores them: 4 bytes each, in the machine's (little-endian) order.
inline std::string f32_bytes(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) {
    char b[4];
    std::memcpy(b, &v, 4);
    out.append(b, 4);
  }
  return out;
}

// Every tensor of a weights file, values decoded: torch.save (a zip archive) or safetensors.
inline formats::SafetensorsFile read_weights_file(const std::string& bytes) {
  return formats::looks_like_zip(bytes_of(bytes), bytes.size())
             ? formats::read_torch_checkpoint(bytes_of(bytes), bytes.size())
             : formats::read_safetensors(bytes_of(bytes), bytes.size());
}

// The transformer of tests/data/<stem>.json (its config) and <stem>.safetensors (its weights).
inline transformer::TransformerWeights transformer_fixture(const std::string& stem) {
  const std::string weights = fixture_file(stem + ".safetensors");
  return formats::read_transformer(fixture_file(stem + ".json"), bytes_of(weights), weights.size());
}

}  // namespace headlab::test
