// The shipped data files (site/pages/data/), which the formats' tests read and regenerate byte for byte.
#pragma once

#include "formats/file_io.hpp"

#include <string>

namespace headlab::test {

// The text of site/pages/data/<name>.
inline std::string shipped_file(const std::string& name) {
  return formats::read_text_file(std::string(HEADLAB_SHIPPED_DATA) + "/" + name, "shipped");
}

}  // namespace headlab::test
