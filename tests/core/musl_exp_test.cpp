// core/musl_exp.hpp: musl's exp arithmetic on two lanes. In WASM it must equal std::exp (musl)
// bit for bit, which the feature-recovery results in WASM rely on; natively std::exp is glibc's,
// whose FMA variant rounds differently in the last bit now and then, so here each lane is held
// to 1 ulp of it (both are within 0.511 ulp of e^x) over every table entry, and the arguments
// outside the fast path must return std::exp's own bits.
#include "core/musl_exp.hpp"
#include "core/lanes.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <utility>

namespace {

// Distance in ulps between two positive finite doubles (their bit patterns are ordered).
std::int64_t ulp_distance(double a, double b) {
  std::int64_t ia, ib;
  std::memcpy(&ia, &a, sizeof ia);
  std::memcpy(&ib, &b, sizeof ib);
  return ia > ib ? ia - ib : ib - ia;
}

}  // namespace

TEST_CASE("musl_exp_lanes: within 1 ulp of std::exp on the fast path, every 2^(i/128) table entry used", "[musl_exp]") {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> wide(-700.0, 500.0), unit(-1.0, 1.0);
  int used[headlab::musl_exp::kN] = {};
  for (int k = 0; k < 200000; ++k) {
    const double a = wide(g), b = unit(g) * std::ldexp(1.0, -(k % 50));
    const headlab::MuslExpF64x2 e = headlab::musl_exp_lanes(headlab::MuslExpF64x2{a, b});
    INFO("x = " << a << ", " << b);
    REQUIRE(ulp_distance(e[0], std::exp(a)) <= 1);
    REQUIRE(ulp_distance(e[1], std::exp(b)) <= 1);
    // The table index of a: k mod N with k the nearest integer to a·N/ln 2.
    const long long kk = std::llround(a * headlab::musl_exp::kInvLn2N);
    ++used[((kk % headlab::musl_exp::kN) + headlab::musl_exp::kN) % headlab::musl_exp::kN];
  }
  for (int i = 0; i < headlab::musl_exp::kN; ++i) REQUIRE(used[i] > 0);
}

TEST_CASE("musl_exp_lanes: arguments off the fast path are std::exp's own (0, tiny, ≥ 512 in magnitude, ±inf, NaN)",
          "[musl_exp]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double off[] = {0.0, -0.0, 1e-300, -0x1p-60, -512.0, -745.5, -800.0, 600.0, 709.7, 720.0, -inf, inf};
  for (const double x : off) {
    // Paired with an ordinary argument: one lane off the fast path sends both lanes to std::exp.
    const headlab::MuslExpF64x2 e = headlab::musl_exp_lanes(headlab::MuslExpF64x2{x, -1.25});
    const double expected = std::exp(x), got = e[0];
    INFO("x = " << x);
    REQUIRE(std::memcmp(&got, &expected, sizeof got) == 0);
    REQUIRE(e[1] == std::exp(-1.25));
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  REQUIRE(std::isnan(headlab::musl_exp_lanes(headlab::MuslExpF64x2{nan, 1.0})[0]));
}

#ifdef HEADLAB_FMA_LANE_EXP
TEST_CASE("FmaLaneExp: std::exp's bits on every lane where glibc runs its FMA exp", "[musl_exp][bits]") {
  // Where available (FMA and AVX2, and the probes agree: core/lanes.cpp) the feature-recovery softmax
  // uses it in place of std::exp, so it must be std::exp bit for bit: 2·10⁶ arguments over the
  // softmax's range and beyond, the tiny ones that return 1 + x, and those off the fast path.
  if (!headlab::softmax_exp_available(headlab::SoftmaxExp::avx2_fma)) {
    SUCCEED("this CPU or libm has no FMA exp: the portable std::exp is used");
    return;
  }
  std::mt19937_64 rng(3);
  long compared = 0, differs_from_musl = 0;
  for (const auto& [lo, hi] : {std::pair{-40.0, 0.0}, std::pair{-1.0, 1.0}, std::pair{-745.0, 709.0}}) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (int i = 0; i < 1000000 / 3; ++i) {
      const double x[2] = {u(rng), u(rng)};
      const headlab::Lanes2 e = headlab::FmaLaneExp{}(headlab::Lanes2{x[0], x[1]});
      const headlab::MuslExpF64x2 m = headlab::musl_exp_lanes(headlab::MuslExpF64x2{x[0], x[1]});
      for (int l = 0; l < 2; ++l) {
        // Lanes copied out first: clang gives no address of a vector element.
        const double want = std::exp(x[l]), got = e[l], musl = m[l];
        if (std::memcmp(&got, &want, sizeof want) != 0) {
          FAIL_CHECK("exp(" << x[l] << "): " << got << " against std::exp's " << want);
        }
        differs_from_musl += std::memcmp(&musl, &want, sizeof want) != 0;
        ++compared;
      }
    }
  }
  CHECK(compared > 1900000);
  // The FMA arithmetic is not the plain one: it rounds differently from musl's in ~0.07 % of arguments.
  CHECK(differs_from_musl > 100);
  volatile double fixed[] = {0.0, -0.0, 1e-300, -1e-17, 600.0, -800.0};  // volatile: no std::exp folded
  for (const double x : fixed) {
    const headlab::Lanes2 e = headlab::FmaLaneExp{}(headlab::Lanes2{x, -x});
    CHECK(e[0] == std::exp(x));
    CHECK(e[1] == std::exp(-x));
  }
}
#endif
