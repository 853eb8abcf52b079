// headlab model inspect | run | analyze | train | convert-max-digit: bring-your-own attention-only
// transformers (docs/own-model.md).
#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/attribution_patching.hpp"
#include "core/batch_patching.hpp"
#include "core/circuit_faithfulness.hpp"
#include "core/path_patching.hpp"
#include "core/check.hpp"
#include "core/induction_task.hpp"
#include "core/max_digit_task.hpp"
#include "core/tokenizer.hpp"
#include "core/transformer_analysis.hpp"
#include "core/transformer_max_digit.hpp"
#include "core/transformer_training.hpp"
#include "formats/attribution_patching_json.hpp"
#include "formats/batch_patching_json.hpp"
#include "formats/faithfulness_json.hpp"
#include "formats/path_patching_json.hpp"
#include "formats/file_io.hpp"
#include "formats/max_digit_weights.hpp"
#include "formats/prompt_pairs.hpp"
#include "formats/safetensors.hpp"
#include "formats/tokenizer_json.hpp"
#include "formats/torch_checkpoint.hpp"
#include "formats/transformer_json.hpp"
#include "formats/transformer_model.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

namespace headlab::cli {

namespace {

namespace tf = headlab::transformer;
namespace fm = headlab::formats;

const char* kModelUsage =
    "usage: headlab model inspect --config model.json --weights model.safetensors\n"
    "       headlab model run --config model.json --weights model.safetensors --prompt \"1 2 3\" [--out run.json]\n"
    "                         [--tokenizer tokenizer.json (then --prompt and --corrupted are text)]\n"
    "                         [--ablate \"1.2 0.3\"] [--head-losses] [--ablation zero|mean]\n"
    "                         [--sequences N] [--seed S | --reference \"3 4 5; 6 7 8\"]\n"
    "       headlab model analyze --config model.json --weights model.safetensors --prompt \"1 2 3\"\n"
    "                             [--position P] [--token T] [--corrupted \"1 2 4\" --answer A --wrong B]\n"
    "                             [--ablation zero|mean] [--sequences N] [--seed S] [--circuits]\n"
    "                             [--qk-attribution L.H] [--composition] [--logit-lens]\n"
    "                             [--head-svd [--directions D]] [--top K] [--out analysis.json]\n"
    "       headlab model analyze --config model.json --weights model.safetensors\n"
    "                             (--pairs pairs.json | --pairs-task induction|max-digit [--count N] [--pairs-seed S])\n"
    "                             [--path-patching | --attribution-patching |\n"
    "                              (--faithfulness \"0.1 1.2\" | --faithfulness-edges \"0.1>1.2:k\")\n"
    "                              [--ablation corrupted|mean]]\n"
    "                             [--resamples B] [--permutations K] [--seed S] [--out patching.json]\n"
    "       headlab model train --task induction --seed S [--steps N] [--batch B] [--lr X] [--weight-decay X]\n"
    "                           [--warmup-steps N] [--final-lr-fraction F]\n"
    "                           --out model.safetensors [--config-out model.json] [--history-out history.json]\n"
    "       headlab model convert-max-digit --weights weights.json --out model.safetensors [--config-out model.json]\n";

// Every model sub-command's flags follow the one flag rule (cli/flags.hpp).
std::map<std::string, std::string> flags_of(const Args& args, const std::vector<std::string>& with_value,
                                            const std::vector<std::string>& switches = {}) {
  return parse_flags(args, 1, with_value, switches);
}

const std::string& required(const std::map<std::string, std::string>& flags, const std::string& name) {
  return required_flag(flags, name);
}

struct LoadedModel {
  tf::TransformerWeights weights;
  fm::SafetensorsFile file;
  std::unique_ptr<headlab::tokenizer::Tokenizer> tokenizer;  // with --tokenizer: prompts are text
};

LoadedModel load(const std::map<std::string, std::string>& flags) {
  const std::string config_path = required(flags, "--config");
  const std::string weights_path = required(flags, "--weights");
  const std::string config_text = fm::read_text_file(config_path, "--config", fm::kMaxConfigBytes);
  const fm::SafetensorsLimits limits;
  // Shared with the weights: F32 W_E and W_U are read in place (formats/transformer_model.hpp), so
  // a large model is held once, not as the file plus a copy.
  const auto bytes =
      std::make_shared<const std::string>(fm::read_text_file(weights_path, "--weights", limits.max_file_bytes));
  LoadedModel m;
  tf::TransformerConfig config;
  try {
    config = fm::transformer_config_from_json(config_text);
  } catch (const InputError& e) {
    throw InputError("--config " + config_path + ": " + e.what());
  }
  try {
    // A PyTorch checkpoint or a safetensors file, by its first bytes, as in the page.
    m.weights = fm::transformer_weights_from_file(config, reinterpret_cast<const std::uint8_t*>(bytes->data()),
                                                  bytes->size(), m.file, bytes);
  } catch (const InputError& e) {
    throw InputError("--weights " + weights_path + ": " + e.what());
  }
  if (flags.count("--tokenizer")) {
    // The tokenizer's names become the config's token names, so the documents name each token.
    const std::string& path = flags.at("--tokenizer");
    const std::string text = fm::read_text_file(path, "--tokenizer", fm::kMaxTokenizerBytes);
    try {
      m.tokenizer = std::make_unique<headlab::tokenizer::Tokenizer>(fm::read_tokenizer_json(text, "tokenizer"));
    } catch (const InputError& e) {
      throw InputError("--tokenizer " + path + ": " + e.what());
    }
    m.weights.config.token_names = headlab::tokenizer::token_names(*m.tokenizer, m.weights.config.d_vocab);
  }
  return m;
}

// A prompt flag: text through the tokenizer when there is one, token ids or names otherwise.
std::vector<int> prompt_flag(const LoadedModel& m, const std::map<std::string, std::string>& flags,
                             const std::string& name) {
  try {
    if (m.tokenizer)
      return headlab::tokenizer::encode_prompt(*m.tokenizer, required(flags, name), m.weights.config.d_vocab);
    return fm::parse_prompt(m.weights.config, required(flags, name));
  } catch (const InputError& e) {
    throw InputError(name + ": " + e.what());
  }
}

// The result to --out (stdout when absent or "-"), never over the --config or --weights read.
void emit(const std::map<std::string, std::string>& flags, const std::string& text, std::ostream& out) {
  const auto it = flags.find("--out");
  write_output("--out", it == flags.end() ? "-" : it->second, text, out);
}

// Refuses an --out that is the same file as the --config or --weights this command reads.
void refuse_overwriting_model_inputs(const std::map<std::string, std::string>& flags) {
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const char* f : {"--config", "--weights", "--tokenizer", "--pairs"}) {
    if (flags.count(f)) inputs.emplace_back(f, flags.at(f));
  }
  if (flags.count("--out")) refuse_overwriting_inputs("--out", flags.at("--out"), inputs);
}

std::string default_config_path(const std::string& out) {
  const std::string suffix = ".safetensors";
  if (out.size() > suffix.size() && out.compare(out.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return out.substr(0, out.size() - suffix.size()) + ".json";
  }
  return out + ".json";
}

// The two files a model is written as (--out and --config-out, which defaults to --out with
// ".safetensors" replaced by ".json"), checked before any work: neither is "-" (stdout is one
// stream and a model is two files, one of them binary), they are not the same file (exit 2), and
// neither is a file the command reads (exit 1).
struct ModelOutputs {
  std::string weights, config;
};

ModelOutputs model_outputs(const std::map<std::string, std::string>& flags,
                           const std::vector<std::pair<std::string, std::string>>& inputs) {
  ModelOutputs o;
  o.weights = required(flags, "--out");
  const auto it = flags.find("--config-out");
  const bool given = it != flags.end();
  o.config = given ? it->second : default_config_path(o.weights);
  const std::string config_flag = given ? "--config-out" : "--config-out (by default)";
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--out", o.weights}, {config_flag, o.config}}) {
    if (path == "-") {
      throw UsageError(flag +
                       " -: a model is two files, the safetensors weights (binary) and their JSON config, "
                       "and stdout holds one stream: give --out a path (and --config-out one, or its default)");
    }
  }
  refuse_same_outputs({{"--out", o.weights}, {config_flag, o.config}});
  refuse_overwriting_inputs("--out", o.weights, inputs);
  refuse_overwriting_inputs(config_flag, o.config, inputs);
  return o;
}

void write_model(const tf::TransformerWeights& w, const ModelOutputs& o) {
  fm::write_file_atomically(o.weights, fm::transformer_to_safetensors(w), "--out");
  fm::write_file_atomically(o.config, fm::transformer_config_to_json(w.config), "--config-out");
}

int inspect(const Args& args, std::ostream& out) {
  const auto flags = flags_of(args, {"--config", "--weights", "--out"});
  refuse_overwriting_model_inputs(flags);
  const auto m = load(flags);
  emit(flags, fm::write_transformer_inspection(m.weights, m.file), out);
  return 0;
}

// The items of a list flag: its text split at spaces and commas, empty items dropped.
std::vector<std::string> list_items(const std::string& text) {
  std::vector<std::string> items(1);
  for (const char ch : text) {
    if (ch != ' ' && ch != ',') items.back() += ch;
    else if (!items.back().empty()) items.emplace_back();
  }
  if (items.back().empty()) items.pop_back();
  return items;
}

// --ablate "1.2 0.3": heads as layer.head pairs separated by spaces or commas (`flag` names the flag).
std::vector<tf::HeadIndex> heads_flag(const std::string& text, const std::string& flag = "--ablate") {
  std::vector<tf::HeadIndex> heads;
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 4 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  for (const std::string& part : list_items(text)) {
    const auto dot = part.find('.');
    if (dot == std::string::npos || !digits(part.substr(0, dot)) || !digits(part.substr(dot + 1))) {
      throw UsageError(flag + ": \"" + part.substr(0, 40) + "\" is not a layer.head pair such as 1.2");
    }
    heads.push_back({std::stoi(part.substr(0, dot)), std::stoi(part.substr(dot + 1))});
  }
  return heads;
}

// --faithfulness-edges "0.1>1.2:k 0.0>1.1:v": a circuit of edges, sender>receiver:input (input q, k or
// v), separated by spaces or commas; checked against the model by the core (checked_circuit_edges).
std::vector<tf::CircuitEdge> edges_flag(const std::string& text, const std::string& flag) {
  std::vector<tf::CircuitEdge> edges;
  for (const std::string& part : list_items(text)) {
    const auto gt = part.find('>'), colon = part.rfind(':');
    const std::string input = colon == std::string::npos ? "" : part.substr(colon + 1);
    const std::string bad =
        flag + ": \"" + part.substr(0, 40) + "\" is not an edge such as 0.1>1.2:k (sender>receiver:q, k or v)";
    if (gt == std::string::npos || colon == std::string::npos || colon < gt ||
        (input != "q" && input != "k" && input != "v"))
      throw UsageError(bad);
    const auto sender = heads_flag(part.substr(0, gt), flag),
               receiver = heads_flag(part.substr(gt + 1, colon - gt - 1), flag);
    if (sender.size() != 1 || receiver.size() != 1) throw UsageError(bad);
    const int kappa = input == "q" ? 0 : input == "k" ? 1 : 2;
    edges.push_back({{sender[0].layer, sender[0].head, receiver[0].layer, receiver[0].head}, kappa});
  }
  return edges;
}

// --reference "3 4 5; 6 7 8": the sequences mean ablation averages over, separated by ';', each read
// as --prompt is (token ids or names, or text with --tokenizer).
std::vector<std::vector<int>> reference_flag(const LoadedModel& m, const std::map<std::string, std::string>& flags) {
  std::vector<std::vector<int>> out;
  if (!flags.count("--reference")) return out;
  const std::string& text = flags.at("--reference");
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(';', start);
    const std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::map<std::string, std::string> one{{"--reference", part}};
    try {
      out.push_back(prompt_flag(m, one, "--reference"));
    } catch (const InputError& e) {
      throw InputError("sequence " + std::to_string(out.size()) + " of " + e.what());
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

int run(const Args& args, std::ostream& out) {
  const auto flags = flags_of(args,
                              {"--config", "--weights", "--tokenizer", "--prompt", "--out", "--ablate", "--ablation",
                               "--sequences", "--seed", "--reference"},
                              {"--head-losses"});
  refuse_overwriting_model_inputs(flags);
  const auto m = load(flags);
  const auto tokens = prompt_flag(m, flags, "--prompt");
  const bool ablating = flags.count("--ablate") > 0, losses = flags.count("--head-losses") > 0;
  if (!ablating && !losses) {
    for (const char* f : {"--ablation", "--sequences", "--seed", "--reference"}) {
      if (flags.count(f)) throw UsageError(std::string(f) + " applies only with --ablate or --head-losses");
    }
    emit(flags, fm::write_transformer_run(m.weights, tf::transformer_forward(m.weights, tokens)), out);
    return 0;
  }
  tf::Ablation mode = tf::Ablation::mean;
  if (flags.count("--ablation")) {
    const std::string& name = flags.at("--ablation");
    if (name != "zero" && name != "mean") throw UsageError("--ablation must be zero or mean, got \"" + name + "\"");
    mode = name == "zero" ? tf::Ablation::zero : tf::Ablation::mean;
  }
  if (flags.count("--reference") && (flags.count("--sequences") || flags.count("--seed"))) {
    throw UsageError("--reference replaces the repeated random sequences: --sequences and --seed do not apply");
  }
  tf::MeanSource means;
  means.sequences = static_cast<int>(integer_flag(flags, "--sequences", 32, 1, 10000));
  means.seed = optional_seed_flag(flags, "--seed", 0);
  means.reference = reference_flag(m, flags);
  const auto run = ablating ? tf::ablated_forward(m.weights, tokens, heads_flag(flags.at("--ablate")), mode, means)
                            : tf::transformer_forward(m.weights, tokens);
  if (!losses) {
    emit(flags, fm::write_transformer_run(m.weights, run), out);
    return 0;
  }
  const auto head_losses = tf::prompt_ablation_loss(m.weights, tokens, mode, means);
  emit(flags, fm::write_transformer_run(m.weights, run, head_losses, mode, means), out);
  return 0;
}

// analyze over a batch of prompt pairs (--pairs or --pairs-task): activation patching with intervals
// (core/batch_patching.hpp), the document of formats/batch_patching_json.hpp; with --path-patching,
// path patching between heads instead (core/path_patching.hpp, formats/path_patching_json.hpp); with
// --attribution-patching, the first-order estimates of head and edge patches and their agreement with
// the real ones (core/attribution_patching.hpp, formats/attribution_patching_json.hpp); with
// --faithfulness "L.H …", the share of the logit difference that circuit of heads recovers, with its
// leave-one-out table (core/circuit_faithfulness.hpp, formats/faithfulness_json.hpp); with
// --faithfulness-edges "L.H>L.H:κ …", the same for a circuit of edges.
int analyze_pairs(const std::map<std::string, std::string>& flags, std::ostream& out) {
  for (const char* f : {"--prompt", "--tokenizer", "--position", "--token", "--corrupted", "--answer", "--wrong",
                        "--sequences", "--circuits", "--qk-attribution"}) {
    if (flags.count(f)) throw UsageError(std::string(f) + " applies to one prompt, not with --pairs or --pairs-task");
  }
  const bool faithfulness = flags.count("--faithfulness") || flags.count("--faithfulness-edges");
  if (flags.count("--ablation") && !faithfulness)
    throw UsageError("--ablation applies to one prompt or, with --pairs or --pairs-task, to --faithfulness");
  if (flags.count("--pairs") && flags.count("--pairs-task")) throw UsageError("give --pairs or --pairs-task, not both");
  if (flags.count("--path-patching") + flags.count("--attribution-patching") + flags.count("--faithfulness") +
          flags.count("--faithfulness-edges") >
      1)
    throw UsageError("give one of --path-patching, --attribution-patching, --faithfulness and --faithfulness-edges");
  auto ablation = tf::CircuitAblation::corrupted;
  if (flags.count("--ablation")) {
    const std::string& name = flags.at("--ablation");
    if (name != "corrupted" && name != "mean")
      throw UsageError("--ablation with --faithfulness must be corrupted or mean, got \"" + name.substr(0, 40) + "\"");
    ablation = name == "mean" ? tf::CircuitAblation::mean : tf::CircuitAblation::corrupted;
  }
  // Parsed before any file is read; the heads are checked against the model by the core.
  std::vector<tf::HeadIndex> circuit;
  if (flags.count("--faithfulness")) circuit = heads_flag(flags.at("--faithfulness"), "--faithfulness");
  std::vector<tf::CircuitEdge> edges;
  if (flags.count("--faithfulness-edges")) edges = edges_flag(flags.at("--faithfulness-edges"), "--faithfulness-edges");
  if (flags.count("--attribution-patching")) {
    for (const char* f : {"--resamples", "--permutations", "--seed"})
      if (flags.count(f))
        throw UsageError(std::string(f) + " sets intervals, which --attribution-patching does not draw");
  }
  if (flags.count("--pairs")) {
    for (const char* f : {"--count", "--pairs-seed"})
      if (flags.count(f)) throw UsageError(std::string(f) + " applies only with --pairs-task (a generator)");
  }
  tf::IntervalSettings settings;
  settings.resamples = static_cast<int>(count_flag(flags, "--resamples", settings.resamples));
  settings.permutations = static_cast<int>(count_flag(flags, "--permutations", settings.permutations));
  settings.seed = optional_seed_flag(flags, "--seed", 0);
  as_usage([&] { settings.validate(); });
  const int count = static_cast<int>(integer_flag(flags, "--count", 64, 1, kMaxPromptPairs));
  const auto pairs_seed = optional_seed_flag(flags, "--pairs-seed", 0);
  std::string task;
  if (flags.count("--pairs-task")) {
    task = flags.at("--pairs-task");
    if (task != "induction" && task != "max-digit")
      throw UsageError("--pairs-task must be induction or max-digit, got \"" + task.substr(0, 40) + "\"");
  }
  const auto m = load(flags);
  const auto& c = m.weights.config;
  std::vector<PromptPair> pairs;
  if (task == "induction") {
    pairs = tf::induction_pairs(c, pairs_seed, count);
  } else if (task == "max-digit") {
    pairs = max_digit::max_digit_pairs(pairs_seed, count);
  } else {
    const std::string& path = flags.at("--pairs");
    pairs = fm::read_prompt_pairs(c, fm::read_text_file(path, "--pairs", fm::kMaxPromptPairsBytes), "--pairs " + path);
  }
  if (flags.count("--path-patching"))
    emit(flags, fm::write_path_patching(tf::path_patching(m.weights, pairs, settings)), out);
  else if (flags.count("--faithfulness"))
    emit(flags, fm::write_faithfulness(tf::circuit_faithfulness(m.weights, pairs, circuit, ablation, settings)), out);
  else if (flags.count("--faithfulness-edges"))
    emit(flags, fm::write_faithfulness(tf::edge_circuit_faithfulness(m.weights, pairs, edges, ablation, settings)),
         out);
  else if (flags.count("--attribution-patching"))
    emit(flags, fm::write_attribution_patching(c, tf::attribution_patching(m.weights, pairs)), out);
  else emit(flags, fm::write_batch_patching(c, tf::batch_patching(m.weights, pairs, settings)), out);
  return 0;
}

// --qk-attribution L.H: one head; its layer and head are checked against the model by the core.
tf::HeadIndex qk_head_flag(const std::string& text) {
  const auto heads = heads_flag(text, "--qk-attribution");
  if (heads.size() != 1)
    throw UsageError("--qk-attribution takes one layer.head pair such as 1.2, got " + std::to_string(heads.size()));
  return heads[0];
}

int analyze(const Args& args, std::ostream& out, std::ostream& err) {
  const auto flags = flags_of(
      args, {"--config",    "--weights",        "--prompt", "--out",        "--position",     "--token",
             "--tokenizer", "--corrupted",      "--answer", "--wrong",      "--ablation",     "--sequences",
             "--seed",      "--qk-attribution", "--pairs",  "--pairs-task", "--count",        "--pairs-seed",
             "--resamples", "--permutations",   "--top",    "--directions", "--faithfulness", "--faithfulness-edges"},
      {"--circuits", "--composition", "--logit-lens", "--head-svd", "--path-patching", "--attribution-patching"});
  refuse_overwriting_model_inputs(flags);
  if (flags.count("--pairs") || flags.count("--pairs-task")) return analyze_pairs(flags, out);
  for (const char* f : {"--count", "--pairs-seed", "--resamples", "--permutations", "--path-patching",
                        "--attribution-patching", "--faithfulness", "--faithfulness-edges"}) {
    if (flags.count(f)) throw UsageError(std::string(f) + " applies only with --pairs or --pairs-task");
  }
  tf::AnalysisRequest r;
  // The flags that need no model first, so a bad one is a usage error before any file is read.
  // --sequences 0: no repeated random sequences (no ablation losses, no induction scores; written
  // null), for a model whose sequences of n_ctx tokens are beyond the core's work limit.
  r.sequences = static_cast<int>(integer_flag(flags, "--sequences", 32, 0, 10000));
  r.seed = optional_seed_flag(flags, "--seed", 0);
  // --answer and --wrong set the patching runs' logit difference: without --corrupted there are
  // no patching runs, and they would be ignored.
  if (!flags.count("--corrupted")) {
    for (const char* f : {"--answer", "--wrong"}) {
      if (flags.count(f))
        throw UsageError(std::string(f) + " applies only with --corrupted (the patching runs' prompt)");
    }
  }
  const auto m = load(flags);
  const auto& c = m.weights.config;
  r.prompt = prompt_flag(m, flags, "--prompt");
  r.position = static_cast<int>(integer_flag(flags, "--position", -1, -1, c.n_ctx - 1));
  r.token = static_cast<int>(integer_flag(flags, "--token", -1, -1, c.d_vocab - 1));
  if (flags.count("--corrupted")) {
    r.corrupted = prompt_flag(m, flags, "--corrupted");
    r.answer = static_cast<int>(integer_flag(flags, "--answer", -1, 0, c.d_vocab - 1));
    r.wrong = static_cast<int>(integer_flag(flags, "--wrong", -1, 0, c.d_vocab - 1));
    if (r.answer < 0 || r.wrong < 0) throw UsageError("--corrupted needs --answer and --wrong");
  }
  if (flags.count("--ablation")) {
    const std::string& mode = flags.at("--ablation");
    if (mode != "zero" && mode != "mean") throw UsageError("--ablation must be zero or mean, got \"" + mode + "\"");
    r.ablation = mode == "zero" ? tf::Ablation::zero : tf::Ablation::mean;
  }
  r.circuits = flags.count("--circuits") > 0;
  r.composition = flags.count("--composition") > 0;
  r.logit_lens = flags.count("--logit-lens") > 0;
  r.head_svd = flags.count("--head-svd") > 0;
  if (flags.count("--directions") && !r.head_svd) throw UsageError("--directions applies only with --head-svd");
  if (flags.count("--top") && !r.head_svd && !r.logit_lens)
    throw UsageError("--top applies only with --logit-lens or --head-svd");
  r.top = static_cast<int>(integer_flag(flags, "--top", 5, 1, std::min(tf::kMaxLogitLensTop, c.d_vocab)));
  r.directions = static_cast<int>(integer_flag(flags, "--directions", -1, 1, c.d_head));
  if (flags.count("--qk-attribution")) {
    r.qk_attribution = true;
    r.qk_head = qk_head_flag(flags.at("--qk-attribution"));
  }
  const auto analysis = tf::analyze_transformer(m.weights, r);
  if (analysis.has_qk_attribution && r.qk_head.layer == 0) {
    // Not an error: layer 0's scores are still split, over the sources it has.
    std::string names;
    for (const auto& name : analysis.qk_attribution.sources) names += (names.empty() ? "" : ", ") + name;
    err << "headlab model analyze: --qk-attribution " << r.qk_head.layer << "." << r.qk_head.head
        << ": layer 0 reads no earlier heads; its scores split over " << names << "\n";
  }
  emit(flags, fm::write_transformer_analysis(m.weights, r, analysis), out);
  return 0;
}

int train(const Args& args, std::ostream& out) {
  const auto flags =
      flags_of(args, {"--task", "--seed", "--steps", "--batch", "--lr", "--weight-decay", "--warmup-steps",
                      "--final-lr-fraction", "--out", "--config-out", "--history-out"});
  const std::string task = required(flags, "--task");
  if (task != "induction") throw UsageError("--task must be induction, got \"" + task + "\"");
  tf::TransformerTrainingSettings s;
  s.seed = seed_flag(flags);
  s.steps = count_flag(flags, "--steps", s.steps);
  s.batch_size = static_cast<int>(count_flag(flags, "--batch", s.batch_size));
  s.learning_rate = number_flag(flags, "--lr", s.learning_rate);
  s.weight_decay = number_flag(flags, "--weight-decay", s.weight_decay);
  s.warmup_steps = count_flag(flags, "--warmup-steps", s.warmup_steps);
  s.final_learning_rate_fraction = number_flag(flags, "--final-lr-fraction", s.final_learning_rate_fraction);
  const ModelOutputs outputs = model_outputs(flags, {});
  as_usage([&] { s.validate(); });
  // The history is a third output: not stdout (it holds the summary line), not a model file.
  const auto history_out = flags.find("--history-out");
  if (history_out != flags.end()) {
    if (history_out->second == "-") throw UsageError("--history-out -: stdout holds the summary line; give a path");
    refuse_same_outputs(
        {{"--out", outputs.weights}, {"--config-out", outputs.config}, {"--history-out", history_out->second}});
  }
  const auto before = tf::induction_scores(tf::initial_weights(s), 64, s.seed);
  tf::TransformerTrainer trainer(s);
  // Every 50 steps the scores of 16 repeated sequences (the page's worker reports the same after each
  // chunk): the step at which the best head's induction score first passes 0.4, and the history.
  constexpr int kEvery = 50, kScoreSequences = 16;
  std::vector<tf::TrainingCheckpoint> history{tf::training_checkpoint(trainer, kScoreSequences)};
  long passed = -1;
  while (!trainer.progress().done) {
    trainer.step(kEvery);
    history.push_back(tf::training_checkpoint(trainer, kScoreSequences));
    if (passed < 0 && history.back().induction.maxCoeff() > 0.4) passed = trainer.progress().steps_taken;
  }
  // Diverged weights are not a model: no file (the message names the step; docs/limits.md).
  if (trainer.diverged_at() > 0) throw InputError(trainer.divergence_message());
  const auto after = tf::induction_scores(trainer.result(), 64, s.seed);
  write_model(trainer.result(), outputs);
  if (history_out != flags.end()) {
    fm::write_file_atomically(history_out->second, fm::write_training_history(s, kEvery, kScoreSequences, history),
                              "--history-out");
  }
  out << "trained " << trainer.progress().steps_taken << " steps; last loss " << trainer.progress().loss
      << "; in-context loss " << before.in_context_loss << " -> " << after.in_context_loss << "; best induction score "
      << after.induction.maxCoeff() << " (passed 0.4 at step "
      << (passed < 0 ? std::string("never") : std::to_string(passed)) << ")\n";
  return 0;
}

int convert_max_digit(const Args& args, std::ostream& out) {
  const auto flags = flags_of(args, {"--weights", "--out", "--config-out"});
  const std::string path = required(flags, "--weights");
  const ModelOutputs outputs = model_outputs(flags, {{"--weights", path}});
  const std::string text = fm::read_text_file(path, "--weights", fm::kMaxDigitWeightsMaxBytes);
  const auto w = tf::from_max_digit(fm::read_max_digit_weights(text));
  write_model(w, outputs);
  out << "wrote the max-digit model as " << flags.at("--out") << " (" << tf::parameter_count(w.config)
      << " parameters)\n";
  return 0;
}

}  // namespace

int run_model(const Args& args, std::istream& in, std::ostream& out, std::ostream& err) {
  (void)in;
  static const std::vector<std::string> verbs{"inspect", "run", "analyze", "train", "convert-max-digit"};
  if (args.empty() || std::find(verbs.begin(), verbs.end(), args[0]) == verbs.end()) {
    err << kModelUsage;
    return kExitUsage;
  }
  try {
    if (args[0] == "inspect") return inspect(args, out);
    if (args[0] == "run") return run(args, out);
    if (args[0] == "analyze") return analyze(args, out, err);
    if (args[0] == "train") return train(args, out);
    return convert_max_digit(args, out);
  } catch (const UsageError& e) {
    err << "headlab model " << args[0] << ": " << e.what() << "\n" << kModelUsage;
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "headlab model " << args[0] << ": " << e.what() << "\n";
    return kExitRefused;
  }
}

}  // namespace headlab::cli
