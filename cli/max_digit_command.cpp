#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/check.hpp"
#include "formats/file_io.hpp"
#include "formats/max_digit_analysis.hpp"
#include "formats/max_digit_weights.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <cstdlib>
#include <iostream>

namespace headlab::cli {
namespace md = headlab::max_digit;
namespace fm = headlab::formats;

namespace {

const char* kUsage =
    "usage: headlab max-digit train --seed S [--steps N] [--batch B] [--lr X] [--weight-decay X]\n"
    "                               [--init-scale X] [--unit-norm-unembedding] --out weights.json\n"
    "       headlab max-digit analyze --weights weights.json --out analysis.json\n"
    "       headlab max-digit seeds --from A --to B [--steps N] [--unit-norm-unembedding] --out seeds.json\n";

double parse_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(x)) {
    throw InputError(flag + " must be a finite number, got \"" + text + "\"");
  }
  return x;
}

long long parse_integer(const std::string& flag, const std::string& text, long long low, long long high) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || x < low || x > high) {
    throw InputError(flag + " must be an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
                     "], got \"" + text + "\"");
  }
  return x;
}

int train(const Args& args, std::ostream& out, std::ostream& err) {
  const auto flags = parse_flags(args, 1, {"--seed", "--steps", "--batch", "--lr", "--weight-decay", "--init-scale", "--out"},
                                 {"--unit-norm-unembedding"});
  if (!flags.count("--seed")) throw InputError("--seed is required");
  if (!flags.count("--out")) throw InputError("--out is required");
  md::MaxDigitTrainingSettings s;
  s.seed = static_cast<std::uint64_t>(parse_integer("--seed", flags.at("--seed"), 0, 9007199254740991LL));
  if (flags.count("--steps")) s.steps = static_cast<long>(parse_integer("--steps", flags.at("--steps"), 0, 10000000));
  if (flags.count("--batch")) s.batch_size = static_cast<int>(parse_integer("--batch", flags.at("--batch"), 1, 1000000));
  if (flags.count("--lr")) s.learning_rate = parse_number("--lr", flags.at("--lr"));
  if (flags.count("--weight-decay")) s.weight_decay = parse_number("--weight-decay", flags.at("--weight-decay"));
  if (flags.count("--init-scale")) s.init_scale = parse_number("--init-scale", flags.at("--init-scale"));
  s.unit_norm_unembedding = flags.count("--unit-norm-unembedding") > 0;
  md::MaxDigitTrainer trainer(s);
  const TrainingProgress p = trainer.step(s.steps);
  fm::write_file_atomically(flags.at("--out"), fm::write_max_digit_weights(trainer.weights(), &s, p.loss));
  err << "headlab max-digit train: " << p.steps_taken << " steps, last batch loss " << p.loss << "\n";
  (void)out;
  return 0;
}

int analyze(const Args& args, std::ostream& err) {
  const auto flags = parse_flags(args, 1, {"--weights", "--out"}, {});
  if (!flags.count("--weights")) throw InputError("--weights is required");
  if (!flags.count("--out")) throw InputError("--out is required");
  const std::string& path = flags.at("--weights");
  const md::MaxDigitWeights w = fm::read_max_digit_weights(
      fm::read_text_file(path, "--weights", fm::kMaxDigitWeightsMaxBytes), "--weights: \"" + path + "\"");
  const md::MaxDigitAnalysis a = md::analyze_max_digit(w);
  fm::write_file_atomically(flags.at("--out"), fm::write_max_digit_analysis(a));
  err << "headlab max-digit analyze: accuracy " << a.accuracy.accuracy << " over " << a.evaluation_lists << " lists\n";
  return 0;
}

// Trains seeds A…B with the default recipe and writes each seed's claims (the article's cross-seed grid).
int seeds(const Args& args, std::ostream& err) {
  const auto flags = parse_flags(args, 1, {"--from", "--to", "--steps", "--out"}, {"--unit-norm-unembedding"});
  for (const char* f : {"--from", "--to", "--out"}) {
    if (!flags.count(f)) throw InputError(std::string(f) + " is required");
  }
  const long long from = parse_integer("--from", flags.at("--from"), 0, 2147483647LL);
  const long long to = parse_integer("--to", flags.at("--to"), 0, 2147483647LL);
  if (to < from || to - from >= 100) throw InputError("--to must lie in [--from, --from + 99], got \"" + flags.at("--to") + "\"");
  md::MaxDigitTrainingSettings s;
  if (flags.count("--steps")) s.steps = static_cast<long>(parse_integer("--steps", flags.at("--steps"), 0, 10000000));
  s.unit_norm_unembedding = flags.count("--unit-norm-unembedding") > 0;
  std::vector<fm::MaxDigitSeedRow> rows;
  for (long long seed = from; seed <= to; ++seed) {
    s.seed = static_cast<std::uint64_t>(seed);
    md::MaxDigitTrainer trainer(s);
    const TrainingProgress p = trainer.step(s.steps);
    const md::MaxDigitAnalysis a = md::analyze_max_digit(trainer.weights());
    rows.push_back({seed, p.loss, md::seed_claims(a)});
    err << "headlab max-digit seeds: seed " << seed << " accuracy " << a.accuracy.accuracy << "\n";
  }
  fm::write_file_atomically(flags.at("--out"), fm::write_max_digit_seeds(s, rows));
  return 0;
}

}  // namespace

int run_max_digit(const Args& args, std::istream& in, std::ostream& out, std::ostream& err) {
  (void)in;
  if (args.empty() || (args[0] != "train" && args[0] != "analyze" && args[0] != "seeds")) {
    err << kUsage;
    return 2;
  }
  try {
    if (args[0] == "seeds") return seeds(args, err);
    return args[0] == "train" ? train(args, out, err) : analyze(args, err);
  } catch (const std::exception& e) {
    err << "headlab max-digit " << args[0] << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace headlab::cli
