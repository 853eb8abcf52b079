// QK attribution: why a head attends where it does, as an exact sum over pairs of sources.
//
// The residual stream entering layer l is a sum of components (core/transformer.hpp), its sources:
//   resid_l = embed + pos + Σ_{l' < l, h'} head_output_{l',h'} + Σ_{l' < l} b_O^{l'}
// named "embed", "pos" (when the model has learned or shortformer positions), "L{l'}H{h'}" (every
// head of every earlier layer, layer-major) and "bias". With the normalisation's scale σ_i frozen at
// the forward pass's value (as direct logit attribution freezes the final one), it is affine in its input:
//   x̂_i = Σ_a u_a,i + β_i,   LN:  u_a,i = (c_a,i − mean(c_a,i)) / σ_i ⊙ w   (w = 1 for LNPre)
//                             RMS: u_a,i = c_a,i / σ_i ⊙ w                  (w = 1 for RMSPre; no centring)
// (u = c without normalisation), with β_i = ln.b for LN and 0 otherwise. Shortformer positions
// are not in the residual stream: they are added after the normalisation to what q and k read,
// x̂_i + W_pos[i], so their u is W_pos[i] unnormalised, a source on both sides. Head h's query and
// key split over the sources,
//   q_i = Σ_a q^a_i,  q^a_i = R(φ_i) u_a,i W_Q     k_j = Σ_b k^b_j,  k^b_j = R(φ_j) u_b,j W_K   (each 1 × c)
// R(φ_p) the rotary turn at position p (core/rotary.hpp; the identity without rotary positions),
// linear, so rotating each part keeps the sum; W_K is the key-value head's with grouped heads.
// The "bias" source carries every constant: u_bias = frozen_normalized(Σ b_O of the earlier
// layers) + β, projected, plus b_Q (query side) or b_K (key side), before the rotation. The scaled
// score splits exactly:
//   s_ij = q_i · k_j / attn_scale = Σ_a Σ_b part_ij(a, b),   part_ij(a, b) = q^a_i · k^b_j / attn_scale
// for every key j ≤ i (the causal mask comes after). Only rounding separates Σ parts from s_ij.
//
// Shapes: T = prompt length, S = number of sources = 1 (embed) + [1] (pos) + l·H + 1 (bias),
// c = d_head. Every product and dot product is core/ordered_products.hpp's: the same bits natively
// and in WASM.
#pragma once

#include "core/transformer.hpp"

#include <string>
#include <vector>

namespace headlab::transformer {

// Names of the sources of layer `layer`'s scores, in order: "embed", "pos" (when the config has
// learned or shortformer positions), "L0H0" … "L{layer−1}H{H−1}", "bias". Layer 0 has no heads before it.
std::vector<std::string> qk_source_names(const TransformerConfig& config, int layer);

// Head (layer, head)'s query and key split over the sources of its residual stream.
struct QkSourceProjections {
  std::vector<std::string> names;  // S
  std::vector<Matrix> query;       // S × (T × c): q^a, rows = positions; Σ_a q^a = q (to rounding)
  std::vector<Matrix> key;         // S × (T × c): k^b
  double score_scale = 1.0;        // 1/attn_scale (1/√c by default), the forward pass's scale of q·k
};
// `run` is transformer_forward of these weights (its σ per position is the frozen scale). Throws
// InputError naming layer or head when out of range. query and key are rotated (rotary positions).
QkSourceProjections qk_source_projections(const TransformerWeights& weights, const TransformerActivations& run,
                                          int layer, int head);

// The split of one query's scores.
struct QkAttribution {
  int layer = 0, head = 0, position = 0;
  std::vector<std::string> sources;  // S
  std::vector<Matrix> parts;         // (position + 1) × (S × S): parts[j](a, b), a query side, b key side
  RowVector scores;                  // 1 × (position + 1): s_ij as the forward pass computes it (before the mask)
};
// Throws InputError naming layer, head or position (∉ [0, T)) when out of range.
QkAttribution qk_attribution(const TransformerWeights& weights, const TransformerActivations& run, int layer, int head,
                             int position);

// Every query's split for one head: the T × T table.
struct QkAttributionTable {
  int layer = 0, head = 0, positions = 0;  // positions = T
  std::vector<std::string> sources;        // S
  std::vector<double> parts;               // T × T × S × S row-major [i][j][a][b]; zero for j > i
  Matrix scores;                           // T × T, s_ij for j ≤ i, zero above the diagonal
};
QkAttributionTable qk_attribution_table(const TransformerWeights& weights, const TransformerActivations& run, int layer,
                                        int head);

}  // namespace headlab::transformer
