#include "core/adam.hpp"

#include "core/check.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace headlab {
namespace {

constexpr std::uint64_t kExponentMask = 0x7FF0000000000000ULL;
constexpr std::uint64_t kSignBit = 0x8000000000000000ULL;

// An entry is ±inf or NaN exactly when its eleven exponent bits are all ones.
__attribute__((always_inline)) inline bool any_non_finite(const double* g, Eigen::Index n) {
  std::uint64_t found = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    std::uint64_t bits;
    std::memcpy(&bits, g + j, sizeof bits);
    found |= static_cast<std::uint64_t>((bits & kExponentMask) == kExponentMask);
  }
  return found != 0;
}

struct AdamUpdate {
  double b1, b2, one_minus_b1, one_minus_b2, decay, step_size, inverse_correction2, epsilon;
};

// One step for n entries; every entry's arithmetic is independent of the others, so the
// compiler's vectorisation (2 lanes with SSE2 or simd128, 4 with AVX) leaves the bits unchanged.
// Returns a word whose top bit is set when some new entry is NaN, infinite or beyond ±limit
// (Checked) or 0 (not Checked): for a double without its sign bit the bits read as an unsigned
// integer order like the values, with ±inf and NaN above every finite value, and both lie below
// 2^63, so limit_bits − bits (mod 2^64) has its top bit set exactly when |p| > limit or p is NaN.
template <bool Checked>
__attribute__((always_inline)) inline std::uint64_t update(const AdamUpdate& u, double* __restrict p,
                                                           const double* __restrict g, double* __restrict m,
                                                           double* __restrict v, Eigen::Index n,
                                                           std::uint64_t limit_bits) {
  std::uint64_t beyond = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    m[j] = u.b1 * m[j] + u.one_minus_b1 * g[j];
    v[j] = u.b2 * v[j] + u.one_minus_b2 * (g[j] * g[j]);
    const double updated = u.decay * p[j] - u.step_size * m[j] / (std::sqrt(v[j] * u.inverse_correction2) + u.epsilon);
    p[j] = updated;
    if (Checked) {
      std::uint64_t bits;
      std::memcpy(&bits, &updated, sizeof bits);
      beyond |= limit_bits - (bits & ~kSignBit);
    }
  }
  return beyond;
}

bool any_non_finite_portable(const double* g, Eigen::Index n) { return any_non_finite(g, n); }
template <bool Checked>
std::uint64_t update_portable(const AdamUpdate& u, double* p, const double* g, double* m, double* v, Eigen::Index n,
                              std::uint64_t limit_bits) {
  return update<Checked>(u, p, g, m, v, n, limit_bits);
}

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__) && defined(__GNUC__)
#define HEADLAB_ADAM_AVX2 1
// The same loops compiled for AVX2 (no FMA; the core builds with -ffp-contract=off), chosen at run time.
__attribute__((target("avx2"))) bool any_non_finite_avx2(const double* g, Eigen::Index n) {
  return any_non_finite(g, n);
}
template <bool Checked>
__attribute__((target("avx2"))) std::uint64_t update_avx2(const AdamUpdate& u, double* p, const double* g, double* m,
                                                          double* v, Eigen::Index n, std::uint64_t limit_bits) {
  return update<Checked>(u, p, g, m, v, n, limit_bits);
}
// AVX-512: eight entries per register (GCC vectorises 256 bits wide unless told otherwise).
template <bool Checked>
__attribute__((target("avx512f,prefer-vector-width=512"))) std::uint64_t update_avx512(
    const AdamUpdate& u, double* p, const double* g, double* m, double* v, Eigen::Index n, std::uint64_t limit_bits) {
  return update<Checked>(u, p, g, m, v, n, limit_bits);
}
#endif

}  // namespace

Adam::Adam(std::vector<Matrix*> parameters, AdamSettings settings)
    : parameters_(std::move(parameters)), settings_(settings) {
  const auto& s = settings_;
  if (!(std::isfinite(s.learning_rate) && s.learning_rate > 0)) {
    throw InputError("learning_rate must be finite and > 0, got " + std::to_string(s.learning_rate));
  }
  if (!(s.beta1 >= 0 && s.beta1 < 1)) throw InputError("beta1 must lie in [0, 1), got " + std::to_string(s.beta1));
  if (!(s.beta2 >= 0 && s.beta2 < 1)) throw InputError("beta2 must lie in [0, 1), got " + std::to_string(s.beta2));
  if (!(std::isfinite(s.epsilon) && s.epsilon > 0)) throw InputError("epsilon must be finite and > 0");
  if (!(std::isfinite(s.weight_decay) && s.weight_decay >= 0)) {
    throw InputError("weight_decay must be finite and ≥ 0, got " + std::to_string(s.weight_decay));
  }
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (parameters_[i] == nullptr) throw InputError("Adam parameter " + std::to_string(i) + " is null");
    first_moment_.push_back(Matrix::Zero(parameters_[i]->rows(), parameters_[i]->cols()));
    second_moment_.push_back(Matrix::Zero(parameters_[i]->rows(), parameters_[i]->cols()));
  }
}

void Adam::step(const std::vector<const Matrix*>& gradients) { step_impl(gradients, nullptr, true); }

bool Adam::step_within(const std::vector<const Matrix*>& gradients, double limit) {
  if (!(std::isfinite(limit) && limit >= 0)) throw InputError("the magnitude limit must be finite and ≥ 0");
  return step_impl(gradients, &limit, true);
}

bool Adam::step_within_unvalidated(const std::vector<const Matrix*>& gradients, double limit) {
  if (!(std::isfinite(limit) && limit >= 0)) throw InputError("the magnitude limit must be finite and ≥ 0");
  return step_impl(gradients, &limit, false);
}

// Returns whether every updated entry lies within ±*limit (true when limit is null). validate:
// refuse a non-finite gradient entry first (a pass over every gradient, about 2% of a max-digit
// training step natively).
bool Adam::step_impl(const std::vector<const Matrix*>& gradients, const double* limit, bool validate) {
  if (gradients.size() != parameters_.size()) {
    throw InputError("Adam::step needs " + std::to_string(parameters_.size()) + " gradients, got " +
                     std::to_string(gradients.size()));
  }
  for (std::size_t i = 0; i < gradients.size(); ++i) {
    const auto name = [i] { return "gradient " + std::to_string(i); };
    if (gradients[i] == nullptr) throw InputError(name() + " is null");
    if (gradients[i]->rows() != parameters_[i]->rows() || gradients[i]->cols() != parameters_[i]->cols()) {
      require_shape(name().c_str(), *gradients[i], parameters_[i]->rows(), parameters_[i]->cols());
    }
    if (!validate) continue;
    // The message comes from require_finite once a non-finite entry is found.
    const double* g = gradients[i]->data();
    const Eigen::Index n = gradients[i]->size();
    bool non_finite;
#ifdef HEADLAB_ADAM_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2");
    non_finite = avx2 ? any_non_finite_avx2(g, n) : any_non_finite_portable(g, n);
#else
    non_finite = any_non_finite_portable(g, n);
#endif
    if (non_finite) require_finite(name().c_str(), *gradients[i]);
  }
  const auto& s = settings_;
  beta1_power_ *= s.beta1;
  beta2_power_ *= s.beta2;
  ++steps_;
  // p ← (1 − lr·wd)·p − (lr / (1 − β1^t)) · m / (√(v / (1 − β2^t)) + ε)
  const double step_size = s.learning_rate / (1.0 - beta1_power_);
  const double inverse_correction2 = 1.0 / (1.0 - beta2_power_);
  const double decay = 1.0 - s.learning_rate * s.weight_decay;
  const double b1 = s.beta1, b2 = s.beta2, one_minus_b1 = 1.0 - s.beta1, one_minus_b2 = 1.0 - s.beta2;
  const double epsilon = s.epsilon;
  std::uint64_t limit_bits = 0, beyond = 0;
  if (limit) std::memcpy(&limit_bits, limit, sizeof limit_bits);
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    double* __restrict p = parameters_[i]->data();
    const double* __restrict g = gradients[i]->data();
    double* __restrict m = first_moment_[i].data();
    double* __restrict v = second_moment_[i].data();
    const AdamUpdate u{b1, b2, one_minus_b1, one_minus_b2, decay, step_size, inverse_correction2, epsilon};
#ifdef HEADLAB_ADAM_AVX2
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    if (avx512) {
      beyond |= limit ? update_avx512<true>(u, p, g, m, v, parameters_[i]->size(), limit_bits)
                      : update_avx512<false>(u, p, g, m, v, parameters_[i]->size(), 0);
      continue;
    }
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) {
      beyond |= limit ? update_avx2<true>(u, p, g, m, v, parameters_[i]->size(), limit_bits)
                      : update_avx2<false>(u, p, g, m, v, parameters_[i]->size(), 0);
      continue;
    }
#endif
    beyond |= limit ? update_portable<true>(u, p, g, m, v, parameters_[i]->size(), limit_bits)
                    : update_portable<false>(u, p, g, m, v, parameters_[i]->size(), 0);
  }
  return (beyond >> 63) == 0;
}

long Adam::steps_taken() const { return steps_; }

}  // namespace headlab
