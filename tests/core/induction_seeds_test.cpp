// The induction phase change of the default recipe (core/transformer_training.hpp) and the claims of
// the article "Induction heads, trained in your browser" (site/pages/articles/induction-heads.html),
// for seeds 0–4. Each seed is trained ONCE (2,500 steps, ≈ 9 s of CPU) and every claim about it is
// read from that one run, so the five cases cost ≈ 45 s of CPU in all; they are "acceptance" cases,
// which the sanitized run skips.
//
// What is measured, as the CLI (`headlab model train`) and the page (`headlab model analyze`'s
// defaults: 32 repeated random sequences of period n_ctx/2 = 12 from seed 0, mean ablation) measure it:
//   - passed: the first step, checked every 50 steps on 16 sequences, at which the best head's induction
//     score exceeds 0.4 (−1: never within the 2,500 steps);
//   - the in-context loss (mean next-token loss on the repeated half, 64 sequences) before and after;
//   - each head's previous-token and induction score, and the in-context loss with each head
//     mean-ablated (32 sequences, as on the page);
//   - the previous-token score on the FIRST copy: mean attention from p to p − 1 over the positions
//     p ∈ [1, m) of the first copy of the repeated block (m = 12). TransformerLens's score averages over
//     the repeated half, where the induction head's queries sit; the previous-token heads of these
//     models are needed where the induction head's keys sit — in the first copy — and act only there.
#include "core/batch_patching.hpp"
#include "core/circuit_faithfulness.hpp"
#include "core/head_composition.hpp"
#include "core/induction_task.hpp"
#include "core/path_patching.hpp"
#include "core/qk_attribution.hpp"
#include "core/transformer_analysis.hpp"
#include "core/transformer_training.hpp"

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

SeedRun train_seed(std::uint64_t seed) {
  TransformerTrainingSettings s;
  s.seed = seed;
  SeedRun run;
  run.loss_before = induction_scores(initial_weights(s), 64, seed).in_context_loss;
  TransformerTrainer trainer(s);
  while (!trainer.progress().done) {
    trainer.step(50);
    const auto scores = induction_scores(trainer.result(), 16, seed);
    run.checked_loss.push_back(scores.in_context_loss);
    if (run.passed < 0 && scores.induction.maxCoeff() > 0.4) run.passed = trainer.progress().steps_taken;
  }
  const auto& w = trainer.result();
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

// Seeds whose best induction score passes 0.4 within the default 2,500 steps, and the step (a multiple of
// 50, as the CLI prints it); the others stay on the plateau. Training is deterministic (core/random.hpp,
// the same bits natively and in WASM), so the steps are exact.
long expected_phase_change(std::uint64_t seed) {
  switch (seed) {
    case 0: return 2000;
    case 4: return 1900;
    default: return -1;
  }
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
  // Before training the model predicts about as well as a uniform guess over the 32 tokens.
  CHECK(r.loss_before > std::log(32.0));
  CHECK(r.loss_before < std::log(32.0) + 0.5);
  CHECK(r.passed == expected_phase_change(seed));
  const auto& ind = a.induction.induction;
  // Batch patching: the mean effect e = 1 − normalised LD of each head at each position over 64 pairs,
  // with its bootstrap 95 % interval.
  const auto& bp = r.batch.head_position;
  const int H = static_cast<int>(r.analysis.run.layers[0].pattern.size());
  INFO("batch mean effect\n" << bp.mean << "\nlower\n" << bp.lower << "\nupper\n" << bp.upper);
  if (r.passed < 0) {
    // On the plateau: in-context loss between 1.7 and 2 nats, no head above 0.15.
    CHECK(r.loss_after > 1.7);
    CHECK(r.loss_after < 2.0);
    CHECK(ind.maxCoeff() < 0.15);
    return;
  }
  // After the phase change: in-context loss below 0.8 nats (from ≈ 3.7). The drop is sudden: 500 steps
  // before the step where the score passes 0.4 the loss (16 sequences, as the page plots it) is still
  // above 1.5 nats, 300 steps after it below 1.
  CHECK(r.loss_after < 0.8);
  const auto checked = [&](long step) { return r.checked_loss.at(static_cast<std::size_t>(step / 50 - 1)); };
  CHECK(checked(r.passed - 500) > 1.5);
  CHECK(checked(r.passed + 300) < 1.0);
  // Every layer-1 head is an induction head: each scores above 0.2, above every layer-0 head, and the best
  // scores above 0.5.
  CHECK(ind.row(1).minCoeff() > 0.2);
  CHECK(ind.row(1).minCoeff() > ind.row(0).maxCoeff());
  CHECK(ind.maxCoeff() > 0.5);
  // TransformerLens's previous-token score (over the repeated half) finds no previous-token head in
  // layer 0: every layer-0 head scores below 0.1 ...
  CHECK(a.induction.previous_token.row(0).maxCoeff() < 0.1);
  // ... yet on the first copy, where the induction heads' keys sit, a layer-0 head puts more than 40% of
  // its attention on the previous token, more than any layer-1 head.
  const auto& first = r.first_copy_previous_token;
  CHECK(first.row(0).maxCoeff() > 0.4);
  CHECK(first.row(0).maxCoeff() > first.row(1).maxCoeff());
  // Mean-ablating that head costs most of all heads: the in-context loss grows more than 2.5-fold; ablating
  // the best induction head costs less, but more than 1.5-fold (the four induction heads share the work).
  const auto prev_head = arg_max(first.topRows(1));
  CHECK(arg_max(a.ablation_loss) == prev_head);
  CHECK(a.ablation_loss(prev_head.first, prev_head.second) > 2.5 * a.clean_loss);
  const auto ind_head = arg_max(ind);
  CHECK(a.ablation_loss(ind_head.first, ind_head.second) > 1.5 * a.clean_loss);
  CHECK(a.ablation_loss(ind_head.first, ind_head.second) < a.ablation_loss(prev_head.first, prev_head.second));
  // Why the induction heads attend where they do (the QK attribution section): from the last token (26,
  // position 22) to the token after its earlier occurrence (8, position 11), the largest part of every
  // layer-1 head's score is the query's token against the previous-token head's output at the key, more
  // than a third of the score; for the best induction head more than half.
  const std::string previous_head = "L0H" + std::to_string(prev_head.second);
  for (const QkAttribution& qk : r.layer1_qk) {
    INFO("QK attribution of L1H" << qk.head << " at 22 → 11\n" << qk.parts[11] << "\nscore " << qk.scores(11));
    const headlab::Matrix& p = qk.parts[11];
    Eigen::Index a = 0, b = 0;
    p.cwiseAbs().maxCoeff(&a, &b);
    CHECK(qk.sources[static_cast<std::size_t>(a)] == "embed");
    CHECK(qk.sources[static_cast<std::size_t>(b)] == previous_head);
    CHECK(p(a, b) > qk.scores(11) / 3);
    if (qk.head == ind_head.second) CHECK(p(a, b) > qk.scores(11) / 2);
  }
  // The same pairing in the weights alone (the composition figure): of the layer-0 heads, the best
  // induction head's keys read most from the previous-token head — its K-composition score
  // ‖W_OV^prev W_QK^indᵀ‖_F / (‖W_OV^prev‖_F ‖W_QK^ind‖_F) is the largest of the four — and that score
  // stands more than two standard deviations above the baseline of random matrices of the same shapes.
  {
    const auto& cs = r.composition;
    const int later = ind_head.first * H + ind_head.second;
    Eigen::Index earlier = 0;
    cs.k.row(later).head(H).maxCoeff(&earlier);
    const double k_score = cs.k(later, prev_head.second);
    INFO("K-composition into L1H" << ind_head.second << ": " << cs.k.row(later).head(H) << "; baseline "
                                  << cs.baseline_mean << " ± " << cs.baseline_std);
    CHECK(earlier == prev_head.second);
    CHECK(k_score > cs.baseline_mean + 2 * cs.baseline_std);
  }
  // Patching the earlier copy's "26" to "2" (the page's example): only two places carry the effect —
  // layer-0 heads at position 11, right after the earlier occurrence (what their keys say about the previous
  // token), and layer-1 heads at the last position 22 (the copy). Everywhere else the normalised logit
  // difference stays within 0.05 of 1 (unchanged); the single largest effect is a layer-0 head at 11.
  REQUIRE(a.has_patching);
  const auto& patched = a.patching.normalised;  // (L·H) × T
  const int heads = static_cast<int>(a.run.layers[0].pattern.size());
  double layer0_at_11 = 1.0, layer1_at_22 = 1.0;
  for (int row = 0; row < patched.rows(); ++row) {
    const int layer = row / heads;
    for (int p = 0; p < patched.cols(); ++p) {
      const bool carrier = (layer == 0 && p == 11) || (layer == 1 && p == 22);
      if (!carrier) CHECK_THAT(patched(row, p), Catch::Matchers::WithinAbs(1.0, 0.05));
    }
    if (layer == 0) layer0_at_11 = std::min(layer0_at_11, patched(row, 11));
    if (layer == 1) layer1_at_22 = std::min(layer1_at_22, patched(row, 22));
  }
  CHECK(layer0_at_11 < 0.65);
  CHECK(layer1_at_22 < 0.7);
  CHECK(layer0_at_11 < layer1_at_22);
  // The same claims over the batch, with intervals: outside the two carriers (layer-0 heads at
  // position 11, layer-1 heads at the last position 22) every cell's 95 % interval lies within 0.1 of
  // 0; every layer-1 head at 22 has an interval above 0 (each carries part of the copy); the largest
  // mean effect is a layer-0 head at 11, and its interval lies above 0.3.
  Eigen::Index top_row = 0, top_col = 0;
  bp.mean.maxCoeff(&top_row, &top_col);
  CHECK(top_row / H == 0);
  CHECK(top_col == 11);
  CHECK(bp.lower(top_row, top_col) > 0.3);
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
  // Paths and circuits (the article's path patching and faithfulness figures, same 64 pairs): the
  // strongest path of any input runs from the previous-token head into a layer-1 head's key, its 95 %
  // interval above 0.1 ...
  {
    const auto& g = r.paths.grid;
    Eigen::Index e = 0, input = 0;
    g.mean.cwiseAbs().maxCoeff(&e, &input);
    const PathEdge& top = r.paths.edges[static_cast<std::size_t>(e)];
    INFO("path patching mean\n" << g.mean << "\nlower\n" << g.lower);
    CHECK(top.sender_layer == prev_head.first);
    CHECK(top.sender_head == prev_head.second);
    CHECK(top.receiver_layer == 1);
    CHECK(input == 1);  // k
    CHECK(g.lower(e, input) > 0.1);
  }
  // ... and the previous-token head with the four induction heads, every other head replaced by its
  // corrupted-run output, recovers between a quarter and three quarters of the logit difference (its
  // interval inside (0.25, 0.75)): each of the other layer-0 heads, added, raises the mean recovery.
  {
    const auto pairs = induction_pairs(r.weights.config, 0, 64);
    std::vector<HeadIndex> circuit = {{prev_head.first, prev_head.second}};
    for (int h = 0; h < H; ++h) circuit.push_back({1, h});
    const Faithfulness f =
        circuit_faithfulness(r.weights, pairs, circuit, CircuitAblation::corrupted, IntervalSettings{});
    const double mean = f.recovery.mean(0, 0);
    INFO("recovery of the previous-token head and the layer-1 heads " << mean << " [" << f.recovery.lower(0, 0) << ", "
                                                                      << f.recovery.upper(0, 0) << "]");
    CHECK(f.recovery.lower(0, 0) > 0.25);
    CHECK(f.recovery.upper(0, 0) < 0.75);
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
