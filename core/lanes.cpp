#include "core/lanes.hpp"

#include "core/check.hpp"

#include <atomic>
#include <cstring>
#include <iterator>

namespace headlab {
namespace {

#ifdef HEADLAB_FMA_LANE_EXP
// Arguments in the softmax's range (−20 … 0) where the FMA arithmetic and the plain one (musl's,
// glibc's non-FMA variants) round e^x differently: FmaLaneExp is used only where it gives this
// process's std::exp bits on all of them, so a glibc that picked another variant (no AVX2, tunables)
// or computes exp another way keeps std::exp.
// Read through volatile: a compiler folds std::exp of a constant into the correctly rounded value,
// which is not libm's.
volatile double kProbes[] = {-0x1.018cf506a3403p+4, -0x1.36b64416d0bd8p+4, -0x1.f2bac8099fbd4p+3,
                             -0x1.9d72e0996c088p+1, -0x1.bc882758b5908p+2, -0x1.133b237d82bc8p+4,
                             -0x1.661368ac0b814p+3, -0x1.7e08c2703be78p+2};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // the vectors stay inside this function
__attribute__((target("avx2,fma"))) bool fma_lane_exp_matches_std_exp() {
  for (std::size_t i = 0; i + 1 < std::size(kProbes); i += 2) {
    const double x[2] = {kProbes[i], kProbes[i + 1]};
    const Lanes2 e = FmaLaneExp{}(Lanes2{x[0], x[1]});
    const double want[2] = {std::exp(x[0]), std::exp(x[1])};
    if (std::memcmp(&e, want, sizeof want) != 0) return false;
  }
  return true;
}
#pragma GCC diagnostic pop
#endif

bool fma_available() {
#ifdef HEADLAB_FMA_LANE_EXP
  static const bool available =
      __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2") && fma_lane_exp_matches_std_exp();
  return available;
#else
  return false;
#endif
}

// The exponential use_softmax_exp chose, or −1 for the default (avx2_fma when available).
std::atomic<int> chosen_exp{-1};

}  // namespace

bool softmax_exp_available(SoftmaxExp exp) { return exp == SoftmaxExp::portable || fma_available(); }

void use_softmax_exp(SoftmaxExp exp) {
  if (!softmax_exp_available(exp)) throw InputError("this machine lacks the FMA exponential of glibc");
  chosen_exp.store(static_cast<int>(exp));
}

SoftmaxExp softmax_exp_in_use() {
  const int chosen = chosen_exp.load(std::memory_order_relaxed);
  if (chosen >= 0) return static_cast<SoftmaxExp>(chosen);
  return fma_available() ? SoftmaxExp::avx2_fma : SoftmaxExp::portable;
}

}  // namespace headlab
