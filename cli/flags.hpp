// The command line's conventions, shared by every sub-command (attention, feature-recovery,
// max-digit, model) and documented in docs/limits.md ("The command line"):
// - one flag rule: an unknown flag, a flag given twice and a flag without its value are usage
//   errors, never a silent default or a last-one-wins;
// - one exit-code convention: kExitOk, kExitRefused, kExitUsage, kExitInterrupted below;
// - one seed range: an integer in [0, kMaxSeed];
// - outputs: "--out -" is stdout everywhere; a file is written atomically and never over an input
//   of the same command (compared by file identity, so an alias path or a symlink counts); a
//   failed write, stdout included, exits kExitRefused.
#pragma once

#include "cli/commands.hpp"
#include "core/check.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace headlab::cli {

constexpr int kExitOk = 0;
// The input (a file, stdin, the data in it) or the computation was refused — bad file, overflow,
// divergence — or an output could not be written; the message says which.
constexpr int kExitRefused = 1;
// The command line itself is wrong: unknown, repeated or missing flag, a flag value out of its
// range; the message is followed by the command's usage.
constexpr int kExitUsage = 2;
// Ctrl-C stopped training; the partial result was written and says it is partial (feature-recovery).
constexpr int kExitInterrupted = 130;

// 2^53 − 1: the largest integer every seed shares with the widgets, which hold seeds as JS numbers.
constexpr long long kMaxSeed = 9007199254740991LL;

// A usage error (exit kExitUsage); every other InputError is kExitRefused.
class UsageError : public InputError {
 public:
  using InputError::InputError;
};

// Runs f; an InputError it throws (a settings validation naming a field) becomes a UsageError,
// for settings that come straight from flags.
template <class F>
void as_usage(F&& f) {
  try {
    f();
  } catch (const UsageError&) {
    throw;
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
}

// A flag's integer value in [low, high], `fallback` when absent. UsageError
// "<name> must be an integer in [low, high], got "<text>"" (the text excerpted to 40 characters).
long long integer_flag(const std::map<std::string, std::string>& flags, const std::string& name, long long fallback,
                       long long low, long long high);
// A flag's finite number, `fallback` when absent. UsageError "<name> must be a finite decimal number, got "<text>"" (hexadecimal, spaces, inf and nan refused).
double number_flag(const std::map<std::string, std::string>& flags, const std::string& name, double fallback);
// The required seed flag (default name --seed) in [0, kMaxSeed].
std::uint64_t seed_flag(const std::map<std::string, std::string>& flags, const std::string& name = "--seed");

// Refuses (InputError, exit kExitRefused) an output path that is the same file as one of the
// inputs (flag, path) of the command: same device and inode, so "./w.json", "dir/../w.json", a
// hard link and a symlink to it all count. An output that does not exist yet is no input.
void refuse_overwriting_inputs(const std::string& out_flag, const std::string& out_path,
                               const std::vector<std::pair<std::string, std::string>>& inputs);
// Writes text to stdout when path is "-" (flushed and checked: a closed pipe or a full device
// throws InputError "<flag>: cannot write to stdout"), else atomically to the file.
void write_output(const std::string& flag, const std::string& path, const std::string& text, std::ostream& out);

// args[first..] as flag → value ("" for a switch). `with_value` flags take the next argument;
// `switches` take none. Violations of the flag rule throw UsageError.
std::map<std::string, std::string> parse_flags(const Args& args, std::size_t first,
                                               const std::vector<std::string>& with_value,
                                               const std::vector<std::string>& switches = {});

// The value of a flag the command cannot do without; UsageError "<name> is required" when absent.
const std::string& required_flag(const std::map<std::string, std::string>& flags, const std::string& name);

}  // namespace headlab::cli
