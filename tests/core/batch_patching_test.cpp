// Activation patching over a batch (core/batch_patching.hpp) against the independent PyTorch float64
// reference of tests/data/batch_patching/make_fixtures.py, the interval statistics bit for bit, the
// pair generators of the induction and max-digit tasks, and bad input.
#include "core/batch_patching.hpp"

#include "core/check.hpp"
#include "core/induction_task.hpp"
#include "core/max_digit_task.hpp"
#include "core/path_patching.hpp"
#include "core/random.hpp"
#include "core/tolerances.hpp"
#include "support/patching_fixtures.hpp"
#include "core/transformer_analysis.hpp"
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

const fm::JsonValue& expected() { return headlab::test::patching_reference("expected.json"); }

IntervalSettings fixture_settings() { return headlab::test::reference_settings(expected()); }

const char* const kGrids[] = {"head_position", "resid_position", "head_component"};

const PatchingGrid& grid_of(const BatchPatching& b, int g) {
  return g == 0 ? b.head_position : g == 1 ? b.resid_position : b.head_component;
}

// pairs of one length whose corrupted prompt changes one token of the clean one (a random model).
std::vector<PromptPair> small_pairs(const TransformerWeights& w, int count) {
  std::vector<PromptPair> pairs;
  for (int i = 0; i < count; ++i) {
    PromptPair p;
    p.clean = {(3 * i) % 17, (5 * i + 1) % 17, 7, (i + 2) % 17, 4};
    p.corrupted = p.clean;
    p.corrupted[1] = (p.clean[1] + 3) % 17;
    p.answer = (i + 5) % w.config.d_vocab;
    p.wrong = (i + 9) % w.config.d_vocab;
    pairs.push_back(p);
  }
  return pairs;
}

}  // namespace

TEST_CASE("batch patching matches the PyTorch float64 reference per pair within 1e-9", "[batch_patching]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = headlab::test::patching_pairs(w);
  REQUIRE(pairs.size() == 66);
  const BatchPatching b = batch_patching(w, pairs, fixture_settings());
  const double bound = headlab::test::kPatchingReferenceBound;
  const auto& clean = expected().find("clean_logit_difference")->items();
  const auto& corrupted = expected().find("corrupted_logit_difference")->items();
  double worst = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    worst = std::max(worst, std::abs(b.clean_logit_difference[i] - clean[i].as_double()));
    worst = std::max(worst, std::abs(b.corrupted_logit_difference[i] - corrupted[i].as_double()));
  }
  CHECK(worst < headlab::test::kReferenceParityBound);
  for (int g = 0; g < 3; ++g) {
    INFO(kGrids[g]);
    const auto& ref = expected().find(kGrids[g])->find("effects")->items();
    const PatchingGrid& grid = grid_of(b, g);
    REQUIRE(grid.effects.size() == ref.size());
    double grid_worst = 0, largest = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const Matrix m = fm::matrix_from_json(ref[i], "effects");
      REQUIRE(m.rows() == grid.effects[i].rows());
      REQUIRE(m.cols() == grid.effects[i].cols());
      grid_worst = std::max(grid_worst, (m - grid.effects[i]).cwiseAbs().maxCoeff());
      largest = std::max(largest, m.cwiseAbs().maxCoeff());
    }
    CHECK(grid_worst < bound);
    CHECK(largest > 0.1);  // the patches have effects: a grid of zeros would pass the bound too
  }
}

TEST_CASE("cell intervals are the reference's bits for the reference's per-pair effects", "[batch_patching]") {
  const IntervalSettings s = fixture_settings();
  const ResamplingPlan plan = resampling_plan(66, s);
  REQUIRE(plan.words == 2);
  int cells = 0, crossing = 0;
  for (const char* name : kGrids) {
    INFO(name);
    const auto& ref = *expected().find(name);
    const auto& effects = ref.find("effects")->items();
    const Matrix mean = fm::matrix_from_json(*ref.find("mean"), "mean");
    const Matrix lower = fm::matrix_from_json(*ref.find("lower"), "lower");
    const Matrix upper = fm::matrix_from_json(*ref.find("upper"), "upper");
    const Matrix p = fm::matrix_from_json(*ref.find("p_value"), "p_value");
    for (Eigen::Index r = 0; r < mean.rows(); ++r) {
      for (Eigen::Index c = 0; c < mean.cols(); ++c) {
        std::vector<double> e;
        for (const auto& pair : effects)
          e.push_back(pair[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)].as_double());
        const CellInterval got = cell_interval(e.data(), plan);
        INFO("cell " << r << ", " << c);
        CHECK(got.mean == mean(r, c));
        CHECK(got.lower == lower(r, c));
        CHECK(got.upper == upper(r, c));
        CHECK(got.p_value == p(r, c));
        ++cells;
        if (got.lower <= 0 && got.upper >= 0) ++crossing;
      }
    }
  }
  // Both kinds of cell occur: intervals that exclude 0 and intervals that cross it.
  CHECK(crossing > 0);
  CHECK(crossing < cells);
}

TEST_CASE("one pair's head grid is 1 − head_position_patching, bit for bit", "[batch_patching]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = small_pairs(w, 3);
  IntervalSettings s;
  s.resamples = s.permutations = 100;
  const BatchPatching b = batch_patching(w, pairs, s);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto single = head_position_patching(w, pairs[i].clean, pairs[i].corrupted, pairs[i].answer, pairs[i].wrong);
    CHECK(b.head_position.effects[i] == (1.0 - single.normalised.array()).matrix());
    // Patching the residual stream where both prompts hold the same token and nothing before it
    // differs (position 0) changes nothing: exactly 0.
    CHECK(b.resid_position.effects[i](0, 0) == 0.0);
    // Patching the whole residual stream entering layer 0 at the corrupted position, then at the last
    // position of the last layer's input: the first moves part of LD, the second is the corrupted LD
    // only if nothing else differs — at least it is not 0.
    CHECK(b.resid_position.effects[i](0, 1) != 0.0);
  }
}

TEST_CASE("a run stepped a few pairs at a time gives batch_patching's bits", "[batch_patching]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = small_pairs(w, 7);
  IntervalSettings s;
  s.resamples = s.permutations = 100;
  s.seed = 4;
  const BatchPatching whole = batch_patching(w, pairs, s);
  BatchPatchingRun run(w, pairs, s);
  CHECK(run.done() == 0);
  CHECK(run.total() == 7);
  CHECK_THROWS_WITH(run.result(), Catch::Contains("7 of 7 pairs left"));
  CHECK(run.step(3) == 3);
  CHECK(run.step(3) == 6);
  CHECK_THROWS_WITH(run.result(), Catch::Contains("1 of 7 pairs left"));
  CHECK(run.step(3) == 7);  // only one was left
  CHECK(run.step(1) == 7);
  const BatchPatching stepped = run.result();
  CHECK(stepped.clean_logit_difference == whole.clean_logit_difference);
  for (int g = 0; g < 3; ++g) {
    INFO(kGrids[g]);
    const PatchingGrid &a = grid_of(stepped, g), &b = grid_of(whole, g);
    CHECK(a.effects == b.effects);
    CHECK(a.mean == b.mean);
    CHECK(a.lower == b.lower);
    CHECK(a.upper == b.upper);
    CHECK(a.p_value == b.p_value);
  }
  CHECK_THROWS_WITH(run.step(0), Catch::Contains("pairs per step"));
  // The checks batch_patching makes up front, before any pair: a bad pair, bad settings.
  auto bad = pairs;
  bad[5].wrong = bad[5].answer;
  CHECK_THROWS_WITH(BatchPatchingRun(w, bad, s), Catch::Contains("pair 5: answer and wrong are both"));
  s.permutations = 10001;
  CHECK_THROWS_WITH(BatchPatchingRun(w, pairs, s), Catch::Contains("permutations"));
}

TEST_CASE("the same seed gives the same intervals; another seed other resamples", "[batch_patching]") {
  IntervalSettings s;
  s.resamples = s.permutations = 100;
  const auto a = resampling_plan(70, s), b = resampling_plan(70, s);
  CHECK(a.indices == b.indices);
  CHECK(a.signs == b.signs);
  s.seed = 1;
  const auto c = resampling_plan(70, s);
  CHECK(a.indices != c.indices);
  CHECK(a.signs != c.signs);
  // Every effect 0: interval [0, 0], p = 1 (every permutation is as extreme as the observation).
  const std::vector<double> zeros(70, 0.0);
  const CellInterval z = cell_interval(zeros.data(), a);
  CHECK(z.mean == 0.0);
  CHECK(z.lower == 0.0);
  CHECK(z.upper == 0.0);
  CHECK(z.p_value == 1.0);
  // Every effect 1: interval [1, 1]; only the all-plus and all-minus sign vectors reach |mean| = 1,
  // so p = (1 + those) / 101, below 0.02.
  const std::vector<double> ones(70, 1.0);
  const CellInterval o = cell_interval(ones.data(), a);
  CHECK(o.lower == 1.0);
  CHECK(o.upper == 1.0);
  CHECK(o.p_value < 0.02);
}

TEST_CASE("batch patching names bad input", "[batch_patching]") {
  const auto w = headlab::test::patching_model();
  IntervalSettings s;
  s.resamples = s.permutations = 100;
  auto pairs = small_pairs(w, 3);
  pairs[2].clean.push_back(1);
  pairs[2].corrupted.push_back(1);
  CHECK_THROWS_WITH(batch_patching(w, pairs, s), Catch::Contains("pair 2 has 6 tokens, pair 0 has 5"));
  pairs = small_pairs(w, 3);
  pairs[1].corrupted = pairs[1].clean;  // LD_clean = LD_corrupted
  CHECK_THROWS_WITH(batch_patching(w, pairs, s),
                    Catch::Contains("pair 1: the clean and corrupted prompts give the same"));
  pairs = small_pairs(w, 3);
  pairs[0].corrupted.pop_back();
  CHECK_THROWS_WITH(batch_patching(w, pairs, s), Catch::Contains("pair 0: the corrupted prompt has 4 tokens"));
  pairs = small_pairs(w, 3);
  pairs[1].clean[3] = 17;
  CHECK_THROWS_WITH(batch_patching(w, pairs, s),
                    Catch::Contains("pair 1 clean: token 17 at position 3 is outside [0, 17)"));
  pairs = small_pairs(w, 3);
  pairs[2].wrong = pairs[2].answer;
  CHECK_THROWS_WITH(batch_patching(w, pairs, s), Catch::Contains("pair 2: answer and wrong are both"));
  CHECK_THROWS_WITH(batch_patching(w, small_pairs(w, headlab::kMaxPromptPairs + 1), s),
                    Catch::Contains("at most 1024 prompt pairs, got 1025"));
  CHECK_THROWS_WITH(batch_patching(w, {}, s), Catch::Contains("at least one prompt pair"));
  s.resamples = 99;
  CHECK_THROWS_WITH(batch_patching(w, small_pairs(w, 2), s), Catch::Contains("resamples"));
  s.resamples = 100;
  s.permutations = 10001;
  CHECK_THROWS_WITH(batch_patching(w, small_pairs(w, 2), s), Catch::Contains("permutations"));
}

TEST_CASE("induction pairs: a repeated block, its earlier last token corrupted", "[batch_patching]") {
  const auto c = induction_default_config();  // n_ctx 24, d_vocab 32: m = 12
  const auto pairs = induction_pairs(c, 3, 50);
  REQUIRE(pairs.size() == 50);
  for (const auto& p : pairs) {
    REQUIRE(p.clean.size() == 23);
    std::vector<int> block(p.clean.begin(), p.clean.begin() + 12);
    std::sort(block.begin(), block.end());
    CHECK(std::adjacent_find(block.begin(), block.end()) == block.end());  // distinct
    for (int i = 0; i < 11; ++i) CHECK(p.clean[12 + i] == p.clean[i]);
    CHECK(p.answer == p.clean[11]);
    CHECK(!std::binary_search(block.begin(), block.end(), p.wrong));
    for (int i = 0; i < 23; ++i) CHECK(p.corrupted[i] == (i == 10 ? p.wrong : p.clean[i]));
  }
  CHECK(induction_pairs(c, 3, 50)[49].clean == pairs[49].clean);
  CHECK(induction_pairs(c, 4, 50)[0].clean != pairs[0].clean);
  CHECK_THROWS_WITH(induction_pairs(c, 3, 1025), Catch::Contains("count must lie in [1, 1024], got 1025"));
  auto small = c;
  small.d_vocab = 12;
  CHECK_THROWS_WITH(induction_pairs(small, 3, 1), Catch::Contains("d_vocab ≥ n_ctx/2 + 1 = 13"));
}

TEST_CASE("max-digit pairs: the maximum lowered everywhere it occurs", "[batch_patching]") {
  namespace md = headlab::max_digit;
  const auto pairs = md::max_digit_pairs(9, 200);
  REQUIRE(pairs.size() == 200);
  int lowered_by_more_than_one = 0;
  for (const auto& p : pairs) {
    REQUIRE(p.clean.size() == md::kPromptLength);
    REQUIRE(p.corrupted.size() == md::kPromptLength);
    CHECK(p.answer > p.wrong);
    int clean_max = -1, corrupted_max = -1;
    for (int i = md::kFirstDigitPosition; i < md::kSepPosition; ++i) {
      if (p.clean[i] < md::kDigits) clean_max = std::max(clean_max, p.clean[i]);
      if (p.corrupted[i] < md::kDigits) corrupted_max = std::max(corrupted_max, p.corrupted[i]);
      CHECK((p.clean[i] == p.corrupted[i]) == (p.clean[i] != p.answer));
    }
    CHECK(clean_max == p.answer);
    CHECK(corrupted_max == p.wrong);
    if (p.answer - p.wrong > 1) ++lowered_by_more_than_one;
  }
  CHECK(lowered_by_more_than_one > 0);
  CHECK_THROWS_WITH(md::max_digit_pairs(9, 0), Catch::Contains("count must lie in [1, 1024], got 0"));
}

namespace {

// Doubles held by one run's matrices and vectors (every field of TransformerActivations).
double held_doubles(const TransformerActivations& a) {
  double n = static_cast<double>(a.embed.size() + a.pos_embed.size() + a.final_normalized.size() +
                                 a.final_scale.size() + a.logits.size());
  for (const auto& la : a.layers) {
    n += static_cast<double>(la.resid_pre.size() + la.normalized.size() + la.scale.size() + la.qk_input.size() +
                             la.resid_post.size());
    for (const auto* heads : {&la.q, &la.k, &la.v, &la.pattern, &la.z, &la.head_output})
      for (const Matrix& m : *heads) n += static_cast<double>(m.size());
  }
  return n;
}

}  // namespace

TEST_CASE("pair runs hold the bytes pair_working_bytes counts, with the last row's logits only", "[batch_patching]") {
  // LayerNorm and shortformer positions: every field of the formula is allocated (qk_input, scales).
  const TransformerConfig c =
      transformer_config({2, 3, 8, 4, 12, 29}, Normalization::layer_norm, Positions::shortformer);
  TransformerWeights w = zero_weights(c);
  headlab::Random rng(3);
  for (auto& p : named_parameters(w)) *p.value = rng.normal_matrix(p.value->rows(), p.value->cols(), 0.5);
  const PromptPair pair{{1, 5, 9, 2, 7, 1, 5}, {1, 5, 9, 3, 7, 1, 5}, 9, 4};
  const PairRuns r = pair_runs(w, pair);
  const double T = static_cast<double>(pair.clean.size());
  CHECK(8.0 * (held_doubles(r.clean) + held_doubles(r.corrupted)) == pair_working_bytes(c, T, 0));
  CHECK(pair_working_bytes(c, T, 5) - pair_working_bytes(c, T, 0) == 8.0 * 5 * T * c.d_model);
  // The one row kept is the full pass's last row, bit for bit.
  const TransformerActivations full = transformer_forward(w, pair.clean);
  REQUIRE(r.clean.logits.rows() == 1);
  CHECK(r.clean.logits_from == full.logits.rows() - 1);
  CHECK(Matrix(r.clean.logits.row(0)) == Matrix(full.logits.row(full.logits.rows() - 1)));
  CHECK(r.clean_ld == full.logits(6, 9) - full.logits(6, 4));
}

TEST_CASE("a pairs analysis too large for its memory bound is refused before it allocates", "[batch_patching]") {
  // The ARENA induction model's shape and its induction pairs: 2·⌊2048/2⌋ − 1 = 2047 tokens.
  const TransformerConfig arena = transformer_config({2, 12, 768, 64, 2048, 50278});
  const double bytes = pair_working_bytes(arena, 2047, 0);
  CHECK(bytes > kMaxPairWorkingBytes);
  std::string message;
  try {
    require_pair_memory(arena, 2047, "path patching", 8);
  } catch (const InputError& e) {
    message = e.what();
  }
  INFO(message);
  // The longest prompt that fits: the bound holds at it and fails one token later.
  std::size_t fits = 0;
  while (pair_working_bytes(arena, static_cast<double>(fits + 1), 8) <= kMaxPairWorkingBytes) ++fits;
  CHECK(fits > 64);
  CHECK(fits < 2047);
  CHECK(message.rfind("path patching of prompt pairs of 2047 tokens would hold about ", 0) == 0);
  CHECK(message.find("24 attention patterns of T × T each); the limit is 1024 MiB: prompt pairs of at most " +
                     std::to_string(fits) + " tokens fit this model") != std::string::npos);
  CHECK_NOTHROW(require_pair_memory(arena, fits, "path patching", 8));
  CHECK_THROWS_AS(require_pair_memory(arena, fits + 1, "path patching", 8), InputError);

  // Each analysis checks before its first pass: a small model with long induction pairs (16 heads
  // a layer, T = 2047: two runs' patterns alone are 2 · 2 · 16 · 2047² · 8 B ≈ 2 GiB).
  const TransformerConfig wide = transformer_config({2, 16, 16, 4, 2048, 3000});
  TransformerWeights w = zero_weights(wide);
  const auto pairs = induction_pairs(wide, 1, 1);
  REQUIRE(pairs[0].clean.size() == 2047);
  const IntervalSettings settings{};
  const auto refused = [](const std::string& analysis) {
    return Catch::Matchers::StartsWith(analysis + " of prompt pairs of 2047 tokens would hold about ");
  };
  CHECK_THROWS_WITH(BatchPatchingRun(w, pairs, settings), refused("activation patching"));
  CHECK_THROWS_WITH(path_patching(w, pairs, settings), refused("path patching"));
}
