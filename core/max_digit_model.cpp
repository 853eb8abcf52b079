#include "core/max_digit_model.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/softmax.hpp"

#include <cmath>
#include <cstdio>

namespace headlab::max_digit {
namespace {

constexpr int V = kVocab, D = kDModel, C = kDHead, H = kHeads;

// y ← y + a·x over N contiguous entries. Element-wise (one product and one sum per entry, no
// reassociation), so the bits do not depend on whether Eigen uses SSE2 packets or scalars:
// GCC leaves these short loops scalar after unrolling them, Eigen's fixed-size packets do not.
template <int N>
inline void axpy(double a, const double* x, double* y) {
  Eigen::Map<Eigen::Matrix<double, 1, N>>(y).noalias() += a * Eigen::Map<const Eigen::Matrix<double, 1, N>>(x);
}

void require_matrix(const std::string& name, const Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  require_shape(name.c_str(), m, rows, cols);
  require_bounded(name.c_str(), m, kMaxWeightMagnitude);
}

void require_heads(const std::string& name, const std::vector<Matrix>& ms, Eigen::Index rows, Eigen::Index cols) {
  if (static_cast<int>(ms.size()) != H) {
    throw InputError(name + " must hold " + std::to_string(H) + " matrices (one per head), got " +
                     std::to_string(ms.size()));
  }
  for (int h = 0; h < H; ++h) require_matrix(name + "[" + std::to_string(h) + "]", ms[h], rows, cols);
}

void require_batch(const std::vector<TokenCounts>& batch) {
  if (batch.empty()) throw InputError("batch is empty; it needs at least one list");
}

// Attention mass of one head over the tokens of one example; `a` receives a_h(t).
void head_mass(const TokenTables& tables, int h, const TokenCounts& counts, double* a) {
  double total = 0.0;
  for (int t = 0; t < V; ++t) {
    if (counts[t]) total += counts[t] * tables.score_exp[h][t];
  }
  if (!(total >= kMassUnderflow)) return far_below_maximum_mass(tables.score[h].data(), counts, a);
  const double inverse = 1.0 / total;
  for (int t = 0; t < V; ++t) a[t] = counts[t] ? counts[t] * tables.score_exp[h][t] * inverse : 0.0;
}

// Vh = E W_V^h (14 × 16), M = W_O^h W_U (16 × 14), L = Vh M (14 × 14), into the tables' rows of head h.
void value_logit_tables(const MaxDigitWeights& w, int h, TokenTables& T) {
  const double *E = w.E.data(), *WU = w.W_U.data(), *WV = w.W_V[h].data(), *WO = w.W_O[h].data();
  double* __restrict Vh = &T.value[h * V * C];
  for (int t = 0; t < V; ++t) {
    double row[C] = {};
    for (int i = 0; i < D; ++i) axpy<C>(E[t * D + i], WV + i * C, row);
    for (int c = 0; c < C; ++c) Vh[t * C + c] = row[c];
  }
  double* __restrict M = &T.wo_wu[h * C * V];
  for (int c = 0; c < C; ++c) {
    for (int i = 0; i < D; ++i) axpy<V>(WO[c * D + i], WU + i * V, M + c * V);
  }
  double* __restrict L = &T.logit[h * V * V];
  for (int t = 0; t < V; ++t) {
    for (int c = 0; c < C; ++c) axpy<V>(Vh[t * C + c], M + c * V, L + t * V);
  }
}

// O_h[t] = Vh[t] W_O^h (4 × 14 × 64).
void output_table(const MaxDigitWeights& w, TokenTables& T) {
  T.output.assign(H * V * D, 0.0);
  for (int h = 0; h < H; ++h) {
    const double* WO = w.W_O[h].data();
    for (int t = 0; t < V; ++t) {
      double* O = &T.output[(h * V + t) * D];
      for (int c = 0; c < C; ++c) axpy<D>(T.value[(h * V + t) * C + c], WO + c * D, O);
    }
  }
}

// −log softmax(logits)[answer] with the probabilities in p (14 logits).
double cross_entropy(const double* logits, int answer, double* p) {
  return softmax_cross_entropy(logits, V, answer, p, exp_nonpositive);
}

// The score side of head h (token_tables' scores):
//   query (16) = E[ANS] W_Q^h,  key_query (64) = W_K^h queryᵀ,
//   score (14) = E[t]·key_query / 4,  score_exp (14) = e^{score(t) − max_u score(u)}.
// Sums run over the inner index in order, from 0.
void head_scores(const MaxDigitWeights& w, int h, double* q, double* kq, double* score, double* score_exp) {
  const double *E = w.E.data(), *WQ = w.W_Q[h].data(), *WK = w.W_K[h].data();
  const double* ans = E + kAns * D;
  for (int c = 0; c < C; ++c) q[c] = 0.0;
  for (int i = 0; i < D; ++i) {
    for (int c = 0; c < C; ++c) q[c] += ans[i] * WQ[i * C + c];
  }
  // kq[i] = Σ_c W_K[i][c] q[c] and s(t) = Σ_i E[t][i] kq[i], each sum from 0 in index order.
  // Eight rows of W_K (and all 14 tokens) are summed side by side: independent running sums,
  // each the same sequence of roundings, instead of one chain of dependent additions at a time.
  constexpr int kRows = 8;
  static_assert(D % kRows == 0, "whole blocks of rows");
  for (int i0 = 0; i0 < D; i0 += kRows) {
    double s[kRows] = {};
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < kRows; ++r) s[r] += WK[(i0 + r) * C + c] * q[c];
    for (int r = 0; r < kRows; ++r) kq[i0 + r] = s[r];
  }
  double s[V] = {};
  for (int i = 0; i < D; ++i)
    for (int t = 0; t < V; ++t) s[t] += E[t * D + i] * kq[i];
  double top = -HUGE_VAL;
  for (int t = 0; t < V; ++t) {
    score[t] = s[t] * kScoreScale;
    if (score[t] > top) top = score[t];
  }
  for (int t = 0; t < V; ++t) score_exp[t] = exp_nonpositive(score[t] - top);
}

// The matrices in parameter_list order: E, then per head W_Q, W_K, W_V, W_O, then W_U (M is Matrix
// or const Matrix; the weights' and the gradients' lists alike).
template <class M, class Heads>
std::vector<M*> in_parameter_order(M& e, Heads& q, Heads& k, Heads& v, Heads& o, M& u) {
  std::vector<M*> list{&e};
  for (int h = 0; h < H; ++h) {
    for (M* m : {&q[h], &k[h], &v[h], &o[h]}) list.push_back(m);
  }
  list.push_back(&u);
  return list;
}

}  // namespace

void validate_weights(const MaxDigitWeights& w) {
  require_matrix("E", w.E, V, D);
  require_heads("W_Q", w.W_Q, D, C);
  require_heads("W_K", w.W_K, D, C);
  require_heads("W_V", w.W_V, D, C);
  require_heads("W_O", w.W_O, C, D);
  require_matrix("W_U", w.W_U, D, V);
}

void require_format_version(double version) {
  if (version != kFormatVersion) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", version);  // 1.0000000000000002 must not print as "1"
    throw InputError("format_version " + std::string(text) + " is not supported; this core reads version " +
                     std::to_string(kFormatVersion));
  }
}

std::vector<Matrix*> parameter_list(MaxDigitWeights& w) {
  return in_parameter_order<Matrix>(w.E, w.W_Q, w.W_K, w.W_V, w.W_O, w.W_U);
}

std::vector<const Matrix*> parameter_list(const MaxDigitWeights& w) {
  return in_parameter_order<const Matrix>(w.E, w.W_Q, w.W_K, w.W_V, w.W_O, w.W_U);
}

std::vector<std::string> parameter_names() {
  std::vector<std::string> names{"E"};
  for (int h = 0; h < H; ++h) {
    for (const char* m : {"W_Q", "W_K", "W_V", "W_O"}) names.push_back(std::string(m) + "[" + std::to_string(h) + "]");
  }
  names.push_back("W_U");
  return names;
}


TokenTables token_tables(const MaxDigitWeights& w, bool with_output) {
  TokenTables T;
  T.value.assign(H * V * C, 0.0);
  T.wo_wu.assign(H * C * V, 0.0);
  T.logit.assign(H * V * V, 0.0);
  const double* ans = w.E.data() + kAns * D;
  const double* WU = w.W_U.data();
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < V; ++j) T.residual_logit[j] += ans[i] * WU[i * V + j];
  }
  for (int h = 0; h < H; ++h) {
    head_scores(w, h, T.query[h].data(), T.key_query[h].data(), T.score[h].data(), T.score_exp[h].data());
    value_logit_tables(w, h, T);
  }
  if (with_output) output_table(w, T);
  return T;
}

void far_below_maximum_mass(const double* score, const TokenCounts& counts, double* a) {
  double top = -HUGE_VAL;
  for (int t = 0; t < V; ++t) {
    if (counts[t] && score[t] > top) top = score[t];
  }
  double total = 0.0;
  for (int t = 0; t < V; ++t) {
    a[t] = counts[t] ? counts[t] * exp_nonpositive(score[t] - top) : 0.0;
    total += a[t];
  }
  for (int t = 0; t < V; ++t) a[t] /= total;
}

std::array<std::array<double, kVocab>, kHeads> attention_mass(const TokenTables& tables, const TokenCounts& counts) {
  std::array<std::array<double, kVocab>, kHeads> a{};
  for (int h = 0; h < H; ++h) head_mass(tables, h, counts, a[h].data());
  return a;
}

std::array<double, kVocab> logits_from_tables(const TokenTables& tables, const TokenCounts& counts) {
  std::array<double, kVocab> logits = tables.residual_logit;
  double a[V];
  for (int h = 0; h < H; ++h) {
    head_mass(tables, h, counts, a);
    const double* L = &tables.logit[h * V * V];
    for (int t = 0; t < V; ++t) {
      if (!counts[t]) continue;
      axpy<V>(a[t], L + t * V, logits.data());
    }
  }
  return logits;
}

std::array<double, kVocab> forward_logits(const MaxDigitWeights& weights, const std::vector<int>& digits) {
  validate_weights(weights);
  const TokenCounts counts = token_counts(digits);
  return logits_from_tables(token_tables(weights, false), counts);
}

int answer_of(const std::array<double, kVocab>& logits) {
  int best = 0;
  for (int j = 1; j < V; ++j) {
    if (logits[j] > logits[best]) best = j;
  }
  return best;
}

std::vector<const Matrix*> MaxDigitGradients::list() const {
  return in_parameter_order<const Matrix>(dE, dW_Q, dW_K, dW_V, dW_O, dW_U);
}

std::vector<Matrix*> MaxDigitGradients::list() { return in_parameter_order<Matrix>(dE, dW_Q, dW_K, dW_V, dW_O, dW_U); }

MaxDigitGradients zero_gradients() {
  MaxDigitGradients g;
  g.dE = Matrix::Zero(V, D);
  for (int h = 0; h < H; ++h) {
    g.dW_Q.push_back(Matrix::Zero(D, C));
    g.dW_K.push_back(Matrix::Zero(D, C));
    g.dW_V.push_back(Matrix::Zero(D, C));
    g.dW_O.push_back(Matrix::Zero(C, D));
  }
  g.dW_U = Matrix::Zero(D, V);
  return g;
}

double max_digit_loss(const MaxDigitWeights& weights, const std::vector<TokenCounts>& batch) {
  validate_weights(weights);
  require_batch(batch);
  const TokenTables T = token_tables(weights, false);
  double loss = 0.0, p[V];
  for (const auto& counts : batch)
    loss += cross_entropy(logits_from_tables(T, counts).data(), maximum_digit(counts), p);
  return loss / static_cast<double>(batch.size());
}


}  // namespace headlab::max_digit
