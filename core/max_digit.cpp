#include "core/max_digit.hpp"

#include "core/check.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

namespace headlab::max_digit {
namespace {

constexpr int V = kVocab, D = kDModel, C = kDHead, H = kHeads;

// 1/n! for n = 0…14, folded at compile time (IEEE double on every compiler).
struct InverseFactorials {
  double c[15];
  constexpr InverseFactorials() : c{} {
    c[0] = 1.0;
    for (int n = 1; n < 15; ++n) c[n] = c[n - 1] / n;
  }
};
constexpr InverseFactorials kInverseFactorial{};

// y ← y + a·x over N contiguous entries. Element-wise (one product and one sum per entry, no
// reassociation), so the bits do not depend on whether Eigen uses SSE2 packets or scalars:
// GCC leaves these short loops scalar after unrolling them, Eigen's fixed-size packets do not.
template <int N>
inline void axpy(double a, const double* x, double* y) {
  Eigen::Map<Eigen::Matrix<double, 1, N>>(y).noalias() += a * Eigen::Map<const Eigen::Matrix<double, 1, N>>(x);
}

void require_matrix(const std::string& name, const Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  require_shape(name.c_str(), m, rows, cols);
  require_finite(name.c_str(), m);
}

void require_heads(const std::string& name, const std::vector<Matrix>& ms, Eigen::Index rows, Eigen::Index cols) {
  if (static_cast<int>(ms.size()) != H) {
    throw InputError(name + " must hold " + std::to_string(H) + " matrices (one per head), got " +
                     std::to_string(ms.size()));
  }
  for (int h = 0; h < H; ++h) require_matrix(name + "[" + std::to_string(h) + "]", ms[h], rows, cols);
}

// Attention mass of one head over the tokens of one example; `a` receives a_h(t).
void head_mass(const TokenTables& tables, int h, const TokenCounts& counts, double* a) {
  double total = 0.0;
  for (int t = 0; t < V; ++t) {
    if (counts[t]) total += counts[t] * tables.score_exp[h][t];
  }
  if (total >= 1e-290) {
    const double inverse = 1.0 / total;
    for (int t = 0; t < V; ++t) a[t] = counts[t] ? counts[t] * tables.score_exp[h][t] * inverse : 0.0;
    return;
  }
  // Every present token lies more than ~667 below the table's maximum (an absent token):
  // renormalise against the largest present score instead.
  double top = -HUGE_VAL;
  for (int t = 0; t < V; ++t) {
    if (counts[t] && tables.score[h][t] > top) top = tables.score[h][t];
  }
  total = 0.0;
  for (int t = 0; t < V; ++t) {
    a[t] = counts[t] ? counts[t] * exp_nonpositive(tables.score[h][t] - top) : 0.0;
    total += a[t];
  }
  for (int t = 0; t < V; ++t) a[t] /= total;
}

}  // namespace

const std::array<std::string, kVocab>& vocab_names() {
  static const std::array<std::string, kVocab> names = {"0", "1", "2", "3", "4", "5", "6",
                                                        "7", "8", "9", "PAD", "BOS", "SEP", "ANS"};
  return names;
}

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
    std::ostringstream text;
    text << version;
    throw InputError("format_version " + text.str() + " is not supported; this core reads version " +
                     std::to_string(kFormatVersion));
  }
}

std::vector<Matrix*> parameter_list(MaxDigitWeights& w) {
  std::vector<Matrix*> list{&w.E};
  for (int h = 0; h < H; ++h) {
    list.push_back(&w.W_Q[h]);
    list.push_back(&w.W_K[h]);
    list.push_back(&w.W_V[h]);
    list.push_back(&w.W_O[h]);
  }
  list.push_back(&w.W_U);
  return list;
}

std::vector<std::string> parameter_names() {
  std::vector<std::string> names{"E"};
  for (int h = 0; h < H; ++h) {
    for (const char* m : {"W_Q", "W_K", "W_V", "W_O"}) names.push_back(std::string(m) + "[" + std::to_string(h) + "]");
  }
  names.push_back("W_U");
  return names;
}

std::array<int, kPromptLength> prompt_tokens(const std::vector<int>& digits) {
  if (digits.empty() || digits.size() > static_cast<std::size_t>(kMaxListLength)) {
    throw InputError("digits must hold 1 to 6 digits, got " + std::to_string(digits.size()));
  }
  std::array<int, kPromptLength> tokens{};
  tokens[0] = kBos;
  for (int i = 0; i < kMaxListLength; ++i) {
    if (i < static_cast<int>(digits.size())) {
      const int d = digits[i];
      if (d < 0 || d > 9) {
        throw InputError("digits[" + std::to_string(i) + "] must be a digit 0–9, got " + std::to_string(d));
      }
      tokens[1 + i] = d;
    } else {
      tokens[1 + i] = kPad;
    }
  }
  tokens[7] = kSep;
  tokens[8] = kAns;
  return tokens;
}

TokenCounts token_counts(const std::vector<int>& digits) {
  TokenCounts counts{};
  for (int t : prompt_tokens(digits)) ++counts[t];
  return counts;
}

int maximum_digit(const TokenCounts& counts) {
  for (int d = 9; d >= 0; --d) {
    if (counts[d]) return d;
  }
  throw InputError("the list holds no digit");
}

double exp_nonpositive(double x) {
  if (x < -745.0) return 0.0;
  constexpr double ln2_hi = 6.93147180369123816490e-01;  // 32 significant bits: k·ln2_hi is exact
  constexpr double ln2_lo = 1.90821492927058770002e-10;
  constexpr double inv_ln2 = 1.44269504088896338700e+00;
  constexpr double round_shift = 6755399441055744.0;  // 1.5·2^52: y + shift − shift rounds y to the nearest integer
  const double k = (x * inv_ln2 + round_shift) - round_shift;
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  double p = kInverseFactorial.c[14];
  for (int n = 13; n >= 0; --n) p = p * r + kInverseFactorial.c[n];
  // 2^k straight from the exponent bits; below 2^−1021 scale by 2^(k+64), then by 2^−64 so that
  // only the last product rounds into the subnormal range.
  const auto ki = static_cast<std::int64_t>(k);
  const bool tiny = ki < -1021;
  const std::uint64_t bits = static_cast<std::uint64_t>(ki + (tiny ? 64 : 0) + 1023) << 52;
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return tiny ? (p * scale) * 0x1p-64 : p * scale;
}

TokenTables token_tables(const MaxDigitWeights& w, bool with_output) {
  TokenTables T;
  T.value.assign(H * V * C, 0.0);
  T.wo_wu.assign(H * C * V, 0.0);
  T.logit.assign(H * V * V, 0.0);
  const double* E = w.E.data();
  const double* ans = E + kAns * D;
  const double* WU = w.W_U.data();
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < V; ++j) T.residual_logit[j] += ans[i] * WU[i * V + j];
  }
  for (int h = 0; h < H; ++h) {
    const double *WQ = w.W_Q[h].data(), *WK = w.W_K[h].data(), *WV = w.W_V[h].data(), *WO = w.W_O[h].data();
    auto& q = T.query[h];
    q.fill(0.0);
    for (int i = 0; i < D; ++i) {
      for (int c = 0; c < C; ++c) q[c] += ans[i] * WQ[i * C + c];
    }
    auto& kq = T.key_query[h];
    for (int i = 0; i < D; ++i) {
      double s = 0.0;
      for (int c = 0; c < C; ++c) s += WK[i * C + c] * q[c];
      kq[i] = s;
    }
    double top = -HUGE_VAL;
    for (int t = 0; t < V; ++t) {
      double s = 0.0;
      for (int i = 0; i < D; ++i) s += E[t * D + i] * kq[i];
      T.score[h][t] = s * 0.25;  // 1/√d_head = 1/4, exact
      if (T.score[h][t] > top) top = T.score[h][t];
    }
    for (int t = 0; t < V; ++t) T.score_exp[h][t] = exp_nonpositive(T.score[h][t] - top);
    // Vh = E W_V (14 × 16), M = W_O W_U (16 × 14), L = Vh M (14 × 14)
    double* __restrict Vh = &T.value[h * V * C];
    for (int t = 0; t < V; ++t) {
      double row[C] = {};
      for (int i = 0; i < D; ++i) {
        const double e = E[t * D + i];
        axpy<C>(e, WV + i * C, row);
      }
      for (int c = 0; c < C; ++c) Vh[t * C + c] = row[c];
    }
    double* __restrict M = &T.wo_wu[h * C * V];
    for (int c = 0; c < C; ++c) {
      for (int i = 0; i < D; ++i) {
        const double o = WO[c * D + i];
        axpy<V>(o, WU + i * V, M + c * V);
      }
    }
    double* __restrict L = &T.logit[h * V * V];
    for (int t = 0; t < V; ++t) {
      for (int c = 0; c < C; ++c) {
        const double v = Vh[t * C + c];
        axpy<V>(v, M + c * V, L + t * V);
      }
    }
  }
  if (with_output) {
    // O_h[t] = Vh[t] W_O (14 × 64)
    T.output.assign(H * V * D, 0.0);
    for (int h = 0; h < H; ++h) {
      const double* WO = w.W_O[h].data();
      for (int t = 0; t < V; ++t) {
        double* O = &T.output[(h * V + t) * D];
        for (int c = 0; c < C; ++c) {
          const double v = T.value[(h * V + t) * C + c];
          axpy<D>(v, WO + c * D, O);
        }
      }
    }
  }
  return T;
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
  std::vector<const Matrix*> out{&dE};
  for (int h = 0; h < H; ++h) {
    out.push_back(&dW_Q[h]);
    out.push_back(&dW_K[h]);
    out.push_back(&dW_V[h]);
    out.push_back(&dW_O[h]);
  }
  out.push_back(&dW_U);
  return out;
}

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

namespace {

// −log softmax(logits)[answer], with probabilities written to p.
double cross_entropy(const std::array<double, kVocab>& logits, int answer, double* p) {
  double top = logits[0];
  for (int j = 1; j < V; ++j) top = logits[j] > top ? logits[j] : top;
  double total = 0.0;
  for (int j = 0; j < V; ++j) {
    p[j] = exp_nonpositive(logits[j] - top);
    total += p[j];
  }
  const double inverse = 1.0 / total;
  for (int j = 0; j < V; ++j) p[j] *= inverse;
  return std::log(total) - (logits[answer] - top);
}

void require_batch(const std::vector<TokenCounts>& batch) {
  if (batch.empty()) throw InputError("batch is empty; it needs at least one list");
}

}  // namespace

double max_digit_loss(const MaxDigitWeights& weights, const std::vector<TokenCounts>& batch) {
  validate_weights(weights);
  require_batch(batch);
  const TokenTables T = token_tables(weights, false);
  double loss = 0.0, p[V];
  for (const auto& counts : batch) loss += cross_entropy(logits_from_tables(T, counts), maximum_digit(counts), p);
  return loss / static_cast<double>(batch.size());
}

double max_digit_loss_backward(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
                               MaxDigitGradients& grads) {
  validate_weights(w);
  require_batch(batch);
  for (const auto& counts : batch) maximum_digit(counts);
  grads = zero_gradients();
  return loss_backward_unchecked(w, batch, grads);
}

double loss_backward_unchecked(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
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
    std::array<double, kVocab> logits = T.residual_logit;
    for (int h = 0; h < H; ++h) {
      head_mass(T, h, counts, a[h]);
      const double* L = &T.logit[h * V * V];
      for (int i = 0; i < n_present; ++i) {
        const int t = present[i];
        const double mass = a[h][t];
        axpy<V>(mass, L + t * V, logits.data());
      }
    }
    const int answer = maximum_digit(counts);
    loss += multiplicity * cross_entropy(logits, answer, p);
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

std::vector<int> sample_list(Random& rng) {
  const int maximum = static_cast<int>(rng.below(10));
  const int length = 1 + static_cast<int>(rng.below(kMaxListLength));
  std::vector<int> digits(length);
  for (;;) {
    bool has_maximum = false;
    for (int& d : digits) {
      d = static_cast<int>(rng.below(maximum + 1));
      has_maximum = has_maximum || d == maximum;
    }
    if (has_maximum) return digits;
  }
}

std::vector<TokenCounts> sample_batch(Random& rng, int batch_size) {
  if (batch_size < 1) throw InputError("batch size must be ≥ 1, got " + std::to_string(batch_size));
  std::vector<TokenCounts> batch;
  batch.reserve(batch_size);
  for (int i = 0; i < batch_size; ++i) batch.push_back(token_counts(sample_list(rng)));
  return batch;
}

const EvaluationSet& standard_evaluation_set() {
  static const EvaluationSet set = [] {
    std::map<TokenCounts, long> multiset;
    std::vector<int> digits;
    for (int length = 1; length <= 4; ++length) {
      int total = 1;
      for (int i = 0; i < length; ++i) total *= 10;
      digits.assign(length, 0);
      for (int code = 0; code < total; ++code) {
        int rest = code;
        for (int i = length - 1; i >= 0; --i) {
          digits[i] = rest % 10;
          rest /= 10;
        }
        ++multiset[token_counts(digits)];
      }
    }
    Random rng = Random(kEvaluationSeed).stream(1);
    for (int length = 5; length <= 6; ++length) {
      digits.assign(length, 0);
      for (int n = 0; n < kRandomListsPerLength; ++n) {
        for (int& d : digits) d = static_cast<int>(rng.below(10));
        ++multiset[token_counts(digits)];
      }
    }
    EvaluationSet s;
    for (const auto& [counts, n] : multiset) {
      s.counts.push_back(counts);
      s.multiplicity.push_back(n);
      const int m = maximum_digit(counts);
      s.maximum.push_back(m);
      s.total_lists += n;
      s.lists_by_max[m] += n;
    }
    return s;
  }();
  return set;
}

}  // namespace headlab::max_digit
