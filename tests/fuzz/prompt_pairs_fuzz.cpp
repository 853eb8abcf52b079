// libFuzzer target: arbitrary bytes as a prompt-pairs file (`headlab model patch --pairs`,
// formats/prompt_pairs.hpp read_prompt_pairs, the same code in WASM). The first byte picks the
// model: even, token ids only; odd, with token names (some of them digits or non-ASCII), so both
// the string prompts (parse_prompt) and the token-name answers are reached. A refusal is an
// InputError that says why, briefly. An accepted batch passes require_prompt_pairs (1 to
// kMaxPromptPairs pairs, each of two prompts of one length in [1, n_ctx], tokens in [0, d_vocab),
// answer ≠ wrong) and survives write_prompt_pairs → read_prompt_pairs unchanged.
#include "core/check.hpp"
#include "core/prompt_pairs.hpp"
#include "core/transformer.hpp"
#include "formats/prompt_pairs.hpp"
#include "prompt_model.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

bool token_ok(int t, int d_vocab) { return t >= 0 && t < d_vocab; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto c = headlab::fuzz::prompt_model(data[0]);
  const std::string text = headlab::fuzz::prompt_text(data, size);
  try {
    const auto pairs = headlab::formats::read_prompt_pairs(c, text, "pairs.json");
    if (pairs.empty() || pairs.size() > static_cast<std::size_t>(headlab::kMaxPromptPairs)) std::abort();
    for (const auto& p : pairs) {
      if (p.clean.empty() || p.clean.size() > static_cast<std::size_t>(c.n_ctx)) std::abort();
      if (p.corrupted.size() != p.clean.size()) std::abort();
      if (!token_ok(p.answer, c.d_vocab) || !token_ok(p.wrong, c.d_vocab) || p.answer == p.wrong) std::abort();
      for (int t : p.clean)
        if (!token_ok(t, c.d_vocab)) std::abort();
      for (int t : p.corrupted)
        if (!token_ok(t, c.d_vocab)) std::abort();
    }
    const auto again = headlab::formats::read_prompt_pairs(c, headlab::formats::write_prompt_pairs(pairs), "again");
    if (again.size() != pairs.size()) std::abort();
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      if (again[i].clean != pairs[i].clean || again[i].corrupted != pairs[i].corrupted ||
          again[i].answer != pairs[i].answer || again[i].wrong != pairs[i].wrong)
        std::abort();
    }
  } catch (const headlab::InputError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > 400) std::abort();
  }
  return 0;
}
