// The path-patching document `headlab model analyze --path-patching` writes and the WASM module
// returns (core/path_patching.hpp; docs/own-model.md "Path patching"). Keys in this order:
//
//   {"pairs": N, "prompt_length": T, "resamples": B, "permutations": K, "seed": S, "confidence": 0.95,
//    "inputs": ["q", "k", "v"],
//    "clean_logit_difference": [N], "corrupted_logit_difference": [N],
//    "edges": [[sender_layer, sender_head, receiver_layer, receiver_head], …]   (E, sender-major),
//    "mean": [E][3], "lower": [E][3], "upper": [E][3], "p_value": [E][3], "effects": [N][E][3]}
//
// A cell is the effect e of the sender's change reaching only that input of the receiver (0: the
// path carries nothing; 1: all the corruption does); lower/upper the percentile bootstrap 95 %
// interval of the mean over the N pairs; p_value the sign-flip permutation test's. Every number is
// finite (a pair with nothing to normalise by is refused before anything is written).
#pragma once

#include "core/path_patching.hpp"

#include <string>

namespace headlab::formats {

std::string write_path_patching(const transformer::PathPatching& result);

}  // namespace headlab::formats
