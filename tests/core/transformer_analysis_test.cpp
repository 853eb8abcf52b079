#include "core/transformer_analysis.hpp"

#include "core/check.hpp"
#include "core/max_digit_training.hpp"
#include "core/random.hpp"
#include "core/tolerances.hpp"
#include "core/transformer_max_digit.hpp"
#include "core/transformer_training.hpp"
#include "support/random_transformer.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using headlab::InputError;
using headlab::Matrix;
using headlab::Random;
using namespace headlab::transformer;

namespace {

TransformerWeights random_model_of(const TransformerConfig& c, std::uint64_t seed) {
  return headlab::test::random_transformer(c, seed, 0.8);
}

TransformerWeights random_model(Normalization norm, bool positional, int layers, std::uint64_t seed) {
  return random_model_of(
      transformer_config({layers, /*n_heads*/ 3, /*d_model*/ 8, /*d_head*/ 4, /*n_ctx*/ 8, /*d_vocab*/ 10}, norm,
                         positional ? Positions::learned : Positions::none),
      seed);
}

// The architectures beyond LayerNorm and learned positions, 4 heads of d_head 4 in d_model 8:
// RoPE (NeoX, full width) with RMSNorm; RoPE (GPT-J pairs, half width, base 100) with RMSPre, two
// key-value heads and attn_scale 1; shortformer positions with LayerNorm; one key-value head.
std::vector<TransformerConfig> architecture_configs(int layers) {
  std::vector<TransformerConfig> out;
  const TransformerSizes sizes{layers, /*n_heads*/ 4, /*d_model*/ 8, /*d_head*/ 4, /*n_ctx*/ 8, /*d_vocab*/ 10};
  auto rope = transformer_config(sizes, Normalization::rms, Positions::rotary);
  rope.rotary_dim = 4;
  out.push_back(rope);
  auto gptj = transformer_config(sizes, Normalization::rms_pre, Positions::rotary);
  gptj.rotary_dim = 2;
  gptj.rotary_base = 100;
  gptj.rotary_adjacent_pairs = true;
  gptj.n_key_value_heads = 2;
  gptj.attn_scale = 1.0;
  out.push_back(gptj);
  out.push_back(transformer_config(sizes, Normalization::layer_norm, Positions::shortformer));
  auto mqa = transformer_config(sizes, Normalization::layer_norm_pre, Positions::learned);
  mqa.n_key_value_heads = 1;
  out.push_back(mqa);
  return out;
}

std::string describe(const TransformerConfig& c) {
  return std::string(normalization_name(c.normalization)) + ", " + positions_name(c.positions) +
         ", G = " + std::to_string(key_value_heads(c)) + ", " + std::to_string(c.n_layers) + " layers";
}

// The max-digit model at initialisation scale 1: one layer, no LN, no W_pos, zero biases.
TransformerWeights max_digit_model() {
  headlab::max_digit::MaxDigitTrainingSettings s;
  s.seed = 2;
  s.init_scale = 1.0;
  return from_max_digit(headlab::max_digit::initial_weights(s));
}

}  // namespace

TEST_CASE("direct logit attribution: components plus constant give the logit", "[transformer_analysis]") {
  for (auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre}) {
    const auto w = random_model(norm, true, 2, 9);
    const std::vector<int> tokens{1, 5, 2, 9, 5, 0};
    for (int position : {0, 3, 5}) {
      for (int token : {0, 7}) {
        const auto d = direct_logit_attribution(w, tokens, position, token);
        const double sum = d.embed + d.pos_embed + d.heads.sum() + d.attention_bias.sum() + d.constant;
        // About 20 components, each a length-8 dot product of terms of order ten.
        INFO(normalization_name(norm) << " position " << position << " token " << token);
        CHECK(std::abs(sum - d.logit) <= headlab::test::dot_product_bound(20 * 8, 10.0));
      }
    }
  }
  const auto w = random_model(Normalization::none, false, 1, 1);
  CHECK_THROWS_WITH(direct_logit_attribution(w, {1, 2}, 2, 0), Catch::Contains("position = 2"));
  CHECK_THROWS_WITH(direct_logit_attribution(w, {1, 2}, 1, 10), Catch::Contains("token = 10"));
}

TEST_CASE("OV and QK circuits equal what the head does on two-token prompts", "[transformer_analysis]") {
  const auto w = max_digit_model();
  const double sqrt_dh = 4.0;
  for (int h = 0; h < 4; ++h) {
    const Matrix qk = qk_circuit(w, 0, h), ov = ov_circuit(w, 0, h);
    REQUIRE(qk.rows() == 14);
    for (int key : {0, 5, 13}) {
      for (int query : {3, 11}) {
        const auto a = transformer_forward(w, {key, query});
        // softmax over two keys: a(1, 0) = σ((QK[query, key] − QK[query, query]) / √d_head)
        const double expected = 1.0 / (1.0 + std::exp(-(qk(query, key) - qk(query, query)) / sqrt_dh));
        CHECK(std::abs(a.layers[0].pattern[h](1, 0) - expected) <= 64 * headlab::test::kEpsilon);
      }
      // On [t, t] both keys are t, so the head writes E[t] W_V W_O whatever the pattern: its direct
      // logits are OV's row t.
      const auto d = direct_logit_attribution(w, {key, key}, 1, 6);
      CHECK(std::abs(d.heads(0, h) - ov(key, 6)) <= headlab::test::dot_product_bound(64 * 16, 100.0));
    }
  }
  auto big = random_model(Normalization::none, false, 1, 1);
  big.config.d_vocab = 600;
  big.W_E = Matrix::Zero(600, 8);
  big.W_U = Matrix::Zero(8, 600);
  big.b_U = Matrix::Zero(1, 600);
  CHECK_THROWS_WITH(qk_circuit(big, 0, 0), Catch::Contains("d_vocab = 600 exceeds"));
  CHECK_THROWS_WITH(ov_circuit(w, 0, 4), Catch::Contains("head = 4"));
}

TEST_CASE("head ablation: a silent head changes nothing, mean ablation over one sequence is the identity",
          "[transformer_analysis]") {
  auto w = random_model(Normalization::layer_norm, true, 2, 4);
  w.layers[1].W_O[2].setZero();  // head 1.2 writes nothing
  Random rng(5);
  const auto batch = induction_batch(w.config, rng, 4);
  double clean = 0;
  const Matrix zero = head_ablation_loss(w, batch, Ablation::zero, &clean);
  CHECK(zero(1, 2) == clean);
  CHECK(zero(0, 0) != clean);
  const Matrix mean_one = head_ablation_loss(w, {batch[0]}, Ablation::mean, &clean);
  // The mean over one sequence is that sequence's own output: every loss equals the clean loss up
  // to the division by one.
  CHECK((mean_one.array() - clean).abs().maxCoeff() == 0.0);
  CHECK_THROWS_WITH(head_ablation_loss(w, {batch[0], {{1, 2, 3, 4}, 0}}, Ablation::mean),
                    Catch::Contains("sequences of one length"));
}

TEST_CASE("ablated forward: mean ablation reproduces head_ablation_loss per head, and a prefix sees the same means",
          "[transformer_analysis]") {
  auto w = random_model(Normalization::layer_norm, true, 2, 7);
  const int sequences = 5;
  const std::uint64_t seed = 3;
  Random rng = Random(seed).stream(kEvaluationStream);
  const auto batch = repeated_batch(w.config, rng, sequences);
  double clean = 0;
  for (const Ablation mode : {Ablation::zero, Ablation::mean}) {
    const Matrix expected = head_ablation_loss(w, batch, mode, &clean);
    for (int l = 0; l < w.config.n_layers; ++l) {
      for (int h = 0; h < w.config.n_heads; ++h) {
        double total = 0.0, count = 0.0;
        for (const auto& s : batch) {
          const auto a = ablated_forward(w, s.tokens, {{l, h}}, mode, sequences, seed);
          for (std::size_t p = s.loss_from; p + 1 < s.tokens.size(); ++p) {
            const auto row = a.logits.row(static_cast<Eigen::Index>(p));
            const double top = row.maxCoeff();
            total += std::log((row.array() - top).exp().sum()) - (row(s.tokens[p + 1]) - top);
            count += 1.0;
          }
        }
        CHECK_THAT(total / count, Catch::Matchers::WithinAbs(expected(l, h), headlab::test::kReorderedSumAbsolute));
      }
    }
  }
  // No head: the plain forward pass. A prefix of a prompt: the first rows of the full prompt's logits
  // (the mean of each head's output at p depends only on positions ≤ p).
  const std::vector<int> prompt = {1, 2, 3, 4, 1, 2, 3, 4};
  const std::vector<int> prefix(prompt.begin(), prompt.begin() + 5);
  CHECK((ablated_forward(w, prompt, {}, Ablation::mean, sequences, seed).logits - transformer_forward(w, prompt).logits)
            .cwiseAbs()
            .maxCoeff() == 0.0);
  const auto full = ablated_forward(w, prompt, {{0, 1}, {1, 2}}, Ablation::mean, sequences, seed);
  const auto part = ablated_forward(w, prefix, {{0, 1}, {1, 2}}, Ablation::mean, sequences, seed);
  CHECK((full.logits.topRows(5) - part.logits).cwiseAbs().maxCoeff() <= headlab::test::kReorderedSumAbsolute);
  CHECK((full.logits - transformer_forward(w, prompt).logits).cwiseAbs().maxCoeff() > 1e-3);
  CHECK_THROWS_WITH(ablated_forward(w, prompt, {{2, 0}}, Ablation::zero, 1, 0),
                    Catch::Contains("head 2.0 is not in the model"));
  CHECK_THROWS_WITH(ablated_forward(w, prompt, {{1, 1}, {1, 1}}, Ablation::zero, 1, 0), Catch::Contains("named twice"));
  CHECK_THROWS_WITH(ablated_forward(w, prompt, {{1, 1}}, Ablation::mean, 0, 0),
                    Catch::Contains("sequences must be in [1, 10000]"));
}

TEST_CASE(
    "activation patching: positions before the first difference change nothing, and in one layer without "
    "LayerNorm the last position's effect is the head's direct logit difference",
    "[transformer_analysis]") {
  const auto w = random_model(Normalization::none, true, 1, 6);
  const std::vector<int> clean{1, 2, 3, 4, 5, 6}, corrupted{1, 2, 3, 9, 5, 6};
  const int answer = 7, wrong = 8;
  const auto r = head_position_patching(w, clean, corrupted, answer, wrong);
  REQUIRE(r.normalised.rows() == 3);
  REQUIRE(r.normalised.cols() == 6);
  for (int h = 0; h < 3; ++h) {
    for (int p = 0; p < 3; ++p) CHECK(r.normalised(h, p) == 1.0);  // identical outputs before position 3 (causal)
    for (int p = 3; p < 5; ++p) CHECK(r.normalised(h, p) == 1.0);  // one layer: only the last row reaches the logits
    const auto dc = direct_logit_attribution(w, clean, 5, answer), dcw = direct_logit_attribution(w, clean, 5, wrong);
    const auto rc = direct_logit_attribution(w, corrupted, 5, answer),
               rcw = direct_logit_attribution(w, corrupted, 5, wrong);
    const double span = r.clean_logit_difference - r.corrupted_logit_difference;
    const double expected = 1.0 + ((rc.heads(0, h) - rcw.heads(0, h)) - (dc.heads(0, h) - dcw.heads(0, h))) / span;
    CHECK(std::abs(r.normalised(h, 5) - expected) <= headlab::test::dot_product_bound(100, 10.0) / std::abs(span));
  }
  CHECK_THROWS_WITH(head_position_patching(w, clean, {1, 2}, answer, wrong), Catch::Contains("equal lengths"));
  CHECK_THROWS_WITH(head_position_patching(w, clean, clean, answer, wrong), Catch::Contains("nothing to normalise by"));
}

TEST_CASE("induction scores are attention masses and depend only on the seed", "[transformer_analysis]") {
  const auto w = random_model(Normalization::layer_norm, true, 2, 8);
  const auto s = induction_scores(w, 8, 0);
  const auto again = induction_scores(w, 8, 0);
  CHECK(s.induction == again.induction);
  CHECK(s.previous_token.minCoeff() >= 0.0);
  CHECK((s.previous_token + s.induction).maxCoeff() <= 1.0 + 1e-12);
  CHECK(std::isfinite(s.in_context_loss));
  CHECK_THROWS_WITH(induction_scores(w, 0, 0), Catch::Contains("count"));
}

TEST_CASE("analyze_transformer: defaults are the last position and the top token, and bad request fields are named",
          "[transformer_analysis]") {
  const auto w = random_model(Normalization::layer_norm, true, 2, 4);
  AnalysisRequest r;
  r.prompt = {1, 2, 3, 1, 2};
  r.sequences = 2;
  const auto a = analyze_transformer(w, r);
  Eigen::Index top = 0;
  a.run.logits.row(4).maxCoeff(&top);
  CHECK(a.position == 4);
  CHECK(a.token == static_cast<int>(top));
  CHECK(a.attribution.logit == direct_logit_attribution(w, r.prompt, 4, a.token).logit);
  CHECK_FALSE(a.has_patching);
  CHECK(a.qk.empty());
  AnalysisRequest bad = r;
  bad.position = -2;
  CHECK_THROWS_WITH(analyze_transformer(w, bad),
                    Catch::Contains("position must be -1 (the last) or in [0, 5), got -2"));
  bad = r;
  bad.token = -3;
  CHECK_THROWS_WITH(analyze_transformer(w, bad), Catch::Contains("token must be -1"));
  bad = r;
  bad.position = 5;
  CHECK_THROWS_WITH(analyze_transformer(w, bad), Catch::Contains("position"));
  bad = r;
  bad.sequences = -1;
  CHECK_THROWS_WITH(analyze_transformer(w, bad), Catch::Contains("sequences must be in [0, 10000] (0: no repeated "
                                                                 "sequences), got -1"));
  bad.sequences = 10001;
  CHECK_THROWS_WITH(analyze_transformer(w, bad), Catch::Contains("got 10001"));
  // sequences 0: the prompt's own figures, the same bits; the repeated-sequence figures NaN.
  bad.sequences = 0;
  const auto alone = analyze_transformer(w, bad);
  const auto full = analyze_transformer(w, r);
  CHECK(alone.attribution.heads == full.attribution.heads);
  CHECK(alone.attribution.logit == full.attribution.logit);
  CHECK(alone.run.logits == full.run.logits);
  CHECK(alone.ablation_loss.array().isNaN().all());
  CHECK(alone.induction.induction.array().isNaN().all());
  CHECK(std::isnan(alone.clean_loss));
  bad = r;
  bad.corrupted = {1, 2, 4, 1, 2};
  CHECK_THROWS_WITH(analyze_transformer(w, bad), Catch::Contains("patching needs answer and wrong"));
}

TEST_CASE("analyze_transformer with an AnalysisCache: the same bits, the batch part computed once per key",
          "[transformer_analysis]") {
  const auto w = random_model(Normalization::layer_norm, true, 2, 6);
  AnalysisRequest r;
  r.prompt = {1, 2, 3, 1, 2};
  r.corrupted = {1, 4, 3, 1, 2};
  r.answer = 3;
  r.wrong = 4;
  r.sequences = 3;
  AnalysisCache cache;
  const auto same = [](const TransformerAnalysis& a, const TransformerAnalysis& b) {
    CHECK(a.clean_loss == b.clean_loss);
    CHECK((a.ablation_loss.array() == b.ablation_loss.array()).all());
    CHECK((a.induction.induction.array() == b.induction.induction.array()).all());
    CHECK((a.induction.previous_token.array() == b.induction.previous_token.array()).all());
    CHECK((a.patching.normalised.array() == b.patching.normalised.array()).all());
    CHECK((a.run.logits.array() == b.run.logits.array()).all());
  };
  same(analyze_transformer(w, r, &cache), analyze_transformer(w, r));
  CHECK(cache.size() == 1);
  // Another prompt reads the kept batch part: still the uncached result.
  r.prompt = {4, 4, 1, 0, 2};
  r.corrupted = {4, 4, 1, 0, 5};
  same(analyze_transformer(w, r, &cache), analyze_transformer(w, r));
  CHECK(cache.size() == 1);
  // Each (sequences, seed, ablation) is its own entry; the oldest goes beyond kKept.
  for (int s = 1; s <= 5; ++s) {
    r.seed = static_cast<std::uint64_t>(s);
    r.ablation = s % 2 ? Ablation::zero : Ablation::mean;
    same(analyze_transformer(w, r, &cache), analyze_transformer(w, r));
  }
  CHECK(cache.size() == AnalysisCache::kKept);
  // A bad request leaves the cache as it was.
  r.sequences = -1;
  CHECK_THROWS_WITH(analyze_transformer(w, r, &cache), Catch::Contains("sequences must be in [0, 10000]"));
  CHECK(cache.size() == AnalysisCache::kKept);
  cache.clear();
  CHECK(cache.size() == 0);
}

namespace {

// The definitions of patching and ablation as full forward passes with a hook (what the fast paths
// of core/transformer_analysis.cpp avoid recomputing).
Matrix naive_patching(const TransformerWeights& w, const std::vector<int>& clean, const std::vector<int>& corrupted,
                      int answer, int wrong) {
  const auto clean_run = transformer_forward(w, clean), corrupted_run = transformer_forward(w, corrupted);
  const Eigen::Index T = static_cast<Eigen::Index>(clean.size()), last = T - 1;
  const auto ld = [&](const Matrix& logits) { return logits(last, answer) - logits(last, wrong); };
  const double ld_clean = ld(clean_run.logits), ld_corrupted = ld(corrupted_run.logits);
  const auto& c = w.config;
  Matrix out(c.n_layers * c.n_heads, T);
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h)
      for (Eigen::Index p = 0; p < T; ++p) {
        const HeadHook hook = [&](int layer, int head, Matrix& o) {
          if (layer == l && head == h) o.row(p) = corrupted_run.layers[l].head_output[h].row(p);
        };
        out(l * c.n_heads + h, p) =
            (ld(transformer_forward(w, clean, hook).logits) - ld_corrupted) / (ld_clean - ld_corrupted);
      }
  return out;
}

Matrix naive_ablation(const TransformerWeights& w, const std::vector<TokenSequence>& batch, Ablation mode) {
  const auto& c = w.config;
  const std::size_t T = batch[0].tokens.size();
  std::vector<std::vector<Matrix>> mean(c.n_layers, std::vector<Matrix>(c.n_heads, Matrix::Zero(T, c.d_model)));
  for (const auto& s : batch) {
    const auto a = transformer_forward(w, s.tokens);
    for (int l = 0; l < c.n_layers; ++l)
      for (int h = 0; h < c.n_heads; ++h) mean[l][h] += a.layers[l].head_output[h];
  }
  for (auto& layer : mean)
    for (auto& m : layer) m /= static_cast<double>(batch.size());
  Matrix out(c.n_layers, c.n_heads);
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h) {
      const HeadHook hook = [&](int layer, int head, Matrix& o) {
        if (layer == l && head == h) o = mode == Ablation::zero ? Matrix::Zero(o.rows(), o.cols()) : Matrix(mean[l][h]);
      };
      double total = 0.0, count = 0.0;
      for (const auto& s : batch) {
        const auto logits = transformer_forward(w, s.tokens, hook).logits;
        for (std::size_t p = s.loss_from; p + 1 < s.tokens.size(); ++p) {
          const auto row = logits.row(static_cast<Eigen::Index>(p));
          const double top = row.maxCoeff();
          total += std::log((row.array() - top).exp().sum()) - (row(s.tokens[p + 1]) - top);
          count += 1.0;
        }
      }
      out(l, h) = total / count;
    }
  return out;
}

}  // namespace

TEST_CASE("the fast patching and ablation paths equal the naive full forward passes", "[transformer_analysis]") {
  // Patching: resume_forward repeats the forward pass's operations on the rows it recomputes, so the
  // bits agree; kFastPathBound (0) says so. Ablation: the same logits; only the naive reference's
  // loss uses std::exp / std::log (libm) where the core uses exp_nonpositive / deterministic_log
  // (≤ 4 ulp each), so its bound is a few ulp of a loss of order 10 over ≤ 100 terms.
  constexpr double kFastPathBound = 0.0;
  constexpr double kAblationLossBound = 1e-12;
  for (const auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre}) {
    for (int layers : {1, 2, 3}) {  // 2 and 3: the second-to-last layer's patches take their own path
      INFO(normalization_name(norm) << ", " << layers << " layers");
      const auto w = random_model(norm, layers != 1, layers, 20 + layers);
      const std::vector<int> clean{1, 5, 2, 7, 1, 5, 2}, corrupted{1, 5, 3, 7, 1, 9, 2};
      const auto fast = head_position_patching(w, clean, corrupted, 2, 3);
      CHECK((fast.normalised - naive_patching(w, clean, corrupted, 2, 3)).cwiseAbs().maxCoeff() <= kFastPathBound);
      Random rng = Random(3).stream(kEvaluationStream);
      const auto batch = repeated_batch(w.config, rng, 3);
      for (const auto mode : {Ablation::zero, Ablation::mean}) {
        CHECK((head_ablation_loss(w, batch, mode) - naive_ablation(w, batch, mode)).cwiseAbs().maxCoeff() <=
              kAblationLossBound);
      }
    }
  }
}

TEST_CASE("RMS, rotary, shortformer and grouped heads: fast patching and ablation equal the naive passes",
          "[transformer_analysis]") {
  constexpr double kFastPathBound = 0.0;  // the same operations on the same rows (see the test above)
  constexpr double kAblationLossBound = 1e-12;
  for (int layers : {1, 2, 3}) {
    for (const auto& c : architecture_configs(layers)) {
      INFO(describe(c));
      const auto w = random_model_of(c, 40 + layers);
      const std::vector<int> clean{1, 5, 2, 7, 1, 5, 2}, corrupted{1, 5, 3, 7, 1, 9, 2};
      const auto fast = head_position_patching(w, clean, corrupted, 2, 3);
      CHECK((fast.normalised - naive_patching(w, clean, corrupted, 2, 3)).cwiseAbs().maxCoeff() <= kFastPathBound);
      Random rng = Random(3).stream(kEvaluationStream);
      const auto batch = repeated_batch(w.config, rng, 2);
      for (const auto mode : {Ablation::zero, Ablation::mean}) {
        CHECK((head_ablation_loss(w, batch, mode) - naive_ablation(w, batch, mode)).cwiseAbs().maxCoeff() <=
              kAblationLossBound);
      }
    }
  }
}

TEST_CASE("RMS and RMSPre: direct logit attribution with the final scale frozen adds up to the logit",
          "[transformer_analysis]") {
  for (const auto& c : architecture_configs(2)) {
    INFO(describe(c));
    const auto w = random_model_of(c, 7);
    const std::vector<int> tokens{3, 1, 4, 1, 5, 9};
    const auto a = transformer_forward(w, tokens);
    const auto d = direct_logit_attribution(w, tokens, 5, 2);
    // logit = Σ components through the frozen map + b_U (+ ln_final.b · u for LN): the residual at
    // the last position is embed (+ pos_embed) + Σ head outputs + Σ b_O, and the map is linear.
    double sum = d.embed + d.pos_embed + d.constant;
    for (int l = 0; l < c.n_layers; ++l) {
      sum += d.attention_bias(l);
      for (int h = 0; h < c.n_heads; ++h) sum += d.heads(l, h);
    }
    CHECK(std::abs(sum - a.logits(5, 2)) <= headlab::test::kReorderedSumAbsolute);
    CHECK(d.logit == a.logits(5, 2));
  }
}

TEST_CASE("QK circuit of a rotary head: one matrix per query-key offset, the scores of two-token prompts",
          "[transformer_analysis]") {
  auto c = architecture_configs(1)[0];  // RoPE, RMSNorm: the circuit leaves the normalisation out
  c.normalization = Normalization::none;
  const auto w = random_model_of(c, 9);
  const auto bare = [&] {
    auto z = w;
    for (auto& l : z.layers) {
      l.b_Q.setZero();
      l.b_K.setZero();
    }
    return z;
  }();
  for (int h = 0; h < c.n_heads; ++h) {
    const Matrix qk0 = qk_circuit(bare, 0, h, 0), qk1 = qk_circuit(bare, 0, h, 1);
    CHECK((qk0 - qk1).cwiseAbs().maxCoeff() > 1e-3);  // rotary: the offset matters
    for (int key : {0, 6}) {
      for (int query : {2, 9}) {
        // On [key, query] the query at position 1 sees the key at offset 1 and itself at offset 0.
        const auto a = transformer_forward(bare, {key, query});
        const double expected = 1.0 / (1.0 + std::exp(-(qk1(query, key) - qk0(query, query)) / attention_scale(c)));
        CHECK(std::abs(a.layers[0].pattern[h](1, 0) - expected) <= 64 * headlab::test::kEpsilon);
      }
    }
  }
  CHECK_THROWS_WITH(qk_circuit(bare, 0, 0, 8), Catch::Contains("offset"));
  // Without rotary positions every offset gives the same circuit.
  const auto plain = random_model(Normalization::none, true, 1, 3);
  CHECK(qk_circuit(plain, 0, 1, 0) == qk_circuit(plain, 0, 1, 5));
}

TEST_CASE("transformer analysis: the repeated-sequence work is accepted at its limit and refused past it",
          "[transformer]") {
  // 1 layer, 1 head, n_ctx 1,024, d_model 1,024, d_vocab 32,768: one sequence is
  // 2¹⁰ · 2¹⁰ · 2¹⁵ · (1 + 1) = 2³⁶ multiply-adds, the limit; two are twice it.
  const auto c = transformer_config({1, 1, 1024, 1, 1024, 32768});
  CHECK(repeated_sequence_work(c, 1) == kMaxRepeatedSequenceWork);
  CHECK_NOTHROW(require_repeated_work(c, 1));
  CHECK_THROWS_WITH(require_repeated_work(c, 2),
                    Catch::Contains("= 1.37439e+11 multiply-adds; the limit is 6.87195e+10") &&
                        Catch::Contains("sequences 0 for the prompt's own figures alone"));
  // The ARENA induction model's shape: one sequence is beyond it.
  const auto arena =
      transformer_config({2, 12, 768, 64, 2048, 50278}, Normalization::layer_norm, Positions::shortformer);
  CHECK_THROWS_AS(require_repeated_work(arena, 1), InputError);
}

TEST_CASE("an analysis asked for the logits from one row on gives every figure's bits", "[transformer_analysis]") {
  for (const TransformerConfig& c : architecture_configs(2)) {
    INFO(describe(c));
    const TransformerWeights w = random_model_of(c, 41);
    AnalysisRequest full;
    full.prompt = {1, 7, 3, 1, 7, 3, 9};
    full.sequences = 0;
    full.position = 5;
    full.corrupted = {1, 7, 4, 1, 7, 4, 9};
    full.answer = 3;
    full.wrong = 4;
    full.logit_lens = true;
    const TransformerAnalysis a = analyze_transformer(w, full);
    for (const int from : {5, 6}) {
      AnalysisRequest r = full;
      r.logits_from = from;
      const TransformerAnalysis b = analyze_transformer(w, r);
      // Rows from min(logits_from, position) = 5 on, each the full pass's row, bit for bit.
      REQUIRE(b.run.logits_from == 5);
      CHECK(b.run.logits == Matrix(a.run.logits.bottomRows(2)));
      CHECK(b.token == a.token);
      CHECK(b.attribution.logit == a.attribution.logit);
      CHECK(b.attribution.heads == a.attribution.heads);
      CHECK(b.patching.clean_logit_difference == a.patching.clean_logit_difference);
      CHECK(b.patching.corrupted_logit_difference == a.patching.corrupted_logit_difference);
      CHECK(b.patching.normalised == a.patching.normalised);
      CHECK(b.lens->answers == a.lens->answers);
      CHECK(b.lens->answer_probability == a.lens->answer_probability);
      for (std::size_t l = 0; l < a.run.layers.size(); ++l)
        for (std::size_t h = 0; h < a.run.layers[l].pattern.size(); ++h)
          CHECK(b.run.layers[l].pattern[h] == a.run.layers[l].pattern[h]);
    }
    AnalysisRequest bad = full;
    bad.logits_from = 7;
    CHECK_THROWS_WITH(analyze_transformer(w, bad), "logits_from must lie in [0, 6], got 7");
  }
}
