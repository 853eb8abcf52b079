#include "cli/json_matrix.hpp"

#include "core/check.hpp"

#include <cmath>

namespace headlab::cli {

Matrix matrix_from_json(const nlohmann::json& value, const std::string& name) {
  if (!value.is_array()) throw InputError(name + " must be an array of rows");
  const auto rows = static_cast<Eigen::Index>(value.size());
  if (rows == 0) throw InputError(name + " is empty (0 rows); it needs at least one row and one column");
  if (!value[0].is_array()) throw InputError(name + "[0] must be an array of numbers");
  const auto cols = static_cast<Eigen::Index>(value[0].size());
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& row = value[static_cast<std::size_t>(i)];
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != cols) {
      throw InputError(name + " row " + std::to_string(i) + " must have " + std::to_string(cols) +
                       " numbers like row 0 (rows must be equal in length)");
    }
    for (Eigen::Index j = 0; j < cols; ++j) {
      const auto& entry = row[static_cast<std::size_t>(j)];
      if (!entry.is_number()) {
        throw InputError(name + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is not a number");
      }
      m(i, j) = entry.get<double>();
    }
  }
  require_usable(name.c_str(), m);
  return m;
}

Matrix matrix_field(const nlohmann::json& object, const std::string& name) {
  if (!object.is_object()) throw InputError("input must be a JSON object");
  const auto it = object.find(name);
  if (it == object.end()) throw InputError("missing field \"" + name + "\"");
  return matrix_from_json(*it, name);
}

nlohmann::json matrix_to_json(const Matrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const double x = m(i, j);
      // JSON has no infinity; masked scores (−inf) are written as null.
      row.push_back(std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace headlab::cli
