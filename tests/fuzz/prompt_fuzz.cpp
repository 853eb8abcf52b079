// libFuzzer target: arbitrary bytes as the prompt of `headlab model run / analyze --prompt` and of
// the transformer widgets' prompt field (formats/transformer_json.hpp parse_prompt, the same code
// in WASM). The first byte picks the model: even, token ids only; odd, with token names (some of
// them digits or non-ASCII). A refusal is an InputError that says why, briefly; an accepted prompt
// holds 1 to n_ctx tokens, each in [0, d_vocab).
#include "core/check.hpp"
#include "core/transformer.hpp"
#include "formats/transformer_json.hpp"
#include "prompt_model.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto c = headlab::fuzz::prompt_model(data[0]);
  const std::string text = headlab::fuzz::prompt_text(data, size);
  try {
    const auto tokens = headlab::formats::parse_prompt(c, text);
    if (tokens.empty() || tokens.size() > static_cast<std::size_t>(c.n_ctx)) std::abort();
    for (int t : tokens) {
      if (t < 0 || t >= c.d_vocab) std::abort();
    }
  } catch (const headlab::InputError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > 400) std::abort();
  }
  return 0;
}
