// The feature-recovery results file (docs/feature-recovery-results.md, format
// "headlab.feature-recovery.results/1"): its one writer, used by `headlab feature-recovery`
// and by the headlab_feature_recovery WASM module (which returns the text to web/feature-recovery.js).
#pragma once

#include "core/feature_recovery_experiment.hpp"

#include <string>

namespace headlab::formats {

constexpr const char* kFeatureRecoveryResultsFormat = "headlab.feature-recovery.results/1";

// The file's text (one line, then "\n"). Version 1 of the file keeps its published names for
// two settings-vocabulary words: settings.batch (FeatureRecoverySettings::batch_size) and
// steps_done (the trainer's steps_taken).
std::string write_feature_recovery_results(const FeatureRecoveryResult& result, const std::string& headlab_version);

}  // namespace headlab::formats
