// The max-digit model as an attention-only transformer: 1 layer, 4 heads, d_model 64, d_head 16,
// n_ctx 9 (the prompt length), d_vocab 14, no positional embedding, no LayerNorm, zero biases.
// Its logits at ANS (position 8) equal the per-token-table forward of core/max_digit.hpp.
#pragma once

#include "core/max_digit.hpp"
#include "core/transformer.hpp"

namespace headlab::transformer {

// Validates the max-digit weights, copies them into the transformer layout, token names "0" … "ANS".
TransformerWeights from_max_digit(const max_digit::MaxDigitWeights& weights);

}  // namespace headlab::transformer
