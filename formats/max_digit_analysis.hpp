// The max-digit analysis file (docs/max-digit-analysis.md) and the cross-seed claims file
// (`headlab max-digit seeds`, site/pages/data/max-digit-seeds-0-9.json): their one writer,
// used by `headlab max-digit` and by the headlab_max_digit WASM module (which returns the text).
#pragma once

#include "core/max_digit_analysis.hpp"
#include "core/max_digit_training.hpp"

#include <string>
#include <vector>

namespace headlab::formats {

// analysis.json's text (one line, then "\n").
std::string write_max_digit_analysis(const max_digit::MaxDigitAnalysis& analysis);

struct MaxDigitSeedRow {
  long long seed = 0;
  double final_batch_loss = 0;
  max_digit::SeedClaims claims;
};
// The seeds file's text: the shared recipe (seed aside) and one claims row per seed.
std::string write_max_digit_seeds(const max_digit::MaxDigitTrainingSettings& recipe,
                                  const std::vector<MaxDigitSeedRow>& rows);

}  // namespace headlab::formats
