#include "formats/file_io.hpp"

#include "core/check.hpp"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

namespace headlab::formats {

void refuse_directory(const std::string& flag, const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw InputError(flag + ": \"" + path + "\" is a directory, not a file");
  }
}

std::string read_text_file(const std::string& path, const std::string& flag, std::size_t max_bytes) {
  // A directory opens as a stream on Linux and reports a size of 2^63 − 1, which read as "larger
  // than N bytes"; say what it is instead.
  refuse_directory(flag, path);
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

// The temporary files being written now, for the signal handler: fixed storage, because the handler
// may only call async-signal-safe functions (unlink, signal, raise) and read plain memory. A slot's
// path is written before `used` is set and `used` is cleared before the slot is reused, so the
// handler never reads a half-written path. A command writes one file at a time; 4 slots leave room.
struct TemporarySlot {
  char path[PATH_MAX + 32];
  volatile std::sig_atomic_t used;
};
TemporarySlot temporaries[4];

int register_temporary(const std::string& path) {
  for (int i = 0; i < 4; ++i) {
    if (temporaries[i].used) continue;
    if (path.size() >= sizeof temporaries[i].path) return -1;
    std::memcpy(temporaries[i].path, path.c_str(), path.size() + 1);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    temporaries[i].used = 1;
    return i;
  }
  return -1;
}

void release_temporary(int slot) {
  if (slot >= 0) temporaries[slot].used = 0;
}

// Removes every temporary being written, then dies of the same signal by its default action, so the
// caller sees the usual status (a shell reports 128 + the signal: 130 for SIGINT, 143 for SIGTERM).
extern "C" void remove_temporaries_and_die(int signal_number) {
  for (auto& t : temporaries) {
    if (t.used) unlink(t.path);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

void remove_temporaries_on_signals() {
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) {
    // A signal the caller ignores (a background job's SIGINT, nohup's SIGHUP) stays ignored.
    struct sigaction old {};
    if (sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    std::signal(s, remove_temporaries_and_die);
  }
}

void write_file_atomically(const std::string& given_path, const std::string& text, const std::string& flag) {
  // stat follows symlinks as write_target does, so the given path tells a directory as well.
  refuse_directory(flag, given_path);
  const std::string path = write_target(given_path);
  // Same directory as the target, so rename() stays on one file system and is atomic.
  const std::string temporary = path + ".tmp-" + std::to_string(static_cast<long>(getpid()));
  // Registered before the file exists, so a signal at any point of the write removes it.
  const int slot = register_temporary(temporary);
  const auto fail = [&]() {
    std::remove(temporary.c_str());
    release_temporary(slot);
    throw InputError(flag + ": cannot write \"" + given_path + "\"");
  };
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file || !(file << text) || !file.flush()) {
      file.close();
      fail();
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) fail();
  release_temporary(slot);
}

}  // namespace headlab::formats
