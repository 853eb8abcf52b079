// A random transformer for the core's tests: every parameter of `c` drawn from Random(seed) in
// named_parameters order, ~ N(0, scale²), with each normalisation weight (a name with "ln" ending
// in ".w") shifted by one so that LayerNorm and RMSNorm scale by ≈ 1 ± scale, not ≈ 0.
#pragma once

#include "core/random.hpp"
#include "core/transformer.hpp"

#include <cstdint>
#include <string>

namespace headlab::test {

inline transformer::TransformerWeights random_transformer(const transformer::TransformerConfig& c, std::uint64_t seed,
                                                          double scale) {
  transformer::TransformerWeights w = transformer::zero_weights(c);
  Random rng(seed);
  for (auto& p : transformer::named_parameters(w)) {
    *p.value = rng.normal_matrix(p.value->rows(), p.value->cols(), scale);
    if (p.name.find("ln") != std::string::npos && p.name.back() == 'w') p.value->array() += 1.0;
  }
  return w;
}

}  // namespace headlab::test
