// libFuzzer target: arbitrary bytes as a safetensors file, then as the weights of a small
// attention-only transformer (2 layers, 2 heads, d_model 4, d_head 2, n_ctx 3, d_vocab 5, LN).
// The reader may reject the file with an InputError that says why; anything else — another
// exception type, a crash, a read past the buffer, a sanitizer report — is a bug. The weights are
// read twice, from the decoded file and from its index (names and shapes first, then one tensor
// at a time: what the CLI and the page use): both accept with the same weights or both refuse.
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
  const auto c =
      headlab::transformer::transformer_config({2, 2, 4, 2, 3, 5}, headlab::transformer::Normalization::layer_norm);
  bool decoded_ok = false, indexed_ok = false;
  headlab::transformer::TransformerWeights decoded, indexed;
  try {
    decoded = headlab::formats::transformer_weights_from_safetensors(c, file);
    if (!decoded.W_E.allFinite() || !decoded.W_E_f32.map().allFinite() || decoded.layers.size() != 2) std::abort();
    decoded_ok = true;
  } catch (const headlab::InputError& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  try {
    indexed = headlab::formats::transformer_weights_from_safetensors(
        c, headlab::formats::index_safetensors(bytes.data(), bytes.size()));
    indexed_ok = true;
  } catch (const headlab::InputError& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  if (decoded_ok != indexed_ok) std::abort();
  if (decoded_ok &&
      (decoded.W_E != indexed.W_E || decoded.W_U != indexed.W_U || decoded.W_E_f32.map() != indexed.W_E_f32.map() ||
       decoded.W_U_f32.map() != indexed.W_U_f32.map() || decoded.layers[1].W_O[1] != indexed.layers[1].W_O[1]))
    std::abort();
  return 0;
}
