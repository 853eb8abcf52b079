// The training step of the max-digit transformer against the implementation it replaced:
// the per-example loops over token tables below (kept verbatim as the reference) and the batched,
// vectorised kernels in core/max_digit_kernels.cpp must give the same loss and gradients to the last bit,
// and the batch sampler the same batches as sample_list + token_counts. Bit-identity is the
// contract that keeps the shipped seed-0 weights (site/pages/data/max-digit-seed0.json)
// regenerating byte for byte and the WASM weights equal to the native ones.
#include "core/deterministic_math.hpp"
#include "core/max_digit.hpp"
#include "core/softmax.hpp"
#include "core/max_digit_training.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace headlab;
using namespace headlab::max_digit;

namespace {

constexpr int V = kVocab, D = kDModel, C = kDHead, H = kHeads;

template <int N>
inline void axpy(double a, const double* x, double* y) {
  Eigen::Map<Eigen::Matrix<double, 1, N>>(y).noalias() += a * Eigen::Map<const Eigen::Matrix<double, 1, N>>(x);
}

double reference_loss_backward(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
                               MaxDigitGradients& grads) {
  const TokenTables T = token_tables(w, false);
  grads.dE.setZero();
  grads.dW_U.setZero();
  for (int h = 0; h < H; ++h) {
    grads.dW_Q[h].setZero();
    grads.dW_K[h].setZero();
    grads.dW_V[h].setZero();
    grads.dW_O[h].setZero();
  }
  const double inverse_batch = 1.0 / static_cast<double>(batch.size());

  // The model sees a multiset of tokens, so equal examples are merged and weighted by
  // their multiplicity: sort the examples by a 33-bit key of their digit and PAD counts.
  std::vector<std::pair<std::uint64_t, int>> keys(batch.size());
  for (std::size_t n = 0; n < batch.size(); ++n) {
    std::uint64_t key = 0;
    for (int t = 0; t <= kPad; ++t) key = (key << 3) | batch[n][t];
    keys[n] = {key, static_cast<int>(n)};
  }
  std::sort(keys.begin(), keys.end());

  // Accumulated over the batch: dlogits summed (for the residual path), dL_h = G_h (14 × 14), ds_h (14).
  double sum_g[V] = {};
  std::vector<double> G(H * V * V, 0.0);
  double dS[H][V] = {};
  double loss = 0.0;
  double a[H][V], p[V], g[V], lambda[V];
  int present[V];
  std::vector<double> logit_transposed(H * V * V);
  for (int h = 0; h < H; ++h) {
    for (int t = 0; t < V; ++t) {
      for (int j = 0; j < V; ++j) logit_transposed[(h * V + j) * V + t] = T.logit[(h * V + t) * V + j];
    }
  }
  for (std::size_t first = 0; first < keys.size();) {
    std::size_t last = first + 1;
    while (last < keys.size() && keys[last].first == keys[first].first) ++last;
    const double multiplicity = static_cast<double>(last - first);
    const TokenCounts& counts = batch[keys[first].second];
    first = last;
    int n_present = 0;
    for (int t = 0; t < V; ++t) {
      if (counts[t]) present[n_present++] = t;
    }
    // a_h(t) and the cross-entropy as the analysis path forms them (core/max_digit_model.cpp,
    // core/softmax.hpp); the kernels have their own vectorised copies of both.
    const auto mass = attention_mass(T, counts);
    std::array<double, kVocab> logits = T.residual_logit;
    for (int h = 0; h < H; ++h) {
      std::copy(mass[h].begin(), mass[h].end(), a[h]);
      const double* L = &T.logit[h * V * V];
      for (int i = 0; i < n_present; ++i) {
        const int t = present[i];
        const double mass = a[h][t];
        axpy<V>(mass, L + t * V, logits.data());
      }
    }
    const int answer = maximum_digit(counts);
    loss += multiplicity * softmax_cross_entropy(logits.data(), V, answer, p, exp_nonpositive);
    // dloss/dlogits of the mean loss, summed over the copies: multiplicity · (softmax − onehot) / B
    const double weight = multiplicity * inverse_batch;
    for (int j = 0; j < V; ++j) {
      g[j] = (p[j] - (j == answer ? 1.0 : 0.0)) * weight;
      sum_g[j] += g[j];
    }
    for (int h = 0; h < H; ++h) {
      double* Gh = &G[h * V * V];
      // logits += Σ_t a(t) L[t]  ⇒  da(t) = L[t]·g;  a = softmax over tokens ⇒ ds(t) = a(t)(da(t) − Σ_u a(u) da(u))
      // λ = L g for all 14 tokens as Σ_j g_j Lᵀ[j] (same order of terms as the dot products)
      const double* LT = &logit_transposed[h * V * V];
      for (int t = 0; t < V; ++t) lambda[t] = 0.0;
      for (int j = 0; j < V; ++j) axpy<V>(g[j], LT + j * V, lambda);
      double mean_lambda = 0.0;
      for (int i = 0; i < n_present; ++i) mean_lambda += a[h][present[i]] * lambda[present[i]];
      for (int i = 0; i < n_present; ++i) {
        const int t = present[i];
        const double mass = a[h][t];
        dS[h][t] += mass * (lambda[t] - mean_lambda);
        axpy<V>(mass, g, Gh + t * V);  // dL[t] += a(t) g
      }
    }
  }

  const double* E = w.E.data();
  const double* ans = E + kAns * D;
  const double* WU = w.W_U.data();
  double* dE = grads.dE.data();
  double* dans = dE + kAns * D;
  double* __restrict dWU = grads.dW_U.data();
  std::vector<double> WUT(V * D);  // W_Uᵀ, 14 × 64
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < V; ++j) WUT[j * D + i] = WU[i * V + j];
  }
  // residual_logit = E[ANS] W_U
  for (int i = 0; i < D; ++i) {
    double s = 0.0;
    for (int j = 0; j < V; ++j) {
      dWU[i * V + j] += ans[i] * sum_g[j];
      s += WU[i * V + j] * sum_g[j];
    }
    dans[i] += s;
  }
  for (int h = 0; h < H; ++h) {
    const double *WQ = w.W_Q[h].data(), *WK = w.W_K[h].data(), *WV = w.W_V[h].data(), *WO = w.W_O[h].data();
    double *__restrict dWQ = grads.dW_Q[h].data(), *__restrict dWK = grads.dW_K[h].data(),
           *__restrict dWV = grads.dW_V[h].data(), *__restrict dWO = grads.dW_O[h].data();
    const double* Vh = &T.value[h * V * C];
    const double* M = &T.wo_wu[h * C * V];
    const double* Gh = &G[h * V * V];
    // L = Vh M: dVh = G Mᵀ, dM = Vhᵀ G
    // Products written as sums of rows (axpy) over transposed factors: the same terms in the
    // same order as the dot products they replace, so the bits are those of plain loops.
    double MT[V * C], WVT[C * D];
    for (int c = 0; c < C; ++c) {
      for (int j = 0; j < V; ++j) MT[j * C + c] = M[c * V + j];
      for (int i = 0; i < D; ++i) WVT[c * D + i] = WV[i * C + c];
    }
    double dV[V * C] = {}, dM[C * V] = {};
    for (int t = 0; t < V; ++t) {
      for (int j = 0; j < V; ++j) axpy<C>(Gh[t * V + j], MT + j * C, dV + t * C);
    }
    for (int t = 0; t < V; ++t) {
      for (int c = 0; c < C; ++c) {
        const double v = Vh[t * C + c];
        axpy<V>(v, Gh + t * V, dM + c * V);
      }
    }
    // Vh = E W_V: dW_V = Eᵀ dVh, dE += dVh W_Vᵀ
    for (int i = 0; i < D; ++i) {
      double row[C] = {};
      for (int t = 0; t < V; ++t) {
        const double e = E[t * D + i];
        axpy<C>(e, dV + t * C, row);
      }
      for (int c = 0; c < C; ++c) dWV[i * C + c] = row[c];
    }
    for (int t = 0; t < V; ++t) {
      double row[D] = {};
      for (int c = 0; c < C; ++c) axpy<D>(dV[t * C + c], WVT + c * D, row);
      axpy<D>(1.0, row, dE + t * D);
    }
    // M = W_O W_U: dW_O = dM W_Uᵀ, dW_U += W_Oᵀ dM
    for (int c = 0; c < C; ++c) {
      double row[D] = {};
      for (int j = 0; j < V; ++j) axpy<D>(dM[c * V + j], WUT.data() + j * D, row);
      for (int i = 0; i < D; ++i) dWO[c * D + i] = row[i];
    }
    for (int c = 0; c < C; ++c) {
      for (int i = 0; i < D; ++i) {
        const double o = WO[c * D + i];
        axpy<V>(o, dM + c * V, dWU + i * V);
      }
    }
    // s(t) = E[t]·kq / 4: dkq = Σ_t ds(t) E[t] / 4, dE[t] += ds(t) kq / 4
    const auto& kq = T.key_query[h];
    double dkq[D] = {};
    for (int t = 0; t < V; ++t) {
      const double ds = dS[h][t] * 0.25;
      for (int i = 0; i < D; ++i) {
        dkq[i] += ds * E[t * D + i];
        dE[t * D + i] += ds * kq[i];
      }
    }
    // kq = W_K qᵀ: dW_K = dkq q, dq = dkqᵀ W_K
    const auto& q = T.query[h];
    double dq[C] = {};
    for (int i = 0; i < D; ++i) {
      for (int c = 0; c < C; ++c) {
        dWK[i * C + c] = dkq[i] * q[c];
        dq[c] += dkq[i] * WK[i * C + c];
      }
    }
    // q = E[ANS] W_Q: dW_Q = E[ANS]ᵀ dq, dE[ANS] += dq W_Qᵀ
    for (int i = 0; i < D; ++i) {
      double s = 0.0;
      for (int c = 0; c < C; ++c) {
        dWQ[i * C + c] = ans[i] * dq[c];
        s += WQ[i * C + c] * dq[c];
      }
      dans[i] += s;
    }
  }
  return loss * inverse_batch;
}


std::vector<TokenCounts> reference_batch(Random& rng, int size) {
  std::vector<TokenCounts> batch;
  for (int i = 0; i < size; ++i) batch.push_back(token_counts(sample_list(rng)));
  return batch;
}

bool same_bits(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

MaxDigitWeights weights_for(std::uint64_t seed, double scale, bool unit_norm) {
  MaxDigitTrainingSettings s;
  s.seed = seed;
  s.init_scale = scale;
  s.unit_norm_unembedding = unit_norm;
  return initial_weights(s);
}

}  // namespace

TEST_CASE("max-digit training bits: the batch sampler draws what sample_list + token_counts draw", "[max_digit][bits]") {
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

TEST_CASE("max-digit training bits: loss and every gradient equal the reference to the last bit", "[max_digit][bits]") {
  // Weights at several scales (0.1 is the recipe's initialisation; 1 and 3 give peaked
  // attention and large logits), trained weights, unit-norm W_U; batches of 1 to 1000 lists.
  std::vector<MaxDigitWeights> all = {weights_for(0, 0.1, false), weights_for(1, 1.0, false),
                                      weights_for(2, 3.0, false), weights_for(3, 0.1, true)};
  MaxDigitTrainingSettings trained;
  trained.steps = 300;
  all.push_back(train_max_digit(trained));
  Random rng(2024);
  for (std::size_t k = 0; k < all.size(); ++k) {
    for (int size : {1, 3, 256, 1000}) {
      const auto batch = sample_batch(rng, size);
      MaxDigitGradients fast = zero_gradients(), reference = zero_gradients();
      const double fast_loss = loss_backward_unchecked(all[k], batch, fast);
      const double reference_loss = reference_loss_backward(all[k], batch, reference);
      INFO("weights " << k << ", batch of " << size);
      CHECK(same_bits(fast_loss, reference_loss));
      const auto f = fast.list(), r = reference.list();
      for (std::size_t m = 0; m < f.size(); ++m) {
        INFO("gradient " << parameter_names()[m]);
        CHECK(same_bits(*f[m], *r[m]));
      }
    }
  }
}

TEST_CASE("max-digit training bits: 200 steps of the recipe equal the reference trainer to the last bit", "[max_digit][bits]") {
  for (bool unit_norm : {false, true}) {
    MaxDigitTrainingSettings s;
    s.seed = 5;
    s.steps = 200;
    s.unit_norm_unembedding = unit_norm;
    MaxDigitWeights w = initial_weights(s);
    Adam optimiser(parameter_list(w), headlab::adam_settings(s.learning_rate, s.weight_decay));
    Random batches = Random(s.seed).stream(2);
    MaxDigitGradients g = zero_gradients();
    for (long step = 0; step < s.steps; ++step) {
      reference_loss_backward(w, reference_batch(batches, s.batch_size), g);
      optimiser.step(g.list());
      if (unit_norm) normalise_unembedding_columns(w.W_U);
    }
    const MaxDigitWeights fast = train_max_digit(s);
    INFO("unit-norm W_U: " << unit_norm);
    CHECK(same_bits(fast.E, w.E));
    for (int h = 0; h < kHeads; ++h) {
      CHECK(same_bits(fast.W_Q[h], w.W_Q[h]));
      CHECK(same_bits(fast.W_K[h], w.W_K[h]));
      CHECK(same_bits(fast.W_V[h], w.W_V[h]));
      CHECK(same_bits(fast.W_O[h], w.W_O[h]));
    }
    CHECK(same_bits(fast.W_U, w.W_U));
  }
}
