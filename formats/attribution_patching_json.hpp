// The attribution-patching document `headlab model analyze --attribution-patching` writes and the WASM
// module returns (core/attribution_patching.hpp; docs/own-model.md "Attribution patching"). Keys in
// this order:
//
//   {"pairs": N, "prompt_length": T, "inputs": ["q", "k", "v"],
//    "clean_logit_difference": [N], "corrupted_logit_difference": [N],
//    "nodes": {"estimate": [L][H], "actual": [L][H],                    means over the pairs
//              "estimates": [N][L][H], "actuals": [N][L][H]},           per pair
//    "edges": {"edges": [[sender_layer, sender_head, receiver_layer, receiver_head], …]  (E, sender-major),
//              "estimate": [E][3], "actual": [E][3], "estimates": [N][E][3], "actuals": [N][E][3]},
//    "agreement": {
//      "nodes": {"spearman": ρ, "largest": [{"layer", "head", "estimate", "actual", "gap"}, …]},
//      "edges": {"spearman": ρ, "spearman_by_input": {"q": ρ, "k": ρ, "v": ρ},
//                "largest": [{"sender": [l, h], "receiver": [l, h], "input": "q", "estimate", "actual", "gap"}, …]}}}
//
// estimate: the first-order estimate of the effect e of patching that node or edge (0: nothing;
// 1: all the corruption); actual: the real patch (batch patching's head z patch, path patching's
// cell); gap = |estimate − actual|, largest first. A rank correlation that is undefined (fewer than
// two cells, or one side constant; every edge entry of a one-layer model, which has no edges) is
// null; every other number is finite.
#pragma once

#include "core/attribution_patching.hpp"

#include <string>

namespace headlab::formats {

std::string write_attribution_patching(const transformer::TransformerConfig& config,
                                       const transformer::AttributionPatching& result);

}  // namespace headlab::formats
