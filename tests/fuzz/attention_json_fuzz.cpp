// libFuzzer target: arbitrary bytes as the stdin of `headlab attention`.
// Any input must end in exit code 0 (valid) or 1 (clear message), never a crash,
// a sanitizer report or an uncaught exception.
#include "cli/commands.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out, err;
  const int code = headlab::cli::run_attention({}, in, out, err);
  if (code != 0 && code != 1) std::abort();
  if (code == 1 && err.str().empty()) std::abort();  // a failure must say why
  return 0;
}
