#include "core/transformer_max_digit.hpp"

namespace headlab::transformer {

TransformerWeights from_max_digit(const max_digit::MaxDigitWeights& m) {
  max_digit::validate_weights(m);
  TransformerConfig c;
  c.n_layers = 1;
  c.n_heads = max_digit::kHeads;
  c.d_model = max_digit::kDModel;
  c.d_head = max_digit::kDHead;
  c.n_ctx = max_digit::kPromptLength;
  c.d_vocab = max_digit::kVocab;
  c.normalization = Normalization::none;
  c.positional_embedding = false;
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
