#include "cli/commands.hpp"
#include "cli/json_matrix.hpp"
#include "core/attention.hpp"
#include "core/check.hpp"

#include <iostream>

namespace headlab::cli {

// stdin: {"x": n×d_model, "w_q": d_model×d_k, "w_k": d_model×d_k, "w_v": d_model×d_v, "causal": bool?}
// stdout: {"q","k","v","scores","weights","reading"} as arrays of rows.
int run_attention(const Args& args, std::istream& in, std::ostream& out, std::ostream& err) {
  if (!args.empty()) {
    err << "usage: headlab attention < input.json\n"
           "  input: {\"x\": [[...]], \"w_q\": [[...]], \"w_k\": [[...]], \"w_v\": [[...]], \"causal\": false}\n";
    return 2;
  }
  nlohmann::json input;
  try {
    input = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers like 3e921
    err << "headlab attention: stdin is not valid JSON: " << e.what() << "\n";
    return 1;
  }
  try {
    AttentionOptions options;
    if (input.is_object() && input.contains("causal")) {
      if (!input["causal"].is_boolean()) throw InputError("causal must be true or false");
      options.causal = input["causal"].get<bool>();
    }
    const AttentionResult r = attention_forward(matrix_field(input, "x"), matrix_field(input, "w_q"),
                                                matrix_field(input, "w_k"), matrix_field(input, "w_v"), options);
    nlohmann::json result = {{"q", matrix_to_json(r.q)},           {"k", matrix_to_json(r.k)},
                             {"v", matrix_to_json(r.v)},           {"dot_products", matrix_to_json(r.dot_products)},
                             {"scores", matrix_to_json(r.scores)},
                             {"weights", matrix_to_json(r.weights)}, {"reading", matrix_to_json(r.reading)}};
    out << result.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict) << "\n";
    return 0;
  } catch (const std::exception& e) {
    err << "headlab attention: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace headlab::cli
