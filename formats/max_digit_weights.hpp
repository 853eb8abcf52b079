// The max-digit weights file (docs/max-digit-weights.md): its one reader and one writer,
// used by `headlab max-digit` and by the headlab_max_digit WASM module (text across the boundary).
#pragma once

#include "core/max_digit_training.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>
#include <string_view>

namespace headlab::formats {

// The per-head matrices by their field name, in the file's order (readers loop over them).
using MaxDigitHeads = std::vector<Matrix> max_digit::MaxDigitWeights::*;
inline const std::array<std::pair<const char*, MaxDigitHeads>, 4> kMaxDigitHeadFields{
    {{"W_Q", &max_digit::MaxDigitWeights::W_Q},
     {"W_K", &max_digit::MaxDigitWeights::W_K},
     {"W_V", &max_digit::MaxDigitWeights::W_V},
     {"W_O", &max_digit::MaxDigitWeights::W_O}}};

// A weights file is ≈ 0.5 MB; 16 MB leaves room and still refuses a runaway file before parsing.
constexpr std::size_t kMaxDigitWeightsMaxBytes = 16u << 20;

// Throws InputError naming the field: not JSON, missing field, unknown format_version,
// a dimension or vocabulary that differs from the model's, wrong shape, non-number, non-finite.
max_digit::MaxDigitWeights read_max_digit_weights(std::string_view text, const std::string& what = "the weights file");

// The file's text (one line, then "\n"). `training` may be null (then no "training" object).
std::string write_max_digit_weights(const max_digit::MaxDigitWeights& weights,
                                    const max_digit::MaxDigitTrainingSettings* training, double final_batch_loss);

}  // namespace headlab::formats
