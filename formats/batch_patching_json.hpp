// The batch-patching document `headlab model analyze --pairs` writes and the WASM module returns
// (core/batch_patching.hpp; docs/own-model.md "Patching over a batch"). Keys in this order:
//
//   {"pairs": N, "prompt_length": T, "resamples": B, "permutations": K, "seed": S, "confidence": 0.95,
//    "components": ["q", "k", "v", "z"],
//    "clean_logit_difference": [N], "corrupted_logit_difference": [N],
//    "head_position":  <grid> with cells [L][H][T],
//    "resid_position": <grid> with cells [L][T],
//    "head_component": <grid> with cells [L][H][4]}
//   <grid> = {"mean": cells, "lower": cells, "upper": cells, "p_value": cells, "effects": [N] cells}
//
// A cell is the effect e = 1 − normalised logit difference (0: the patch changes nothing; 1: it does
// all the corruption does); lower/upper the percentile bootstrap 95 % interval of the mean over the N
// pairs; p_value the sign-flip permutation test's. Every number is finite (a pair with nothing to
// normalise by is refused before anything is written).
#pragma once

#include "core/batch_patching.hpp"

#include <cstddef>
#include <string>

namespace headlab::formats {

std::string write_batch_patching(const transformer::TransformerConfig& config,
                                 const transformer::BatchPatching& result);

class JsonWriter;

// The fields every resampled document (batch patching, path patching, faithfulness) opens with, in
// this order: "pairs": N, "prompt_length": T, "resamples", "permutations", "seed" (the interval
// settings) and "confidence": 0.95.
void write_interval_header(JsonWriter& out, std::size_t pairs, long long prompt_length,
                           const transformer::IntervalSettings& settings);

}  // namespace headlab::formats
