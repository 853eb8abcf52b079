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

int train(const Args& args, std::ostream& out, std::ostream& err) {
  const auto flags =
      parse_flags(args, 1, {"--seed", "--steps", "--batch", "--lr", "--weight-decay", "--init-scale", "--out"},
                  {"--unit-norm-unembedding"});
  md::MaxDigitTrainingSettings s;
  s.seed = seed_flag(flags);
  const std::string& out_path = required_flag(flags, "--out");
  s.steps = static_cast<long>(count_flag(flags, "--steps", s.steps));
  s.batch_size = static_cast<int>(count_flag(flags, "--batch", s.batch_size));
  s.learning_rate = number_flag(flags, "--lr", s.learning_rate);
  s.weight_decay = number_flag(flags, "--weight-decay", s.weight_decay);
  s.init_scale = number_flag(flags, "--init-scale", s.init_scale);
  s.unit_norm_unembedding = flags.count("--unit-norm-unembedding") > 0;
  as_usage([&] { s.validate(); });
  md::MaxDigitTrainer trainer(s);
  const TrainingProgress p = trainer.step(s.steps);
  if (trainer.diverged_at()) throw InputError(trainer.divergence_message());
  write_output("--out", out_path, fm::write_max_digit_weights(trainer.weights(), &s, p.loss), out);
  err << "headlab max-digit train: " << p.steps_taken << " steps, last batch loss " << p.loss << "\n";
  return 0;
}

int analyze(const Args& args, std::ostream& out, std::ostream& err) {
  const auto flags = parse_flags(args, 1, {"--weights", "--out"}, {});
  const std::string& path = required_flag(flags, "--weights");
  const std::string& out_path = required_flag(flags, "--out");
  refuse_overwriting_inputs("--out", out_path, {{"--weights", path}});
  const md::MaxDigitWeights w = fm::read_max_digit_weights(
      fm::read_text_file(path, "--weights", fm::kMaxDigitWeightsMaxBytes), "--weights: \"" + path + "\"");
  const md::MaxDigitAnalysis a = md::analyze_max_digit(w);
  write_output("--out", out_path, fm::write_max_digit_analysis(a), out);
  err << "headlab max-digit analyze: accuracy " << a.accuracy.accuracy << " over " << a.evaluation_lists << " lists\n";
  return 0;
}

// Trains seeds A…B with the default recipe and writes each seed's claims (the article's cross-seed grid).
int seeds(const Args& args, std::ostream& out, std::ostream& err) {
  const auto flags = parse_flags(args, 1, {"--from", "--to", "--steps", "--out"}, {"--unit-norm-unembedding"});
  const long long from = static_cast<long long>(seed_flag(flags, "--from"));
  const long long to = static_cast<long long>(seed_flag(flags, "--to"));
  const std::string& out_path = required_flag(flags, "--out");
  if (to < from || to - from >= 100)
    throw UsageError("--to must lie in [--from, --from + 99], got \"" + flags.at("--to") + "\"");
  md::MaxDigitTrainingSettings s;
  s.steps = static_cast<long>(count_flag(flags, "--steps", s.steps));
  s.unit_norm_unembedding = flags.count("--unit-norm-unembedding") > 0;
  as_usage([&] { s.validate(); });
  std::vector<fm::MaxDigitSeedRow> rows;
  for (long long seed = from; seed <= to; ++seed) {
    s.seed = static_cast<std::uint64_t>(seed);
    md::MaxDigitTrainer trainer(s);
    const TrainingProgress p = trainer.step(s.steps);
    if (trainer.diverged_at()) throw InputError("seed " + std::to_string(seed) + ": " + trainer.divergence_message());
    const md::MaxDigitAnalysis a = md::analyze_max_digit(trainer.weights());
    rows.push_back({seed, p.loss, md::seed_claims(a)});
    err << "headlab max-digit seeds: seed " << seed << " accuracy " << a.accuracy.accuracy << "\n";
  }
  write_output("--out", out_path, fm::write_max_digit_seeds(s, rows), out);
  return 0;
}

}  // namespace

int run_max_digit(const Args& args, std::istream& in, std::ostream& out, std::ostream& err) {
  (void)in;
  if (args.empty() || (args[0] != "train" && args[0] != "analyze" && args[0] != "seeds")) {
    err << kUsage;
    return kExitUsage;
  }
  try {
    if (args[0] == "seeds") return seeds(args, out, err);
    return args[0] == "train" ? train(args, out, err) : analyze(args, out, err);
  } catch (const UsageError& e) {
    err << "headlab max-digit " << args[0] << ": " << e.what() << "\n" << kUsage;
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "headlab max-digit " << args[0] << ": " << e.what() << "\n";
    return kExitRefused;
  }
}

}  // namespace headlab::cli
