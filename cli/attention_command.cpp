#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "core/attention.hpp"
#include "core/check.hpp"
#include "formats/json.hpp"

#include <iostream>
#include <iterator>

namespace headlab::cli {
namespace fm = headlab::formats;

// stdin: {"x": n×d_model, "w_q": d_model×d_k, "w_k": d_model×d_k, "w_v": d_model×d_v, "causal": bool?}
// stdout: {"q","k","v","scores","weights","reading"} as arrays of rows.
int run_attention(const Args& args, std::istream& in, std::ostream& out, std::ostream& err) {
  if (!args.empty()) {
    err << "usage: headlab attention < input.json\n"
           "  input: {\"x\": [[...]], \"w_q\": [[...]], \"w_k\": [[...]], \"w_v\": [[...]], \"causal\": false}\n";
    return kExitUsage;
  }
  try {
    fm::JsonLimits limits;
    std::string text;
    // Read at most one byte past the limit, so parse_json reports an oversized input without the rest.
    char buffer[1 << 16];
    while (text.size() <= limits.max_bytes && in.read(buffer, sizeof buffer).gcount() > 0) {
      text.append(buffer, static_cast<std::size_t>(in.gcount()));
    }
    const fm::JsonValue input = fm::parse_json(text, "stdin", limits);
    if (!input.is_object()) throw InputError("input must be a JSON object");
    AttentionOptions options;
    if (const fm::JsonValue* causal = input.find("causal")) {
      if (!causal->is_boolean()) throw InputError("causal must be true or false");
      options.causal = causal->as_bool();
    }
    const auto matrix = [&](const char* name) { return fm::matrix_from_json(fm::field(input, name), name); };
    const AttentionResult r = attention_forward(matrix("x"), matrix("w_q"), matrix("w_k"), matrix("w_v"), options);
    fm::JsonValue result = fm::JsonValue::object();
    result["q"] = fm::matrix_to_json(r.q);
    result["k"] = fm::matrix_to_json(r.k);
    result["v"] = fm::matrix_to_json(r.v);
    result["dot_products"] = fm::matrix_to_json(r.dot_products);
    result["scores"] = fm::matrix_to_json(r.scores, /*masked_as_null=*/true);  // causal: null above the diagonal
    result["weights"] = fm::matrix_to_json(r.weights);
    result["reading"] = fm::matrix_to_json(r.reading);
    write_output("the result", "-", fm::dump_json(result) + "\n", out);
    return kExitOk;
  } catch (const std::exception& e) {
    err << "headlab attention: " << e.what() << "\n";
    return kExitRefused;
  }
}

}  // namespace headlab::cli
