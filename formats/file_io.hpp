// Files on disk for the CLI (native only; the WASM modules get and give text).
#pragma once

#include <string>

namespace headlab::formats {

// Throws InputError "<flag>: "<path>" is a directory, not a file" when path names a directory
// (or a symlink to one); otherwise nothing, whether or not a file is there.
void refuse_directory(const std::string& flag, const std::string& path);

// The whole file as text. Throws InputError "<flag>: cannot open "<path>"", "<flag>: "<path>" is
// a directory, not a file" or, before reading it, "<flag>: "<path>" is larger than N bytes".
std::string read_text_file(const std::string& path, const std::string& flag, std::size_t max_bytes = 64u << 20);

// Writes `text` to a temporary file beside `path` and renames it over `path`, so a reader
// sees the old file or the whole new one, never a partial file. Throws InputError
// "<flag>: cannot write "<path>"" (the temporary is removed) or "<flag>: "<path>" is a
// directory, not a file".
void write_file_atomically(const std::string& path, const std::string& text, const std::string& flag = "--out");

// Installs a handler for SIGINT, SIGTERM and SIGHUP (each one not ignored already) that removes the
// temporary file of a write_file_atomically in progress and then dies of the signal by its default
// action, so an interrupted write leaves the old file and nothing beside it, and the exit status
// still says which signal ended the process. For a program's main (the CLI).
void remove_temporaries_on_signals();

}  // namespace headlab::formats
