#include "cli/flags.hpp"

#include "core/check.hpp"

#include <algorithm>

namespace headlab::cli {

std::map<std::string, std::string> parse_flags(const Args& args, std::size_t first,
                                               const std::vector<std::string>& with_value,
                                               const std::vector<std::string>& switches) {
  std::map<std::string, std::string> flags;
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool takes_value = std::find(with_value.begin(), with_value.end(), a) != with_value.end();
    const bool is_switch = std::find(switches.begin(), switches.end(), a) != switches.end();
    if (!takes_value && !is_switch) {
      throw InputError("unknown argument \"" + a.substr(0, 40) + (a.size() > 40 ? "…" : "") + "\"");
    }
    if (flags.count(a)) throw InputError(a + " is given twice");
    if (is_switch) {
      flags[a] = "";
      continue;
    }
    if (i + 1 >= args.size()) throw InputError(a + " needs a value");
    flags[a] = args[++i];
  }
  return flags;
}

const std::string& required_flag(const std::map<std::string, std::string>& flags, const std::string& name) {
  const auto it = flags.find(name);
  if (it == flags.end()) throw InputError(name + " is required");
  return it->second;
}

}  // namespace headlab::cli
