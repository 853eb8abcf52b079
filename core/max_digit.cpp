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
double cross_entropy(const double* logits, int answer, double* p) {
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
  for (const auto& counts : batch) loss += cross_entropy(logits_from_tables(T, counts).data(), maximum_digit(counts), p);
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

namespace {

// ---- Training step over a batch: per-token tables as small dense products ----
//
// Every product below sums its terms in the same order, from the same starting value, as the
// plain loops it replaces (the reference in tests/core/max_digit_training_bits_test.cpp), so the
// gradients are the same to the last bit; only the memory layout and the loop nesting differ.
// Element-wise vector arithmetic (GCC/clang vector extensions, lowered to SSE2/AVX natively and
// to simd128 in WASM) rounds each lane exactly like the scalar operation. Contraction of a
// product and a sum into an FMA would change the bits; the core is built with -ffp-contract=off.
// Rows of 14 logits or tokens are padded to 16 entries (two vectors of 8) whose padding stays 0.

#if !defined(__GNUC__)
#error "the max-digit training kernels use GCC/clang vector extensions"
#endif
#define HEADLAB_INLINE __attribute__((always_inline)) inline
// Lanes<4> values cross no call boundary (everything is inlined), so the ABI note is moot.
#pragma GCC diagnostic ignored "-Wpsabi"

// W doubles per vector: 2 is one SSE2 register natively and one simd128 value in WASM; 4 is one
// AVX register (the kernels are compiled a second time for AVX2 natively, chosen at run time).
// Each lane of a vector product or sum is the scalar IEEE operation, so the bits do not depend
// on the vector width.
template <int W>
struct Lanes {
  typedef double type __attribute__((vector_size(8 * W)));
  static HEADLAB_INLINE type load(const double* p) {
    type v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static HEADLAB_INLINE void store(double* p, type v) { std::memcpy(p, &v, sizeof v); }
};
typedef Lanes<2>::type f64x2;
HEADLAB_INLINE f64x2 load2(const double* p) { return Lanes<2>::load(p); }
HEADLAB_INLINE void store2(double* p, f64x2 v) { Lanes<2>::store(p, v); }

constexpr int P = 16;  // padded row length for the 14-wide rows

// y[0 … N) += a·x[0 … N), lane by lane.
template <int W, int N>
HEADLAB_INLINE void axpy_rows(double a, const double* __restrict x, double* __restrict y) {
  static_assert(N % W == 0, "whole vectors");
  using L = Lanes<W>;
  for (int j = 0; j < N; j += W) L::store(y + j, L::load(y + j) + a * L::load(x + j));
}

// C[r][0 … N) = (C[r] if accumulate, else 0) + Σ_{k=0}^{K−1} A(r, k)·B[k][0 … N), terms added one
// by one in k order, for R rows; A(r, k) = a[r·a_row + k·a_k] (so Aᵀ is read in place). The R × N
// running sums stay in vector registers.
template <int W, int R, int K, int N>
HEADLAB_INLINE void panel(const double* a, long a_row, long a_k, const double* __restrict b, long ldb,
                          double* __restrict c, long ldc, bool accumulate) {
  static_assert(N % W == 0, "whole vectors");
  using L = Lanes<W>;
  typename L::type acc[R][N / W];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < N / W; ++j) acc[r][j] = accumulate ? L::load(c + r * ldc + W * j) : typename L::type{};
  for (int k = 0; k < K; ++k) {
    for (int r = 0; r < R; ++r) {
      const double x = a[r * a_row + k * a_k];
      for (int j = 0; j < N / W; ++j) acc[r][j] += x * L::load(b + k * ldb + W * j);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < N / W; ++j) L::store(c + r * ldc + W * j, acc[r][j]);
}

// The M × N product C = A B (or C += A B), R rows at a time (M divisible by R).
template <int W, int M, int R, int K, int N>
HEADLAB_INLINE void product(const double* a, long a_row, long a_k, const double* b, long ldb, double* c, long ldc,
                            bool accumulate) {
  static_assert(M % R == 0, "row blocks must tile the rows");
  for (int i = 0; i < M; i += R) panel<W, R, K, N>(a + i * a_row, a_row, a_k, b, ldb, c + i * ldc, ldc, accumulate);
}

// Everything one step needs, kept between steps so that a step allocates nothing.
struct StepWorkspace {
  // forward tables (14-wide rows padded to 16)
  alignas(64) double residual[P];
  alignas(64) double query[H][C];
  alignas(64) double key_query[H][D];
  alignas(64) double score[H][V];
  alignas(64) double score_exp[H][P];
  alignas(64) double value[H][V][C];   // E W_V^h
  alignas(64) double wo_wu[H][C][P];   // W_O^h W_U
  alignas(64) double logit[H][V][P];   // L_h[t]
  alignas(64) double logit_pair[H / 2][V][V][2];  // L of heads 2g and 2g+1 side by side: [g][t][j][head − 2g]
  alignas(64) double unembed[D][P];    // W_U
  // batch accumulators
  alignas(64) double sum_g[P];
  alignas(64) double G[H][V][P];  // dL_h
  alignas(64) double dS[H][V];    // ds_h
  // backward scratch
  alignas(64) double wo_wu_t[V][C];  // (W_O W_U)ᵀ: [j][c]
  alignas(64) double dvalue[V][C];
  alignas(64) double dwo_wu[C][P];
  alignas(64) double wv_t[C][D];
  alignas(64) double wu_t[V][D];
  alignas(64) double de_rows[V][D];
  alignas(64) double dunembed[D][P];
  std::vector<std::uint64_t> order;
};

StepWorkspace& step_workspace() {
  thread_local StepWorkspace ws;
  return ws;
}

template <int W>
HEADLAB_INLINE void forward_tables(const MaxDigitWeights& w, StepWorkspace& ws) {
  const double* E = w.E.data();
  const double* ans = E + kAns * D;
  const double* WU = w.W_U.data();
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < V; ++j) ws.unembed[i][j] = WU[i * V + j];
    ws.unembed[i][V] = ws.unembed[i][V + 1] = 0.0;
  }
  // residual = E[ANS] W_U
  product<W, 1, 1, D, P>(ans, 0, 1, &ws.unembed[0][0], P, ws.residual, P, false);
  for (int h = 0; h < H; ++h) {
    const double *WQ = w.W_Q[h].data(), *WK = w.W_K[h].data(), *WV = w.W_V[h].data(), *WO = w.W_O[h].data();
    // q = E[ANS] W_Q
    product<W, 1, 1, D, P>(ans, 0, 1, WQ, C, ws.query[h], C, false);
    const double* q = ws.query[h];
    double* kq = ws.key_query[h];
    for (int i = 0; i < D; ++i) {
      double s = 0.0;
      for (int c = 0; c < C; ++c) s += WK[i * C + c] * q[c];
      kq[i] = s;
    }
    double top = -HUGE_VAL;
    for (int t = 0; t < V; ++t) {
      double s = 0.0;
      for (int i = 0; i < D; ++i) s += E[t * D + i] * kq[i];
      ws.score[h][t] = s * 0.25;  // 1/√d_head = 1/4, exact
      if (ws.score[h][t] > top) top = ws.score[h][t];
    }
    for (int t = 0; t < V; ++t) ws.score_exp[h][t] = exp_nonpositive(ws.score[h][t] - top);
    ws.score_exp[h][V] = ws.score_exp[h][V + 1] = 0.0;
    // Vh = E W_V (14 × 16), M = W_O W_U (16 × 14), L = Vh M (14 × 14)
    product<W, V, 2, D, P>(E, D, 1, WV, C, &ws.value[h][0][0], C, false);
    product<W, C, 2, D, P>(WO, D, 1, &ws.unembed[0][0], P, &ws.wo_wu[h][0][0], P, false);
    product<W, V, 2, C, P>(&ws.value[h][0][0], C, 1, &ws.wo_wu[h][0][0], P, &ws.logit[h][0][0], P, false);
    for (int t = 0; t < V; ++t) {
      for (int j = 0; j < V; ++j) ws.logit_pair[h / 2][t][j][h % 2] = ws.logit[h][t][j];
    }
  }
}

// exp_nonpositive on two lanes at once, the same operations lane by lane. 2^k is built from
// the bits of x/ln2 + 1.5·2^52, whose low bits hold k (the scalar code converts k to an integer;
// both give k exactly for |k| < 2^51). Only for x ≥ −700 (no subnormal scale, no cut-off).
typedef std::int64_t i64x2 __attribute__((vector_size(16)));
HEADLAB_INLINE f64x2 exp_nonpositive_pair(f64x2 x) {
  constexpr double ln2_hi = 6.93147180369123816490e-01;
  constexpr double ln2_lo = 1.90821492927058770002e-10;
  constexpr double inv_ln2 = 1.44269504088896338700e+00;
  constexpr double round_shift = 6755399441055744.0;
  const f64x2 shifted = x * inv_ln2 + round_shift;
  const f64x2 k = shifted - round_shift;
  const f64x2 r = (x - k * ln2_hi) - k * ln2_lo;
  f64x2 p = r * kInverseFactorial.c[14] + kInverseFactorial.c[13];
  for (int n = 12; n >= 0; --n) p = p * r + kInverseFactorial.c[n];
  i64x2 shifted_bits, shift_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
  const double shift_pair[2] = {round_shift, round_shift};
  std::memcpy(&shift_bits, shift_pair, sizeof shift_bits);
  const i64x2 bits = (shifted_bits - shift_bits + 1023) << 52;
  f64x2 scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// cross_entropy with the exponentials taken two at a time (same bits).
HEADLAB_INLINE double cross_entropy_pairs(const double* logits, int answer, double* p) {
  double top = logits[0];
  for (int j = 1; j < V; ++j) top = logits[j] > top ? logits[j] : top;
  for (int j = 0; j < V; j += 2) {
    const double x0 = logits[j] - top, x1 = logits[j + 1] - top;
    if (x0 >= -700.0 && x1 >= -700.0) {
      store2(p + j, exp_nonpositive_pair(f64x2{x0, x1}));
    } else {
      p[j] = exp_nonpositive(x0);
      p[j + 1] = exp_nonpositive(x1);
    }
  }
  double total = 0.0;
  for (int j = 0; j < V; ++j) total += p[j];
  const double inverse = 1.0 / total;
  for (int j = 0; j < V; ++j) p[j] *= inverse;
  return std::log(total) - (logits[answer] - top);
}

// a_h(t) of one example for every head; `counts` as doubles, padded with zeros.
HEADLAB_INLINE void example_mass(const StepWorkspace& ws, const double* counts, const TokenCounts& token_counts,
                                 double (*a)[P]) {
  for (int h = 0; h < H; ++h) {
    // c(t)·e(t) for every token (0 for an absent one, which adds nothing to the running sum)
    double weighted[P];
    for (int t = 0; t < P; t += 2) store2(weighted + t, load2(counts + t) * load2(ws.score_exp[h] + t));
    double total = 0.0;
    for (int t = 0; t < V; ++t) total += weighted[t];
    if (total >= 1e-290) {
      const double inverse = 1.0 / total;
      for (int t = 0; t < P; t += 2) store2(a[h] + t, load2(weighted + t) * inverse);
      continue;
    }
    // Every present token lies more than ~667 below the table's maximum (an absent token):
    // renormalise against the largest present score instead.
    double top = -HUGE_VAL;
    for (int t = 0; t < V; ++t) {
      if (token_counts[t] && ws.score[h][t] > top) top = ws.score[h][t];
    }
    total = 0.0;
    for (int t = 0; t < V; ++t) {
      a[h][t] = token_counts[t] ? token_counts[t] * exp_nonpositive(ws.score[h][t] - top) : 0.0;
      total += a[h][t];
    }
    for (int t = 0; t < V; ++t) a[h][t] /= total;
    a[h][V] = a[h][V + 1] = 0.0;
  }
}

template <int W>
HEADLAB_INLINE double step_kernel(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
                                  MaxDigitGradients& grads) {
  StepWorkspace& ws = step_workspace();
  forward_tables<W>(w, ws);
  const double inverse_batch = 1.0 / static_cast<double>(batch.size());

  // The model sees a multiset of tokens, so equal examples are merged and weighted by their
  // multiplicity: sort by a 33-bit key of the digit and PAD counts, then by position in the batch
  // (key · 2^20 + position; batch sizes stay below 2^20).
  ws.order.resize(batch.size());
  for (std::size_t n = 0; n < batch.size(); ++n) {
    std::uint64_t key = 0;
    for (int t = 0; t <= kPad; ++t) key = (key << 3) | batch[n][t];
    ws.order[n] = (key << 20) | n;
  }
  std::sort(ws.order.begin(), ws.order.end());

  std::memset(ws.sum_g, 0, sizeof ws.sum_g);
  std::memset(ws.G, 0, sizeof ws.G);
  std::memset(ws.dS, 0, sizeof ws.dS);
  double loss = 0.0;
  alignas(64) double a[H][P], counts_d[P], logits[P], g[P], lambda[H][V];
  double p[V];
  int present[V];
  constexpr std::uint64_t kPositionMask = (std::uint64_t{1} << 20) - 1;
  for (std::size_t first = 0; first < ws.order.size();) {
    std::size_t last = first + 1;
    while (last < ws.order.size() && (ws.order[last] >> 20) == (ws.order[first] >> 20)) ++last;
    const double multiplicity = static_cast<double>(last - first);
    const TokenCounts& counts = batch[ws.order[first] & kPositionMask];
    first = last;
    int n_present = 0;
    for (int t = 0; t < V; ++t) {
      counts_d[t] = counts[t];
      if (counts[t]) present[n_present++] = t;
    }
    counts_d[V] = counts_d[V + 1] = 0.0;
    example_mass(ws, counts_d, counts, a);
    // logits = E[ANS] W_U + Σ_h Σ_t a_h(t) L_h[t]
    for (int j = 0; j < P; ++j) logits[j] = ws.residual[j];
    for (int h = 0; h < H; ++h) {
      for (int i = 0; i < n_present; ++i) {
        const int t = present[i];
        const double mass = a[h][t];
        axpy_rows<W, P>(mass, ws.logit[h][t], logits);
      }
    }
    const int answer = maximum_digit(counts);
    loss += multiplicity * cross_entropy_pairs(logits, answer, p);
    // dloss/dlogits of the mean loss, summed over the copies: multiplicity · (softmax − onehot) / B
    const double weight = multiplicity * inverse_batch;
    for (int j = 0; j < V; ++j) {
      g[j] = (p[j] - (j == answer ? 1.0 : 0.0)) * weight;
      ws.sum_g[j] += g[j];
    }
    g[V] = g[V + 1] = 0.0;
    // logits += Σ_t a(t) L[t]  ⇒  da(t) = L[t]·g;  a = softmax over tokens ⇒ ds(t) = a(t)(da(t) − Σ_u a(u) da(u))
    // λ_h(t) = L_h[t]·g for the present tokens, summed over j in order, two heads per vector
    for (int pair = 0; pair < H / 2; ++pair) {
      for (int i = 0; i < n_present; ++i) {
        const int t = present[i];
        f64x2 s{};
        for (int j = 0; j < V; ++j) s += g[j] * load2(ws.logit_pair[pair][t][j]);
        lambda[2 * pair][t] = s[0];
        lambda[2 * pair + 1][t] = s[1];
      }
    }
    for (int h = 0; h < H; ++h) {
      double mean_lambda = 0.0;
      for (int i = 0; i < n_present; ++i) mean_lambda += a[h][present[i]] * lambda[h][present[i]];
      for (int i = 0; i < n_present; ++i) {
        const int t = present[i];
        const double mass = a[h][t];
        ws.dS[h][t] += mass * (lambda[h][t] - mean_lambda);
        double* Gt = ws.G[h][t];
        axpy_rows<W, P>(mass, g, Gt);  // dL[t] += a(t) g
      }
    }
  }

  const double* E = w.E.data();
  const double* ans = E + kAns * D;
  const double* WU = w.W_U.data();
  grads.dE.setZero();
  double* dE = grads.dE.data();
  double* dans = dE + kAns * D;
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < V; ++j) ws.wu_t[j][i] = WU[i * V + j];
  }
  // residual_logit = E[ANS] W_U
  for (int i = 0; i < D; ++i) {
    double s = 0.0;
    for (int j = 0; j < V; ++j) {
      ws.dunembed[i][j] = 0.0 + ans[i] * ws.sum_g[j];
      s += WU[i * V + j] * ws.sum_g[j];
    }
    ws.dunembed[i][V] = ws.dunembed[i][V + 1] = 0.0;
    dans[i] += s;
  }
  for (int h = 0; h < H; ++h) {
    const double *WQ = w.W_Q[h].data(), *WK = w.W_K[h].data(), *WV = w.W_V[h].data(), *WO = w.W_O[h].data();
    double *__restrict dWQ = grads.dW_Q[h].data(), *__restrict dWK = grads.dW_K[h].data(),
           *__restrict dWV = grads.dW_V[h].data(), *__restrict dWO = grads.dW_O[h].data();
    const double* Gh = &ws.G[h][0][0];
    // L = Vh M: dVh = G Mᵀ, dM = Vhᵀ G
    for (int c = 0; c < C; ++c) {
      for (int j = 0; j < V; ++j) ws.wo_wu_t[j][c] = ws.wo_wu[h][c][j];
    }
    product<W, V, 2, V, P>(Gh, P, 1, &ws.wo_wu_t[0][0], C, &ws.dvalue[0][0], C, false);
    product<W, C, 2, V, P>(&ws.value[h][0][0], 1, C, Gh, P, &ws.dwo_wu[0][0], P, false);
    // Vh = E W_V: dW_V = Eᵀ dVh, dE += dVh W_Vᵀ
    product<W, D, 2, V, P>(E, 1, D, &ws.dvalue[0][0], C, dWV, C, false);
    for (int c = 0; c < C; ++c) {
      for (int i = 0; i < D; ++i) ws.wv_t[c][i] = WV[i * C + c];
    }
    product<W, V, 2, C, D>(&ws.dvalue[0][0], C, 1, &ws.wv_t[0][0], D, &ws.de_rows[0][0], D, false);
    for (int t = 0; t < V; ++t) {
      for (int i = 0; i < D; ++i) dE[t * D + i] += ws.de_rows[t][i];
    }
    // M = W_O W_U: dW_O = dM W_Uᵀ, dW_U += W_Oᵀ dM
    product<W, C, 2, V, D>(&ws.dwo_wu[0][0], P, 1, &ws.wu_t[0][0], D, dWO, D, false);
    product<W, D, 2, C, P>(WO, 1, D, &ws.dwo_wu[0][0], P, &ws.dunembed[0][0], P, true);
    // s(t) = E[t]·kq / 4: dkq = Σ_t ds(t) E[t] / 4, dE[t] += ds(t) kq / 4
    const double* kq = ws.key_query[h];
    double dkq[D] = {};
    for (int t = 0; t < V; ++t) {
      const double ds = ws.dS[h][t] * 0.25;
      for (int i = 0; i < D; ++i) {
        dkq[i] += ds * E[t * D + i];
        dE[t * D + i] += ds * kq[i];
      }
    }
    // kq = W_K qᵀ: dW_K = dkq q, dq = dkqᵀ W_K
    const double* q = ws.query[h];
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
  double* dWU = grads.dW_U.data();
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < V; ++j) dWU[i * V + j] = ws.dunembed[i][j];
  }
  return loss * inverse_batch;
}

double step_portable(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch, MaxDigitGradients& grads) {
  return step_kernel<2>(w, batch, grads);
}

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#define HEADLAB_STEP_AVX2 1
// AVX2 without FMA: wider vectors, the same IEEE products and sums.
__attribute__((target("avx2"))) double step_avx2(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
                                                 MaxDigitGradients& grads) {
  return step_kernel<4>(w, batch, grads);
}
#endif

}  // namespace

double loss_backward_unchecked(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
                               MaxDigitGradients& grads) {
#ifdef HEADLAB_STEP_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return step_avx2(w, batch, grads);
#endif
  return step_portable(w, batch, grads);
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
  // sample_list and token_counts without the vectors: the same draws in the same order.
  std::vector<TokenCounts> batch(batch_size);
  for (TokenCounts& counts : batch) {
    const auto maximum = rng.below(10);
    const int length = 1 + static_cast<int>(rng.below(kMaxListLength));
    std::uint32_t digits[kMaxListLength];
    for (;;) {
      bool has_maximum = false;
      for (int i = 0; i < length; ++i) {
        digits[i] = rng.below(maximum + 1);
        has_maximum = has_maximum || digits[i] == maximum;
      }
      if (has_maximum) break;
    }
    counts.fill(0);
    for (int i = 0; i < length; ++i) ++counts[digits[i]];
    counts[kPad] = static_cast<std::uint8_t>(kMaxListLength - length);
    counts[kBos] = counts[kSep] = counts[kAns] = 1;
  }
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
