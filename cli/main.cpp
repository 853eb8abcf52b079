#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "formats/file_io.hpp"

#include <csignal>
#include <cstring>
#include <iostream>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace headlab::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"attention", "one attention head: JSON {x, w_q, w_k, w_v, causal?} on stdin, results on stdout", run_attention},
      {"feature-recovery", "train W_q, W_v on the feature-recovery task; --seed S --out results.json [...]",
       run_feature_recovery_command},
      {"max-digit",
       "the max-digit transformer: train --seed S --out weights.json | analyze --weights w.json --out a.json",
       run_max_digit},
      {"model",
       "your own attention-only transformer (config + safetensors): inspect | run | analyze | train | convert-max-digit",
       run_model},
  };
  return all;
}

}  // namespace headlab::cli

namespace {

void print_usage(std::ostream& os) {
  os << "usage: headlab <command> [options]\n       headlab --version\n\ncommands:\n";
  for (const auto& c : headlab::cli::commands()) os << "  " << c.name << "  " << c.summary << "\n";
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // glibc hands free memory at the top of the heap back to the system once 128 KB of it is free, so
  // an analysis that builds and drops a forward pass's activations (~1 MB) per sequence faults every
  // page back in each time: ~5× the arithmetic's own time (bench/transformer_bench.cpp). Keep up to 64 MB.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
  if (argc < 2) {
    print_usage(std::cerr);
    return headlab::cli::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "--version") {
    std::cout << "headlab " << HEADLAB_VERSION << "\n";
    return 0;
  }
  if (name == "--help" || name == "-h") {
    print_usage(std::cout);
    return 0;
  }
  // A closed pipe then fails the write (EPIPE) with a message and exit code 1 instead of killing
  // the process by SIGPIPE; every write to stdout is checked (cli/flags.hpp write_output, and the
  // final flush below for what a command printed besides its result).
  std::signal(SIGPIPE, SIG_IGN);
  // Likewise a write beyond the file-size limit (ulimit -f, a quota) fails with EFBIG instead of
  // killing the process by SIGXFSZ, so formats/file_io.cpp removes its temporary file, the previous
  // output stays whole and the command exits 1 with a message, as on a full disk (ENOSPC).
#if defined(SIGXFSZ)
  std::signal(SIGXFSZ, SIG_IGN);
#endif
  // Ctrl-C, SIGTERM or a closed terminal during a write removes the temporary file beside the
  // output (the old file stays whole) and still ends the process by that signal.
  headlab::formats::remove_temporaries_on_signals();
  const headlab::cli::Args args(argv + 2, argv + argc);
  for (const auto& c : headlab::cli::commands()) {
    if (name != c.name) continue;
    const int code = c.run(args, std::cin, std::cout, std::cerr);
    if (!std::cout.flush() && code == headlab::cli::kExitOk) {
      std::cerr << "headlab " << name << ": cannot write to stdout (closed pipe or full device)\n";
      return headlab::cli::kExitRefused;
    }
    return code;
  }
  std::cerr << "headlab: unknown command \"" << name.substr(0, 40) << "\"\n";
  print_usage(std::cerr);
  return headlab::cli::kExitUsage;
}
