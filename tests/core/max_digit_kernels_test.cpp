// The max-digit training step (core/max_digit_kernels.hpp): every vector width gives the same
// bits, a repeated batch the same bits as the batch once, the single-precision step agrees with
// the double one within single-precision rounding, the double step's loss with the analyses'
// forward, and the examples computed directly (attention far below the table's maximum) with
// finite differences. The double step's gradient against finite differences everywhere else:
// tests/core/max_digit_model_test.cpp. Native against WASM bits: tests/wasm/max-digit-bits.test.mjs.
#include "core/max_digit.hpp"
#include "core/max_digit_training.hpp"
#include "core/tolerances.hpp"
#include "support/gradient_check.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

using namespace headlab;
using namespace headlab::max_digit;

namespace {

std::vector<TokenCounts> reference_batch(Random& rng, int size) {
  std::vector<TokenCounts> batch;
  for (int i = 0; i < size; ++i) batch.push_back(token_counts(sample_list(rng)));
  return batch;
}

template <class T>
bool same_bits(const StepParameters<T>& a, const StepParameters<T>& b) {
  return std::memcmp(a.data(), b.data(), sizeof a) == 0;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

MaxDigitWeights weights_for(std::uint64_t seed, double scale, bool unit_norm) {
  MaxDigitTrainingSettings s;
  s.seed = seed;
  s.init_scale = scale;
  s.unit_norm_unembedding = unit_norm;
  return initial_weights(s);
}

template <class T>
std::unique_ptr<StepParameters<T>> step_parameters(const MaxDigitWeights& w) {
  auto p = std::make_unique<StepParameters<T>>();
  to_step_parameters(w, *p);
  return p;
}

// Weights whose head scores are E[t][1]·a/4 with a = 10 (E[ANS] = a·e₀, W_Q = e₀e₀ᵀ, W_K = e₁e₀ᵀ
// in every head): digit 9 scores `gap` above every other token, which score 0, so in a list
// without a 9 every present score lies `gap` below the table's maximum.
MaxDigitWeights far_below_weights(double gap) {
  MaxDigitWeights w = weights_for(4, 0.1, false);
  w.E.col(1).setZero();
  w.E.row(kAns).setZero();
  w.E(kAns, 0) = 10.0;
  for (int h = 0; h < kHeads; ++h) {
    w.W_Q[h].setZero();
    w.W_K[h].setZero();
    w.W_Q[h](0, 0) = 1.0;
    w.W_K[h](1, 0) = 1.0;
  }
  w.E(9, 1) = gap * 4.0 / 10.0;
  return w;
}

// Single against double precision: the same sums in the same order, so they differ by float
// rounding (2^−24 per operation) accumulated along the longest chain — a 64-term product into the
// tables, a 16-term one, an example's ≤ 7 digit terms and softmax, then the backward's 64- and
// 14-term products: a few hundred roundings, each relative to the magnitudes summed. Measured at
// most 1e-5 of a matrix's largest entry (2.6e-5 for W_K); 2e-4 leaves a factor 8 and still fails a
// term computed wrongly in one precision, which errs by the size of the entries themselves. The
// attention-score path (W_Q, W_K) sums a_h(t)·L_h[t]·g and a_h(t)·y_h·g, which cancel when the
// attention saturates (a → 1): there the terms summed are as large as the largest gradient entry
// while the result is far smaller (at init scale 3, 1e-4 of it), so that path is held to the
// largest entry of any gradient.
constexpr double kSingleAgainstDouble = 2e-4;

}  // namespace

TEST_CASE("max-digit training bits: the batch sampler draws what sample_list + token_counts draw",
          "[max_digit][bits]") {
  for (std::uint64_t seed : {0u, 1u, 99u}) {
    Random a(seed), b(seed);
    for (int size : {1, 7, 256, 1000}) {
      const auto fast = sample_batch(a, size);
      const auto reference = reference_batch(b, size);
      REQUIRE(fast == reference);
    }
    CHECK(a.next_u64() == b.next_u64());  // and leaves the generator in the same state
  }
}

// Weights at several scales (0.1 is the recipe's initialisation; 1 and 3 give peaked attention and
// large logits), unit-norm W_U, weights after training and weights with attention far below the
// table's maximum; batches of 1 to 1000 lists.
static std::vector<MaxDigitWeights> step_test_weights() {
  std::vector<MaxDigitWeights> all = {weights_for(0, 0.1, false), weights_for(1, 1.0, false),
                                      weights_for(2, 3.0, false), weights_for(3, 0.1, true), far_below_weights(1000)};
  MaxDigitTrainingSettings trained;
  trained.steps = 300;
  all.push_back(train_max_digit(trained));
  return all;
}

TEMPLATE_TEST_CASE("max-digit training bits: every vector width gives the same loss and gradients", "[max_digit][bits]",
                   float, double) {
  Random rng(2024);
  for (const MaxDigitWeights& w : step_test_weights()) {
    const auto p = step_parameters<TestType>(w);
    for (int size : {1, 3, 256, 1000}) {
      const auto batch = sample_batch(rng, size);
      StepParameters<TestType> portable{}, wide{};
      const double loss = step_loss_backward_with(StepVectors::portable, *p, batch, portable, true);
      for (StepVectors vectors : {StepVectors::avx2, StepVectors::avx512}) {
        if (!step_vectors_available(vectors)) continue;
        INFO("batch of " << size << ", vectors " << static_cast<int>(vectors));
        CHECK(same_bits(step_loss_backward_with(vectors, *p, batch, wide, true), loss));
        CHECK(same_bits(wide, portable));
      }
      // what the trainer calls (the widest vectors), and without the loss the same gradients
      CHECK(std::isnan(step_loss_backward(*p, batch, wide, false)));
      CHECK(same_bits(wide, portable));
    }
  }
}

TEMPLATE_TEST_CASE("max-digit training bits: a batch repeated gives the bits of the batch once", "[max_digit][bits]",
                   float, double) {
  // Equal lists are computed once with weight multiplicity/B: a batch and the same batch twice over
  // give weights 2m·(1/2B) = m·(1/B), equal in binary, and the same distinct lists in the same order.
  Random rng(7);
  const auto p = step_parameters<TestType>(weights_for(5, 1.0, false));
  for (int size : {1, 5, 300}) {
    const auto once = sample_batch(rng, size);
    auto twice = once;
    twice.insert(twice.end(), once.begin(), once.end());
    StepParameters<TestType> a{}, b{};
    CHECK(same_bits(step_loss_backward(*p, once, a, true), step_loss_backward(*p, twice, b, true)));
    CHECK(same_bits(a, b));
  }
}

TEST_CASE("max-digit training: the single-precision step agrees with the double one", "[max_digit][training]") {
  Random rng(31);
  const auto names = parameter_names();
  for (const MaxDigitWeights& w : step_test_weights()) {
    for (int size : {1, 256}) {
      const auto batch = sample_batch(rng, size);
      MaxDigitGradients single = zero_gradients(), twice = zero_gradients();
      StepParameters<float> g{};
      const double single_loss = step_loss_backward(*step_parameters<float>(w), batch, g, true);
      from_step_parameters(g, single.list());
      const double double_loss = max_digit_loss_backward(w, batch, twice);
      CHECK(std::abs(single_loss - double_loss) <= kSingleAgainstDouble * std::max(1.0, double_loss));
      const auto s = single.list(), d = twice.list();
      double any_largest = 0;
      for (const Matrix* m : d) any_largest = std::max(any_largest, m->cwiseAbs().maxCoeff());
      for (std::size_t m = 0; m < s.size(); ++m) {
        INFO(names[m] << ", batch of " << size);
        const bool score_path = names[m].rfind("W_Q", 0) == 0 || names[m].rfind("W_K", 0) == 0;
        const double scale = score_path ? any_largest : d[m]->cwiseAbs().maxCoeff();
        CHECK((*s[m] - *d[m]).cwiseAbs().maxCoeff() <= kSingleAgainstDouble * scale);
      }
    }
  }
}

TEST_CASE("max-digit training: the double step's loss is the analyses' forward loss", "[max_digit][training]") {
  // Two forwards of the same model in different orders (kSameModelLogitBound per logit, a softmax after).
  Random rng(12);
  for (const MaxDigitWeights& w : step_test_weights()) {
    const auto batch = sample_batch(rng, 64);
    MaxDigitGradients g = zero_gradients();
    CHECK(std::abs(max_digit_loss_backward(w, batch, g) - max_digit_loss(w, batch)) <=
          4 * test::kSameModelLogitBound * std::max(1.0, max_digit_loss(w, batch)));
  }
}

TEST_CASE("max-digit training: lists attending far below the table's maximum match finite differences",
          "[max_digit][gradient]") {
  // Gap 1000: e^{−1000} underflows in double, so every list without a 9 takes the direct path in
  // both precisions (gap 100 only in single precision, whose exponential stops at e^{−87}).
  Random rng(5);
  for (double gap : {100.0, 1000.0}) {
    const MaxDigitWeights w0 = far_below_weights(gap);
    auto batch = sample_batch(rng, 24);
    batch.push_back(token_counts({9, 1}));
    MaxDigitGradients g = zero_gradients();
    max_digit_loss_backward(w0, batch, g);
    const auto grads = g.list();
    const auto names = parameter_names();
    Random pick(3);
    for (std::size_t m = 0; m < grads.size(); ++m) {
      MaxDigitWeights w = w0;
      Matrix& p = *parameter_list(w)[m];
      INFO("gap " << gap);
      test::check_gradient(
          names[m], [&] { return max_digit_loss(w, batch); }, p, *grads[m], test::kMaxDigitGradient,
          test::random_entries(pick, p.rows(), p.cols(), 8));
    }
  }
}
