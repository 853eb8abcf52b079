// The circuit-faithfulness document `headlab model analyze --faithfulness` writes and the WASM module
// returns (core/circuit_faithfulness.hpp; docs/own-model.md "Circuit faithfulness"). Keys in this order:
//
//   {"pairs": N, "prompt_length": T, "resamples": B, "permutations": K, "seed": S, "confidence": 0.95,
//    "ablation": "corrupted" | "mean",
//    "circuit": [[layer, head], …]                                  (|C|, layer-then-head order)
//    "edges": [[l_s, h_s, l_r, h_r, "q" | "k" | "v"], …]            (a circuit of edges only: |E|,
//                                                                    path_edges order then q, k, v;
//                                                                    "circuit" is then H(E))
//    "clean_logit_difference": [N], "corrupted_logit_difference": [N],
//    "recovery": <row>,
//    "leave_one_out": [{"layer": l, "head": h, <row>}, …]}          (|C|, the circuit's order; for a
//                                                                    circuit of edges {"edge": [...], <row>}
//                                                                    per edge, in "edges" order)
//   <row> = "mean": m, "lower": lo, "upper": hi, "p_value": p, "pairs": [N]
//
// recovery = (LD_C − LD_corrupted)/(LD_clean − LD_corrupted) per pair (1: the circuit alone restores the
// clean logit difference; 0: it carries none of it); a leave-one-out row is the same for the circuit
// without that head (or that edge). lower/upper: the percentile bootstrap 95 % interval of the mean over the N pairs;
// p_value: the sign-flip permutation test of "no recovery" (recoveries symmetric about 0). Every
// number is finite (a pair with nothing to normalise by is refused before anything is written).
#pragma once

#include "core/circuit_faithfulness.hpp"

#include <string>

namespace headlab::formats {

std::string write_faithfulness(const transformer::Faithfulness& result);

}  // namespace headlab::formats
