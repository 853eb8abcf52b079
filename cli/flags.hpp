// The command line's conventions, shared by every sub-command (attention, feature-recovery,
// max-digit, model) and documented in docs/limits.md ("The command line"):
// - one flag rule: an unknown flag, a flag given twice and a flag without its value are usage
//   errors, never a silent default or a last-one-wins;
// - one exit-code convention: kExitOk, kExitRefused, kExitUsage, kExitInterrupted below;
// - one seed range: an integer in [0, kMaxSeed] (core/check.hpp, the WASM modules' too);
// - one wording of a setting's range: a count (steps, batch, eval size) is parsed here as an
//   integer and its range is the core's Settings::validate(), whose message the WASM modules give.
// - outputs: "--out -" is stdout for every text output; a binary output (a safetensors model,
//   written with its config) refuses "-" (kExitUsage); a file is written atomically and never over
//   an input of the same command (compared by file identity, so an alias path or a symlink counts,
//   kExitRefused), and two outputs of one command are never the same file (kExitUsage); a failed
//   write, stdout included, exits kExitRefused; SIGINT, SIGTERM or SIGHUP during a write removes its
//   temporary file and ends the process by that signal (formats/file_io.hpp).
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
// A count whose range the core's Settings::validate() checks (so its message is the one the WASM
// modules give): any integer within ±1e9 (the WASM modules' integer bound), `fallback` when absent;
// UsageError "<name> must be an integer, got "<text>"".
long long count_flag(const std::map<std::string, std::string>& flags, const std::string& name, long long fallback);
// A flag's finite number, `fallback` when absent. UsageError "<name> must be a finite decimal number, got "<text>"" (hexadecimal, spaces, inf and nan refused).
double number_flag(const std::map<std::string, std::string>& flags, const std::string& name, double fallback);
// The required seed flag (default name --seed) in [0, kMaxSeed].
std::uint64_t seed_flag(const std::map<std::string, std::string>& flags, const std::string& name = "--seed");
// An optional seed flag, `fallback` when absent; out of range: UsageError seed_range_message.
std::uint64_t optional_seed_flag(const std::map<std::string, std::string>& flags, const std::string& name,
                                 std::uint64_t fallback);

// Refuses (InputError, exit kExitRefused) an output path that is the same file as one of the
// inputs (flag, path) of the command: same device and inode, so "./w.json", "dir/../w.json", a
// hard link and a symlink to it all count. An output that does not exist yet is no input. An
// output that is a directory (or a symlink to one) is refused too, before the command's work.
void refuse_overwriting_inputs(const std::string& out_flag, const std::string& out_path,
                               const std::vector<std::pair<std::string, std::string>>& inputs);
// Refuses (UsageError, exit kExitUsage) two outputs (flag, path) of one command that are the same
// file, so one would overwrite the other: the same device and inode when both exist (an alias
// path, a hard link, a symlink), else the same path once normalised (its directory resolved
// through symlinks, "." and ".." removed). The message names both flags and both paths.
void refuse_same_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);
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
