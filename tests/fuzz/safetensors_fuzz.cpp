// libFuzzer target: arbitrary bytes as a safetensors file, then as the weights of a small
// attention-only transformer (2 layers, 2 heads, d_model 4, d_head 2, n_ctx 3, d_vocab 5, LN).
// The reader may reject the file with an InputError that says why; anything else — another
// exception type, a crash, a read past the buffer, a sanitizer report — is a bug.
#include "core/check.hpp"
#include "formats/safetensors.hpp"
#include "formats/transformer_model.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // An exact-size heap copy, so ASan sees any read past the end.
  std::vector<std::uint8_t> bytes(data, data + size);
  headlab::formats::SafetensorsFile file;
  try {
    file = headlab::formats::read_safetensors(bytes.data(), bytes.size());
  } catch (const headlab::InputError& e) {
    if (std::string(e.what()).empty()) std::abort();
    return 0;
  }
  // An accepted file holds exactly product(shape) values per tensor.
  for (const auto& t : file.tensors) {
    std::size_t count = 1;
    for (auto d : t.shape) count *= static_cast<std::size_t>(d);
    if (count != t.values.size()) std::abort();
  }
  // The model the seed corpus was written for: 2 layers, 2 heads, d_model 4, d_head 2, 3 positions, 5 tokens.
  const auto c = headlab::transformer::transformer_config({2, 2, 4, 2, 3, 5}, headlab::transformer::Normalization::layer_norm);
  try {
    const auto w = headlab::formats::transformer_weights_from_safetensors(c, file);
    if (!w.W_E.allFinite() || w.layers.size() != 2) std::abort();
  } catch (const headlab::InputError& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
