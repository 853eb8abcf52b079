// Matrix vocabulary shared by the whole core.
//
// Every matrix is dense, double precision and row-major, so that a matrix of
// shape (rows × cols) crosses the WASM boundary as a Float64Array of length
// rows·cols without reordering, and row i of an input X (n × d_model) is token i.
#pragma once

#include <Eigen/Dense>

#include <string>

namespace headlab {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<double, 1, Eigen::Dynamic>;
using Vector = Eigen::VectorXd;

// "n × d" text for error messages, e.g. "2 × 3".
std::string shape_of(const Matrix& m);

}  // namespace headlab
