// libFuzzer target: arbitrary bytes as the two files `headlab model` reads (and the
// <headlab-transformer-model> element loads in WASM): model.json and model.safetensors, through
// formats/transformer_model.hpp read_transformer (the weights safetensors or a torch.save checkpoint). The input is split by its first two bytes, a
// little-endian length n: the next n bytes are the config, the rest the safetensors file (the
// seeds were written so, from tests/data/transformer and site/pages/data). Where
// tests/fuzz/safetensors_fuzz.cpp keeps one config, here config and tensors vary together
// (n_layers against the blocks present, d_vocab against token names and W_E, LN against ln1).
// A refusal is an InputError that says why; an accepted model is written again (config JSON and
// safetensors) and reads back to the same bits.
#include "core/check.hpp"
#include "formats/transformer_model.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace fm = headlab::formats;
  if (size < 2) return 0;
  const std::size_t n = std::min<std::size_t>(size - 2, data[0] | (static_cast<std::size_t>(data[1]) << 8));
  const std::string config(reinterpret_cast<const char*>(data) + 2, n);
  // An exact-size heap copy, so ASan sees any read past the end.
  const std::vector<std::uint8_t> weights(data + 2 + n, data + size);
  headlab::transformer::TransformerWeights w;
  try {
    w = fm::read_transformer(config, weights.data(), weights.size());
  } catch (const headlab::InputError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > 400) std::abort();
    return 0;
  }
  const std::string config_again = fm::transformer_config_to_json(w.config);
  const std::string bytes_again = fm::transformer_to_safetensors(w);
  try {
    const auto back = fm::read_transformer(config_again, reinterpret_cast<const std::uint8_t*>(bytes_again.data()),
                                           bytes_again.size());
    if (fm::transformer_to_safetensors(back) != bytes_again) std::abort();
  } catch (const headlab::InputError&) {
    std::abort();  // the writers wrote a model their own readers refuse
  }
  return 0;
}
