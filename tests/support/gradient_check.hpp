// The gradient checker: hand-written gradients against central finite differences.
//
//   numeric(i, j) = (loss(p + h·e_ij) − loss(p − h·e_ij)) / 2h,
//   |analytic(i, j) − numeric(i, j)| ≤ absolute + relative·|numeric(i, j)|
//
// `loss` is a callable reading the matrix `parameter` (which the checker perturbs in place and
// restores), so one checker serves every model: pass a lambda that captures the parameter by
// reference. Steps and tolerances: the named GradientTolerance values in tests/core/tolerances.hpp.
#pragma once

#include "core/matrix.hpp"
#include "core/random.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace headlab::test {

using Entry = std::pair<Eigen::Index, Eigen::Index>;

// n entries of a rows × cols matrix drawn uniformly (row, then column) from pick.
inline std::vector<Entry> random_entries(Random& pick, Eigen::Index rows, Eigen::Index cols, int n) {
  std::vector<Entry> entries;
  for (int k = 0; k < n; ++k) {
    const auto i = static_cast<Eigen::Index>(pick.below(static_cast<std::uint32_t>(rows)));
    const auto j = static_cast<Eigen::Index>(pick.below(static_cast<std::uint32_t>(cols)));
    entries.emplace_back(i, j);
  }
  return entries;
}

// Every (i, j) of a rows × cols matrix.
inline std::vector<Entry> every_entry(Eigen::Index rows, Eigen::Index cols) {
  std::vector<Entry> entries;
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) entries.emplace_back(i, j);
  return entries;
}

// Central difference of loss() in entry (i, j) of parameter; the entry is restored.
template <typename Loss>
double central_difference(Loss&& loss, Matrix& parameter, Eigen::Index i, Eigen::Index j, double step) {
  const double original = parameter(i, j);
  parameter(i, j) = original + step;
  const double up = loss();
  parameter(i, j) = original - step;
  const double down = loss();
  parameter(i, j) = original;
  return (up - down) / (2 * step);
}

// Checks analytic (same shape as parameter) against central differences at the given entries
// (all of them by default). `name` labels a failure: "W_q(2, 1): analytic …, numeric …".
template <typename Loss>
void check_gradient(const std::string& name, Loss&& loss, Matrix& parameter, const Matrix& analytic,
                    const GradientTolerance& tolerance, std::vector<Entry> entries = {}) {
  REQUIRE(analytic.rows() == parameter.rows());
  REQUIRE(analytic.cols() == parameter.cols());
  if (entries.empty()) entries = every_entry(parameter.rows(), parameter.cols());
  for (const auto& [i, j] : entries) {
    const double numeric = central_difference(loss, parameter, i, j, tolerance.step);
    INFO(name << "(" << i << ", " << j << "): analytic " << analytic(i, j) << ", numeric " << numeric);
    CHECK(std::abs(analytic(i, j) - numeric) <= tolerance.absolute + tolerance.relative * std::abs(numeric));
  }
}

}  // namespace headlab::test
