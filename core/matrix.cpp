#include "core/matrix.hpp"

namespace headlab {

std::string shape_of(const Matrix& m) { return std::to_string(m.rows()) + " × " + std::to_string(m.cols()); }

}  // namespace headlab
