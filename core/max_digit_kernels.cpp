#include "core/max_digit_kernels.hpp"

#include "core/deterministic_math.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace headlab::max_digit {
namespace {

constexpr int V = kVocab, D = kDModel, C = kDHead, H = kHeads;

// Every product below sums its terms in the same order, from the same starting value, as the
// plain loops it replaces (the reference in tests/core/max_digit_kernels_test.cpp), so the
// gradients are the same to the last bit; only the memory layout and the loop nesting differ.
// Element-wise vector arithmetic (GCC/clang vector extensions, lowered to SSE2/AVX natively and
// to simd128 in WASM) rounds each lane exactly like the scalar operation. Contraction of a
// product and a sum into an FMA would change the bits; the core is built with -ffp-contract=off.
// Rows of 14 logits or tokens are padded to 16 entries (two vectors of 8) whose padding stays 0.

#if !defined(__GNUC__)
#error "the max-digit training kernels use GCC/clang vector extensions"
#endif
#define HEADLAB_INLINE __attribute__((always_inline)) inline
// The parts of a step (each product, the tables, one example, each backward path). Natively they
// are inlined into the step, which is compiled once per vector width (target attributes reach only
// inlined code). In WASM each stays a function of its own: V8's optimising compiler allocated
// registers worse in one ~40 KB step function than in these parts (the recipe ran about 20% slower).
#if defined(__wasm__)
#define HEADLAB_STEP_PART __attribute__((noinline))
#else
#define HEADLAB_STEP_PART HEADLAB_INLINE
#endif
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

constexpr int P = 16;  // padded row length for the 14-wide rows
// The entries of a padded row that a W-wide loop visits: all 14 in two-lane vectors, the padded 16
// in wider ones (the padding entries are zero, or never read, in every row these loops write).
template <int W>
constexpr int kRowLength = (V + W - 1) / W * W;
// Rows whose dot products are summed side by side: a sum must add its terms in order, one
// after another, so one row at a time is a chain of dependent additions (latency-bound);
// eight rows give eight independent chains, each the same roundings as before.
constexpr int kRowBlock = 8;
static_assert(D % kRowBlock == 0, "whole blocks of rows");

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

// Running sums a panel may keep in vector registers: 8 of the 16 registers of SSE2, AVX2 and
// WASM's simd128 on x86-64 hosts, leaving room for the broadcast and the loaded row; 16 of the
// 32 of AVX-512. A wider panel spills its sums to memory on every k.
template <int W>
constexpr int kPanelSums = W == 8 ? 16 : 8;

// The M × N product C = A B (or C += A B), R rows at a time (M divisible by R), and within them
// NB columns at a time so that the R × NB running sums fit in registers. Each entry of C is still
// summed over k in order from the same start; only the order in which entries are formed changes.
template <int W, int M, int R, int K, int N>
HEADLAB_STEP_PART void product(const double* a, long a_row, long a_k, const double* b, long ldb, double* c, long ldc,
                            bool accumulate) {
  static_assert(M % R == 0, "row blocks must tile the rows");
  constexpr int NB = N < kPanelSums<W> * W / R ? N : kPanelSums<W> * W / R;
  static_assert(N % NB == 0, "column blocks must tile the columns");
  for (int i = 0; i < M; i += R) {
    for (int j = 0; j < N; j += NB) {
      panel<W, R, K, NB>(a + i * a_row, a_row, a_k, b + j, ldb, c + i * ldc + j, ldc, accumulate);
    }
  }
}

// Everything one step needs, kept between steps so that a step allocates nothing.
struct StepWorkspace {
  // forward tables (14-wide rows padded to 16)
  alignas(64) double residual[P];
  alignas(64) double query[H][C];
  alignas(64) double key_query[H][D];
  alignas(64) double score[H][V];
  alignas(64) double score_exp_head[H][V];  // e^{s_h(t) − max s_h}, head by head
  alignas(64) double score_exp[V][H];       // the same, four heads side by side: [t][h]
  alignas(64) double value[H][V][C];   // E W_V^h
  alignas(64) double wo_wu[H][C][P];   // W_O^h W_U
  alignas(64) double logit[H][V][P];   // L_h[t]
  alignas(64) double logit_quad[V][V][H];  // L of the four heads side by side: [t][j][h]
  alignas(64) double unembed[D][P];    // W_U
  // batch accumulators
  alignas(64) double sum_g[P];
  alignas(64) double G[H][V][P];  // dL_h
  alignas(64) double dS[V][H];    // ds_h(t), four heads side by side: [t][h]
  // dL_h[t] += a_h(t) g, deferred over up to kChunk distinct examples (flush_value_gradients):
  // each example's g, and per token the examples that hold it (in batch order) with a_h(t).
  static constexpr int kChunk = 256;
  alignas(64) double chunk_g[kChunk][P];
  alignas(64) double chunk_mass[V][kChunk][H];
  int chunk_example[V][kChunk];
  int chunk_count[V];
  int chunk_size;
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
HEADLAB_STEP_PART void forward_tables(const MaxDigitWeights& w, StepWorkspace& ws) {
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
    // q, W_K qᵀ, s(t) and e^{s(t) − max s}: the analysis path's own code (core/max_digit_model.cpp)
    head_scores(w, h, ws.query[h], ws.key_query[h], ws.score[h], ws.score_exp_head[h]);
    for (int t = 0; t < V; ++t) ws.score_exp[t][h] = ws.score_exp_head[h][t];
    // Vh = E W_V (14 × 16), M = W_O W_U (16 × 14), L = Vh M (14 × 14); the analysis path
    // (token_tables) forms the same sums with axpy rows, the bits test holds them equal.
    const double *WV = w.W_V[h].data(), *WO = w.W_O[h].data();
    product<W, V, 2, D, P>(E, D, 1, WV, C, &ws.value[h][0][0], C, false);
    product<W, C, 2, D, P>(WO, D, 1, &ws.unembed[0][0], P, &ws.wo_wu[h][0][0], P, false);
    product<W, V, 2, C, P>(&ws.value[h][0][0], C, 1, &ws.wo_wu[h][0][0], P, &ws.logit[h][0][0], P, false);
    for (int t = 0; t < V; ++t) {
      for (int j = 0; j < V; ++j) ws.logit_quad[t][j][h] = ws.logit[h][t][j];
    }
  }
}

// softmax_cross_entropy (core/softmax.hpp) with exp_nonpositive, all 14 exponentials in one
// 16-lane value (the 2 padding lanes take e^0 and are never read): the same operations in the same
// order, so the same bits. logits and p: 16 entries.
template <int W>
HEADLAB_STEP_PART double cross_entropy_lanes(const double* logits, int answer, double* p) {
  double top = logits[0];
  for (int j = 1; j < V; ++j) top = logits[j] > top ? logits[j] : top;
  alignas(64) double x[P];
  bool in_range = true;
  for (int j = 0; j < V; ++j) {
    x[j] = logits[j] - top;
    in_range = in_range & (x[j] >= -700.0);
  }
  x[V] = x[V + 1] = 0.0;
  if (in_range) {
    // All 16 entries as one 16-lane value: the compiler splits it into 16/W vectors and emits each
    // step of their Horner chains side by side, so the 16/W chains of dependent products and sums
    // overlap (one W-wide chain at a time waited on each step's latency).
    typedef ExpLanes<P>::f64 f64x16;
    f64x16 v;
    std::memcpy(&v, x, sizeof v);
    v = exp_nonpositive_lanes<P>(v);
    std::memcpy(p, &v, sizeof v);
  } else {
    for (int j = 0; j < V; ++j) p[j] = exp_nonpositive(x[j]);
  }
  double total = 0.0;
  for (int j = 0; j < V; ++j) total += p[j];
  const double inverse = 1.0 / total;
  for (int j = 0; j < V; ++j) p[j] *= inverse;
  return std::log(total) - (logits[answer] - top);
}

// The four heads side by side: one 4-lane vector holds head 0…3 of a token (each lane's
// arithmetic is that head's scalar arithmetic, so the bits are the per-head loops' bits).
typedef Lanes<4>::type f64x4;
HEADLAB_INLINE f64x4 load4(const double* p) { return Lanes<4>::load(p); }
HEADLAB_INLINE void store4(double* p, f64x4 v) { Lanes<4>::store(p, v); }

// a_h(t) of one example for every head, as a[t][h]; `counts` as doubles.
// weighted(t) = c(t)·e_h(t) for every token (0 for an absent one, which adds nothing to the
// running sum over t), a_h(t) = weighted(t) · (1 / Σ_t weighted(t)).
HEADLAB_STEP_PART void example_mass(const StepWorkspace& ws, const double* counts, const TokenCounts& token_counts,
                                 double (*a)[H]) {
  f64x4 weighted[V];
  f64x4 total{};
  for (int t = 0; t < V; ++t) {
    weighted[t] = counts[t] * load4(ws.score_exp[t]);
    total += weighted[t];
  }
  const f64x4 inverse = 1.0 / total;
  for (int t = 0; t < V; ++t) store4(a[t], weighted[t] * inverse);
  for (int h = 0; h < H; ++h) {
    if (total[h] >= kMassUnderflow) continue;
    double mass[V];
    far_below_maximum_mass(ws.score[h], token_counts, mass);
    for (int t = 0; t < V; ++t) a[t][h] = mass[t];
  }
}

// λ_h(t) = Σ_j g[j] L_h[t][j] from 0 in j order for the NT tokens t = tokens[0 … NT), four heads per
// vector. Each sum is one chain of dependent additions (14 of them, one per j); NT tokens give NT
// independent chains, where one token at a time leaves the adder waiting on each chain's latency.
template <int NT>
HEADLAB_INLINE void token_dots(const StepWorkspace& ws, const double* g, const int* tokens, double (*lambda)[H]) {
  f64x4 s[NT] = {};
  for (int j = 0; j < V; ++j) {
    for (int n = 0; n < NT; ++n) s[n] += g[j] * load4(ws.logit_quad[tokens[n]][j]);
  }
  for (int n = 0; n < NT; ++n) store4(lambda[tokens[n]], s[n]);
}

// Tokens whose λ token_dots forms side by side: 3 in two-lane vectors (6 running sums), 6 with
// AVX2 and AVX-512 (6 four-lane sums of 16 or 32 registers).
template <int W>
constexpr int kTokenBlock = W == 2 ? 3 : 6;

// The model sees a multiset of tokens, so equal examples are merged and weighted by their
// multiplicity: sort by a 33-bit key of the digit and PAD counts, then by position in the batch
// (key · 2^20 + position; batch sizes stay below 2^20).
constexpr int kPositionBits = 20;
constexpr std::uint64_t kPositionMask = (std::uint64_t{1} << kPositionBits) - 1;
void sort_by_multiset(const std::vector<TokenCounts>& batch, std::vector<std::uint64_t>& order) {
  const std::size_t n = batch.size();
  order.resize(n);
  for (std::size_t e = 0; e < n; ++e) {
    std::uint64_t key = 0;
    for (int t = 0; t <= kPad; ++t) key = (key << 3) | batch[e][t];
    order[e] = (key << kPositionBits) | e;
  }
  if (n < 2) return;
  // Least-significant-digit radix sort on the key, a byte at a time (5 passes cover its 33
  // bits): each pass is stable and the positions start in order, so the result is the order of
  // (key, position), as a comparison sort of the whole values would give, at a fraction of the
  // branches. A pass in which every entry has the same byte is skipped.
  thread_local std::vector<std::uint64_t> scratch;
  scratch.resize(n);
  std::uint64_t* from = order.data();
  std::uint64_t* to = scratch.data();
  for (int shift = kPositionBits; shift < kPositionBits + 33; shift += 8) {
    std::size_t start[257] = {};
    for (std::size_t e = 0; e < n; ++e) ++start[((from[e] >> shift) & 0xFF) + 1];
    if (start[((from[0] >> shift) & 0xFF) + 1] == n) continue;
    for (int b = 0; b < 256; ++b) start[b + 1] += start[b];
    for (std::size_t e = 0; e < n; ++e) to[start[(from[e] >> shift) & 0xFF]++] = from[e];
    std::swap(from, to);
  }
  if (from != order.data()) std::copy(from, from + n, order.data());
}

// One distinct example between its parts: its tokens, a_h(t) and logits.
struct Example {
  alignas(64) double a[V][H];
  alignas(64) double logits[P];
  int present[V];  // the tokens it holds, in token order
  int n_present;
  int answer;
  double multiplicity;
};

// The present tokens, a_h(t) and the answer of one example.
HEADLAB_INLINE void example_forward(const StepWorkspace& ws, const TokenCounts& counts, double multiplicity,
                                       Example& ex) {
  alignas(64) double counts_d[V];
  int n_present = 0;
  for (int t = 0; t < V; ++t) {
    counts_d[t] = counts[t];
    ex.present[n_present] = t;
    n_present += counts[t] != 0;
  }
  ex.n_present = n_present;
  ex.answer = maximum_digit(counts);
  ex.multiplicity = multiplicity;
  example_mass(ws, counts_d, counts, ex.a);
}

// Examples to form logits for side by side: each example's sum is one chain of dependent
// additions per vector of its row (NV of them), so NE examples give NE·NV independent chains;
// as many as kPanelSums running sums allow (4 with AVX-512, 2 with AVX2, 1 with two lanes).
template <int W>
constexpr int kExampleBlock = kPanelSums<W> / (kRowLength<W> / W) >= 4 ? 4 : kPanelSums<W> / (kRowLength<W> / W) >= 2 ? 2 : 1;

// logits = E[ANS] W_U + Σ_h Σ_t a_h(t) L_h[t], summed in that order (h, then the present t in
// token order), for NE examples at once: within each head the first min n_present tokens of
// every example side by side, then each example's remaining tokens; every example's own sum
// takes its terms in its own order, so each example's logits are those formed alone.
template <int W, int NE>
HEADLAB_INLINE void example_logits(const StepWorkspace& ws, Example* ex) {
  using L = Lanes<W>;
  constexpr int NV = kRowLength<W> / W;  // vectors per row
  typename L::type acc[NE][NV];
  int common = V;
  for (int e = 0; e < NE; ++e) {
    common = std::min(common, ex[e].n_present);
    for (int j = 0; j < NV; ++j) acc[e][j] = L::load(ws.residual + W * j);
  }
  for (int h = 0; h < H; ++h) {
    for (int i = 0; i < common; ++i) {
      for (int e = 0; e < NE; ++e) {
        const int t = ex[e].present[i];
        const double mass = ex[e].a[t][h];
        for (int j = 0; j < NV; ++j) acc[e][j] += mass * L::load(ws.logit[h][t] + W * j);
      }
    }
    for (int e = 0; e < NE; ++e) {
      for (int i = common; i < ex[e].n_present; ++i) {
        const int t = ex[e].present[i];
        const double mass = ex[e].a[t][h];
        for (int j = 0; j < NV; ++j) acc[e][j] += mass * L::load(ws.logit[h][t] + W * j);
      }
    }
  }
  for (int e = 0; e < NE; ++e)
    for (int j = 0; j < NV; ++j) L::store(ex[e].logits + W * j, acc[e][j]);
}

// One distinct example after its logits: cross-entropy and the batch accumulators sum_g
// (Σ dlogits), G_h (dL_h, deferred) and dS_h (ds_h). Returns multiplicity · loss.
template <int W>
HEADLAB_INLINE double example_backward(StepWorkspace& ws, const Example& ex, double inverse_batch) {
  using L = Lanes<W>;
  constexpr int NV = kRowLength<W> / W;  // vectors per row
  alignas(64) double g[P], p[P], lambda[V][H];
  const int n_present = ex.n_present;
  const int* present = ex.present;
  const auto& a = ex.a;
  const int answer = ex.answer;
  const double multiplicity = ex.multiplicity;
  const double loss = multiplicity * cross_entropy_lanes<W>(ex.logits, answer, p);
  // dloss/dlogits of the mean loss, summed over the copies: multiplicity · (softmax − onehot) / B
  const double weight = multiplicity * inverse_batch;
  for (int j = 0; j < V; ++j) {
    g[j] = (p[j] - (j == answer ? 1.0 : 0.0)) * weight;
    ws.sum_g[j] += g[j];
  }
  g[V] = g[V + 1] = 0.0;
  // logits += Σ_t a(t) L[t]  ⇒  da(t) = L[t]·g;  a = softmax over tokens ⇒ ds(t) = a(t)(da(t) − Σ_u a(u) da(u))
  // λ_h(t) = L_h[t]·g for the present tokens, summed over j in order, four heads per vector;
  // kTokenBlock tokens at a time, so that as many chains of dependent additions run side by side
  // (in WASM, four tokens' 8 running sums of two lanes, with their loaded rows, spilled on x86-64).
  constexpr int B = kTokenBlock<W>;
  int i = 0;
  for (; i + B <= n_present; i += B) token_dots<B>(ws, g, present + i, lambda);
  if (i + 3 <= n_present) token_dots<3>(ws, g, present + i, lambda), i += 3;
  if (i + 2 <= n_present) token_dots<2>(ws, g, present + i, lambda), i += 2;
  if (i < n_present) token_dots<1>(ws, g, present + i, lambda);
  f64x4 mean_lambda{};
  for (int i = 0; i < n_present; ++i) mean_lambda += load4(a[present[i]]) * load4(lambda[present[i]]);
  for (int i = 0; i < n_present; ++i) {
    const int t = present[i];
    store4(ws.dS[t], load4(ws.dS[t]) + load4(a[t]) * (load4(lambda[t]) - mean_lambda));
  }
  // dL_h[t] += a_h(t) g, kept for flush_value_gradients
  const int e = ws.chunk_size++;
  for (int j = 0; j < NV; ++j) L::store(ws.chunk_g[e] + W * j, L::load(g + W * j));
  for (int i = 0; i < n_present; ++i) {
    const int t = present[i];
    const int k = ws.chunk_count[t]++;
    store4(ws.chunk_mass[t][k], load4(a[t]));
    ws.chunk_example[t][k] = e;
  }
  return loss;
}

// dL_h[t] += a_h(t) g for the kept examples, one (h, t) row at a time with its running sums in
// registers, the examples in batch order: the same sums in the same order as adding each
// example's a_h(t) g to the row as it comes, without loading and storing the row per example.
// HB heads' rows of a token at once (as many as kPanelSums running sums allow: 4 with AVX-512,
// 2 with AVX2, 1 with two lanes), so that each loaded g serves HB rows and HB·NV independent
// chains of additions run side by side; each row's sum is still taken over k in order.
template <int W>
HEADLAB_STEP_PART void flush_value_gradients(StepWorkspace& ws) {
  using L = Lanes<W>;
  constexpr int NV = kRowLength<W> / W;
  constexpr int HB = kPanelSums<W> / NV >= H ? H : kPanelSums<W> / NV >= 2 ? 2 : 1;
  static_assert(H % HB == 0, "whole blocks of heads");
  for (int t = 0; t < V; ++t) {
    const int n = ws.chunk_count[t];
    for (int h0 = 0; h0 < H && n > 0; h0 += HB) {
      typename L::type acc[HB][NV];
      for (int b = 0; b < HB; ++b)
        for (int j = 0; j < NV; ++j) acc[b][j] = L::load(ws.G[h0 + b][t] + W * j);
      for (int k = 0; k < n; ++k) {
        const double* g = ws.chunk_g[ws.chunk_example[t][k]];
        for (int j = 0; j < NV; ++j) {
          const typename L::type gj = L::load(g + W * j);
          for (int b = 0; b < HB; ++b) acc[b][j] += ws.chunk_mass[t][k][h0 + b] * gj;
        }
      }
      for (int b = 0; b < HB; ++b)
        for (int j = 0; j < NV; ++j) L::store(ws.G[h0 + b][t] + W * j, acc[b][j]);
    }
    ws.chunk_count[t] = 0;
  }
  ws.chunk_size = 0;
}

// count ≤ NE distinct examples, in batch order: forward and logits side by side (when there are
// NE of them), then each example's backward in order, so every accumulator, and loss, takes its
// terms in the order of one example after another. One function per block: in WASM the parts
// stay one call (as one example's work was before the blocks).
template <int W, int NE>
HEADLAB_STEP_PART void accumulate_examples(StepWorkspace& ws, const TokenCounts* const* counts,
                                           const double* multiplicity, int count, double inverse_batch, double& loss) {
  Example ex[NE];
  for (int e = 0; e < count; ++e) example_forward(ws, *counts[e], multiplicity[e], ex[e]);
  if (count == NE) {
    example_logits<W, NE>(ws, ex);
  } else {
    for (int e = 0; e < count; ++e) example_logits<W, 1>(ws, ex + e);
  }
  for (int e = 0; e < count; ++e) loss += example_backward<W>(ws, ex[e], inverse_batch);
}

// residual_logit = E[ANS] W_U: dW_U (kept in ws.dunembed) = E[ANS]ᵀ Σ g, dE[ANS] = W_U Σ g.
// Starts dE from zero.
HEADLAB_STEP_PART void backward_residual(const MaxDigitWeights& w, StepWorkspace& ws, MaxDigitGradients& grads) {
  const double* ans = w.E.data() + kAns * D;
  const double* WU = w.W_U.data();
  grads.dE.setZero();
  double* dans = grads.dE.data() + kAns * D;
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < V; ++j) ws.wu_t[j][i] = WU[i * V + j];
  }
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < V; ++j) ws.dunembed[i][j] = 0.0 + ans[i] * ws.sum_g[j];
    ws.dunembed[i][V] = ws.dunembed[i][V + 1] = 0.0;
  }
  // dE[ANS][i] += Σ_j W_U[i][j] Σg[j], from 0 in j order, eight rows at once (independent chains)
  for (int i0 = 0; i0 < D; i0 += kRowBlock) {
    double s[kRowBlock] = {};
    for (int j = 0; j < V; ++j)
      for (int r = 0; r < kRowBlock; ++r) s[r] += WU[(i0 + r) * V + j] * ws.sum_g[j];
    for (int r = 0; r < kRowBlock; ++r) dans[i0 + r] += s[r];
  }
}

// Head h's value path from the accumulated dL_h = G_h (14 × 14):
// L = Vh M: dVh = G Mᵀ, dM = Vhᵀ G;  Vh = E W_V: dW_V = Eᵀ dVh, dE += dVh W_Vᵀ;
// M = W_O W_U: dW_O = dM W_Uᵀ, dW_U += W_Oᵀ dM.
template <int W>
HEADLAB_STEP_PART void backward_value_path(const MaxDigitWeights& w, int h, StepWorkspace& ws, MaxDigitGradients& grads) {
  const double *E = w.E.data(), *WV = w.W_V[h].data(), *WO = w.W_O[h].data();
  double* dE = grads.dE.data();
  const double* Gh = &ws.G[h][0][0];
  for (int c = 0; c < C; ++c) {
    for (int j = 0; j < V; ++j) ws.wo_wu_t[j][c] = ws.wo_wu[h][c][j];
  }
  product<W, V, 2, V, P>(Gh, P, 1, &ws.wo_wu_t[0][0], C, &ws.dvalue[0][0], C, false);
  product<W, C, 2, V, P>(&ws.value[h][0][0], 1, C, Gh, P, &ws.dwo_wu[0][0], P, false);
  product<W, D, 2, V, P>(E, 1, D, &ws.dvalue[0][0], C, grads.dW_V[h].data(), C, false);
  for (int c = 0; c < C; ++c) {
    for (int i = 0; i < D; ++i) ws.wv_t[c][i] = WV[i * C + c];
  }
  product<W, V, 2, C, D>(&ws.dvalue[0][0], C, 1, &ws.wv_t[0][0], D, &ws.de_rows[0][0], D, false);
  for (int t = 0; t < V; ++t) {
    for (int i = 0; i < D; ++i) dE[t * D + i] += ws.de_rows[t][i];
  }
  product<W, C, 2, V, D>(&ws.dwo_wu[0][0], P, 1, &ws.wu_t[0][0], D, grads.dW_O[h].data(), D, false);
  product<W, D, 2, C, P>(WO, 1, D, &ws.dwo_wu[0][0], P, &ws.dunembed[0][0], P, true);
}

// Head h's score path from the accumulated ds_h:
// s(t) = E[t]·kq / 4: dkq = Σ_t ds(t) E[t] / 4, dE[t] += ds(t) kq / 4;
// kq = W_K qᵀ: dW_K = dkq q, dq = dkqᵀ W_K;  q = E[ANS] W_Q: dW_Q = E[ANS]ᵀ dq, dE[ANS] += dq W_Qᵀ.
template <int W>
HEADLAB_STEP_PART void backward_score_path(const MaxDigitWeights& w, int h, const StepWorkspace& ws,
                                        MaxDigitGradients& grads) {
  using L = Lanes<W>;
  const double *E = w.E.data(), *WQ = w.W_Q[h].data(), *WK = w.W_K[h].data();
  const double* ans = E + kAns * D;
  double* dE = grads.dE.data();
  double* dans = dE + kAns * D;
  double *__restrict dWQ = grads.dW_Q[h].data(), *__restrict dWK = grads.dW_K[h].data();
  const double* kq = ws.key_query[h];
  // Written with explicit vectors: dE, E and the workspace never overlap, but the compiler
  // cannot know it and kept these loops scalar or behind run-time overlap checks.
  alignas(64) double dkq[D] = {};
  for (int t = 0; t < V; ++t) {
    const double ds = ws.dS[t][h] * kScoreScale;
    for (int i = 0; i < D; i += W) {
      L::store(dkq + i, L::load(dkq + i) + ds * L::load(E + t * D + i));
      L::store(dE + t * D + i, L::load(dE + t * D + i) + ds * L::load(kq + i));
    }
  }
  const double* q = ws.query[h];
  // dW_K[i] = dkq[i] q;  dq = Σ_i dkq[i] W_K[i], summed over i in order, in registers
  typename L::type dq[C / W] = {};
  for (int i = 0; i < D; ++i) {
    const double d = dkq[i];
    for (int j = 0; j < C / W; ++j) {
      L::store(dWK + i * C + W * j, d * L::load(q + W * j));
      dq[j] += d * L::load(WK + i * C + W * j);
    }
  }
  for (int i = 0; i < D; ++i) {
    for (int j = 0; j < C / W; ++j) L::store(dWQ + i * C + W * j, ans[i] * dq[j]);
  }
  alignas(64) double dq_row[C];
  for (int j = 0; j < C / W; ++j) L::store(dq_row + W * j, dq[j]);
  // dE[ANS][i] += Σ_c W_Q[i][c] dq[c], each sum from 0 in c order: eight rows side by side, so
  // eight independent chains of additions run at once instead of one 16-long chain per row.
  for (int i0 = 0; i0 < D; i0 += kRowBlock) {
    double s[kRowBlock] = {};
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < kRowBlock; ++r) s[r] += WQ[(i0 + r) * C + c] * dq_row[c];
    for (int r = 0; r < kRowBlock; ++r) dans[i0 + r] += s[r];
  }
}

template <int W>
HEADLAB_INLINE double step_kernel(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
                                  MaxDigitGradients& grads) {
  StepWorkspace& ws = step_workspace();
  forward_tables<W>(w, ws);
  const double inverse_batch = 1.0 / static_cast<double>(batch.size());
  sort_by_multiset(batch, ws.order);
  std::memset(ws.sum_g, 0, sizeof ws.sum_g);
  std::memset(ws.G, 0, sizeof ws.G);
  std::memset(ws.dS, 0, sizeof ws.dS);
  std::memset(ws.chunk_count, 0, sizeof ws.chunk_count);
  ws.chunk_size = 0;
  double loss = 0.0;
  // Distinct examples NE at a time (the last ones one by one), in batch order.
  constexpr int NE = kExampleBlock<W>;
  const TokenCounts* counts[NE];
  double multiplicity[NE];
  const std::size_t n = ws.order.size();
  for (std::size_t first = 0; first < n;) {
    if (ws.chunk_size + NE > StepWorkspace::kChunk) flush_value_gradients<W>(ws);
    int count = 0;
    for (; count < NE && first < n; ++count) {
      std::size_t last = first + 1;
      while (last < n && (ws.order[last] >> kPositionBits) == (ws.order[first] >> kPositionBits)) ++last;
      counts[count] = &batch[ws.order[first] & kPositionMask];
      multiplicity[count] = static_cast<double>(last - first);
      first = last;
    }
    accumulate_examples<W, NE>(ws, counts, multiplicity, count, inverse_batch, loss);
  }
  flush_value_gradients<W>(ws);
  backward_residual(w, ws, grads);
  for (int h = 0; h < H; ++h) {
    backward_value_path<W>(w, h, ws, grads);
    backward_score_path<W>(w, h, ws, grads);
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
// AVX-512 (F): one padded row of 8 doubles per register; again no FMA, so the same bits.
__attribute__((target("avx512f"))) double step_avx512(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
                                                      MaxDigitGradients& grads) {
  return step_kernel<8>(w, batch, grads);
}
#endif

}  // namespace

double loss_backward_unchecked(const MaxDigitWeights& w, const std::vector<TokenCounts>& batch,
                               MaxDigitGradients& grads) {
#ifdef HEADLAB_STEP_AVX2
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) return step_avx512(w, batch, grads);
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return step_avx2(w, batch, grads);
#endif
  return step_portable(w, batch, grads);
}

}  // namespace headlab::max_digit
