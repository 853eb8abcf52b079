// Files on disk for the CLI (native only; the WASM modules get and give text).
#pragma once

#include <string>

namespace headlab::formats {

// The whole file as text. Throws InputError "<flag>: cannot open "<path>"" or, before reading
// it, "<flag>: "<path>" is larger than N bytes".
std::string read_text_file(const std::string& path, const std::string& flag, std::size_t max_bytes = 64u << 20);

// Writes `text` to a temporary file beside `path` and renames it over `path`, so a reader
// sees the old file or the whole new one, never a partial file. Throws InputError
// "<flag>: cannot write "<path>"" (the temporary is removed).
void write_file_atomically(const std::string& path, const std::string& text, const std::string& flag = "--out");

}  // namespace headlab::formats
