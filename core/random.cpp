#include "core/random.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/ziggurat.hpp"

#include <cmath>

namespace headlab {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

using ziggurat::kLayers;
using ziggurat::kTailStart;

struct ZigguratTables {
  double x[kLayers + 1];                   // layer edges (core/ziggurat.hpp): x[0] the base layer, x[1] = r, x[128] = 0
  double ratio[kLayers];                   // x[i+1] / x[i]: a point with |u| below it lies inside the rectangle
  ziggurat::Rectangle rectangle[kLayers];  // the same test and product on the integer m (ziggurat.hpp)
  ZigguratTables() {
    for (int i = 0; i <= kLayers; ++i) x[i] = ziggurat::kEdge[i];
    for (int i = 0; i < kLayers; ++i) {
      ratio[i] = x[i + 1] / x[i];
      // |u| < ratio ⟺ |n| < ratio·2^52 (exact: a power-of-two scaling) ⟺ |n| < T = ⌈ratio·2^52⌉ for
      // the integer |n| ⟺ 2^52 − T < m < 2^52 + T ⟺ m − (2^52 − T + 1) < 2T − 1 as unsigned words;
      // T = 0 (the top layer, ratio 0) accepts nothing: width 0.
      const auto t = static_cast<std::uint64_t>(std::ceil(std::ldexp(ratio[i], 52)));
      rectangle[i].low = (std::uint64_t{1} << 52) - t + 1;
      rectangle[i].width = t == 0 ? 0 : 2 * t - 1;
      rectangle[i].scaled_edge = std::ldexp(x[i], -52);
    }
  }
};

const ZigguratTables& ziggurat_tables() {
  static const ZigguratTables tables;
  return tables;
}

}  // namespace

const ziggurat::Rectangle* ziggurat::rectangles() { return ziggurat_tables().rectangle; }

namespace {

// e^x as the wedge test has always formed it: x = k·ln2 + r, |r| ≤ ln2/2, and the Taylor series
// of e^r summed forward to r^17/17! (the next term is below 2^−60). Its bits differ from
// exp_nonpositive's (Horner) in the last place for about 60 % of arguments, and deciding the wedge
// test with exp_nonpositive alone would flip it for about 22 of the 2^53 values of w at each
// wedge point (measured at 200,000 wedge points: 2.4e-15 of wedge draws): a draw that some seed
// makes would change. So this series stays, for the ≈ 1e-10 of wedge draws that the fast test
// below leaves undecided. Arguments are within ±1 here.
double series_exp(double x) {
  const double k = std::floor(x * exp_reduction::inv_ln2 + 0.5);
  const double r = (x - k * exp_reduction::ln2_hi) - k * exp_reduction::ln2_lo;
  double term = 1.0, sum = 1.0;
  for (int n = 1; n <= 17; ++n) {
    term = term * r / n;
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(k));
}

}  // namespace

// The wedge test f1 + w·(f0 − f1) < 1 with f0 = e^{a0}, f1 = e^{a1} as series_exp gives them
// (a0 ≤ 0 ≤ a1, both within ±1: the layers are thin). series_exp sums its series with 17
// dependent divisions, and two calls were most of the cost of a wedge draw. The test is decided
// first with exp_nonpositive (Horner, no division; its reduction and polynomial do not depend on
// the sign of the argument): both exponentials are within 4 ulp of e^a (measured below 1 ulp on
// [−3, 3]), so the two left-hand sides, each ≤ 3, differ by less than 1e-14. Only when the fast
// one lies within 2^−40 ≈ 9e-13 of 1 is the series one formed; the decision, and so every draw
// that follows, is the same as with series_exp alone.
// Before both: the Taylor polynomial of e^a to a^11/11!, evaluated by Estrin's scheme (depth 4 in
// a², a⁴, a⁸, where Horner's is 11 dependent products and sums and exp_nonpositive's, after its
// reduction, 14), the two exponentials in one two-lane evaluation. For |a| ≤ 3/4 — every wedge
// point: a1 − a0 = (x[i]² − x[i+1]²)/2 ≤ 0.732 — the remainder is at most (3/4)^12/12!·e^{3/4}
// < 1.5e-10, and the rounding of its 17 operations on terms ≤ e^{3/4} < 2.2 (and of its
// coefficients, exp_nonpositive's 1/n!, each within a few ulp) adds < 1e-14; so the
// left-hand side is within 2e-10 of its exact value, and of series_exp's, and a decision taken
// outside the 2^−26 ≈ 1.5e-8 margin is theirs. Inside it (7 of 5.5 million wedge points in 2e8 draws) the two tests
// below decide.
namespace {

__attribute__((always_inline)) inline ExpLanes<2>::f64 short_taylor_exp(ExpLanes<2>::f64 a) {
  using exp_reduction::kInverseFactorial;
  const auto& c = kInverseFactorial.c;
  const ExpLanes<2>::f64 a2 = a * a, a4 = a2 * a2, a8 = a4 * a4;
  const ExpLanes<2>::f64 p01 = c[0] + a * c[1], p23 = c[2] + a * c[3], p45 = c[4] + a * c[5];
  const ExpLanes<2>::f64 p67 = c[6] + a * c[7], p89 = c[8] + a * c[9], p1011 = c[10] + a * c[11];
  const ExpLanes<2>::f64 q0 = p01 + a2 * p23, q1 = p45 + a2 * p67, q2 = p89 + a2 * p1011;
  return (q0 + a4 * q1) + a8 * q2;
}

}  // namespace

bool ziggurat::wedge_accepts(double a0, double a1, double w) {
  if (a0 >= -0.75 && a1 <= 0.75) {
    constexpr double kShortMargin = 0x1p-26;
    const ExpLanes<2>::f64 f = short_taylor_exp(ExpLanes<2>::f64{a0, a1});
    const double fast = f[1] + w * (f[0] - f[1]);
    if (fast < 1.0 - kShortMargin) return true;
    if (fast > 1.0 + kShortMargin) return false;
  }
  constexpr double kMargin = 0x1p-40;
  // Both in one two-lane evaluation: each lane is exp_nonpositive's arithmetic (the same bits for
  // |a| ≤ 700), and the two Horner chains, each a run of dependent products and sums, overlap.
  const ExpLanes<2>::f64 f = exp_nonpositive_lanes<2>(ExpLanes<2>::f64{a0, a1});
  const double f0 = f[0], f1 = f[1];
  const double fast = f1 + w * (f0 - f1);
  if (fast < 1.0 - kMargin) return true;
  if (fast > 1.0 + kMargin) return false;
  const double e0 = series_exp(a0), e1 = series_exp(a1);
  return e1 + w * (e0 - e1) < 1.0;
}

Random::Random(std::uint64_t seed) : seed_(seed) {
  std::uint64_t s = seed;
  for (auto& word : state_) word = splitmix64(s);
}

// The top 53 bits as a double. They fit a signed 64-bit integer, whose conversion is one
// instruction on x86-64 (the unsigned one is a branchy sequence); the value is the same.
inline double top53(std::uint64_t bits) { return static_cast<double>(static_cast<std::int64_t>(bits >> 11)); }

// u = 2·U − 1 ∈ [−1, 1) from the top 53 bits: 2·(m·2^−53) and m·2^−52 are the same double (scaling
// an integer below 2^53 by a power of two is exact), one multiplication fewer per normal draw.
inline double signed_unit(std::uint64_t bits) { return top53(bits) * 0x1.0p-52 - 1.0; }

double Random::uniform() { return top53(next_u64()) * 0x1.0p-53; }

void Random::below_zero() { throw InputError("Random::below needs n ≥ 1"); }

double Random::normal_tail(bool negative) {
  // Marsaglia's tail method beyond r: accept x = r + e1/r when 2·e2 ≥ (e1/r)², e1, e2 ~ Exp(1).
  double x, y;
  do {
    x = deterministic_log(1.0 - uniform()) / kTailStart;  // 1 − U ∈ (0, 1]
    y = deterministic_log(1.0 - uniform());
  } while (-2.0 * y < x * x);
  return negative ? x - kTailStart : kTailStart - x;
}

double Random::normal() { return normal_from(next_u64()); }

double Random::normal_from(std::uint64_t bits) {
  const ZigguratTables& z = ziggurat_tables();
  for (;; bits = next_u64()) {
    // Bits 11–63 give u ∈ [−1, 1); bits 0–6 pick the layer. They do not overlap.
    const double u = signed_unit(bits);
    const int i = static_cast<int>(bits & 0x7F);
    if (std::fabs(u) < z.ratio[i]) return u * z.x[i];  // inside the rectangle: ≈ 98.8% of draws
    if (i == 0) return normal_tail(u < 0.0);
    // Wedge between the rectangle and the density: accept under f.
    const double x = u * z.x[i];
    if (ziggurat::wedge_accepts(-0.5 * (z.x[i] * z.x[i] - x * x), -0.5 * (z.x[i + 1] * z.x[i + 1] - x * x),
                                uniform())) {
      return x;
    }
  }
}

void Random::fill_normal(double* out, std::size_t n) { fill_normal_groups(out, n, out, 0, 1); }

void Random::fill_normal_groups(double* first, std::size_t first_count, double* second, std::size_t second_count,
                                std::size_t groups) {
  const ziggurat::Rectangle* rectangle = ziggurat_tables().rectangle;
  std::uint64_t s0 = state_[0], s1 = state_[1], s2 = state_[2], s3 = state_[3];
  const auto fill = [&](double* out, std::size_t n) __attribute__((always_inline)) {
    for (std::size_t k = 0; k < n; ++k) {
      // next_u64() on local copies of the state (same update, same output).
      const std::uint64_t bits = rotl(s1 * 5, 7) * 9;
      const std::uint64_t t = s1 << 17;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = rotl(s3, 45);
      // normal()'s rectangle test and product on the integer m = bits >> 11 (ziggurat::Rectangle):
      // no conversion, subtraction or absolute value before the branch, the same decision and bits.
      const ziggurat::Rectangle& layer = rectangle[bits & 0x7F];
      const std::uint64_t m = bits >> 11;
      if (m - layer.low < layer.width) {
        out[k] = static_cast<double>(static_cast<std::int64_t>(m) - (std::int64_t{1} << 52)) * layer.scaled_edge;
        continue;
      }
      // The rare rest of normal(): hand the state back, finish the draw, take it again.
      state_ = {s0, s1, s2, s3};
      out[k] = normal_from(bits);
      s0 = state_[0], s1 = state_[1], s2 = state_[2], s3 = state_[3];
    }
  };
  for (std::size_t g = 0; g < groups; ++g) {
    fill(first + g * first_count, first_count);
    fill(second + g * second_count, second_count);
  }
  state_ = {s0, s1, s2, s3};
}

Matrix Random::normal_matrix(Eigen::Index rows, Eigen::Index cols, double stddev) {
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = stddev * normal();
  return m;
}

Random Random::stream(std::uint64_t stream_id) const {
  std::uint64_t s = seed_ ^ (0xD1B54A32D192ED03ULL * (stream_id + 1));
  return Random(splitmix64(s));
}

Matrix random_orthogonal(Eigen::Index d, Random& rng) {
  if (d <= 0) throw InputError("random_orthogonal needs d ≥ 1, got " + std::to_string(d));
  const Matrix gaussian = rng.normal_matrix(d, d);
  Eigen::HouseholderQR<Matrix> qr(gaussian);
  Matrix q = qr.householderQ() * Matrix::Identity(d, d);
  const Matrix r = qr.matrixQR().triangularView<Eigen::Upper>();
  for (Eigen::Index j = 0; j < d; ++j) {
    if (r(j, j) < 0.0) q.col(j) *= -1.0;
  }
  return q;
}

}  // namespace headlab
