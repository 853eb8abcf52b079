// Circuit faithfulness (core/circuit_faithfulness.hpp): the independent PyTorch float64 reference of
// tests/data/batch_patching/make_faithfulness_fixtures.py per pair (corrupted and mean replacement),
// its intervals bit for bit, what must hold (every head: 1; every head but one: 1 − batch patching's z
// cell; no head: 0; N = 1: mean = corrupted), and bad circuits.
#include "core/circuit_faithfulness.hpp"

#include "core/check.hpp"
#include "core/tolerances.hpp"
#include "formats/json.hpp"
#include "support/patching_fixtures.hpp"

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

const fm::JsonValue& expected() { return headlab::test::patching_reference("faithfulness_expected.json"); }

std::vector<HeadIndex> reference_circuit() {
  std::vector<HeadIndex> circuit;
  for (const auto& hd : expected().find("circuit")->items())
    circuit.push_back({static_cast<int>(hd[0].as_double()), static_cast<int>(hd[1].as_double())});
  return circuit;
}

std::vector<HeadIndex> every_head(const TransformerConfig& c) {
  std::vector<HeadIndex> all;
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h) all.push_back({l, h});
  return all;
}

// Each pair's corrupted head outputs as circuit_recovery's replacement (L × H × (T × d)).
std::vector<std::vector<Matrix>> corrupted_outputs(const PairRuns& r) {
  std::vector<std::vector<Matrix>> out;
  for (const auto& layer : r.corrupted.layers) out.push_back(layer.head_output);
  return out;
}

// The same patch by two routes (a full forward pass with a hook against batch patching's resumed pass,
// span from head_position_patching): the same operations, so equal to a few roundings of LD (≈ 10,
// ε ≈ 2e-16) divided by the span (> 0.1): 1e-12 leaves room.
constexpr double kTwoRoutesAbsolute = 1e-12;

}  // namespace

TEST_CASE("faithfulness matches the PyTorch float64 reference per pair within 1e-9", "[faithfulness]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = headlab::test::patching_pairs(w);
  const IntervalSettings s = headlab::test::reference_settings(expected());
  const double bound = headlab::test::kPatchingReferenceBound;
  for (const auto ablation : {CircuitAblation::corrupted, CircuitAblation::mean}) {
    const char* name = circuit_ablation_name(ablation);
    INFO(name);
    const auto& ref = *expected().find(name);
    const Faithfulness f = circuit_faithfulness(w, pairs, reference_circuit(), ablation, s);
    REQUIRE(f.circuit.size() == 3);
    REQUIRE(f.recovery.effects.size() == pairs.size());
    const auto& recovery = ref.find("recovery")->items();
    const auto& drop = ref.find("leave_one_out")->items();
    const auto& clean = ref.find("clean_logit_difference")->items();
    double worst = 0, ld_worst = 0, largest = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      ld_worst = std::max(ld_worst, std::abs(f.clean_logit_difference[i] - clean[i].as_double()));
      worst = std::max(worst, std::abs(f.recovery.effects[i](0, 0) - recovery[i].as_double()));
      largest = std::max(largest, std::abs(recovery[i].as_double()));
      for (std::size_t j = 0; j < 3; ++j)
        worst = std::max(
            worst, std::abs(f.leave_one_out.effects[i](static_cast<Eigen::Index>(j), 0) - drop[i][j].as_double()));
    }
    CHECK(ld_worst < headlab::test::kReferenceParityBound);
    CHECK(worst < bound);
    CHECK(largest > 0.1);  // the replacements matter: recoveries of 0 would pass the bound too
    // The statistics: from the core's values within the bound (each a mean or an order statistic of
    // values within it), and from the reference's values the reference's bits (the same draws).
    const auto& intervals = ref.find("intervals")->items();
    const ResamplingPlan plan = resampling_plan(static_cast<int>(pairs.size()), s);
    for (std::size_t row = 0; row < 4; ++row) {
      INFO("row " << row << " (0: the circuit, then without each head)");
      const PatchingGrid& g = row == 0 ? f.recovery : f.leave_one_out;
      const Eigen::Index r = row == 0 ? 0 : static_cast<Eigen::Index>(row - 1);
      const auto& want = intervals[row];
      CHECK(std::abs(g.mean(r, 0) - want.find("mean")->as_double()) < bound);
      CHECK(std::abs(g.lower(r, 0) - want.find("lower")->as_double()) < bound);
      CHECK(std::abs(g.upper(r, 0) - want.find("upper")->as_double()) < bound);
      std::vector<double> values;
      for (std::size_t i = 0; i < pairs.size(); ++i)
        values.push_back(row == 0 ? recovery[i].as_double() : drop[i][row - 1].as_double());
      const CellInterval c = cell_interval(values.data(), plan);
      CHECK(c.mean == want.find("mean")->as_double());
      CHECK(c.lower == want.find("lower")->as_double());
      CHECK(c.upper == want.find("upper")->as_double());
      CHECK(c.p_value == want.find("p_value")->as_double());
    }
  }
}

TEST_CASE("every head recovers exactly 1; every head but one is 1 − batch patching's z cell", "[faithfulness]") {
  const auto w = headlab::test::patching_model();
  const auto all_pairs = headlab::test::patching_pairs(w);
  const std::vector<PromptPair> pairs(all_pairs.begin(), all_pairs.begin() + 8);
  const IntervalSettings s;
  const BatchPatching b = batch_patching(w, pairs, s);
  for (const auto ablation : {CircuitAblation::corrupted, CircuitAblation::mean}) {
    INFO(circuit_ablation_name(ablation));
    const Faithfulness f = circuit_faithfulness(w, pairs, every_head(w.config), ablation, s);
    REQUIRE(f.leave_one_out.effects[0].rows() == 6);
    for (std::size_t i = 0; i < pairs.size(); ++i) CHECK(f.recovery.effects[i](0, 0) == 1.0);
    CHECK(f.recovery.mean(0, 0) == 1.0);
    CHECK(f.recovery.lower(0, 0) == 1.0);
    CHECK(f.recovery.upper(0, 0) == 1.0);
    if (ablation != CircuitAblation::corrupted) continue;
    double worst = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i)
      for (Eigen::Index hd = 0; hd < 6; ++hd)
        worst = std::max(worst, std::abs(f.leave_one_out.effects[i](hd, 0) -
                                         (1.0 - b.head_component.effects[i](hd, kHeadComponents - 1))));
    CHECK(worst < kTwoRoutesAbsolute);
  }
}

TEST_CASE("no head recovers 0 when the prompts share their last token; N = 1 mean is corrupted", "[faithfulness]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = headlab::test::patching_pairs(w);
  const auto& c = w.config;
  const std::vector<std::vector<bool>> none(2, std::vector<bool>(3, false));
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    REQUIRE(pairs[i].clean.back() == pairs[i].corrupted.back());
    // The last row is the clean embedding (= the corrupted one there) plus every corrupted head output
    // and b_O, summed in the forward pass's order: the corrupted run's row, bit for bit.
    const PairRuns r = pair_runs(w, pairs[i]);
    CHECK(circuit_recovery(r, none, corrupted_outputs(r)) == 0.0);
  }
  const std::vector<PromptPair> one(pairs.begin(), pairs.begin() + 1);
  const IntervalSettings s;
  const auto circuit = std::vector<HeadIndex>{{0, 2}, {1, 1}};
  const Faithfulness x = circuit_faithfulness(w, one, circuit, CircuitAblation::corrupted, s);
  const Faithfulness m = circuit_faithfulness(w, one, circuit, CircuitAblation::mean, s);
  CHECK(x.recovery.effects[0](0, 0) == m.recovery.effects[0](0, 0));
  CHECK((x.leave_one_out.effects[0].array() == m.leave_one_out.effects[0].array()).all());
  CHECK(c.n_layers == 2);
}

TEST_CASE("a circuit's pass (replaced heads skipped, leave-one-out resumed) is the hooked full pass, bit for bit",
          "[faithfulness]") {
  // The definition: the clean prompt's full forward pass whose hook overwrites each head outside the
  // circuit after computing it, LD read from its logits at the last row. circuit_recovery computes no
  // replaced head and normalises the last row alone; faithfulness's leave-one-out rows resume at the
  // dropped head's layer. Both must give the definition's bits: every one of the 64 masks of the
  // 2 × 3 model, and each circuit's leave-one-out rows, on 4 pairs, corrupted and mean replacement.
  const auto w = headlab::test::patching_model();
  const auto all_pairs = headlab::test::patching_pairs(w);
  const std::vector<PromptPair> pairs(all_pairs.begin(), all_pairs.begin() + 4);
  const auto& c = w.config;
  const auto mean = mean_corrupted_outputs(w, pairs);
  const auto hooked = [&](const PairRuns& r, const std::vector<std::vector<bool>>& kept,
                          const std::vector<std::vector<Matrix>>& replacement) {
    const HeadHook hook = [&](int l, int h, Matrix& output) {
      if (!kept[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)])
        output = replacement[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
    };
    const TransformerActivations run = transformer_forward_unchecked(w, r.clean.tokens, hook);
    return (run.logits(r.last, r.answer) - run.logits(r.last, r.wrong) - r.corrupted_ld) / r.span;
  };
  int compared = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const PairRuns r = pair_runs(w, pairs[i]);
    for (const auto* replacement : {&mean, static_cast<const std::vector<std::vector<Matrix>>*>(nullptr)}) {
      const auto outputs = replacement ? *replacement : corrupted_outputs(r);
      for (int bits = 0; bits < (1 << (c.n_layers * c.n_heads)); ++bits) {
        std::vector<std::vector<bool>> kept(2, std::vector<bool>(3, false));
        for (int k = 0; k < 6; ++k)
          kept[static_cast<std::size_t>(k / 3)][static_cast<std::size_t>(k % 3)] = (bits >> k) & 1;
        INFO("pair " << i << ", mask " << bits << (replacement ? ", mean" : ", corrupted"));
        CHECK(circuit_recovery(r, kept, outputs) == hooked(r, kept, outputs));
        ++compared;
      }
    }
  }
  CHECK(compared == 4 * 2 * 64);
  // Leave one out through circuit_faithfulness (resumed at the dropped head's layer) against the definition.
  const auto circuit = std::vector<HeadIndex>{{0, 0}, {0, 2}, {1, 1}, {1, 2}};
  const Faithfulness f = circuit_faithfulness(w, pairs, circuit, CircuitAblation::corrupted, IntervalSettings{});
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const PairRuns r = pair_runs(w, pairs[i]);
    auto kept = circuit_mask(c, circuit);
    CHECK(f.recovery.effects[i](0, 0) == hooked(r, kept, corrupted_outputs(r)));
    for (std::size_t j = 0; j < circuit.size(); ++j) {
      const auto l = static_cast<std::size_t>(circuit[j].layer), h = static_cast<std::size_t>(circuit[j].head);
      kept[l][h] = false;
      CHECK(f.leave_one_out.effects[i](static_cast<Eigen::Index>(j), 0) == hooked(r, kept, corrupted_outputs(r)));
      kept[l][h] = true;
    }
  }
}

TEST_CASE("bad circuits name the head and the bound", "[faithfulness]") {
  const auto w = headlab::test::patching_model();
  const auto all_pairs = headlab::test::patching_pairs(w);
  const std::vector<PromptPair> pairs(all_pairs.begin(), all_pairs.begin() + 2);
  const IntervalSettings s;
  using Catch::Matchers::Contains;
  const auto run = [&](const std::vector<HeadIndex>& circuit) {
    circuit_faithfulness(w, pairs, circuit, CircuitAblation::corrupted, s);
  };
  CHECK_THROWS_WITH(run({}), Contains("circuit is empty"));
  CHECK_THROWS_WITH(run({{0, 1}, {2, 0}}), Contains("circuit head 2.0: layer must lie in [0, 1]"));
  CHECK_THROWS_WITH(run({{1, 3}}), Contains("circuit head 1.3: head must lie in [0, 2]"));
  CHECK_THROWS_WITH(run({{-1, 0}}), Contains("circuit head -1.0: layer must lie in [0, 1]"));
  CHECK_THROWS_WITH(run({{1, 1}, {0, 0}, {1, 1}}), Contains("circuit head 1.1 is named twice"));
  PromptPair same = pairs[0];
  same.corrupted = same.clean;
  CHECK_THROWS_WITH(circuit_faithfulness(w, {same}, {{0, 0}}, CircuitAblation::mean, s),
                    Contains("pair 0: the clean and corrupted prompts give the same logit difference"));
  CHECK_THROWS_AS(run({{1, 3}}), InputError);
}

namespace {

const fm::JsonValue& edges_expected() { return headlab::test::patching_reference("faithfulness_edges_expected.json"); }

// Every edge between the heads of `heads` (sender in an earlier layer), q, k and v each.
std::vector<CircuitEdge> every_edge(const std::vector<HeadIndex>& heads) {
  std::vector<CircuitEdge> edges;
  for (const auto& s : heads)
    for (const auto& r : heads)
      if (s.layer < r.layer)
        for (int input = 0; input < kReceiverInputs; ++input)
          edges.push_back({{s.layer, s.head, r.layer, r.head}, input});
  return edges;
}

}  // namespace

TEST_CASE("a circuit of edges matches the PyTorch float64 reference per pair within 1e-9", "[faithfulness]") {
  const auto w = headlab::test::patching_model();
  const auto pairs = headlab::test::patching_pairs(w);
  const IntervalSettings s = headlab::test::reference_settings(edges_expected());
  const double bound = headlab::test::kPatchingReferenceBound;
  std::vector<CircuitEdge> edges;
  for (const auto& e : edges_expected().find("edges")->items()) {
    const std::string input = e[4].as_string();
    edges.push_back({{static_cast<int>(e[0].as_double()), static_cast<int>(e[1].as_double()),
                      static_cast<int>(e[2].as_double()), static_cast<int>(e[3].as_double())},
                     input == "q"   ? 0
                     : input == "k" ? 1
                                    : 2});
  }
  REQUIRE(edges.size() == 3);
  for (const auto ablation : {CircuitAblation::corrupted, CircuitAblation::mean}) {
    const char* name = circuit_ablation_name(ablation);
    INFO(name);
    const auto& ref = *edges_expected().find(name);
    const Faithfulness f = edge_circuit_faithfulness(w, pairs, edges, ablation, s);
    REQUIRE(f.circuit.size() == 3);  // H(E): 0.1, 1.0, 1.2
    REQUIRE(f.edges.size() == 3);
    const auto& recovery = ref.find("recovery")->items();
    const auto& drop = ref.find("leave_one_out")->items();
    double worst = 0, largest = 0, cut = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      worst = std::max(worst, std::abs(f.recovery.effects[i](0, 0) - recovery[i].as_double()));
      largest = std::max(largest, std::abs(recovery[i].as_double()));
      for (std::size_t j = 0; j < 3; ++j) {
        const double v = f.leave_one_out.effects[i](static_cast<Eigen::Index>(j), 0);
        worst = std::max(worst, std::abs(v - drop[i][j].as_double()));
        cut = std::max(cut, std::abs(v - f.recovery.effects[i](0, 0)));
      }
    }
    CHECK(worst < bound);
    CHECK(largest > 0.1);  // the circuit carries something
    CHECK(cut > 1e-3);     // and cutting one of its edges changes it: the test can see a wrong cut
    const auto& intervals = ref.find("intervals")->items();
    for (std::size_t row = 0; row < 4; ++row) {
      INFO("row " << row << " (0: the circuit, then without each edge)");
      const PatchingGrid& g = row == 0 ? f.recovery : f.leave_one_out;
      const Eigen::Index r = row == 0 ? 0 : static_cast<Eigen::Index>(row - 1);
      CHECK(std::abs(g.mean(r, 0) - intervals[row].find("mean")->as_double()) < bound);
      CHECK(std::abs(g.lower(r, 0) - intervals[row].find("lower")->as_double()) < bound);
      CHECK(std::abs(g.upper(r, 0) - intervals[row].find("upper")->as_double()) < bound);
    }
  }
}

TEST_CASE(
    "every edge between a set of heads is that circuit of heads, bit for bit; every edge but one is 1 − its "
    "path-patching effect",
    "[faithfulness]") {
  const auto w = headlab::test::patching_model();
  const auto all_pairs = headlab::test::patching_pairs(w);
  const std::vector<PromptPair> pairs(all_pairs.begin(), all_pairs.begin() + 6);
  const IntervalSettings s;
  // Nothing is cut: each input of a circuit head is its layer's one normalised stream, as for heads.
  for (const auto& heads : {std::vector<HeadIndex>{{0, 1}, {1, 0}, {1, 2}},
                            std::vector<HeadIndex>{{0, 0}, {0, 2}, {1, 1}}, every_head(w.config)}) {
    for (const auto ablation : {CircuitAblation::corrupted, CircuitAblation::mean}) {
      const Faithfulness by_heads = circuit_faithfulness(w, pairs, heads, ablation, s);
      const Faithfulness by_edges = edge_circuit_faithfulness(w, pairs, every_edge(heads), ablation, s);
      CHECK(by_edges.circuit.size() == heads.size());
      for (std::size_t i = 0; i < pairs.size(); ++i)
        CHECK(by_edges.recovery.effects[i](0, 0) == by_heads.recovery.effects[i](0, 0));
    }
  }
  // Two layers, every head kept: cutting edge s → r (κ) hands r's input κ the clean stream plus s's
  // change δ_s, every other input and head clean: path patching's patched pass for that edge, whose
  // effect e is 1 − this recovery. Two routes through the same operations: kTwoRoutesAbsolute.
  const auto all = every_edge(every_head(w.config));
  REQUIRE(all.size() == 27);
  const Faithfulness f = edge_circuit_faithfulness(w, pairs, all, CircuitAblation::corrupted, s);
  const PathPatching p = path_patching(w, pairs, s);
  double worst = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    CHECK(f.recovery.effects[i](0, 0) == 1.0);
    for (std::size_t j = 0; j < all.size(); ++j) {
      const Eigen::Index edge = static_cast<Eigen::Index>(j) / kReceiverInputs,
                         input = static_cast<Eigen::Index>(j) % kReceiverInputs;
      const PathEdge& pe = p.edges[static_cast<std::size_t>(edge)];
      REQUIRE((pe.sender_layer == all[j].edge.sender_layer && pe.sender_head == all[j].edge.sender_head &&
               pe.receiver_layer == all[j].edge.receiver_layer && pe.receiver_head == all[j].edge.receiver_head &&
               input == all[j].input));
      worst = std::max(worst, std::abs(f.leave_one_out.effects[i](static_cast<Eigen::Index>(j), 0) -
                                       (1.0 - p.grid.effects[i](edge, input))));
    }
  }
  CHECK(worst < kTwoRoutesAbsolute);
}

TEST_CASE("bad circuits of edges name the edge and the bound", "[faithfulness]") {
  const auto w = headlab::test::patching_model();
  const auto all_pairs = headlab::test::patching_pairs(w);
  const std::vector<PromptPair> pairs(all_pairs.begin(), all_pairs.begin() + 2);
  const IntervalSettings s;
  using Catch::Matchers::Contains;
  const auto run = [&](const std::vector<CircuitEdge>& edges) {
    edge_circuit_faithfulness(w, pairs, edges, CircuitAblation::corrupted, s);
  };
  CHECK_THROWS_WITH(run({}), Contains("circuit has no edge"));
  CHECK_THROWS_WITH(run({{{0, 1, 2, 0}, 1}}), Contains("circuit edge 0.1>2.0:k: receiver layer must lie in [0, 1]"));
  CHECK_THROWS_WITH(run({{{0, 3, 1, 0}, 0}}), Contains("circuit edge 0.3>1.0:q: sender head must lie in [0, 2]"));
  CHECK_THROWS_WITH(run({{{0, 1, 1, 0}, 3}}), Contains("circuit edge 0.1>1.0:?: input must be q, k or v"));
  CHECK_THROWS_WITH(run({{{1, 1, 1, 0}, 2}}),
                    Contains("circuit edge 1.1>1.0:v: the sender must be in an earlier layer"));
  CHECK_THROWS_WITH(run({{{0, 1, 1, 0}, 2}, {{0, 0, 1, 0}, 2}, {{0, 1, 1, 0}, 2}}),
                    Contains("circuit edge 0.1>1.0:v is named twice"));
  CHECK_THROWS_AS(run({}), InputError);
}
