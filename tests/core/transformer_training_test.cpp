#include "core/transformer_training.hpp"

#include "core/check.hpp"
#include "core/ordered_products.hpp"
#include "core/transformer_analysis.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace headlab::transformer;

namespace {

TransformerTrainingSettings tiny() {
  TransformerTrainingSettings s;
  s.model.n_heads = 2;
  s.model.d_model = 8;
  s.model.d_head = 4;
  s.model.n_ctx = 8;
  s.model.d_vocab = 6;
  s.steps = 6;
  s.batch_size = 4;
  return s;
}

}  // namespace

TEST_CASE("induction sequences repeat a block and count loss on the repeat, and training periods vary",
          "[transformer_training]") {
  headlab::Random rng(1);
  auto c = induction_default_config();
  const auto s = induction_sequence(c, rng, 12);
  REQUIRE(s.tokens.size() == 24u);
  CHECK(s.loss_from == 12);
  for (int i = 0; i < 12; ++i) CHECK(s.tokens[12 + i] == s.tokens[i]);
  const auto short_period = induction_sequence(c, rng, 7);  // 10 filler tokens, then 7 + 7
  CHECK(short_period.loss_from == 17);
  for (int i = 0; i < 7; ++i) CHECK(short_period.tokens[17 + i] == short_period.tokens[10 + i]);
  CHECK_THROWS_WITH(induction_sequence(c, rng, 13), Catch::Contains("period = 13"));
  // Training periods cover [6, 12] (n_ctx/4 … n_ctx/2), so position alone cannot find the copy.
  std::vector<int> seen(25, 0);
  for (const auto& t : induction_batch(c, rng, 400)) ++seen[24 - t.loss_from];
  for (int m = 0; m < 25; ++m) CHECK((seen[m] > 0) == (m >= 6 && m <= 12));
  for (const auto& t : repeated_batch(c, rng, 5)) CHECK(t.loss_from == 12);
}

TEST_CASE("the learning-rate schedule: linear warm-up, then a cosine down to the final fraction",
          "[transformer_training]") {
  TransformerTrainingSettings s;
  s.steps = 1100;
  s.learning_rate = 3e-3;
  s.warmup_steps = 100;
  s.final_learning_rate_fraction = 0.1;
  // Each value is a handful of correctly rounded operations on numbers near 3e-3 and a cosine within
  // 4 ulp of 1 (core/deterministic_math.hpp): 16 ulp of the rate bounds the error.
  const double tolerance = 16 * std::numeric_limits<double>::epsilon() * s.learning_rate;
  CHECK_THAT(learning_rate_at(s, 1), Catch::Matchers::WithinAbs(3e-5, tolerance));
  CHECK_THAT(learning_rate_at(s, 50), Catch::Matchers::WithinAbs(1.5e-3, tolerance));
  CHECK(learning_rate_at(s, 100) == s.learning_rate);
  // Half-way through the cosine (step 100 + 500): (f + 1)/2 of the rate; a quarter: f + (1 − f)(1 + cos π/4)/2.
  CHECK_THAT(learning_rate_at(s, 600), Catch::Matchers::WithinAbs(0.55 * 3e-3, tolerance));
  CHECK_THAT(learning_rate_at(s, 350),
             Catch::Matchers::WithinAbs(3e-3 * (0.1 + 0.9 * (1 + std::sqrt(0.5)) / 2), tolerance));
  CHECK_THAT(learning_rate_at(s, 1100), Catch::Matchers::WithinAbs(3e-4, tolerance));
  // The rate never rises after the warm-up.
  for (long t = 101; t <= 1100; ++t) CHECK(learning_rate_at(s, t) <= learning_rate_at(s, t - 1));
  // A run shorter than the warm-up warms up over its own length; fraction 1 keeps the rate constant.
  s.steps = 40;
  CHECK(learning_rate_at(s, 40) == s.learning_rate);
  CHECK_THAT(learning_rate_at(s, 10), Catch::Matchers::WithinAbs(0.75e-3, tolerance));
  s.steps = 300;
  s.final_learning_rate_fraction = 1.0;
  CHECK(learning_rate_at(s, 250) == s.learning_rate);
  // Out of range: named.
  s.final_learning_rate_fraction = 1.5;
  CHECK_THROWS_WITH(s.validate(), "final_learning_rate_fraction must lie in [0, 1], got 1.5");
  s.final_learning_rate_fraction = 0.1;
  s.warmup_steps = -1;
  CHECK_THROWS_WITH(s.validate(), "warmup_steps must lie in [0, 10000000], got -1");
}

TEST_CASE("the transformer trainer follows the trainer protocol: chunking gives the same bits, stop ends it",
          "[transformer_training]") {
  TransformerTrainer whole(tiny());
  TransformerTrainer chunked(tiny());
  const auto p = whole.step(100);
  CHECK(p.steps_taken == 6);
  CHECK(p.done);
  chunked.step(2);
  const auto q = chunked.step(3);
  CHECK(q.steps_taken == 5);
  CHECK_FALSE(q.done);
  chunked.step(1);
  const auto a = parameter_list(whole.result()), b = parameter_list(chunked.result());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(*a[i] == *b[i]);
  CHECK(whole.progress().loss == chunked.progress().loss);
  TransformerTrainer stopped(tiny());
  stopped.step(1);
  stopped.stop();
  CHECK(stopped.step(5).steps_taken == 1);
  CHECK(stopped.progress().done);
  auto bad = tiny();
  bad.batch_size = 0;
  CHECK_THROWS_WITH(TransformerTrainer(bad), Catch::Contains("batch_size must lie in [1, 100000], got 0"));
  bad = tiny();
  bad.model.n_ctx = 3;
  CHECK_THROWS_WITH(bad.validate(), "model.n_ctx must lie in [4, 4096], got 3");
  bad = tiny();
  bad.learning_rate = NAN;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("learning_rate"));
  // The decay product names both settings; numbers are short (never std::to_string's "0.010000").
  bad = tiny();
  bad.learning_rate = 1e8;
  bad.weight_decay = 0.01;
  CHECK_THROWS_WITH(bad.validate(), Catch::StartsWith("learning_rate × weight_decay must be below 1") &&
                                        Catch::EndsWith("got 1e+08 × 0.01 = 1e+06"));
  // An initial scale whose first forward overflows (1e160 gave a loss of ln d_vocab, no message).
  bad = tiny();
  bad.init_scale = 1e160;
  CHECK_THROWS_WITH(bad.validate(), "init_scale must lie in (0, 10000], got 1e+160");
  bad.init_scale = headlab::kMaxInitScale;
  CHECK_NOTHROW(bad.validate());
  // Divergence: Adam moves each weight by about learning_rate per step, so 1e8 leaves the ±1e6
  // limit at step 1; training ends there and says so (a finite loss of 1e18 used to be "trained").
  auto wild = tiny();
  wild.learning_rate = 1e8;
  wild.weight_decay = 0;
  TransformerTrainer diverging(wild);
  CHECK(diverging.step(10).done);
  CHECK(diverging.diverged_at() == 1);
  CHECK_THAT(diverging.divergence_message(),
             Catch::StartsWith("training diverged at step 1: a weight reached") &&
                 Catch::EndsWith("beyond the magnitude limit ±1e+06 (learning_rate 1e+08)"));
  TransformerTrainer healthy(tiny());
  healthy.step(5);
  CHECK(healthy.diverged_at() == 0);
}

TEST_CASE("induction training and an analysis have the same bits at every vector width of the products",
          "[transformer_training][bits]") {
  // d_model 12, d_head 6, n_ctx 10: shapes whose products end in partial blocks at every width
  // (core/ordered_products.hpp). Widths this CPU lacks are skipped; the widest is restored.
  using headlab::ProductVectors;
  const ProductVectors before = headlab::product_vectors_in_use();
  TransformerTrainingSettings s = tiny();
  s.model.d_model = 12;
  s.model.d_head = 6;
  s.model.n_ctx = 10;
  s.model.d_vocab = 9;
  s.steps = 4;
  AnalysisRequest r;
  r.prompt = {1, 2, 3, 4, 5, 1, 2, 3, 4, 5};
  r.corrupted = r.prompt;
  r.corrupted[7] = 6;
  r.answer = 5;
  r.wrong = 6;
  r.sequences = 3;
  const auto run = [&](ProductVectors vectors) {
    headlab::use_product_vectors(vectors);
    TransformerTrainer t(s);
    t.step(s.steps);
    std::vector<headlab::Matrix> out;
    for (const headlab::Matrix* m : parameter_list(t.result())) out.push_back(*m);
    const TransformerAnalysis a = analyze_transformer(t.result(), r);
    out.push_back(a.run.logits);
    out.push_back(a.attribution.heads);
    out.push_back(a.ablation_loss);
    out.push_back(a.patching.normalised);
    out.push_back(headlab::Matrix::Constant(1, 1, a.clean_loss));
    out.push_back(headlab::Matrix::Constant(1, 1, t.progress().loss));
    return out;
  };
  const auto portable = run(ProductVectors::portable);
  for (const ProductVectors vectors : {ProductVectors::avx2, ProductVectors::avx512}) {
    if (!headlab::product_vectors_available(vectors)) continue;
    INFO("vectors " << static_cast<int>(vectors));
    const auto wide = run(vectors);
    REQUIRE(wide.size() == portable.size());
    for (std::size_t i = 0; i < wide.size(); ++i) {
      INFO("matrix " << i);
      REQUIRE(wide[i].size() == portable[i].size());
      CHECK(std::memcmp(wide[i].data(), portable[i].data(), sizeof(double) * wide[i].size()) == 0);
    }
  }
  headlab::use_product_vectors(before);
}
