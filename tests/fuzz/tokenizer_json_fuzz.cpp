// libFuzzer target: arbitrary bytes as a Hugging Face tokenizer.json (formats/tokenizer_json.hpp) and,
// when the reader accepts it, a text encoded by it (core/tokenizer.hpp). The input is the file, then
// two zero bytes, then the text (no separator: the whole input is the file and the text is empty).
// The seeds are the small fixtures (tests/data/tokenizer/) with texts and the limits ± 1
// (tests/fuzz/make_edge_seeds.py). A refusal is an InputError that says why, briefly; anything else
// (another exception type, a crash, a sanitizer report, a long message, a token without bytes
// of the text or an id the tokenizer does not have) is a bug.
#include "core/check.hpp"
#include "core/tokenizer.hpp"
#include "formats/tokenizer_json.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = input.find(std::string_view("\0\0", 2));
  const std::string_view file = input.substr(0, cut);
  const std::string_view text = cut == std::string_view::npos ? std::string_view() : input.substr(cut + 2);
  headlab::tokenizer::Tokenizer tk;
  try {
    tk = headlab::formats::read_tokenizer_json(file, "tokenizer");
  } catch (const headlab::InputError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > 400) std::abort();
    return 0;
  }
  try {
    const auto pieces = headlab::tokenizer::encode(tk, text);
    std::size_t last_end = 0;
    for (const auto& p : pieces) {
      if (p.id < 0 || static_cast<std::size_t>(p.id) >= tk.tokens.size()) std::abort();
      if (p.begin > p.end || p.end > text.size() || p.begin < last_end) std::abort();
      last_end = p.end;
      (void)headlab::tokenizer::token_text(tk, p.id);
    }
  } catch (const headlab::InputError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > 400) std::abort();
  }
  return 0;
}
