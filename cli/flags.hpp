// The command line's one flag rule, shared by every sub-command that takes "--flag value" pairs:
// an unknown flag, a flag given twice and a flag without its value are errors (InputError), never
// a silent default or a last-one-wins.
#pragma once

#include "cli/commands.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace headlab::cli {

// args[first..] as flag → value ("" for a switch). `with_value` flags take the next argument;
// `switches` take none.
std::map<std::string, std::string> parse_flags(const Args& args, std::size_t first,
                                               const std::vector<std::string>& with_value,
                                               const std::vector<std::string>& switches = {});

// The value of a flag the command cannot do without; InputError "<name> is required" when absent.
const std::string& required_flag(const std::map<std::string, std::string>& flags, const std::string& name);

}  // namespace headlab::cli
