// The induction phase change of the default recipe (core/transformer_training.hpp) and the claims of
// the article "Induction heads, trained in your browser" (site/pages/articles/induction-heads.html),
// for seeds 0–9. Each seed is trained ONCE (1,800 steps, ≈ 3.5 s of CPU) and every claim about it is
// read from that one run; they are "acceptance" cases, which the sanitized run skips.
//
// What is measured, as the CLI (`headlab model train`) and the page (`headlab model analyze`'s
// defaults: 32 repeated random sequences of period n_ctx/2 = 12 from seed 0, mean ablation) measure it:
//   - passed: the first step, checked every 50 steps on 16 sequences, at which the best head's induction
//     score exceeds 0.4 (the page's phase-change marker);
//   - the in-context loss (mean next-token loss on the repeated half, 64 sequences) before and after;
//   - each head's previous-token and induction score, and the in-context loss with each head
//     mean-ablated (32 sequences, as on the page);
//   - the previous-token score on the FIRST copy: mean attention from p to p − 1 over the positions
//     p ∈ [1, m) of the first copy of the repeated block (m = 12). TransformerLens's score averages over
//     the repeated half, where the induction head's queries sit; the previous-token heads of these
//     models are needed where the induction head's keys sit — in the first copy — and act mostly there.
// The thresholds are the article's round numbers; each lies outside the range of the ten seeds'
// values (the comment at each check gives the range measured), so none is a fitted tolerance.
#include "core/batch_patching.hpp"
#include "core/circuit_faithfulness.hpp"
#include "core/head_composition.hpp"
#include "core/induction_task.hpp"
#include "core/path_patching.hpp"
#include "core/qk_attribution.hpp"
#include "core/transformer_analysis.hpp"
#include "core/transformer_training.hpp"
#include "formats/json.hpp"
#include "formats/transformer_model.hpp"
#include "support/shipped_data.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

using namespace headlab::transformer;

namespace {

struct SeedRun {
  long passed = -1;
  std::vector<double> checked_loss;  // in-context loss on the 16 sequences of the check at step 50, 100, …
  double loss_before = 0.0, loss_after = 0.0;
  TransformerAnalysis analysis;               // analyze_transformer's defaults (32 sequences, seed 0, mean ablation)
  BatchPatching batch;                        // 64 induction pairs of pair seed 0, B = K = 1000, seed 0
  PathPatching paths;                         // the same pairs: sender → receiver's q, k, v
  TransformerWeights weights;                 // the trained model (the faithfulness circuits depend on its heads)
  headlab::Matrix first_copy_previous_token;  // L × H
  std::vector<QkAttribution> layer1_qk;       // each layer-1 head's QK attribution at the prompt's last position
  CompositionScores composition;              // as the page computes it: 200 baseline draws from seed 0
};

// Seed 0 is the shipped model, which cli.model.train_regenerates_shipped_induction_acceptance trains
// and compares byte for byte with site/pages/data/induction-seed0.*: its weights and checks are read from
// those files instead of a second training (the history's points are the checks below: every 50 steps,
// in-context loss and scores on 16 sequences of the seed). Every other seed is trained here.
SeedRun train_seed(std::uint64_t seed) {
  TransformerTrainingSettings s;
  s.seed = seed;
  SeedRun run;
  run.loss_before = induction_scores(initial_weights(s), 64, seed).in_context_loss;
  TransformerWeights trained;
  if (seed == 0) {
    const std::string bytes = headlab::test::shipped_file("induction-seed0.safetensors");
    trained = headlab::formats::read_transformer(headlab::test::shipped_file("induction-seed0.json"),
                                                 reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    const auto history = headlab::formats::parse_json(headlab::test::shipped_file("induction-seed0-training.json"),
                                                      "induction-seed0-training.json");
    REQUIRE(history.find("steps")->as_double() == static_cast<double>(s.steps));
    for (const auto& point : history.find("points")->items()) {
      const long step = static_cast<long>(point.find("step")->as_double());
      if (step == 0) continue;
      run.checked_loss.push_back(point.find("in_context_loss")->as_double());
      double best = 0.0;
      for (const auto& layer : point.find("induction")->items())
        for (const auto& head : layer.items()) best = std::max(best, head.as_double());
      if (run.passed < 0 && best > 0.4) run.passed = step;
    }
  } else {
    TransformerTrainer trainer(s);
    while (!trainer.progress().done) {
      trainer.step(50);
      const auto scores = induction_scores(trainer.result(), 16, seed);
      run.checked_loss.push_back(scores.in_context_loss);
      if (run.passed < 0 && scores.induction.maxCoeff() > 0.4) run.passed = trainer.progress().steps_taken;
    }
    trained = trainer.result();
  }
  const auto& w = trained;
  run.weights = w;
  run.loss_after = induction_scores(w, 64, seed).in_context_loss;
  AnalysisRequest request;
  // The article's patching example: a block of 12 tokens and its repeat up to the last token, whose
  // earlier occurrence (position 10) is followed by 8; the corrupted prompt changes that earlier 26 to 2.
  request.prompt = {5, 9, 14, 3, 22, 7, 30, 1, 17, 11, 26, 8, 5, 9, 14, 3, 22, 7, 30, 1, 17, 11, 26};
  request.corrupted = request.prompt;
  request.corrupted[10] = 2;
  request.answer = 8;
  request.wrong = 2;
  run.analysis = analyze_transformer(w, request);
  // The article's patching claims over a batch: 64 generated pairs of the same shape as its example
  // (a block of 12 distinct tokens and its repeat up to the 11th; the earlier 11th token corrupted at
  // position 10; answer the 12th, wrong the replacement), intervals from 1,000 resamples.
  run.batch = batch_patching(w, induction_pairs(w.config, 0, 64), IntervalSettings{});
  run.paths = path_patching(w, induction_pairs(w.config, 0, 64), IntervalSettings{});
  for (int h = 0; h < w.config.n_heads; ++h) run.layer1_qk.push_back(qk_attribution(w, run.analysis.run, 1, h, 22));
  run.composition = composition_scores(w, kCompositionBaselineSamples, request.seed);
  // First-copy previous-token score on the page's 32 evaluation sequences (period m = n_ctx/2).
  const auto& c = w.config;
  const int m = c.n_ctx / 2;
  headlab::Random rng = headlab::Random(request.seed).stream(kEvaluationStream);
  const auto batch = repeated_batch(c, rng, request.sequences);
  run.first_copy_previous_token = headlab::Matrix::Zero(c.n_layers, c.n_heads);
  for (const auto& sequence : batch) {
    const auto act = transformer_forward(w, sequence.tokens);
    for (int l = 0; l < c.n_layers; ++l)
      for (int h = 0; h < c.n_heads; ++h)
        for (int p = c.n_ctx - 2 * m + 1; p < c.n_ctx - m; ++p)
          run.first_copy_previous_token(l, h) += act.layers[l].pattern[h](p, p - 1) / ((m - 1) * double(batch.size()));
  }
  return run;
}

// The step at which each seed's best induction score passes 0.4 (a multiple of 50, as the CLI prints it).
// Training is deterministic (core/random.hpp, the same bits natively and in WASM), so the steps are exact.
long expected_phase_change(std::uint64_t seed) {
  static const long steps[10] = {800, 850, 950, 1000, 600, 650, 750, 750, 750, 700};
  return steps[seed];
}

// The head (layer, head) with the largest entry of an L × H matrix.
std::pair<int, int> arg_max(const headlab::Matrix& m) {
  Eigen::Index l = 0, h = 0;
  m.maxCoeff(&l, &h);
  return {static_cast<int>(l), static_cast<int>(h)};
}

void check_seed(std::uint64_t seed) {
  const SeedRun r = train_seed(seed);
  const auto& a = r.analysis;
  INFO("seed " << seed << ": passed 0.4 at " << r.passed << "; in-context loss " << r.loss_before << " -> "
               << r.loss_after << "\nprevious-token\n"
               << a.induction.previous_token << "\nfirst-copy previous-token\n"
               << r.first_copy_previous_token << "\ninduction\n"
               << a.induction.induction << "\nclean " << a.clean_loss << " ablated\n"
               << a.ablation_loss);
  // Before training the model predicts about as well as a uniform guess over the 32 tokens (3.71–3.84).
  CHECK(r.loss_before > std::log(32.0));
  CHECK(r.loss_before < std::log(32.0) + 0.5);
  // Every seed has its phase change: the best induction score passes 0.4 (steps 600–1,000), and at the
  // end the in-context loss is below 0.7 nats (0.33–0.68).
  CHECK(r.passed == expected_phase_change(seed));
  CHECK(r.loss_after < 0.7);
  // The drop is sudden: 300 steps before the step where the score passes 0.4 the loss (16 sequences, as
  // the page plots it) is still above 1.9 nats (1.99–3.14), 300 steps after it below 1 (0.59–0.93).
  const auto checked = [&](long step) { return r.checked_loss.at(static_cast<std::size_t>(step / 50 - 1)); };
  CHECK(checked(r.passed - 300) > 1.9);
  CHECK(checked(r.passed + 300) < 1.0);
  // Every layer-1 head is an induction head: each scores above 0.3 (0.31–0.56), above every layer-0 head
  // (at most 0.033), and the best above 0.55 (0.559–0.663).
  const auto& ind = a.induction.induction;
  CHECK(ind.row(1).minCoeff() > 0.3);
  CHECK(ind.row(1).minCoeff() > ind.row(0).maxCoeff());
  CHECK(ind.maxCoeff() > 0.55);
  // TransformerLens's previous-token score (over the repeated half) finds no previous-token head: every
  // head scores below 0.3 (0.11–0.26) ...
  CHECK(a.induction.previous_token.maxCoeff() < 0.3);
  // ... yet on the first copy, where the induction heads' keys sit, a layer-0 head puts more than a third
  // of its attention on the previous token (0.39–0.50), more than any layer-1 head (at most 0.23).
  const auto& first = r.first_copy_previous_token;
  CHECK(first.row(0).maxCoeff() > 1.0 / 3);
  CHECK(first.row(0).maxCoeff() > first.row(1).maxCoeff());
  // Mean ablation: the costliest single head is in layer 0 and more than doubles the in-context loss
  // (2.16–4.78 times); the best induction head costs more than 1.5 times (1.52–2.19), less than that one.
  // In every seed but 5 the costliest is the layer-0 head that looks back most on the first copy.
  const auto costliest = arg_max(a.ablation_loss);
  CHECK(costliest.first == 0);
  CHECK((costliest == arg_max(first.topRows(1))) == (seed != 5));
  CHECK(a.ablation_loss.maxCoeff() > 2 * a.clean_loss);
  const auto ind_head = arg_max(ind);
  CHECK(a.ablation_loss(ind_head.first, ind_head.second) > 1.5 * a.clean_loss);
  CHECK(a.ablation_loss(ind_head.first, ind_head.second) < a.ablation_loss.maxCoeff());
  // Why the best induction head attends where it does (the QK attribution section): from the last token
  // (26, position 22) to the token after its earlier occurrence (8, position 11), the largest part of its
  // score is, in seeds 0, 1, 4, 5 and 7, the query's token against a layer-0 head's output at the key
  // (K-composition); in seeds 2, 3, 6, 8 and 9, the query's position against the key's position.
  const int H = static_cast<int>(a.run.layers[0].pattern.size());
  {
    const QkAttribution& qk = r.layer1_qk.at(static_cast<std::size_t>(ind_head.second));
    const headlab::Matrix& p = qk.parts[11];
    Eigen::Index qa = 0, kb = 0;
    p.cwiseAbs().maxCoeff(&qa, &kb);
    const std::string query = qk.sources[static_cast<std::size_t>(qa)], key = qk.sources[static_cast<std::size_t>(kb)];
    INFO("QK attribution of L1H" << qk.head << " at 22 → 11: largest part " << query << " × " << key << " = "
                                 << p(qa, kb) << " of " << qk.scores(11));
    const bool composition = seed == 0 || seed == 1 || seed == 4 || seed == 5 || seed == 7;
    if (composition) {
      CHECK(query == "embed");
      CHECK(key.rfind("L0H", 0) == 0);
    } else {
      CHECK(query == "pos");
      CHECK(key == "pos");
    }
    CHECK(p(qa, kb) > 0.0);
  }
  // The same reading in the weights alone (the composition figure): the best induction head's largest
  // K-composition with a layer-0 head, ‖W_OV W_QKᵀ‖_F / (‖W_OV‖_F ‖W_QK‖_F), stands more than one standard
  // deviation above the baseline of random matrices of the same shapes (0.206–0.270 against 0.177 ± 0.021).
  {
    const auto& cs = r.composition;
    const int later = ind_head.first * H + ind_head.second;
    const double k_score = cs.k.row(later).head(H).maxCoeff();
    INFO("K-composition into L1H" << ind_head.second << ": " << cs.k.row(later).head(H) << "; baseline "
                                  << cs.baseline_mean << " ± " << cs.baseline_std);
    CHECK(k_score > cs.baseline_mean + cs.baseline_std);
  }
  // Patching over a batch (the article's batch claims): 64 generated pairs of the page's shape, the mean
  // effect e = 1 − normalised LD of each head at each position with its bootstrap 95 % interval. Only two
  // places carry the effect — layer-0 heads at position 11, right after the earlier occurrence (what their
  // keys say about the previous token), and layer-1 heads at the last position 22 (the copy): every other
  // cell's interval lies within 0.1 of 0 (−0.071 to 0.042); every layer-1 head at 22 has an interval above
  // 0 (lower ends from 0.026); the largest mean effect sits in one of the two places, its interval above
  // 0.2 (lower ends 0.24–0.46).
  const auto& bp = r.batch.head_position;
  INFO("batch mean effect\n" << bp.mean << "\nlower\n" << bp.lower << "\nupper\n" << bp.upper);
  Eigen::Index top_row = 0, top_col = 0;
  bp.mean.maxCoeff(&top_row, &top_col);
  // A layer-0 head at 11 in seven seeds, a layer-1 head at 22 in seeds 1, 3 and 6.
  const bool copy_on_top = seed == 1 || seed == 3 || seed == 6;
  CHECK(top_row / H == (copy_on_top ? 1 : 0));
  CHECK(top_col == (copy_on_top ? 22 : 11));
  CHECK(bp.lower(top_row, top_col) > 0.2);
  for (int row = 0; row < bp.mean.rows(); ++row) {
    const int layer = row / H;
    for (int p = 0; p < bp.mean.cols(); ++p) {
      const bool carrier = (layer == 0 && p == 11) || (layer == 1 && p == 22);
      if (!carrier) {
        CHECK(bp.lower(row, p) > -0.1);
        CHECK(bp.upper(row, p) < 0.1);
      }
      if (layer == 1 && p == 22) CHECK(bp.lower(row, p) > 0.0);
    }
  }
  // The page's own pair, in the shipped model (seed 0; the other seeds differ, e.g. seed 3's layer-0
  // heads at 11 move it by only 0.22): every cell outside the two places stays within 0.05 of 1
  // (at most 0.016 away), and the single largest effect is a layer-0 head at position 11.
  if (seed == 0) {
    REQUIRE(a.has_patching);
    const auto& patched = a.patching.normalised;  // (L·H) × T
    double layer0_at_11 = 1.0, layer1_at_22 = 1.0;
    for (int row = 0; row < patched.rows(); ++row) {
      const int layer = row / H;
      for (int p = 0; p < patched.cols(); ++p) {
        const bool carrier = (layer == 0 && p == 11) || (layer == 1 && p == 22);
        if (!carrier) CHECK_THAT(patched(row, p), Catch::Matchers::WithinAbs(1.0, 0.05));
      }
      if (layer == 0) layer0_at_11 = std::min(layer0_at_11, patched(row, 11));
      if (layer == 1) layer1_at_22 = std::min(layer1_at_22, patched(row, 22));
    }
    CHECK(layer0_at_11 < layer1_at_22);
  }
  // Paths (the article's path patching figure, same 64 pairs): the strongest path of any input runs from a
  // layer-0 head into a layer-1 head, with an interval above 0 (lower ends from 0.015); into its key in
  // every seed but 2, where it enters the value.
  {
    const auto& g = r.paths.grid;
    Eigen::Index e = 0, input = 0;
    g.mean.cwiseAbs().maxCoeff(&e, &input);
    const PathEdge& top = r.paths.edges[static_cast<std::size_t>(e)];
    INFO("path patching mean\n" << g.mean << "\nlower\n" << g.lower);
    CHECK(top.sender_layer == 0);
    CHECK(top.receiver_layer == 1);
    CHECK(input == (seed == 2 ? 2 : 1));  // 1: k, 2: v
    CHECK(g.lower(e, input) > 0.0);
  }
  // Circuits: the first-copy previous-token head with the four induction heads, every other head replaced
  // by its corrupted-run output, recovers between a fifth and a bit over half of the logit difference
  // (its interval inside (0.2, 0.55); 0.237–0.534): each of the other layer-0 heads, added, raises the mean.
  {
    const auto prev_head = arg_max(first.topRows(1));
    const auto pairs = induction_pairs(r.weights.config, 0, 64);
    std::vector<HeadIndex> circuit = {{prev_head.first, prev_head.second}};
    for (int h = 0; h < H; ++h) circuit.push_back({1, h});
    const Faithfulness f =
        circuit_faithfulness(r.weights, pairs, circuit, CircuitAblation::corrupted, IntervalSettings{});
    const double mean = f.recovery.mean(0, 0);
    INFO("recovery of the previous-token head and the layer-1 heads " << mean << " [" << f.recovery.lower(0, 0) << ", "
                                                                      << f.recovery.upper(0, 0) << "]");
    CHECK(f.recovery.lower(0, 0) > 0.2);
    CHECK(f.recovery.upper(0, 0) < 0.55);
    for (int h = 0; h < H; ++h) {
      if (h == prev_head.second) continue;
      auto grown = circuit;
      grown.push_back({0, h});
      const Faithfulness g =
          circuit_faithfulness(r.weights, pairs, grown, CircuitAblation::corrupted, IntervalSettings{});
      INFO("with L0H" << h << ": " << g.recovery.mean(0, 0));
      CHECK(g.recovery.mean(0, 0) > mean);
    }
  }
}

}  // namespace

TEST_CASE("induction article claims acceptance: seed 0", "[transformer_training][claims][acceptance]") {
  check_seed(0);
}
TEST_CASE("induction article claims acceptance: seed 1", "[transformer_training][claims][acceptance]") {
  check_seed(1);
}
TEST_CASE("induction article claims acceptance: seed 2", "[transformer_training][claims][acceptance]") {
  check_seed(2);
}
TEST_CASE("induction article claims acceptance: seed 3", "[transformer_training][claims][acceptance]") {
  check_seed(3);
}
TEST_CASE("induction article claims acceptance: seed 4", "[transformer_training][claims][acceptance]") {
  check_seed(4);
}
TEST_CASE("induction article claims acceptance: seed 5", "[transformer_training][claims][acceptance]") {
  check_seed(5);
}
TEST_CASE("induction article claims acceptance: seed 6", "[transformer_training][claims][acceptance]") {
  check_seed(6);
}
TEST_CASE("induction article claims acceptance: seed 7", "[transformer_training][claims][acceptance]") {
  check_seed(7);
}
TEST_CASE("induction article claims acceptance: seed 8", "[transformer_training][claims][acceptance]") {
  check_seed(8);
}
TEST_CASE("induction article claims acceptance: seed 9", "[transformer_training][claims][acceptance]") {
  check_seed(9);
}
