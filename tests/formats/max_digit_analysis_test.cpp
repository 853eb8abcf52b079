// analysis.json's one writer (formats/max_digit_analysis.hpp) against the shipped file and at the weights' limits.
#include "formats/max_digit_analysis.hpp"
#include "core/check.hpp"
#include "formats/max_digit_weights.hpp"
#include "support/shipped_data.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace headlab;
using namespace headlab::formats;
namespace md = headlab::max_digit;
using headlab::test::shipped_file;

TEST_CASE("analysis file: the shipped analysis is what the writer gives for the shipped weights",
          "[formats][max_digit_analysis]") {
  const md::MaxDigitWeights w = read_max_digit_weights(shipped_file("max-digit-seed0.json"));
  CHECK(write_max_digit_analysis(md::analyze_max_digit(w)) == shipped_file("max-digit-seed0-analysis.json"));
}

TEST_CASE("weights at the magnitude limit: every analysis stays finite, so the file has no null",
          "[formats][max_digit_weights][limits]") {
  // Every matrix rescaled so that its largest |entry| is exactly kMaxWeightMagnitude: the worst
  // case the reader admits (core/max_digit_model.hpp derives why it cannot overflow).
  md::MaxDigitWeights w = read_max_digit_weights(shipped_file("max-digit-seed0.json"));
  for (Matrix* m : md::parameter_list(w)) {
    *m *= headlab::kMaxWeightMagnitude / m->cwiseAbs().maxCoeff();  // the largest entry rounds to the limit ± 1 ulp
    *m = m->cwiseMin(headlab::kMaxWeightMagnitude).cwiseMax(-headlab::kMaxWeightMagnitude);
  }
  md::validate_weights(w);
  const std::string file = write_max_digit_analysis(md::analyze_max_digit(w));
  CHECK(file.find("null") == std::string::npos);
  CHECK(file.find("nan") == std::string::npos);
  CHECK(file.find("inf") == std::string::npos);
  // Just beyond it: refused.
  w.E(2, 3) = std::nextafter(headlab::kMaxWeightMagnitude, 2e6);
  CHECK_THROWS_WITH(md::validate_weights(w),
                    Catch::Contains("E (14 × 64) has an entry 1e+06 at row 2, column 3 beyond"));
}
