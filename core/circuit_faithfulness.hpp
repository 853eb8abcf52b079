// Circuit faithfulness over a batch of prompt pairs (core/prompt_pairs.hpp): how much of the
// clean-vs-corrupted logit difference a circuit of heads carries on its own.
//
// For pair i (clean and corrupted prompts of length T, answer a, wrong b), LD = logit[a] − logit[b] at
// the last position, LD_c and LD_x on the clean and corrupted runs. A circuit C is a set of heads. The
// clean prompt is run with every head outside C replaced, at every position, by
//   corrupted:  its output on pair i's corrupted run (T × d), or
//   mean:       its output averaged over the N corrupted runs, μ_{l,h} = (Σ_i out_i, i ascending) / N
//               (T × d; every pair has length T),
// while every head in C is computed as the forward pass computes it, from the residual stream those
// replacements have changed (the model is attention only: embeddings, heads and b_O). Its logit
// difference LD_C gives the recovery
//   r_i(C) = (LD_C − LD_x) / (LD_c − LD_x)
// 1 when the circuit alone restores the clean logit difference, 0 when it carries none of it. It is
// 1 − e for batch patching's effect e (core/batch_patching.hpp) of the patch "every head outside C".
// What must hold, and the tests check:
//   C = every head      nothing is replaced: the clean run, r = 1 exactly (LD_C = LD_c bit for bit);
//   C = every head but h  (corrupted) batch patching's head_component z cell: r = 1 − e_z(h);
//   C = no head         (corrupted) the last row of the residual stream is the clean embedding plus
//                       every head's corrupted output: r = 0 when the last token of the two prompts is
//                       the same (the corrupted run's own last row);
//   N = 1               mean equals corrupted (the mean of one output is itself).
// Over the batch: the per-pair recoveries, their mean, bootstrap 95 % interval and sign-flip p-value
// (a test of "no recovery") from the ResamplingPlan of core/batch_patching.hpp (the same draws); and
// the leave-one-out table: the same for C without each of its heads in turn.
// Cost per pair: two forward passes, then 1 + |C| forward passes with the replacements (plus one
// corrupted pass per pair up front for the mean), in which a replaced head is not computed and the
// circuit without a head of layer l resumes at layer l from the circuit's own pass.
//
// A circuit of edges E (each a sender head's output read by one input κ ∈ {q, k, v} of a later
// receiver head, as path patching names them): its heads H(E) are the senders and receivers of its
// edges; every head outside H(E) is replaced as above. A head r of H(E) reads at input κ the residual
// stream in which each earlier head s of H(E) writes its output of this run when (s → r, κ) is in E,
// and its replacement when it is not (its embedding, positions, biases and the heads outside H(E) as
// above), that input normalised by r's own normalisation:
//   x̂_κ(r) = LN_{l_r}(resid_pre(l_r) − Σ_{s ∈ H(E), l_s < l_r, (s → r, κ) ∉ E} (out_s − replacement_s))
// (s in layer-then-head order). The logits read every head of H(E) as this run computes it. So
//   E = every edge between the heads of a set C  gives circuit C's recovery bit for bit (nothing is
//                        subtracted: each input is the layer's one normalised stream);
// and an edge left out cuts one path only. The leave-one-out rows are E without each of its edges
// (a full pass each).
#pragma once

#include "core/batch_patching.hpp"
#include "core/path_patching.hpp"
#include "core/prompt_pairs.hpp"
#include "core/transformer.hpp"
#include "core/transformer_analysis.hpp"

#include <functional>
#include <string>
#include <vector>

namespace headlab::transformer {

enum class CircuitAblation { corrupted, mean };
const char* circuit_ablation_name(CircuitAblation a);  // "corrupted", "mean"

// `circuit` as an L × H mask (kept[l][h] = head (l, h) is in the circuit). Throws InputError naming a
// head outside the model (its layer or head and the bound), a head named twice, or an empty circuit.
std::vector<std::vector<bool>> circuit_mask(const TransformerConfig& config, const std::vector<HeadIndex>& circuit);

// The recovery r(C) of one pair for the mask `kept` (L × H, any subset, the empty one included):
// `replacement[l][h]` (T × d) is what a head outside C writes (the corrupted run's output, or the mean).
// The bits of a full forward pass of the clean prompt (transformer_forward_unchecked) whose hook
// overwrites each head outside C, LD read from its logits at the last row.
double circuit_recovery(const PairRuns& runs, const std::vector<std::vector<bool>>& kept,
                        const std::vector<std::vector<Matrix>>& replacement);

// μ_{l,h} of every head over the corrupted prompts (L × H × (T × d)), summed i ascending from zero.
std::vector<std::vector<Matrix>> mean_corrupted_outputs(const TransformerWeights& weights,
                                                        const std::vector<PromptPair>& pairs);

// An edge of a circuit: path patching's edge (sender before receiver) and the receiver's input.
struct CircuitEdge {
  PathEdge edge;
  int input = 0;  // κ: 0 q, 1 k, 2 v
};

struct Faithfulness {
  IntervalSettings settings;
  CircuitAblation ablation = CircuitAblation::corrupted;
  int prompt_length = 0;           // T
  std::vector<HeadIndex> circuit;  // |C| (or H(E)), layer-then-head order
  std::vector<CircuitEdge> edges;  // |E| for a circuit of edges, in path_edges order then q, k, v; empty for heads
  std::vector<double> clean_logit_difference, corrupted_logit_difference;  // N
  PatchingGrid recovery;                                                   // N × (1 × 1): r_i(C), with its statistics
  // N × (|C| × 1): row j r_i(C without circuit[j]); for a circuit of edges N × (|E| × 1), row j without edges[j].
  PatchingGrid leave_one_out;
};

// Throws InputError on bad pairs (require_prompt_pairs; one prompt length), bad settings, a bad circuit
// (circuit_mask), or a pair whose clean and corrupted runs give the same logit difference.
// `progress(done, N)` is called after each pair.
Faithfulness circuit_faithfulness(const TransformerWeights& weights, const std::vector<PromptPair>& pairs,
                                  const std::vector<HeadIndex>& circuit, CircuitAblation ablation,
                                  const IntervalSettings& settings,
                                  const std::function<void(int done, int total)>& progress = nullptr);

// The edges sorted (path_edges order, then q, k, v). Throws InputError naming an edge outside the model
// (its sender's or receiver's layer or head, or an input outside q, k, v, with the bound), a sender not
// before its receiver (no path), an edge named twice, or no edge.
std::vector<CircuitEdge> checked_circuit_edges(const TransformerConfig& config, std::vector<CircuitEdge> edges);
// "l.h>l.h:κ" (κ one of q, k, v): how messages and the documents name an edge.
std::string circuit_edge_name(const CircuitEdge& e);

// Faithfulness of a circuit of edges (above); throws as circuit_faithfulness and checked_circuit_edges.
Faithfulness edge_circuit_faithfulness(const TransformerWeights& weights, const std::vector<PromptPair>& pairs,
                                       const std::vector<CircuitEdge>& edges, CircuitAblation ablation,
                                       const IntervalSettings& settings,
                                       const std::function<void(int done, int total)>& progress = nullptr);

}  // namespace headlab::transformer
