// Path patching over a batch (core/path_patching.hpp) against the independent PyTorch float64
// reference of tests/data/batch_patching/make_path_fixtures.py, an edge that cannot carry anything,
// and bad input.
#include "core/path_patching.hpp"

#include "core/check.hpp"
#include "core/tolerances.hpp"
#include "support/patching_fixtures.hpp"
#include "formats/json.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using headlab::InputError;
using headlab::Matrix;
using headlab::PromptPair;
using namespace headlab::transformer;
namespace fm = headlab::formats;

namespace {

const fm::JsonValue& expected() { return headlab::test::patching_reference("path_expected.json"); }

IntervalSettings fixture_settings() { return headlab::test::reference_settings(expected()); }

IntervalSettings quick_settings() {
  IntervalSettings s;
  s.resamples = s.permutations = kMinResamples;
  return s;
}

}  // namespace

TEST_CASE("path patching matches the PyTorch float64 reference per pair within 1e-9", "[path_patching]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = headlab::test::patching_pairs(w);
  REQUIRE(pairs.size() == 66);
  const PathPatching p = path_patching(w, pairs, fixture_settings());
  // 2 layers × 3 heads: every layer-0 head into every layer-1 head.
  const auto& edges = expected().find("edges")->items();
  REQUIRE(p.edges.size() == 9);
  REQUIRE(edges.size() == 9);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    CHECK(p.edges[e].sender_layer == edges[e][0].as_double());
    CHECK(p.edges[e].sender_head == edges[e][1].as_double());
    CHECK(p.edges[e].receiver_layer == edges[e][2].as_double());
    CHECK(p.edges[e].receiver_head == edges[e][3].as_double());
  }
  const auto& clean = expected().find("clean_logit_difference")->items();
  const auto& corrupted = expected().find("corrupted_logit_difference")->items();
  double ld_worst = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    ld_worst = std::max(ld_worst, std::abs(p.clean_logit_difference[i] - clean[i].as_double()));
    ld_worst = std::max(ld_worst, std::abs(p.corrupted_logit_difference[i] - corrupted[i].as_double()));
  }
  CHECK(ld_worst < headlab::test::kReferenceParityBound);
  const auto& ref = expected().find("effects")->items();
  REQUIRE(p.grid.effects.size() == ref.size());
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const Matrix m = fm::matrix_from_json(ref[i], "effects");
    REQUIRE(m.rows() == 9);
    REQUIRE(m.cols() == kReceiverInputs);
    worst = std::max(worst, (m - p.grid.effects[i]).cwiseAbs().maxCoeff());
    largest = std::max(largest, m.cwiseAbs().maxCoeff());
  }
  CHECK(worst < headlab::test::kPatchingReferenceBound);
  CHECK(largest > 0.1);  // the paths carry something: a grid of zeros would pass the bound too
  // Mean and interval ends are means of effects (each within the bound of the reference's).
  int crossing = 0;
  for (const char* key : {"mean", "lower", "upper"}) {
    INFO(key);
    const Matrix want = fm::matrix_from_json(*expected().find(key), key);
    const Matrix& got = std::string(key) == "mean"    ? p.grid.mean
                        : std::string(key) == "lower" ? p.grid.lower
                                                      : p.grid.upper;
    CHECK((want - got).cwiseAbs().maxCoeff() < headlab::test::kPatchingReferenceBound);
  }
  for (Eigen::Index e = 0; e < 9; ++e)
    for (Eigen::Index k = 0; k < kReceiverInputs; ++k) crossing += p.grid.lower(e, k) <= 0 && p.grid.upper(e, k) >= 0;
  CHECK(crossing > 0);
  CHECK(crossing < 27);
}

TEST_CASE("a receiver whose queries ignore their input carries nothing through q", "[path_patching]") {
  auto w = headlab::test::patching_model();
  // Receiver head 1 of layer 1: W_Q = 0 makes q = b_Q at every position whatever the input, so the
  // path into its query changes no bit; its key and value paths still carry the sender's change.
  w.layers[1].W_Q[1].setZero();
  const auto pairs = headlab::test::patching_pairs(w);
  const std::vector<PromptPair> few(pairs.begin(), pairs.begin() + 4);
  const PathPatching p = path_patching(w, few, quick_settings());
  int checked = 0;
  for (std::size_t e = 0; e < p.edges.size(); ++e) {
    if (p.edges[e].receiver_head != 1) continue;
    ++checked;
    for (const Matrix& m : p.grid.effects) {
      CHECK(m(static_cast<Eigen::Index>(e), 0) == 0.0);
      CHECK(m(static_cast<Eigen::Index>(e), 2) != 0.0);
    }
    CHECK(p.grid.lower(static_cast<Eigen::Index>(e), 0) == 0.0);
    CHECK(p.grid.upper(static_cast<Eigen::Index>(e), 0) == 0.0);
  }
  CHECK(checked == 3);
}

TEST_CASE("path patching names bad input", "[path_patching]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = headlab::test::patching_pairs(w);
  std::vector<PromptPair> few(pairs.begin(), pairs.begin() + 3);
  few[2].clean.push_back(1);
  few[2].corrupted.push_back(1);
  CHECK_THROWS_WITH(path_patching(w, few, quick_settings()), Catch::Contains("pair 2 has 7 tokens, pair 0 has 6"));
  few.assign(pairs.begin(), pairs.begin() + 3);
  few[1].corrupted = few[1].clean;
  CHECK_THROWS_WITH(path_patching(w, few, quick_settings()),
                    Catch::Contains("pair 1: the clean and corrupted prompts give the same logit difference"));
  few.assign(pairs.begin(), pairs.begin() + 3);
  few[0].answer = 17;
  CHECK_THROWS_WITH(path_patching(w, few, quick_settings()), Catch::Contains("pair 0 answer = 17 is outside [0, 17)"));
  IntervalSettings s = quick_settings();
  s.permutations = 99;
  CHECK_THROWS_WITH(path_patching(w, {pairs[0]}, s), Catch::Contains("permutations"));
  auto one_layer = w;
  one_layer.config.n_layers = 1;
  one_layer.layers.resize(1);
  CHECK_THROWS_WITH(path_patching(one_layer, {pairs[0]}, quick_settings()),
                    Catch::Contains("path patching needs at least 2 layers"));
}
