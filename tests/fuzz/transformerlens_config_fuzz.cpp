// libFuzzer target: arbitrary bytes as TransformerLens's own config (cfg.to_dict() as JSON, TransformerLens
// 3 or 4) through the config reader's entry point, formats/transformer_model.hpp transformer_config_from_json,
// which hands a document with TransformerLens's fields to formats/transformerlens_config.hpp. The seeds
// are to_dict() documents (tests/data/transformerlens_config/), so mutations reach every field's checks.
// The reader may reject the text with an InputError that says why, briefly; anything else (another
// exception type, a crash, a sanitizer report, a long message) is a bug.
#include "core/check.hpp"
#include "formats/transformer_model.hpp"
#include "formats/transformerlens_config.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto config =
        headlab::formats::transformer_config_from_json(std::string(reinterpret_cast<const char*>(data), size));
    // An accepted config passed validate_config: every size at least 1, eps finite and positive; a
    // TransformerLens config names no tokens.
    if (config.n_layers < 1 || config.n_heads < 1 || config.d_model < 1 || config.d_head < 1 || config.n_ctx < 1 ||
        config.d_vocab < 1 || !(config.layer_norm_eps > 0) ||
        (!config.token_names.empty() && config.token_names.size() != static_cast<std::size_t>(config.d_vocab)))
      std::abort();
  } catch (const headlab::InputError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > 400) std::abort();
  }
  return 0;
}
