#include "core/transformer.hpp"

#include "core/check.hpp"
#include "core/rotary.hpp"
#include "core/tolerances.hpp"
#include "support/random_transformer.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using headlab::InputError;
using headlab::Matrix;
using namespace headlab::transformer;

namespace {

TransformerConfig small_config(Normalization norm, bool positional) {
  return transformer_config({/*n_layers*/ 2, /*n_heads*/ 2, /*d_model*/ 6, /*d_head*/ 3, /*n_ctx*/ 5, /*d_vocab*/ 7},
                            norm, positional ? Positions::learned : Positions::none);
}

using headlab::test::random_transformer;

// Checks the backward of transformer_loss on a fixed two-sequence batch against five-point central
// differences (f(x−2h) − 8f(x−h) + 8f(x+h) − f(x+2h)) / 12h in every entry of every parameter of
// `w` (perturbed in place and restored), within finite_difference_bound. `label` names the model in
// a failure. Returns the number of entries checked.
int check_backward_five_point(TransformerWeights& w, const std::string& label) {
  const std::vector<TokenSequence> batch{{{1, 4, 2, 1, 4}, 1}, {{6, 0, 6}, 0}};
  TransformerWeights dw = zero_weights(w.config);
  transformer_loss_backward(w, batch, dw);
  auto params = named_parameters(w);
  auto grads = named_parameters(dw);
  const double step = headlab::test::kFiniteDifferenceStep;
  int checked = 0;
  for (std::size_t p = 0; p < params.size(); ++p) {
    Matrix& m = *params[p].value;
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      const double saved = m.data()[i];
      const auto loss_at = [&](double offset) {
        m.data()[i] = saved + offset;
        return transformer_loss(w, batch);
      };
      const double numeric =
          (loss_at(-2 * step) - 8 * loss_at(-step) + 8 * loss_at(step) - loss_at(2 * step)) / (12 * step);
      m.data()[i] = saved;
      const double analytic = grads[p].value->data()[i];
      INFO(params[p].name << " entry " << i << ", " << label);
      CHECK(std::abs(analytic - numeric) <= headlab::test::finite_difference_bound(std::abs(numeric)));
      ++checked;
    }
  }
  return checked;
}

// A straightforward reference forward for one query position, written from the definition
// without the activation bookkeeping: logits at the last position.
headlab::RowVector reference_last_logits(const TransformerWeights& w, const std::vector<int>& tokens) {
  const auto& c = w.config;
  const int T = static_cast<int>(tokens.size());
  std::vector<Matrix> resid(1, Matrix(T, c.d_model));
  for (int i = 0; i < T; ++i) {
    resid[0].row(i) = w.W_E.row(tokens[i]);
    if (c.positions == Positions::learned) resid[0].row(i) += w.W_pos.row(i);
  }
  const auto norm = [&](const Matrix& x, const Matrix& g, const Matrix& b) {
    if (c.normalization == Normalization::none) return x;
    Matrix y = x;
    for (int i = 0; i < x.rows(); ++i) {
      double mean = 0, var = 0;
      for (int j = 0; j < x.cols(); ++j) mean += x(i, j);
      mean /= x.cols();
      for (int j = 0; j < x.cols(); ++j) var += (x(i, j) - mean) * (x(i, j) - mean);
      var /= x.cols();
      for (int j = 0; j < x.cols(); ++j) {
        y(i, j) = (x(i, j) - mean) / std::sqrt(var + c.layer_norm_eps);
        if (g.size() > 0) y(i, j) = y(i, j) * g(0, j) + b(0, j);
      }
    }
    return y;
  };
  Matrix x = resid[0];
  for (int l = 0; l < c.n_layers; ++l) {
    const auto& L = w.layers[l];
    const Matrix n = norm(x, L.ln_w, L.ln_b);
    Matrix out = x;
    for (int i = 0; i < T; ++i) {
      for (int h = 0; h < c.n_heads; ++h) {
        const headlab::RowVector q = n.row(i) * L.W_Q[h] + L.b_Q.row(h);
        std::vector<double> s(i + 1);
        double top = -INFINITY, sum = 0;
        for (int j = 0; j <= i; ++j) {
          const headlab::RowVector k = n.row(j) * L.W_K[h] + L.b_K.row(h);
          s[j] = q.dot(k) / std::sqrt(static_cast<double>(c.d_head));
          top = std::max(top, s[j]);
        }
        for (int j = 0; j <= i; ++j) sum += std::exp(s[j] - top);
        headlab::RowVector z = headlab::RowVector::Zero(c.d_head);
        for (int j = 0; j <= i; ++j) z += std::exp(s[j] - top) / sum * (n.row(j) * L.W_V[h] + L.b_V.row(h));
        out.row(i) += z * L.W_O[h];
      }
      out.row(i) += L.b_O.row(0);
    }
    x = out;
  }
  const Matrix f = norm(x, w.ln_final_w, w.ln_final_b);
  return f.row(T - 1) * w.W_U + w.b_U.row(0);
}

}  // namespace

TEST_CASE("transformer forward matches a per-position reference, with and without LayerNorm and W_pos",
          "[transformer]") {
  for (auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre}) {
    for (bool positional : {false, true}) {
      const auto w = random_transformer(small_config(norm, positional), 11, 0.7);
      const std::vector<int> tokens{3, 0, 6, 3, 1};
      const auto a = transformer_forward(w, tokens);
      const auto ref = reference_last_logits(w, tokens);
      // Logits of order ten from a few hundred rounded operations in another order.
      const double bound = headlab::test::dot_product_bound(400, 10.0);
      CHECK((a.logits.row(4) - ref).cwiseAbs().maxCoeff() <= bound);
      // The activations add up: resid_post = resid_pre + Σ_h head_output + b_O, and patterns are causal.
      for (int l = 0; l < 2; ++l) {
        const auto& la = a.layers[l];
        Matrix sum = la.resid_pre;
        for (int h = 0; h < 2; ++h) {
          sum += la.head_output[h];
          CHECK(la.pattern[h](1, 2) == 0.0);
          for (int i = 0; i < 5; ++i) {
            CHECK(std::abs(la.pattern[h].row(i).sum() - 1.0) <= headlab::test::softmax_row_sum_bound(5));
          }
        }
        sum.rowwise() += w.layers[l].b_O.row(0);
        CHECK((sum - la.resid_post).cwiseAbs().maxCoeff() == 0.0);
      }
    }
  }
}

TEST_CASE("transformer backward matches five-point finite differences for every parameter", "[transformer]") {
  for (auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre}) {
    for (bool positional : {false, true}) {
      auto w = random_transformer(small_config(norm, positional), 5, 0.6);
      const int checked = check_backward_five_point(w, std::string("normalization ") + normalization_name(norm));
      CHECK(checked == parameter_count(w.config));
    }
  }
}

TEST_CASE("transformer inputs: bad config, shapes, NaN and tokens name what is wrong", "[transformer]") {
  auto c = small_config(Normalization::layer_norm, true);
  c.n_layers = 5;
  CHECK_THROWS_WITH(validate_config(c), "config.n_layers must lie in [1, 4], got 5");
  c = small_config(Normalization::layer_norm, true);
  c.token_names = {"a", "b"};
  CHECK_THROWS_WITH(validate_config(c), Catch::Contains("token_names has 2 names"));
  c.token_names.clear();
  c.d_model = 4096;
  c.d_vocab = 65536;
  CHECK_THROWS_WITH(validate_config(c), Catch::Contains("parameters; at most"));
  auto w = random_transformer(small_config(Normalization::layer_norm, true), 1, 1.0);
  w.layers[1].W_K[1](2, 0) = NAN;
  CHECK_THROWS_WITH(transformer_forward(w, {1, 2}), Catch::Contains("blocks.1.attn.W_K[1]"));
  w = random_transformer(small_config(Normalization::layer_norm, true), 1, 1.0);
  w.layers[0].b_O = Matrix::Zero(1, 5);
  CHECK_THROWS_WITH(transformer_forward(w, {1, 2}), Catch::Contains("blocks.0.attn.b_O must be 1 × 6"));
  w = random_transformer(small_config(Normalization::layer_norm, true), 1, 1.0);
  CHECK_THROWS_WITH(transformer_forward(w, {1, 7}), Catch::Contains("token 7 at position 1"));
  CHECK_THROWS_WITH(transformer_forward(w, {1, -1}), Catch::Contains("outside the vocabulary"));
  CHECK_THROWS_WITH(transformer_forward(w, {1, 1, 1, 1, 1, 1}), Catch::Contains("n_ctx = 5"));
  CHECK_THROWS_AS(transformer_forward(w, {}), InputError);
  CHECK_THROWS_WITH(transformer_loss(w, {{{1, 2}, 1}}), Catch::Contains("loss_from = 1"));
}

TEST_CASE("backward through RMSNorm, RoPE, shortformer positions and grouped heads matches finite differences",
          "[transformer]") {
  const TransformerSizes sizes{/*n_layers*/ 2, /*n_heads*/ 4, /*d_model*/ 6,
                               /*d_head*/ 4,   /*n_ctx*/ 5,   /*d_vocab*/ 7};
  std::vector<TransformerConfig> configs;
  auto rope = transformer_config(sizes, Normalization::rms, Positions::rotary);  // NeoX, full width
  rope.rotary_dim = 4;
  rope.n_key_value_heads = 2;
  configs.push_back(rope);
  auto gptj = transformer_config(sizes, Normalization::rms_pre, Positions::rotary);  // GPT-J pairs, half width
  gptj.rotary_dim = 2;
  gptj.rotary_base = 50;
  gptj.rotary_adjacent_pairs = true;
  gptj.attn_scale = 1.5;
  configs.push_back(gptj);
  auto shortformer = transformer_config(sizes, Normalization::layer_norm, Positions::shortformer);
  shortformer.n_key_value_heads = 1;
  configs.push_back(shortformer);
  for (const auto& c : configs) {
    auto w = random_transformer(c, 5, 0.6);
    const int checked =
        check_backward_five_point(w, std::string(normalization_name(c.normalization)) + ", " +
                                         positions_name(c.positions) + ", G = " + std::to_string(key_value_heads(c)));
    CHECK(checked == parameter_count(c));
  }
}

TEST_CASE("rotary: the rotation keeps lengths, its inverse undoes it, and scores see only the offset",
          "[transformer]") {
  for (bool adjacent : {false, true}) {
    auto c = transformer_config({1, 1, 4, 6, 4096, 3}, Normalization::none, Positions::rotary);
    c.rotary_dim = 4;
    c.rotary_adjacent_pairs = adjacent;
    const double x[6] = {0.3, -1.2, 0.7, 2.0, -0.4, 0.9}, y[6] = {1.1, 0.2, -0.5, 0.8, 0.6, -1.3};
    const auto rotated = [&](const double* v, long long p) {
      Matrix m = Eigen::Map<const headlab::RowVector>(v, 6);
      apply_rotary(c, m.data(), p);
      return m;
    };
    for (long long p : {0LL, 1LL, 7LL, 4095LL}) {
      Matrix m = rotated(x, p);
      CHECK(std::abs(m.squaredNorm() - Eigen::Map<const headlab::RowVector>(x, 6).squaredNorm()) <=
            headlab::test::kRotationAbsolute);
      CHECK((m(0, 4) == x[4] && m(0, 5) == x[5]));  // components past rotary_dim pass unchanged
      apply_rotary(c, m.data(), p, true);
      for (int i = 0; i < 6; ++i) CHECK(std::abs(m(0, i) - x[i]) <= headlab::test::kRotationAbsolute);
    }
    // q at position i against k at j depends on i − j only (up to rounding of the angles).
    const double s1 = rotated(x, 9).row(0).dot(rotated(y, 4).row(0)),
                 s2 = rotated(x, 105).row(0).dot(rotated(y, 100).row(0));
    CHECK(std::abs(s1 - s2) <= headlab::test::kRotaryOffsetAbsolute);
    // Pair 0 turns by exactly p radians (ω_0 = 1): compare with the closed form.
    const Matrix at3 = rotated(x, 3);
    const int a = 0, b = adjacent ? 1 : 2;
    CHECK(std::abs(at3(0, a) - (x[a] * std::cos(3.0) - x[b] * std::sin(3.0))) <= headlab::test::kRotationAbsolute);
    CHECK(std::abs(at3(0, b) - (x[b] * std::cos(3.0) + x[a] * std::sin(3.0))) <= headlab::test::kRotationAbsolute);
  }
}

TEST_CASE("a float32 matrix remembers whether its entries are finite until it is written again", "[transformer]") {
  headlab::transformer::Float32Matrix m = headlab::transformer::Float32Matrix::zero(2, 3);
  CHECK(m.all_finite());
  m.owned_data()[4] = std::numeric_limits<float>::quiet_NaN();
  const headlab::transformer::Float32Matrix copy = m;  // shares the entries and the answer
  CHECK_FALSE(copy.all_finite());
  CHECK_FALSE(m.all_finite());
  m.owned_data()[4] = 1.5F;
  CHECK(m.all_finite());
  CHECK(copy.all_finite());
  CHECK(headlab::transformer::Float32Matrix().all_finite());
}
