// What the two prompt targets (prompt_fuzz, prompt_pairs_fuzz) read their input against: the first
// byte picks the model, the rest is the text.
#pragma once

#include "core/transformer.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace headlab::fuzz {

// One layer, n_ctx 8, d_vocab 6: with `first` even, token ids only; odd, with token names (some of
// them digits or non-ASCII, so a name can look like an id or span several bytes).
inline transformer::TransformerConfig prompt_model(std::uint8_t first) {
  auto c = transformer::transformer_config({1, 1, 2, 2, 8, 6});
  if (first & 1) c.token_names = {"a", "bb", "<s>", "caf\xc3\xa9", "7", "-1"};
  return c;
}

// The input after its first byte (size ≥ 1).
inline std::string prompt_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data) + 1, size - 1);
}

}  // namespace headlab::fuzz
