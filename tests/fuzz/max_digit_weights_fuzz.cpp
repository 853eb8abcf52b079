// libFuzzer target: arbitrary bytes as a max-digit weights file, through the one reader
// (formats/max_digit_weights.hpp). The reader may reject the text — not JSON, too deep, a
// field missing or out of shape — with an InputError that says why; anything else (another
// exception type, a crash, a sanitizer report, a message quoting more than a short excerpt) is a bug.
#include "core/check.hpp"
#include "formats/max_digit_weights.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto weights =
        headlab::formats::read_max_digit_weights(std::string_view(reinterpret_cast<const char*>(data), size));
    // An accepted file has finite entries of the documented shapes.
    if (!weights.E.allFinite() || weights.E.rows() != 14 || weights.W_O.size() != 4) std::abort();
  } catch (const headlab::InputError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > 400) std::abort();  // says why, briefly
  }
  return 0;
}
