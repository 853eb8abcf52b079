// libFuzzer target: arbitrary bytes as the model.json of `headlab model` (and of the
// <headlab-transformer-model> element, through the same reader in WASM), through
// formats/transformer_model.hpp transformer_config_from_json over formats/json.hpp, which hands a
// document with TransformerLens's fields (cfg.to_dict() of TransformerLens 3 or 4) to
// formats/transformerlens_config.hpp: the seeds hold both kinds (tl-*: to_dict() documents), so
// mutations reach every field's checks of both readers. The reader may reject the text — not JSON,
// nested deeper than the config's 2 levels, a string or file beyond its limits, a field unknown,
// missing or out of range — with an InputError that says why, briefly; anything else (another
// exception type, a crash, a sanitizer report, a long message) is a bug.
#include "core/check.hpp"
#include "formats/transformer_model.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto config =
        headlab::formats::transformer_config_from_json(std::string(reinterpret_cast<const char*>(data), size));
    // An accepted config passed validate_config: every size at least 1, eps finite and positive,
    // token names absent or one per token (a TransformerLens config names none).
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
