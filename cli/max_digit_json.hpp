// JSON for the max-digit transformer: the weights file and analysis.json
// (schemas in docs/max-digit-weights.md and docs/max-digit-analysis.md).
#pragma once

#include "core/max_digit_analysis.hpp"
#include "core/max_digit_training.hpp"

#include <nlohmann/json.hpp>

namespace headlab::cli {

// `training` may be null (then no "training" object is written).
nlohmann::json max_digit_weights_to_json(const max_digit::MaxDigitWeights& weights,
                                         const max_digit::MaxDigitTrainingSettings* training, double final_loss);
// Throws InputError naming the field: missing field, unknown format_version, wrong shape, non-number, non-finite.
max_digit::MaxDigitWeights max_digit_weights_from_json(const nlohmann::json& file);
// The cross-seed findings of one analysis (analysis.json "claims", headlab max-digit seeds).
nlohmann::json max_digit_claims_to_json(const max_digit::SeedClaims& claims);
nlohmann::json max_digit_analysis_to_json(const max_digit::MaxDigitAnalysis& analysis);

}  // namespace headlab::cli
