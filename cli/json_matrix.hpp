// JSON ⇄ Matrix for the CLI: a matrix is an array of rows, each an array of numbers.
#pragma once

#include "core/matrix.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace headlab::cli {

// Reads field `name` of `object` as a rectangular, finite matrix; throws
// InputError naming the field on a missing field, ragged rows or a non-number.
Matrix matrix_field(const nlohmann::json& object, const std::string& name);
// Like matrix_field for a JSON value already in hand.
Matrix matrix_from_json(const nlohmann::json& value, const std::string& name);
nlohmann::json matrix_to_json(const Matrix& m);

}  // namespace headlab::cli
