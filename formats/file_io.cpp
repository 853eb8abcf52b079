#include "formats/file_io.hpp"

#include "core/check.hpp"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace headlab::formats {

std::string read_text_file(const std::string& path, const std::string& flag, std::size_t max_bytes) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(flag + ": cannot open \"" + path + "\"");
  file.seekg(0, std::ios::end);
  const std::streamoff size = file.tellg();
  if (size < 0) throw InputError(flag + ": cannot read \"" + path + "\"");
  if (static_cast<std::size_t>(size) > max_bytes) {
    throw InputError(flag + ": \"" + path + "\" is larger than " + std::to_string(max_bytes) + " bytes");
  }
  file.seekg(0, std::ios::beg);
  std::string text(static_cast<std::size_t>(size), '\0');
  if (size > 0 && !file.read(&text[0], size)) throw InputError(flag + ": cannot read \"" + path + "\"");
  return text;
}

namespace {

// The file a write lands in: an existing path is resolved through its symlinks, so writing "--out link"
// replaces the file the link names and the link stays (rename() onto the link itself would replace the
// link with a regular file). A path that does not exist yet (or a dangling link) is written as given.
std::string write_target(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) != nullptr) return resolved;
  return path;
}

}  // namespace

void write_file_atomically(const std::string& given_path, const std::string& text, const std::string& flag) {
  const std::string path = write_target(given_path);
  // Same directory as the target, so rename() stays on one file system and is atomic.
  const std::string temporary = path + ".tmp-" + std::to_string(static_cast<long>(getpid()));
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file || !(file << text) || !file.flush()) {
      file.close();
      std::remove(temporary.c_str());
      throw InputError(flag + ": cannot write \"" + given_path + "\"");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw InputError(flag + ": cannot write \"" + given_path + "\"");
  }
}

}  // namespace headlab::formats
