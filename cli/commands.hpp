// Sub-commands of the `headlab` CLI. Each returns the process exit code and
// writes results to out, messages to err.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace headlab::cli {

using Args = std::vector<std::string>;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args& args, std::istream& in, std::ostream& out, std::ostream& err);
};

int run_attention(const Args& args, std::istream& in, std::ostream& out, std::ostream& err);
int run_feature_recovery_command(const Args& args, std::istream& in, std::ostream& out, std::ostream& err);
int run_max_digit(const Args& args, std::istream& in, std::ostream& out, std::ostream& err);
int run_model(const Args& args, std::istream& in, std::ostream& out, std::ostream& err);

// Every sub-command, in the order `headlab --help` lists them (defined in cli/main.cpp).
const std::vector<Command>& commands();

}  // namespace headlab::cli
