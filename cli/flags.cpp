#include "cli/flags.hpp"

#include "formats/file_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include <sys/stat.h>

namespace headlab::cli {

std::map<std::string, std::string> parse_flags(const Args& args, std::size_t first,
                                               const std::vector<std::string>& with_value,
                                               const std::vector<std::string>& switches) {
  std::map<std::string, std::string> flags;
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool takes_value = std::find(with_value.begin(), with_value.end(), a) != with_value.end();
    const bool is_switch = std::find(switches.begin(), switches.end(), a) != switches.end();
    if (!takes_value && !is_switch) {
      throw UsageError("unknown argument \"" + a.substr(0, 40) + (a.size() > 40 ? "…" : "") + "\"");
    }
    if (flags.count(a)) throw UsageError(a + " is given twice");
    if (is_switch) {
      flags[a] = "";
      continue;
    }
    if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
    flags[a] = args[++i];
  }
  return flags;
}

const std::string& required_flag(const std::map<std::string, std::string>& flags, const std::string& name) {
  const auto it = flags.find(name);
  if (it == flags.end()) throw UsageError(name + " is required");
  return it->second;
}

namespace {

std::string excerpt(const std::string& text) { return text.substr(0, 40) + (text.size() > 40 ? "…" : ""); }
// A path keeps its end, where the file's name is.
std::string path_excerpt(const std::string& path) {
  return path.size() <= 40 ? path : "…" + path.substr(path.size() - 40);
}
// A whole base-10 integer in [low, high]: false for empty text, trailing characters, overflow or a
// value out of range.
bool parse_integer(const std::string& text, long long low, long long high, long long& x) {
  char* end = nullptr;
  errno = 0;
  x = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && end == text.c_str() + text.size() && errno != ERANGE && x >= low && x <= high;
}

}  // namespace

long long integer_flag(const std::map<std::string, std::string>& flags, const std::string& name, long long fallback,
                       long long low, long long high) {
  const auto it = flags.find(name);
  if (it == flags.end()) return fallback;
  const std::string& text = it->second;
  long long x = 0;
  if (!parse_integer(text, low, high, x)) {
    throw UsageError(name + " must be an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
                     "], got \"" + excerpt(text) + "\"");
  }
  return x;
}

long long count_flag(const std::map<std::string, std::string>& flags, const std::string& name, long long fallback) {
  const auto it = flags.find(name);
  if (it == flags.end()) return fallback;
  const std::string& text = it->second;
  long long x = 0;
  if (!parse_integer(text, -1000000000LL, 1000000000LL, x)) {
    throw UsageError(name + " must be an integer, got \"" + excerpt(text) + "\"");
  }
  return x;
}

double number_flag(const std::map<std::string, std::string>& flags, const std::string& name, double fallback) {
  const auto it = flags.find(name);
  if (it == flags.end()) return fallback;
  const std::string& text = it->second;
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  // Decimal only: strtod also reads hexadecimal ("0x10" is 16), leading spaces, "inf" and "nan".
  const bool decimal = text.find_first_not_of("0123456789+-.eE") == std::string::npos;
  if (text.empty() || !decimal || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(x)) {
    throw UsageError(name + " must be a finite decimal number, got \"" + excerpt(text) + "\"");
  }
  return x;
}

std::uint64_t seed_flag(const std::map<std::string, std::string>& flags, const std::string& name) {
  required_flag(flags, name);
  return optional_seed_flag(flags, name, 0);
}

std::uint64_t optional_seed_flag(const std::map<std::string, std::string>& flags, const std::string& name,
                                 std::uint64_t fallback) {
  const auto it = flags.find(name);
  if (it == flags.end()) return fallback;
  const std::string& text = it->second;
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || x < 0 || x > kMaxSeed) {
    throw UsageError(seed_range_message(name, excerpt(text)));
  }
  return static_cast<std::uint64_t>(x);
}

void refuse_overwriting_inputs(const std::string& out_flag, const std::string& out_path,
                               const std::vector<std::pair<std::string, std::string>>& inputs) {
  if (out_path == "-") return;  // stdout
  // Refused here, before the command computes, as the write would refuse it after.
  formats::refuse_directory(out_flag, out_path);
  struct stat out_stat {};
  if (stat(out_path.c_str(), &out_stat) != 0) return;  // no file there yet
  for (const auto& [flag, path] : inputs) {
    struct stat in_stat {};
    if (stat(path.c_str(), &in_stat) == 0 && in_stat.st_dev == out_stat.st_dev && in_stat.st_ino == out_stat.st_ino) {
      throw InputError(out_flag + " \"" + path_excerpt(out_path) + "\" is the same file as " + flag + " \"" +
                       path_excerpt(path) + "\"; writing it would destroy the input: choose another path");
    }
  }
}

namespace {

// A path that need not exist, normalised: its directory resolved through symlinks when it exists,
// then made absolute without "." and "..".
std::string normalised_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(path), ec);
  if (ec) p = fs::path(path);
  p = p.lexically_normal();
  const fs::path directory = fs::canonical(p.parent_path(), ec);
  if (!ec && p.has_filename()) p = directory / p.filename();
  return p.string();
}

bool same_output(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return a == b;  // both stdout
  struct stat sa {
  }, sb{};
  const bool a_exists = stat(a.c_str(), &sa) == 0, b_exists = stat(b.c_str(), &sb) == 0;
  if (a_exists && b_exists) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (a_exists != b_exists) return false;  // one file and one path with nothing there
  return normalised_path(a) == normalised_path(b);
}

}  // namespace

void refuse_same_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [flag_a, path_a] = outputs[i];
      const auto& [flag_b, path_b] = outputs[j];
      if (same_output(path_a, path_b)) {
        throw UsageError(flag_b + " \"" + path_excerpt(path_b) + "\" is the same file as " + flag_a + " \"" +
                         path_excerpt(path_a) + "\"; one would overwrite the other: give them different paths");
      }
    }
  }
}

void write_output(const std::string& flag, const std::string& path, const std::string& text, std::ostream& out) {
  if (path != "-") {
    formats::write_file_atomically(path, text, flag);
    return;
  }
  out << text;
  out.flush();
  if (!out) throw InputError(flag + ": cannot write to stdout (closed pipe or full device)");
}

}  // namespace headlab::cli
