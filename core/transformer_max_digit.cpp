#include "core/transformer_max_digit.hpp"

namespace headlab::transformer {

TransformerWeights from_max_digit(const max_digit::MaxDigitWeights& m) {
  max_digit::validate_weights(m);
  // One layer, no normalisation, no positional embedding (the max-digit model has neither).
  TransformerConfig c = transformer_config(
      {1, max_digit::kHeads, max_digit::kDModel, max_digit::kDHead, max_digit::kPromptLength, max_digit::kVocab},
      Normalization::none, Positions::none);
  const auto& names = max_digit::vocab_names();
  c.token_names.assign(names.begin(), names.end());
  TransformerWeights w = zero_weights(c);
  w.W_E = m.E;
  for (int h = 0; h < c.n_heads; ++h) {
    w.layers[0].W_Q[h] = m.W_Q[h];
    w.layers[0].W_K[h] = m.W_K[h];
    w.layers[0].W_V[h] = m.W_V[h];
    w.layers[0].W_O[h] = m.W_O[h];
  }
  w.W_U = m.W_U;
  return w;
}

}  // namespace headlab::transformer
