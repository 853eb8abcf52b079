// core/musl_exp.hpp: musl's exp arithmetic on two lanes. In WASM it must equal std::exp (musl)
// bit for bit, which the feature-recovery results in WASM rely on; natively std::exp is glibc's,
// whose FMA variant rounds differently in the last bit now and then, so here each lane is held
// to 1 ulp of it (both are within 0.511 ulp of e^x) over every table entry, and the arguments
// outside the fast path must return std::exp's own bits.
#include "core/musl_exp.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

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

TEST_CASE("musl_exp_lanes: arguments off the fast path are std::exp's own (0, tiny, ≥ 512 in magnitude, ±inf, NaN)", "[musl_exp]") {
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
