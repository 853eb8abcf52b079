// One head's queries, keys and values for some rows of a layer's normalised input, as the forward
// pass (core/transformer.cpp), its resumption after an intervention and the patching analysis
// (core/transformer_analysis.cpp) all form them — one definition, so every path gives the same bits.
//
// For head h of layer l, with x̂ the normalised rows (n × d) and g = h / (H / G) its key-value head:
//   qk_input = x̂ + W_pos[position]  (shortformer: positions enter the queries and keys only), else x̂
//   q = rotate(qk_input W_Q^h + b_Q^h),  k = rotate(qk_input W_K^g + b_K^g),  v = x̂ W_V^g + b_V^g   (n × c)
// where rotate turns each row to its position (core/rotary.hpp) for rotary positions and is the
// identity otherwise. Row r of x̂ is at position first + step·r: step 1 for consecutive rows, step 0
// for rows that are all alternatives at one position (the patching analysis).
#pragma once

#include "core/matrix.hpp"
#include "core/transformer_config.hpp"

namespace headlab::transformer {

struct RowPositions {
  long long first = 0;
  int step = 1;
};

// The key-value head query head h reads: h / (n_heads / G).
int key_value_group(const TransformerConfig& config, int head);
// qk_input of the rows: x̂ + W_pos rows for shortformer positions, else a copy of x̂.
Matrix query_key_input(const TransformerWeights& weights, const Matrix& normalized, RowPositions at);
Matrix head_queries(const TransformerWeights& weights, int layer, int head, const Matrix& qk_input, RowPositions at);
Matrix head_keys(const TransformerWeights& weights, int layer, int head, const Matrix& qk_input, RowPositions at);
Matrix head_values(const TransformerWeights& weights, int layer, int head, const Matrix& normalized);

}  // namespace headlab::transformer
