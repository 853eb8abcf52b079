// libFuzzer target: arbitrary bytes as a max-digit weights file. Parsing may fail
// (nlohmann's exceptions: the CLI reports them as "not valid JSON"), and the reader
// may reject the document with an InputError naming the field; anything else —
// another exception type, a crash, a sanitizer report — is a bug.
#include "cli/max_digit_json.hpp"
#include "core/check.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  try {
    const auto weights = headlab::cli::max_digit_weights_from_json(document);
    // An accepted file has finite entries of the documented shapes.
    if (!weights.E.allFinite() || weights.E.rows() != 14 || weights.W_O.size() != 4) std::abort();
  } catch (const headlab::InputError& e) {
    if (std::string(e.what()).empty()) std::abort();  // a rejection must say why
  }
  return 0;
}
