#include "cli/commands.hpp"
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

constexpr const char* kUsage =
    "usage: headlab feature-recovery --seed S --out results.json [--steps N] [--batch B] [--lr L]\n"
    "                                [--eval-size E] [--request-scale C] [--shift D]\n"
    "  --seed S            integer ≥ 0; fixes R, the initialisation, every batch and the evaluation set\n"
    "  --out PATH          where to write results.json ('-' for stdout); schema: docs/feature-recovery-results.md\n"
    "  --steps N           Adam steps, 0 … 10000000 (default 1200)\n"
    "  --batch B           fresh examples per step, 1 … 100000 (default 128)\n"
    "  --lr L              Adam learning rate > 0 (default 0.03)\n"
    "  --eval-size E       held-out examples, 2 … 1000000 (default 4096)\n"
    "  --request-scale C   std. deviation of the request features > 0 (default 1.8)\n"
    "  --shift D           added to irrelevant coordinates in the shift intervention (default 5)\n";

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted.store(true); }

struct BadArgument {
  std::string message;
};

long long parse_integer(const std::string& flag, const std::string& text, long long low, long long high) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) throw BadArgument{flag + " needs an integer, got \"" + text + "\""};
  if (value < low || value > high) {
    throw BadArgument{flag + " must be in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " + text};
  }
  return value;
}

double parse_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value)) {
    throw BadArgument{flag + " needs a finite number, got \"" + text + "\""};
  }
  return value;
}

}  // namespace

int run_feature_recovery_command(const Args& args, std::istream&, std::ostream& out, std::ostream& err) {
  FeatureRecoverySettings settings;
  std::string out_path;
  bool have_seed = false;
  try {
    for (std::size_t i = 0; i < args.size(); i += 2) {
      const std::string& flag = args[i];
      if (flag == "--help" || flag == "-h") {
        out << kUsage;
        return 0;
      }
      const bool known = flag == "--seed" || flag == "--out" || flag == "--steps" || flag == "--batch" ||
                         flag == "--lr" || flag == "--eval-size" || flag == "--request-scale" || flag == "--shift";
      if (!known) throw BadArgument{"unknown option \"" + flag + "\""};
      if (i + 1 >= args.size()) throw BadArgument{flag + " needs a value"};
      const std::string& value = args[i + 1];
      if (flag == "--seed") {
        if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || value.size() > 19) {
          throw BadArgument{"--seed needs an integer in [0, 10^19), got \"" + value + "\""};
        }
        settings.seed = std::strtoull(value.c_str(), nullptr, 10);
        have_seed = true;
      } else if (flag == "--out") {
        if (value.empty()) throw BadArgument{"--out needs a path"};
        out_path = value;
      } else if (flag == "--steps") {
        settings.steps = static_cast<int>(parse_integer(flag, value, 0, 10000000));
      } else if (flag == "--batch") {
        settings.batch_size = static_cast<int>(parse_integer(flag, value, 1, 100000));
      } else if (flag == "--eval-size") {
        settings.eval_size = static_cast<int>(parse_integer(flag, value, 2, 1000000));
      } else if (flag == "--lr") {
        settings.learning_rate = parse_number(flag, value);
      } else if (flag == "--request-scale") {
        settings.request_scale = parse_number(flag, value);
      } else if (flag == "--shift") {
        settings.shift = parse_number(flag, value);
      }
    }
    if (!have_seed) throw BadArgument{"--seed is required"};
    if (out_path.empty()) throw BadArgument{"--out is required"};
    settings.validate();
  } catch (const BadArgument& e) {
    err << "headlab feature-recovery: " << e.message << "\n" << kUsage;
    return 2;
  } catch (const InputError& e) {
    err << "headlab feature-recovery: " << e.what() << "\n" << kUsage;
    return 2;
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
    return 1;
  }
  std::signal(SIGINT, previous);
  if (show_progress) err << "\n";

  const std::string text = formats::write_feature_recovery_results(result, HEADLAB_VERSION);
  if (out_path == "-") {
    out << text;
  } else {
    try {
      formats::write_file_atomically(out_path, text);
    } catch (const InputError& e) {
      err << "headlab feature-recovery: " << e.what() << "\n";
      return 1;
    }
  }
  if (result.steps_taken < settings.steps) {
    err << "headlab feature-recovery: interrupted after " << result.steps_taken << " of " << settings.steps
        << " steps; the results hold the partial run\n";
    return 130;
  }
  return 0;
}

}  // namespace headlab::cli
