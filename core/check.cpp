#include "core/check.hpp"

#include <cmath>
#include <cstdio>

namespace headlab {

void require_nonempty(const char* name, const Matrix& m) {
  if (m.rows() == 0 || m.cols() == 0) {
    throw InputError(std::string(name) + " is empty (" + shape_of(m) + "); it needs at least one row and one column");
  }
}

void require_finite(const char* name, const Matrix& m) {
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      if (!std::isfinite(m(i, j))) {
        throw InputError(std::string(name) + " (" + shape_of(m) + ") has a non-finite entry " +
                         std::to_string(m(i, j)) + " at row " + std::to_string(i) + ", column " + std::to_string(j));
      }
    }
  }
}

void require_bounded(const char* name, const Matrix& m, double bound) {
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const double x = m(i, j);
      if (!std::isfinite(x)) {
        throw InputError(std::string(name) + " (" + shape_of(m) + ") has a non-finite entry " + number_text(x) +
                         " at row " + std::to_string(i) + ", column " + std::to_string(j));
      }
      if (!(std::fabs(x) <= bound)) {
        throw InputError(std::string(name) + " (" + shape_of(m) + ") has an entry " + number_text(x) + " at row " +
                         std::to_string(i) + ", column " + std::to_string(j) + " beyond the magnitude limit ±" +
                         number_text(bound) + " (larger entries overflow the computation)");
      }
    }
  }
}

std::string seed_range_message(const std::string& name, const std::string& got) {
  return name + " must be an integer in [0, " + std::to_string(kMaxSeed) + "], got \"" + got + "\"";
}

std::string number_text(double x) {
  // printf's %.6g, as an ostream at precision 6 prints; not <sstream>, whose locale machinery
  // would add ~40 KB gzip to every WASM module (tests/browser/sizes.test.mjs).
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

void require_shape(const char* name, const Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() != rows || m.cols() != cols) {
    throw InputError(std::string(name) + " must be " + std::to_string(rows) + " × " + std::to_string(cols) + ", got " +
                     shape_of(m));
  }
}

void require_usable(const char* name, const Matrix& m) {
  require_nonempty(name, m);
  require_finite(name, m);
}

void require_integer_in(const char* name, long long value, long long low, long long high) {
  if (value < low || value > high) {
    throw InputError(std::string(name) + " must lie in [" + std::to_string(low) + ", " + std::to_string(high) +
                     "], got " + std::to_string(value));
  }
}

void require_number_in(const char* name, double value, double low, double high) {
  if (!(std::isfinite(value) && value >= low && value <= high)) {
    throw InputError(std::string(name) + " must lie in [" + number_text(low) + ", " + number_text(high) + "], got " +
                     number_text(value));
  }
}

void require_scale(const char* name, double value, double high) {
  if (!(std::isfinite(value) && value > 0.0 && value <= high)) {
    throw InputError(std::string(name) + " must lie in (0, " + number_text(high) + "], got " + number_text(value));
  }
}

void require_positive(const char* name, double value) {
  if (!(std::isfinite(value) && value > 0.0)) {
    throw InputError(std::string(name) + " must be finite and > 0, got " + number_text(value));
  }
}

void require_nonnegative(const char* name, double value) {
  if (!(std::isfinite(value) && value >= 0.0)) {
    throw InputError(std::string(name) + " must be finite and ≥ 0, got " + number_text(value));
  }
}

void require_index(const char* name, Eigen::Index index, Eigen::Index size) {
  if (index < 0 || index >= size) {
    throw InputError(std::string(name) + " = " + std::to_string(index) + " is out of range [0, " +
                     std::to_string(size) + ")");
  }
}

void require_adamw_rates(double learning_rate, double weight_decay) {
  require_positive("learning_rate", learning_rate);
  require_nonnegative("weight_decay", weight_decay);
  if (!(learning_rate * weight_decay < 1)) {
    throw InputError(
        "learning_rate × weight_decay must be below 1 (AdamW multiplies each weight by 1 − their product per step), got " +
        number_text(learning_rate) + " × " + number_text(weight_decay) + " = " +
        number_text(learning_rate * weight_decay));
  }
}

}  // namespace headlab
