// libFuzzer target: arbitrary bytes through the JSON layer every reader stands on
// (formats/json.hpp, default limits: 64 MiB, 64 levels, 65,536-byte strings). It is also the only
// C++ reading of the documents headlab writes and does not read back itself: analysis.json,
// the seeds file and results.json (their readers are the widgets, in the browser); their shipped
// forms seed the corpus. A refusal is an InputError with a short message; an accepted document
// written again by dump_json must read back and write the same bytes (the writer's output is
// always JSON the reader takes: valid UTF-8, no repeated key, no non-finite number).
#include "core/check.hpp"
#include "formats/json.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using headlab::formats::dump_json;
  using headlab::formats::JsonValue;
  using headlab::formats::parse_json;
  JsonValue value;
  try {
    value = parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "the document");
  } catch (const headlab::InputError& e) {
    const std::string message = e.what();
    if (message.empty() || message.size() > 400) std::abort();  // says why, briefly
    return 0;
  }
  const std::string once = dump_json(value);
  try {
    if (dump_json(parse_json(once, "the written document")) != once) std::abort();
  } catch (const headlab::InputError&) {
    std::abort();  // the writer wrote something its own reader refuses
  }
  return 0;
}
