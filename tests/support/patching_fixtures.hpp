// What the batch and path patching tests share: the two-layer fixture model, its prompt pairs and
// the settings of a PyTorch reference (tests/data/batch_patching/make_fixtures.py and
// make_path_fixtures.py).
#pragma once

#include "core/batch_patching.hpp"
#include "formats/json.hpp"
#include "formats/prompt_pairs.hpp"
#include "support/fixtures.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace headlab::test {

// Two layers, three heads, LayerNorm and positional embeddings (tests/data/transformer/).
inline transformer::TransformerWeights patching_model() { return transformer_fixture("transformer/two_layer_ln_pos"); }

// The 66 prompt pairs of tests/data/batch_patching/pairs.json, read for `w`'s config.
inline std::vector<PromptPair> patching_pairs(const transformer::TransformerWeights& w) {
  return formats::read_prompt_pairs(w.config, fixture_file("batch_patching/pairs.json"), "pairs.json");
}

// A reference document, tests/data/batch_patching/<name>, parsed on first use and kept for the run
// (a std::map's elements stay where they are as others are added, so the reference stays valid).
inline const formats::JsonValue& patching_reference(const std::string& name) {
  static std::map<std::string, formats::JsonValue> parsed;
  auto found = parsed.find(name);
  if (found == parsed.end())
    found = parsed.emplace(name, formats::parse_json(fixture_file("batch_patching/" + name), name)).first;
  return found->second;
}

// The interval settings the reference was drawn with (its "settings": resamples, permutations, seed).
inline transformer::IntervalSettings reference_settings(const formats::JsonValue& reference) {
  const auto& s = *reference.find("settings");
  transformer::IntervalSettings out;
  out.resamples = static_cast<int>(s.find("resamples")->as_double());
  out.permutations = static_cast<int>(s.find("permutations")->as_double());
  out.seed = static_cast<std::uint64_t>(s.find("seed")->as_double());
  return out;
}

}  // namespace headlab::test
