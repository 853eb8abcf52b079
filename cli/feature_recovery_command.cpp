#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/check.hpp"
#include "core/feature_recovery_experiment.hpp"
#include "formats/feature_recovery_results.hpp"
#include "formats/file_io.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>

#include <unistd.h>

namespace headlab::cli {
namespace {

// The ranges named by the core (kMaxSeed, kMaxTrainingSteps), so the text cannot drift from them.
const std::string kUsage =
    "usage: headlab feature-recovery --seed S --out results.json [--steps N] [--batch B] [--lr L]\n"
    "                                [--eval-size E] [--request-scale C] [--shift D] [--keys K]\n"
    "  --seed S            integer in [0, " +
    std::to_string(kMaxSeed) +
    "] (2^53 − 1); fixes R, the initialisation,\n"
    "                      every batch and the evaluation set\n"
    "  --out PATH          where to write results.json ('-' for stdout); schema: docs/feature-recovery-results.md\n"
    "  --steps N           Adam steps, 0 … " +
    std::to_string(kMaxTrainingSteps) +
    " (default 1200)\n"
    "  --batch B           fresh examples per step, 1 … 100000 (default 128)\n"
    "  --lr L              Adam learning rate > 0 (default 0.03)\n"
    "  --eval-size E       held-out examples, 2 … 1000000 (default 4096)\n"
    "  --request-scale C   std. deviation of the request features, in [1e-6, 1e6] (default 1.8)\n"
    "  --shift D           added to irrelevant coordinates in the shift intervention (default 5)\n"
    "  --keys K            the task's four keys, 12 comma-separated numbers in [-10, 10], row by row\n"
    "                      (default the tetrahedron 1,1,1,1,-1,-1,-1,1,-1,-1,-1,1)\n";

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted.store(true); }

// "k11,k12,k13,k21,…,k43": the task's 4 × 3 keys, row by row (range checked by the core's validation).
Matrix parse_keys(const std::string& text) {
  Matrix keys(kRecordCount, kFeatureWidth);
  std::size_t start = 0;
  for (int e = 0; e < kRecordCount * kFeatureWidth; ++e) {
    const std::size_t comma = text.find(',', start);
    const bool last = e + 1 == kRecordCount * kFeatureWidth;
    if ((comma == std::string::npos) != last) {
      throw UsageError("--keys needs 12 comma-separated numbers (4 keys of 3), got \"" + text.substr(0, 40) +
                       (text.size() > 40 ? "…" : "") + "\"");
    }
    keys.data()[e] =
        number_flag({{"--keys", text.substr(start, last ? std::string::npos : comma - start)}}, "--keys", 0.0);
    start = comma + 1;
  }
  return keys;
}

}  // namespace

int run_feature_recovery_command(const Args& args, std::istream&, std::ostream& out, std::ostream& err) {
  FeatureRecoverySettings settings;
  std::string out_path;
  try {
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
      out << kUsage;
      return kExitOk;
    }
    const auto flags = parse_flags(
        args, 0,
        {"--seed", "--out", "--steps", "--batch", "--lr", "--eval-size", "--request-scale", "--shift", "--keys"});
    settings.seed = seed_flag(flags);
    out_path = required_flag(flags, "--out");
    if (out_path.empty()) throw UsageError("--out needs a path");
    settings.steps = static_cast<int>(count_flag(flags, "--steps", settings.steps));
    settings.batch_size = static_cast<int>(count_flag(flags, "--batch", settings.batch_size));
    settings.eval_size = static_cast<int>(count_flag(flags, "--eval-size", settings.eval_size));
    settings.learning_rate = number_flag(flags, "--lr", settings.learning_rate);
    settings.request_scale = number_flag(flags, "--request-scale", settings.request_scale);
    settings.shift = number_flag(flags, "--shift", settings.shift);
    if (flags.count("--keys")) settings.fixed_keys = parse_keys(flags.at("--keys"));
    as_usage([&] { settings.validate(); });
  } catch (const InputError& e) {
    err << "headlab feature-recovery: " << e.what() << "\n" << kUsage;
    return kExitUsage;
  }

  // Ctrl-C stops training between steps; the partial run is still evaluated and written.
  interrupted.store(false);
  const auto previous = std::signal(SIGINT, on_interrupt);
  const bool show_progress = isatty(STDERR_FILENO) != 0;
  FeatureRecoveryResult result;
  try {
    result = run_feature_recovery(
        settings,
        [&](const TrainingProgress& p) {
          if (show_progress && (p.steps_taken % 100 == 0 || p.steps_taken == p.steps_total)) {
            err << "\rstep " << p.steps_taken << "/" << p.steps_total << "  loss " << p.loss << std::flush;
          }
        },
        &interrupted);
  } catch (const std::exception& e) {
    std::signal(SIGINT, previous);
    err << "headlab feature-recovery: " << e.what() << "\n";
    return kExitRefused;
  }
  std::signal(SIGINT, previous);
  if (show_progress) err << "\n";

  const std::string text = formats::write_feature_recovery_results(result, HEADLAB_VERSION);
  try {
    write_output("--out", out_path, text, out);
  } catch (const InputError& e) {
    err << "headlab feature-recovery: " << e.what() << "\n";
    return kExitRefused;
  }
  if (result.steps_taken < settings.steps) {
    err << "headlab feature-recovery: interrupted after " << result.steps_taken << " of " << settings.steps
        << " steps; the results hold the partial run\n";
    return kExitInterrupted;
  }
  return kExitOk;
}

}  // namespace headlab::cli
