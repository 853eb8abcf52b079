#include "core/max_digit_kernels.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <limits>
#include <string>
#include <type_traits>

namespace headlab::max_digit {
namespace {

constexpr int V = kVocab, D = kDModel, C = kDHead, H = kHeads, P = kLogitRow;
constexpr int kLengths = kMaxListLength;  // a list of length ℓ = li + 1 holds 6 − ℓ = 5 − li PADs
static_assert(C == P, "a head's channel rows and the logit rows are both 16 entries");
static_assert(D % P == 0, "model rows are whole blocks of 16");

#if !defined(__GNUC__)
#error "the max-digit training step uses GCC/clang vector extensions"
#endif
#define HEADLAB_INLINE __attribute__((always_inline)) inline
// Natively the parts of a step are inlined into it, which is compiled once per vector width
// (target attributes reach only inlined code). In WASM each stays a function of its own: V8's
// optimising compiler allocates registers worse in one large function than in several small ones.
#if defined(__wasm__)
#define HEADLAB_STEP_PART __attribute__((noinline))
#else
#define HEADLAB_STEP_PART HEADLAB_INLINE
#endif
// Vectors cross no call boundary natively (everything is inlined), so the ABI note is moot.
#pragma GCC diagnostic ignored "-Wpsabi"

// A row of 16 entries (14 logits and 2 padding, 16 channels, a quarter of a model row), natively
// as P / W vectors of the target's width W (lanes of T): 4 × 4 floats with SSE2, 2 × 8 with AVX2,
// 1 × 16 with AVX-512; piece i holds entries iW … iW + W − 1 and each lane is the scalar operation. Not one 16-lane vector_size type: GCC keeps a vector type wider than the target's
// registers in memory and copies it in 16-byte pieces (its move-by-pieces width under the generic
// tuning), so with AVX2 every 32-byte result was stored and read back in halves and quarters, a
// failed store-to-load forward on every running sum: the AVX2 step ran 1.6x slower than the SSE2
// one, whose 16-byte copies forward, and 2.1x faster once built with 32-byte copies. An array of
// the target's own vectors stays in registers: per step 1.3x (SSE2) and 2.3x (AVX2) fewer
// instructions than before, and 2x and 4x less time.
// In WASM the row stays one 16-lane vector, which clang splits into simd128 registers itself: as
// four 4-lane vectors V8 ran the recipe 1.4x slower.
#if defined(__wasm__)
constexpr int row_piece_lanes(int) { return P; }
#else
constexpr int row_piece_lanes(int W) { return W; }
#endif
template <class T, int W>
struct Row {
  static constexpr int lanes = row_piece_lanes(W), N = P / lanes;
  static_assert(P % lanes == 0, "a row is whole vectors");
  typedef T piece __attribute__((vector_size(lanes * sizeof(T))));
  // lane masks: integers of T's width
  typedef typename std::conditional<sizeof(T) == 4, std::int32_t, std::int64_t>::type lane;
  typedef lane mask_piece __attribute__((vector_size(lanes * sizeof(T))));
  piece v[N];
  HEADLAB_INLINE T operator[](int i) const {
    return v[static_cast<unsigned>(i) / lanes][static_cast<unsigned>(i) % lanes];
  }
};
template <class T, int W>
struct RowMask {
  typename Row<T, W>::mask_piece v[Row<T, W>::N];
};
// The four heads side by side (16 bytes of floats, 32 of doubles).
template <class T>
struct Heads {
  typedef T type __attribute__((vector_size(H * sizeof(T))));
};
template <class T>
struct Scalar {  // T in a position that does not deduce it
  typedef T type;
};

#define HEADLAB_ROW_OPERATOR(op)                                                         \
  template <class T, int W>                                                              \
  HEADLAB_INLINE Row<T, W> operator op(const Row<T, W>& a, const Row<T, W>& b) {         \
    Row<T, W> r;                                                                         \
    for (int i = 0; i < Row<T, W>::N; ++i) r.v[i] = a.v[i] op b.v[i];                    \
    return r;                                                                            \
  }                                                                                      \
  template <class T, int W>                                                              \
  HEADLAB_INLINE Row<T, W> operator op(typename Scalar<T>::type a, const Row<T, W>& b) { \
    Row<T, W> r;                                                                         \
    for (int i = 0; i < Row<T, W>::N; ++i) r.v[i] = a op b.v[i];                         \
    return r;                                                                            \
  }                                                                                      \
  template <class T, int W>                                                              \
  HEADLAB_INLINE Row<T, W> operator op(const Row<T, W>& a, typename Scalar<T>::type b) { \
    Row<T, W> r;                                                                         \
    for (int i = 0; i < Row<T, W>::N; ++i) r.v[i] = a.v[i] op b;                         \
    return r;                                                                            \
  }
HEADLAB_ROW_OPERATOR(+)
HEADLAB_ROW_OPERATOR(-)
HEADLAB_ROW_OPERATOR(*)
#undef HEADLAB_ROW_OPERATOR
template <class T, int W>
HEADLAB_INLINE Row<T, W>& operator+=(Row<T, W>& a, const Row<T, W>& b) {
  for (int i = 0; i < Row<T, W>::N; ++i) a.v[i] += b.v[i];
  return a;
}
template <class T, int W>
HEADLAB_INLINE RowMask<T, W> operator>(const Row<T, W>& a, typename Scalar<T>::type b) {
  RowMask<T, W> m;
  for (int i = 0; i < Row<T, W>::N; ++i) m.v[i] = a.v[i] > b;
  return m;
}
template <class T, int W>
HEADLAB_INLINE RowMask<T, W> operator<(const Row<T, W>& a, typename Scalar<T>::type b) {
  RowMask<T, W> m;
  for (int i = 0; i < Row<T, W>::N; ++i) m.v[i] = a.v[i] < b;
  return m;
}
// m ? a : b lane by lane.
template <class T, int W>
HEADLAB_INLINE Row<T, W> select(const RowMask<T, W>& m, const Row<T, W>& a, const Row<T, W>& b) {
  Row<T, W> r;
  for (int i = 0; i < Row<T, W>::N; ++i) r.v[i] = m.v[i] ? a.v[i] : b.v[i];
  return r;
}
// 0, 1, …, L − 1 as a vector literal, which the compilers fold into the comparisons below (built
// lane by lane in a loop, or loaded from a table, they were not: stores and loads per call in WASM).
template <class M, int L>
HEADLAB_INLINE M lane_numbers() {
  if constexpr (L == 16) return M{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  else if constexpr (L == 8) return M{0, 1, 2, 3, 4, 5, 6, 7};
  else if constexpr (L == 4) return M{0, 1, 2, 3};
  else return M{0, 1};
}
// The lanes whose entry number j satisfies j < n (below = true) or j == n (below = false).
template <class T, int W>
HEADLAB_INLINE RowMask<T, W> lanes_where(int n, bool below) {
  typedef typename Row<T, W>::mask_piece mask_piece;
  RowMask<T, W> m;
  for (int i = 0; i < Row<T, W>::N; ++i) {
    const mask_piece j = lane_numbers<mask_piece, Row<T, W>::lanes>() + i * Row<T, W>::lanes;
    m.v[i] = below ? j < n : j == n;
  }
  return m;
}

// A row piece by piece, the heads in one; unaligned.
template <class R>
struct IsRow : std::false_type {};
template <class T, int W>
struct IsRow<Row<T, W>> : std::true_type {};
template <class R, class T>
HEADLAB_INLINE R load(const T* p) {
  R r;
  if constexpr (IsRow<R>::value) {
    for (int i = 0; i < R::N; ++i) std::memcpy(&r.v[i], p + i * R::lanes, sizeof r.v[i]);
  } else {
    std::memcpy(&r, p, sizeof r);
  }
  return r;
}
template <class R, class T>
HEADLAB_INLINE void store(T* p, const R& r) {
  if constexpr (IsRow<R>::value) {
    for (int i = 0; i < R::N; ++i) std::memcpy(p + i * R::lanes, &r.v[i], sizeof r.v[i]);
  } else {
    std::memcpy(p, &r, sizeof r);
  }
}

// Per precision: the exponential of a row and the attention total below which an example is
// computed directly (far below the table's maximum, see the header).
template <class T>
struct Precision;
template <>
struct Precision<float> {
  // Z ≥ 2^−100 leaves the largest of its ≤ 14 terms above 2^−104, a normal float: the masses keep
  // single precision. The exponential's floor (e^−87 → 0) drops terms below 2^−125 relative to it.
  static constexpr float mass_underflow = 0x1p-100f;
  template <int W>
  static HEADLAB_INLINE Row<float, W> exp(const Row<float, W>& x) {
    Row<float, W> r;
    for (int i = 0; i < Row<float, W>::N; ++i) r.v[i] = exp_nonpositive_f32_lanes<Row<float, W>::lanes>(x.v[i]);
    return r;
  }
};
template <>
struct Precision<double> {
  static constexpr double mass_underflow = kMassUnderflow;
  // exp_nonpositive_lanes holds for x ≥ −700; below, the result is 0 (e^−700 ≈ 1e−304).
  template <int W>
  static HEADLAB_INLINE Row<double, W> exp(const Row<double, W>& x) {
    typedef typename Row<double, W>::piece piece;
    Row<double, W> r;
    for (int i = 0; i < Row<double, W>::N; ++i) {
      const auto below = x.v[i] < -700.0;
      const piece floor = piece{} - 700.0;
      const piece e = exp_nonpositive_lanes<Row<double, W>::lanes>(below ? floor : x.v[i]);
      r.v[i] = below ? piece{} : e;
    }
    return r;
  }
};

template <class V_>
HEADLAB_INLINE V_ larger(V_ a, V_ b) {
  return a > b ? a : b;
}
// Halves of a vector of L lanes: lanes 0 … L/2 − 1 and L/2 … L − 1.
template <int L, class V_>
HEADLAB_INLINE auto lower_half(V_ v) {
  if constexpr (L == 16) return __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7);
  else if constexpr (L == 8) return __builtin_shufflevector(v, v, 0, 1, 2, 3);
  else return __builtin_shufflevector(v, v, 0, 1);
}
template <int L, class V_>
HEADLAB_INLINE auto upper_half(V_ v) {
  if constexpr (L == 16) return __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
  else if constexpr (L == 8) return __builtin_shufflevector(v, v, 4, 5, 6, 7);
  else return __builtin_shufflevector(v, v, 2, 3);
}
// Σ or max of the L lanes of v, halving: lanes j and j + L/2, then j and j + L/4, …
template <class T, int L, bool Maximum, class V_>
HEADLAB_INLINE T reduce_lanes(V_ v) {
  if constexpr (L == 1) {
    return v[0];
  } else if constexpr (L == 2) {
    if constexpr (Maximum) return v[0] > v[1] ? v[0] : v[1];
    else return v[0] + v[1];
  } else {
    const auto lo = lower_half<L>(v), hi = upper_half<L>(v);
    if constexpr (Maximum) return reduce_lanes<T, L / 2, true>(larger(lo, hi));
    else return reduce_lanes<T, L / 2, false>(lo + hi);
  }
}
// Sums and maxima of a row's 16 entries in halving order: entries j and j + 8, then j and j + 4,
// then j and j + 2, then the two left. The same order at every vector width: while the row spans
// several vectors, piece i meets piece i + n/2 (entry j meets j + 8, …), then the lanes of the one left.
template <class T, int W, bool Maximum>
HEADLAB_INLINE T reduce_row(const Row<T, W>& r) {
  typename Row<T, W>::piece s[Row<T, W>::N];
  for (int i = 0; i < Row<T, W>::N; ++i) s[i] = r.v[i];
  for (int n = Row<T, W>::N / 2; n >= 1; n /= 2)
    for (int i = 0; i < n; ++i) s[i] = Maximum ? larger(s[i], s[i + n]) : s[i] + s[i + n];
  return reduce_lanes<T, Row<T, W>::lanes, Maximum>(s[0]);
}
template <class T, int W>
HEADLAB_INLINE T sum_row(const Row<T, W>& r) {
  return reduce_row<T, W, false>(r);
}
template <class T, int W>
HEADLAB_INLINE T max_row(const Row<T, W>& r) {
  return reduce_row<T, W, true>(r);
}
// Σ_i a[i]·b[i] over 64 entries: the four blocks of 16 multiplied and added lane by lane in block
// order, then sum_row.
template <class T, int W>
HEADLAB_INLINE T dot64(const T* a, const T* b) {
  typedef Row<T, W> row;
  row s = load<row>(a) * load<row>(b);
  for (int k = P; k < D; k += P) s += load<row>(a + k) * load<row>(b + k);
  return sum_row<T, W>(s);
}

// The lanes 0 … 13 of a row (the logits), as a mask.
template <class T, int W>
HEADLAB_INLINE RowMask<T, W> logit_lanes() {
  return lanes_where<T, W>(V, true);
}

// C (M × 16) = A B, or C += A B (Accumulate): every entry summed over k = 0 … K−1 in order from
// 0 (or from C's entry), with A(r, k) = a[r·AR + k·AK] (so Aᵀ is read in place), row k of B at
// b + k·LDB and row r of C at c + r·LDC. R rows at a time, their running sums in registers. The
// shape is known at compile time, so the k loop unrolls into straight code with constant offsets.
template <class T, int W, int R, int K, int AR, int AK, int LDB, int LDC, bool Accumulate>
HEADLAB_INLINE void panel(const T* a, const T* b, T* c) {
  typedef Row<T, W> row;
  row acc[R];
  for (int r = 0; r < R; ++r) acc[r] = Accumulate ? load<row>(c + r * LDC) : row{};
  for (int k = 0; k < K; ++k) {
    const row bk = load<row>(b + k * LDB);
    for (int r = 0; r < R; ++r) acc[r] += a[r * AR + k * AK] * bk;
  }
  for (int r = 0; r < R; ++r) store(c + r * LDC, acc[r]);
}

// Rows per panel: as many running sums as leave room in the vector registers, at most 8. W: T
// lanes per register. 24 of AVX-512's 32 and 12 of AVX2's 16; 8 of the 16 of SSE2 and of simd128
// on x86-64 hosts, where V8 spilled 5 of 12 sums on every k (8 sums ran the recipe 10% faster).
template <class T, int W>
constexpr int kPanelRows = [] {
  constexpr int registers_per_row = P / W;
  constexpr int bytes = W * static_cast<int>(sizeof(T));
  constexpr int budget = bytes == 64 ? 24 : bytes == 32 ? 12 : 8;
  constexpr int rows = budget / registers_per_row;
  return rows < 1 ? 1 : rows > 8 ? 8 : rows;
}();

template <class T, int W, int M, int K, int AR, int AK, int LDB, int LDC, bool Accumulate>
HEADLAB_STEP_PART void product(const T* a, const T* b, T* c) {
  constexpr int R = kPanelRows<T, W> < M ? kPanelRows<T, W> : M;
  int i = 0;
  for (; i + R <= M; i += R) panel<T, W, R, K, AR, AK, LDB, LDC, Accumulate>(a + i * AR, b, c + i * LDC);
  for (; i < M; ++i) panel<T, W, 1, K, AR, AK, LDB, LDC, Accumulate>(a + i * AR, b, c + i * LDC);
}

// Everything one step needs, kept between steps so that a step allocates nothing.
template <class T>
struct Workspace {
  // tables of the forward
  alignas(64) T residual[P];      // E[ANS] W_U
  alignas(64) T query[H][C];      // q_h = E[ANS] W_Q^h
  alignas(64) T key_query[H][D];  // W_K^h q_hᵀ
  alignas(64) T score[H][P];      // s_h(t); padding −∞
  alignas(64) T score_exp[H][P];  // e_h(t) = e^{s_h(t) − max s_h}; padding 0
  alignas(64) T value[H][V][C];   // E W_V^h
  alignas(64) T wo_wu[H][C][P];   // W_O^h W_U
  alignas(64) T logit[H][V][P];   // L_h = E W_V^h W_O^h W_U
  alignas(64) T unembed_t[V][D];  // W_Uᵀ
  // the folded tables an example reads
  alignas(64) T digit_exp[kDigits][H];       // e_h(d)
  alignas(64) T digit_logit[kDigits][H][P];  // e_h(d) L_h[d]
  alignas(64) T length_exp[kLengths][H];     // Σ_{BOS,SEP,ANS} e_h + (5 − li) e_h(PAD)
  alignas(64) T length_logit[kLengths][H][P];
  // sums over the batch
  alignas(64) T sum_g[P];                  // Σ_e g_e
  alignas(64) T digit_g[kDigits][H][P];    // Σ_e c_e(d) g_e / Z_he
  alignas(64) T length_g[kLengths][H][P];  // Σ_{e of length ℓ} g_e / Z_he
  alignas(64) T digit_r[kDigits][H];       // Σ_e c_e(d) g_e·y_he / Z_he
  alignas(64) T length_r[kLengths][H];     // Σ_{e of length ℓ} g_e·y_he / Z_he
  alignas(64) T direct_G[H][V][P];         // dL_h and ds_h of the examples computed directly
  alignas(64) T direct_dS[H][P];
  // backward
  alignas(64) T G[H][V][P];     // dL_h
  alignas(64) T dS[H][P];       // ds_h
  alignas(64) T wo_wu_t[V][C];  // (W_O^h W_U)ᵀ
  alignas(64) T dvalue[V][C];
  alignas(64) T dvalue_t[C][P];  // dvalueᵀ, padding 0
  alignas(64) T dwo_wu[C][P];
  alignas(64) T dE_t[D][P];  // dEᵀ but for the ANS row's query and residual terms
  alignas(64) T dE_ans[D];   // those terms of dE[ANS]
  alignas(64) T dkq[D];
  alignas(64) T dq[C];
  // equal lists: an open-addressing table of their keys, and the distinct ones in batch order
  std::vector<std::uint64_t> slot_key;  // key + 1, 0 when empty
  std::vector<std::int32_t> slot_unique;
  std::vector<std::int32_t> unique_first, unique_count, unique_slot;
};

template <class T>
Workspace<T>& workspace() {
  thread_local Workspace<T> ws;
  return ws;
}

// The lists of the batch once each, in order of first occurrence, with their multiplicities. The
// key packs the ten digit counts and the PAD count, 3 bits each (counts ≤ 6).
template <class T>
void distinct_lists(const std::vector<TokenCounts>& batch, Workspace<T>& ws) {
  const std::size_t n = batch.size();
  int bits = 4;
  while ((std::size_t{1} << bits) < 2 * n) ++bits;
  const std::size_t capacity = std::size_t{1} << bits, mask = capacity - 1;
  if (ws.slot_key.size() != capacity) {
    ws.slot_key.assign(capacity, 0);
    ws.slot_unique.assign(capacity, 0);
  }
  ws.unique_first.clear();
  ws.unique_count.clear();
  ws.unique_slot.clear();
  for (std::size_t e = 0; e < n; ++e) {
    std::uint64_t key = 0;
    for (int t = 0; t <= kPad; ++t) key = (key << 3) | batch[e][t];
    std::size_t slot = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - bits));
    while (ws.slot_key[slot] != 0 && ws.slot_key[slot] != key + 1) slot = (slot + 1) & mask;
    if (ws.slot_key[slot] == 0) {
      ws.slot_key[slot] = key + 1;
      ws.slot_unique[slot] = static_cast<std::int32_t>(ws.unique_first.size());
      ws.unique_first.push_back(static_cast<std::int32_t>(e));
      ws.unique_count.push_back(1);
      ws.unique_slot.push_back(static_cast<std::int32_t>(slot));
    } else {
      ++ws.unique_count[ws.slot_unique[slot]];
    }
  }
  for (std::int32_t slot : ws.unique_slot) ws.slot_key[slot] = 0;
}

template <class T, int W>
HEADLAB_STEP_PART void forward_tables(const StepParameters<T>& w, Workspace<T>& ws) {
  typedef Row<T, W> row;
  const T* ans = w.E[kAns];
  product<T, W, 1, D, 0, 1, P, P, false>(ans, &w.W_U[0][0], ws.residual);
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < V; ++j) ws.unembed_t[j][i] = w.W_U[i][j];
  for (int h = 0; h < H; ++h) {
    product<T, W, 1, D, 0, 1, C, C, false>(ans, &w.W_Q[h][0][0], ws.query[h]);
    const row q = load<row>(ws.query[h]);
    for (int i = 0; i < D; ++i) ws.key_query[h][i] = sum_row<T, W>(load<row>(w.W_K[h][i]) * q);
    for (int t = 0; t < V; ++t) ws.score[h][t] = dot64<T, W>(w.E[t], ws.key_query[h]) * static_cast<T>(kScoreScale);
    ws.score[h][V] = ws.score[h][V + 1] = -std::numeric_limits<T>::infinity();
    const row s = load<row>(ws.score[h]);
    store(ws.score_exp[h], Precision<T>::exp(s - max_row<T, W>(s)));
    product<T, W, V, D, D, 1, C, C, false>(&w.E[0][0], &w.W_V[h][0][0], &ws.value[h][0][0]);
    product<T, W, C, D, D, 1, P, P, false>(&w.W_O[h][0][0], &w.W_U[0][0], &ws.wo_wu[h][0][0]);
    product<T, W, V, C, C, 1, P, P, false>(&ws.value[h][0][0], &ws.wo_wu[h][0][0], &ws.logit[h][0][0]);
  }
}

// The folded tables (see the header): per digit e_h(d) and e_h(d) L_h[d]; per length the specials'
// terms (BOS + SEP) + ANS plus (5 − li) times PAD's.
template <class T, int W>
HEADLAB_STEP_PART void folded_tables(Workspace<T>& ws) {
  typedef Row<T, W> row;
  for (int h = 0; h < H; ++h) {
    const T* e = ws.score_exp[h];
    for (int d = 0; d < kDigits; ++d) {
      ws.digit_exp[d][h] = e[d];
      store(ws.digit_logit[d][h], e[d] * load<row>(ws.logit[h][d]));
    }
    const row specials = (e[kBos] * load<row>(ws.logit[h][kBos]) + e[kSep] * load<row>(ws.logit[h][kSep])) +
                         e[kAns] * load<row>(ws.logit[h][kAns]);
    const row pad = e[kPad] * load<row>(ws.logit[h][kPad]);
    const T specials_exp = (e[kBos] + e[kSep]) + e[kAns];
    for (int li = 0; li < kLengths; ++li) {
      const T pads = static_cast<T>(kLengths - 1 - li);
      store(ws.length_logit[li][h], specials + pads * pad);
      ws.length_exp[li][h] = specials_exp + pads * e[kPad];
    }
  }
}

// The softmax over the 14 logits and the gradient of weight × cross-entropy, g = weight·(p − onehot),
// with p_j = e_j / Σ e (e_j = e^{x_j}, x = logits − max). The answer's entry is formed as
// −(Σ_{j≠answer} e_j) / Σ e rather than p_answer − 1: for a confident model p_answer rounds to
// within 2^−24 of 1 in single precision, which would leave 1 − p_answer ≈ 3e-5 (the recipe's last
// loss) only three significant digits. Adds the example's loss times multiplicity to loss when
// asked: log1p(Σ_{j≠answer} e_j) when the answer is the maximum (x = 0), else log Σ e − x_answer.
template <class T, int W>
HEADLAB_INLINE Row<T, W> cross_entropy_gradient(const Row<T, W>& logits, int answer, T weight, bool with_loss,
                                                double multiplicity, double& loss) {
  typedef Row<T, W> row;
  const row masked = select(logit_lanes<T, W>(), logits, row{} - std::numeric_limits<T>::infinity());
  const row x = masked - max_row<T, W>(masked);
  const row e = Precision<T>::exp(x);
  const T total = sum_row<T, W>(e);
  const RowMask<T, W> is_answer = lanes_where<T, W>(answer, false);
  const T rest = sum_row<T, W>(select(is_answer, row{}, e));
  if (with_loss) {
    const double r = rest;
    // log1p(r): its series below 2^−10 (the next term under 2^−50·r), else the log of 1 + r
    const double log1p_rest =
        r < 0x1p-10 ? r * (1.0 - r * (0.5 - r * (1.0 / 3.0 - r * 0.25))) : deterministic_log(1.0 + r);
    const double x_answer = x[answer];
    loss += multiplicity * (x_answer == 0 ? log1p_rest : deterministic_log(static_cast<double>(total)) - x_answer);
  }
  return select(is_answer, row{} - rest, e) * (static_cast<T>(1) / total) * weight;
}

// An example whose Z_h underflows for some head: the attention masses directly (renormalised
// against the largest present score for such a head), the head outputs, and the gradients added to
// direct_G and direct_dS (dL_h[t] += a g, ds_h(t) += a(t)(L_h[t]·g − Σ_u a(u) L_h[u]·g)).
template <class T, int W>
HEADLAB_STEP_PART void direct_example(Workspace<T>& ws, const TokenCounts& counts, int answer, T weight, bool with_loss,
                                      double multiplicity, double& loss) {
  typedef Row<T, W> row;
  alignas(64) T present[P] = {};
  for (int t = 0; t < V; ++t) present[t] = counts[t];
  const row c = load<row>(present);
  alignas(64) T a[H][P];
  row logits = load<row>(ws.residual);
  for (int h = 0; h < H; ++h) {
    row mass = c * load<row>(ws.score_exp[h]);
    const T total = sum_row<T, W>(mass);
    if (!(total >= Precision<T>::mass_underflow)) {
      const row s = select(c > static_cast<T>(0), load<row>(ws.score[h]), row{} - std::numeric_limits<T>::infinity());
      mass = c * Precision<T>::exp(s - max_row<T, W>(s));
      mass = mass * (static_cast<T>(1) / sum_row<T, W>(mass));
    } else {
      mass = mass * (static_cast<T>(1) / total);
    }
    store(a[h], mass);
    row y{};
    for (int t = 0; t < V; ++t) {
      if (counts[t]) y += a[h][t] * load<row>(ws.logit[h][t]);
    }
    logits += y;
  }
  const row g = cross_entropy_gradient<T, W>(logits, answer, weight, with_loss, multiplicity, loss);
  store(ws.sum_g, load<row>(ws.sum_g) + g);
  for (int h = 0; h < H; ++h) {
    T lambda[V] = {};
    T mean = 0;
    for (int t = 0; t < V; ++t) {
      if (!counts[t]) continue;
      lambda[t] = sum_row<T, W>(load<row>(ws.logit[h][t]) * g);
      mean += a[h][t] * lambda[t];
    }
    for (int t = 0; t < V; ++t) {
      if (!counts[t]) continue;
      store(ws.direct_G[h][t], load<row>(ws.direct_G[h][t]) + a[h][t] * g);
      ws.direct_dS[h][t] += a[h][t] * (lambda[t] - mean);
    }
  }
}

// One distinct list: forward through the folded tables, cross-entropy, and its terms of the sums.
template <class T, int W>
HEADLAB_STEP_PART void example(Workspace<T>& ws, const TokenCounts& counts, T weight, bool with_loss,
                               double multiplicity, double& loss) {
  typedef Row<T, W> row;
  typedef typename Heads<T>::type heads;
  int digit[kDigits];
  T count[kDigits];
  int n = 0;
  for (int d = 0; d < kDigits; ++d) {
    digit[n] = d;
    count[n] = counts[d];
    n += counts[d] != 0;
  }
  const int answer = digit[n - 1];
  const int li = kLengths - 1 - counts[kPad];
  heads Z = load<heads>(ws.length_exp[li]);
  for (int i = 0; i < n; ++i) Z += count[i] * load<heads>(ws.digit_exp[digit[i]]);
  const auto normal = Z >= Precision<T>::mass_underflow;
  if (!(normal[0] && normal[1] && normal[2] && normal[3])) {
    direct_example<T, W>(ws, counts, answer, weight, with_loss, multiplicity, loss);
    return;
  }
  const heads inverse = static_cast<T>(1) / Z;
  row y[H];
  row logits = load<row>(ws.residual);
  for (int h = 0; h < H; ++h) {
    row S = load<row>(ws.length_logit[li][h]);
    for (int i = 0; i < n; ++i) S += count[i] * load<row>(ws.digit_logit[digit[i]][h]);
    y[h] = inverse[h] * S;
    logits += y[h];
  }
  const row g = cross_entropy_gradient<T, W>(logits, answer, weight, with_loss, multiplicity, loss);
  store(ws.sum_g, load<row>(ws.sum_g) + g);
  heads mean;
  for (int h = 0; h < H; ++h) mean[h] = sum_row<T, W>(g * y[h]);
  const heads r = inverse * mean;
  store(ws.length_r[li], load<heads>(ws.length_r[li]) + r);
  for (int i = 0; i < n; ++i) store(ws.digit_r[digit[i]], load<heads>(ws.digit_r[digit[i]]) + count[i] * r);
  for (int h = 0; h < H; ++h) {
    const row u = inverse[h] * g;
    store(ws.length_g[li][h], load<row>(ws.length_g[li][h]) + u);
    for (int i = 0; i < n; ++i) {
      T* sum = ws.digit_g[digit[i]][h];
      store(sum, load<row>(sum) + count[i] * u);
    }
  }
}

// dL_h and ds_h from the sums (see the header). Per head, the specials' sums are Σ over lengths
// in order, PAD's Σ (5 − li) times them.
template <class T, int W>
HEADLAB_STEP_PART void unfold(Workspace<T>& ws) {
  typedef Row<T, W> row;
  for (int h = 0; h < H; ++h) {
    row specials_g{}, pad_g{};
    T specials_r = 0, pad_r = 0;
    for (int li = 0; li < kLengths; ++li) {
      const T pads = static_cast<T>(kLengths - 1 - li);
      specials_g += load<row>(ws.length_g[li][h]);
      pad_g += pads * load<row>(ws.length_g[li][h]);
      specials_r += ws.length_r[li][h];
      pad_r += pads * ws.length_r[li][h];
    }
    for (int t = 0; t < V; ++t) {
      const row sum_g = t < kDigits ? load<row>(ws.digit_g[t][h]) : t == kPad ? pad_g : specials_g;
      const T sum_r = t < kDigits ? ws.digit_r[t][h] : t == kPad ? pad_r : specials_r;
      const T e = ws.score_exp[h][t];
      store(ws.G[h][t], e * sum_g + load<row>(ws.direct_G[h][t]));
      ws.dS[h][t] = e * (sum_row<T, W>(load<row>(ws.logit[h][t]) * sum_g) - sum_r) + ws.direct_dS[h][t];
    }
    ws.dS[h][V] = ws.dS[h][V + 1] = 0;
  }
}

// The backward through the tables, from sum_g, dL_h = G_h and ds_h, into grads. dE is gathered
// transposed (dE_t[i][t], its rows vectors over tokens) but for the ANS row's query and residual
// terms (dE_ans), and written out at the end as dE[t][i] = dE_t[i][t] (+ dE_ans[i] for ANS).
template <class T, int W>
HEADLAB_STEP_PART void backward(const StepParameters<T>& w, Workspace<T>& ws, StepParameters<T>& g) {
  typedef Row<T, W> row;
  const T* ans = w.E[kAns];
  // residual logits E[ANS] W_U: dW_U = E[ANS]ᵀ Σg, dE[ANS] = W_U Σg
  const row sum_g = load<row>(ws.sum_g);
  for (int i = 0; i < D; ++i) store(g.W_U[i], ans[i] * sum_g);
  for (int b = 0; b < D; b += P) product<T, W, 1, V, 0, 1, D, P, false>(ws.sum_g, &ws.unembed_t[0][b], ws.dE_ans + b);
  std::memset(ws.dE_t, 0, sizeof ws.dE_t);
  for (int h = 0; h < H; ++h) {
    // value path: L = Vh M with Vh = E W_V, M = W_O W_U
    for (int c = 0; c < C; ++c)
      for (int j = 0; j < V; ++j) ws.wo_wu_t[j][c] = ws.wo_wu[h][c][j];
    product<T, W, V, V, P, 1, C, C, false>(&ws.G[h][0][0], &ws.wo_wu_t[0][0], &ws.dvalue[0][0]);   // dVh = G Mᵀ
    product<T, W, C, V, 1, C, P, P, false>(&ws.value[h][0][0], &ws.G[h][0][0], &ws.dwo_wu[0][0]);  // dM = Vhᵀ G
    product<T, W, D, V, 1, D, C, C, false>(&w.E[0][0], &ws.dvalue[0][0], &g.W_V[h][0][0]);         // dW_V = Eᵀ dVh
    for (int c = 0; c < C; ++c) {
      for (int t = 0; t < V; ++t) ws.dvalue_t[c][t] = ws.dvalue[t][c];
      ws.dvalue_t[c][V] = ws.dvalue_t[c][V + 1] = 0;
    }
    product<T, W, D, C, C, 1, P, P, true>(&w.W_V[h][0][0], &ws.dvalue_t[0][0], &ws.dE_t[0][0]);  // dEᵀ += W_V dVhᵀ
    for (int b = 0; b < D; b += P)                                                               // dW_O = dM W_Uᵀ
      product<T, W, C, V, P, 1, D, D, false>(&ws.dwo_wu[0][0], &ws.unembed_t[0][b], &g.W_O[h][0][b]);
    product<T, W, D, C, 1, D, P, P, true>(&w.W_O[h][0][0], &ws.dwo_wu[0][0], &g.W_U[0][0]);  // dW_U += W_Oᵀ dM
    // score path: s(t) = E[t]·kq / 4, kq = W_K qᵀ, q = E[ANS] W_Q
    const row ds = load<row>(ws.dS[h]) * static_cast<T>(kScoreScale);
    alignas(64) T ds_entries[P];
    store(ds_entries, ds);
    for (int b = 0; b < D; b += P) product<T, W, 1, V, 0, 1, D, P, false>(ds_entries, &w.E[0][b], ws.dkq + b);
    for (int i = 0; i < D; ++i) store(ws.dE_t[i], load<row>(ws.dE_t[i]) + ws.key_query[h][i] * ds);
    const row q = load<row>(ws.query[h]);
    for (int i = 0; i < D; ++i) store(g.W_K[h][i], ws.dkq[i] * q);
    product<T, W, 1, D, 0, 1, C, C, false>(ws.dkq, &w.W_K[h][0][0], ws.dq);
    const row dq = load<row>(ws.dq);
    for (int i = 0; i < D; ++i) {
      store(g.W_Q[h][i], ans[i] * dq);
      ws.dE_ans[i] += sum_row<T, W>(load<row>(w.W_Q[h][i]) * dq);
    }
  }
  for (int t = 0; t < V; ++t)
    for (int i = 0; i < D; ++i) g.E[t][i] = ws.dE_t[i][t];
  for (int i = 0; i < D; ++i) g.E[kAns][i] += ws.dE_ans[i];
}

template <class T, int W>
HEADLAB_INLINE double step(const StepParameters<T>& w, const std::vector<TokenCounts>& batch, StepParameters<T>& g,
                           bool with_loss) {
  Workspace<T>& ws = workspace<T>();
  forward_tables<T, W>(w, ws);
  folded_tables<T, W>(ws);
  std::memset(ws.sum_g, 0, sizeof ws.sum_g);
  std::memset(ws.digit_g, 0, sizeof ws.digit_g);
  std::memset(ws.length_g, 0, sizeof ws.length_g);
  std::memset(ws.digit_r, 0, sizeof ws.digit_r);
  std::memset(ws.length_r, 0, sizeof ws.length_r);
  std::memset(ws.direct_G, 0, sizeof ws.direct_G);
  std::memset(ws.direct_dS, 0, sizeof ws.direct_dS);
  distinct_lists(batch, ws);
  const double inverse_batch = 1.0 / static_cast<double>(batch.size());
  double loss = 0.0;
  for (std::size_t u = 0; u < ws.unique_first.size(); ++u) {
    const double multiplicity = ws.unique_count[u];
    example<T, W>(ws, batch[ws.unique_first[u]], static_cast<T>(multiplicity * inverse_batch), with_loss, multiplicity,
                  loss);
  }
  unfold<T, W>(ws);
  backward<T, W>(w, ws, g);
  return with_loss ? loss * inverse_batch : std::numeric_limits<double>::quiet_NaN();
}

// One step per instruction set. W: lanes of T per vector register.
template <class T>
double step_portable(const StepParameters<T>& w, const std::vector<TokenCounts>& b, StepParameters<T>& g, bool l) {
  return step<T, 16 / sizeof(T)>(w, b, g, l);
}
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#define HEADLAB_STEP_X86 1
// AVX2 without FMA and AVX-512 (F): wider vectors, the same IEEE products and sums.
template <class T>
__attribute__((target("avx2"))) double step_avx2(const StepParameters<T>& w, const std::vector<TokenCounts>& b,
                                                 StepParameters<T>& g, bool l) {
  return step<T, 32 / sizeof(T)>(w, b, g, l);
}
template <class T>
__attribute__((target("avx512f"))) double step_avx512(const StepParameters<T>& w, const std::vector<TokenCounts>& b,
                                                      StepParameters<T>& g, bool l) {
  return step<T, 64 / sizeof(T)>(w, b, g, l);
}
#endif

// The vectors use_step_vectors chose, or −1 for the widest.
std::atomic<int> chosen_vectors{-1};

StepVectors widest_vectors() {
#ifdef HEADLAB_STEP_X86
  static const StepVectors widest = __builtin_cpu_supports("avx512f") ? StepVectors::avx512
                                    : __builtin_cpu_supports("avx2")  ? StepVectors::avx2
                                                                      : StepVectors::portable;
  return widest;
#else
  return StepVectors::portable;
#endif
}

}  // namespace

template <class T>
void to_step_parameters(const MaxDigitWeights& weights, StepParameters<T>& out) {
  const std::vector<const Matrix*> m = parameter_list(weights);
  std::memset(static_cast<void*>(&out), 0, sizeof out);
  const auto put = [](const Matrix& from, T* to, int rows, int cols, int ld) {
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) to[i * ld + j] = static_cast<T>(from(i, j));
  };
  put(*m[0], &out.E[0][0], V, D, D);
  for (int h = 0; h < H; ++h) {
    put(*m[1 + 4 * h], &out.W_Q[h][0][0], D, C, C);
    put(*m[2 + 4 * h], &out.W_K[h][0][0], D, C, C);
    put(*m[3 + 4 * h], &out.W_V[h][0][0], D, C, C);
    put(*m[4 + 4 * h], &out.W_O[h][0][0], C, D, D);
  }
  put(*m[1 + 4 * H], &out.W_U[0][0], D, V, P);
}

template <class T>
void from_step_parameters(const StepParameters<T>& p, const std::vector<Matrix*>& m) {
  const auto get = [](const T* from, Matrix& to, int rows, int cols, int ld) {
    to.resize(rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) to(i, j) = static_cast<double>(from[i * ld + j]);
  };
  get(&p.E[0][0], *m[0], V, D, D);
  for (int h = 0; h < H; ++h) {
    get(&p.W_Q[h][0][0], *m[1 + 4 * h], D, C, C);
    get(&p.W_K[h][0][0], *m[2 + 4 * h], D, C, C);
    get(&p.W_V[h][0][0], *m[3 + 4 * h], D, C, C);
    get(&p.W_O[h][0][0], *m[4 + 4 * h], C, D, D);
  }
  get(&p.W_U[0][0], *m[1 + 4 * H], D, V, P);
}

bool step_vectors_available(StepVectors vectors) {
  return vectors == StepVectors::portable ||
         (vectors == StepVectors::avx2 && widest_vectors() != StepVectors::portable) || vectors == widest_vectors();
}

template <class T>
double step_loss_backward_with(StepVectors vectors, const StepParameters<T>& w, const std::vector<TokenCounts>& batch,
                               StepParameters<T>& g, bool with_loss) {
  if (!step_vectors_available(vectors)) throw InputError("this machine lacks the requested vector instructions");
#ifdef HEADLAB_STEP_X86
  if (vectors == StepVectors::avx512) return step_avx512<T>(w, batch, g, with_loss);
  if (vectors == StepVectors::avx2) return step_avx2<T>(w, batch, g, with_loss);
#endif
  return step_portable<T>(w, batch, g, with_loss);
}

void use_step_vectors(StepVectors vectors) {
  if (!step_vectors_available(vectors)) throw InputError("this machine lacks the requested vector instructions");
  chosen_vectors.store(static_cast<int>(vectors));
}

StepVectors step_vectors_in_use() {
  const int chosen = chosen_vectors.load();
  return chosen < 0 ? widest_vectors() : static_cast<StepVectors>(chosen);
}

template <class T>
double step_loss_backward(const StepParameters<T>& w, const std::vector<TokenCounts>& batch, StepParameters<T>& g,
                          bool with_loss) {
  return step_loss_backward_with<T>(step_vectors_in_use(), w, batch, g, with_loss);
}

template void to_step_parameters<float>(const MaxDigitWeights&, StepParameters<float>&);
template void to_step_parameters<double>(const MaxDigitWeights&, StepParameters<double>&);
template void from_step_parameters<float>(const StepParameters<float>&, const std::vector<Matrix*>&);
template void from_step_parameters<double>(const StepParameters<double>&, const std::vector<Matrix*>&);
template double step_loss_backward<float>(const StepParameters<float>&, const std::vector<TokenCounts>&,
                                          StepParameters<float>&, bool);
template double step_loss_backward<double>(const StepParameters<double>&, const std::vector<TokenCounts>&,
                                           StepParameters<double>&, bool);
template double step_loss_backward_with<float>(StepVectors, const StepParameters<float>&,
                                               const std::vector<TokenCounts>&, StepParameters<float>&, bool);
template double step_loss_backward_with<double>(StepVectors, const StepParameters<double>&,
                                                const std::vector<TokenCounts>&, StepParameters<double>&, bool);

// Declared with the model (core/max_digit_model.hpp): the double-precision instantiation of the step.
double max_digit_loss_backward(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
                               MaxDigitGradients& grads) {
  validate_weights(w);
  if (batch.empty()) throw InputError("batch is empty; it needs at least one list");
  for (const auto& counts : batch) maximum_digit(counts);
  const auto parameters = std::make_unique<StepParameters<double>>();
  const auto gradients = std::make_unique<StepParameters<double>>();
  to_step_parameters(w, *parameters);
  const double loss = step_loss_backward(*parameters, batch, *gradients, true);
  grads = zero_gradients();
  from_step_parameters(*gradients, grads.list());
  return loss;
}

}  // namespace headlab::max_digit
