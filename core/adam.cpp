#include "core/adam.hpp"

#include "core/check.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace headlab {
namespace {

// The bits of a T as an unsigned integer of its width.
template <class T>
using Bits = typename std::conditional<sizeof(T) == 4, std::uint32_t, std::uint64_t>::type;
template <class T>
constexpr Bits<T> kSignBit = Bits<T>{1} << (8 * sizeof(T) - 1);
template <class T>
constexpr Bits<T> kExponentMask = sizeof(T) == 4 ? Bits<T>(0x7F800000u) : Bits<T>(0x7FF0000000000000ULL);

template <class T>
__attribute__((always_inline)) inline Bits<T> bits_of(T x) {
  Bits<T> b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// An entry is ±inf or NaN exactly when its exponent bits are all ones.
__attribute__((always_inline)) inline bool any_non_finite(const double* g, Eigen::Index n) {
  std::uint64_t found = 0;
  for (Eigen::Index j = 0; j < n; ++j)
    found |= static_cast<std::uint64_t>((bits_of(g[j]) & kExponentMask<double>) == kExponentMask<double>);
  return found != 0;
}

// The step's scalars rounded to T.
template <class T>
struct Scalars {
  T b1, b2, one_minus_b1, one_minus_b2, decay, step_size, inverse_correction2, epsilon;
  explicit Scalars(const AdamStep& s)
      : b1(static_cast<T>(s.b1)),
        b2(static_cast<T>(s.b2)),
        one_minus_b1(static_cast<T>(s.one_minus_b1)),
        one_minus_b2(static_cast<T>(s.one_minus_b2)),
        decay(static_cast<T>(s.decay)),
        step_size(static_cast<T>(s.step_size)),
        inverse_correction2(static_cast<T>(s.inverse_correction2)),
        epsilon(static_cast<T>(s.epsilon)) {}
};

// One step for n entries. Returns a word whose top bit is set when some new entry is NaN, infinite
// or beyond ±limit, or some new second moment is not finite (Checked), or 0 (not Checked): for a
// number without its sign bit the bits read as an unsigned integer order like the values, with
// ±inf and NaN above every finite value, and all lie below the top bit, so limit_bits − bits has its
// top bit set exactly when |p| > limit or p is NaN; (inf_bits − 1) − bits likewise when v is not finite.
template <class T, bool Checked>
__attribute__((always_inline)) inline Bits<T> update(const Scalars<T>& u, T* __restrict p, const T* __restrict g,
                                                     T* __restrict m, T* __restrict v, std::size_t n,
                                                     Bits<T> limit_bits) {
  constexpr Bits<T> finite_bits = kExponentMask<T> - 1;
  Bits<T> beyond = 0;
  for (std::size_t j = 0; j < n; ++j) {
    m[j] = u.b1 * m[j] + u.one_minus_b1 * g[j];
    v[j] = u.b2 * v[j] + u.one_minus_b2 * (g[j] * g[j]);
    const T updated = u.decay * p[j] - u.step_size * m[j] / (std::sqrt(v[j] * u.inverse_correction2) + u.epsilon);
    p[j] = updated;
    if (Checked) {
      beyond |= limit_bits - (bits_of(updated) & ~kSignBit<T>);
      beyond |= finite_bits - (bits_of(v[j]) & ~kSignBit<T>);
    }
  }
  return beyond;
}

bool any_non_finite_portable(const double* g, Eigen::Index n) { return any_non_finite(g, n); }
template <class T, bool Checked>
Bits<T> update_portable(const Scalars<T>& u, T* p, const T* g, T* m, T* v, std::size_t n, Bits<T> limit_bits) {
  return update<T, Checked>(u, p, g, m, v, n, limit_bits);
}

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__) && defined(__GNUC__)
#define HEADLAB_ADAM_AVX2 1
// The same loops compiled for AVX2 (no FMA; the core builds with -ffp-contract=off), chosen at run time.
__attribute__((target("avx2"))) bool any_non_finite_avx2(const double* g, Eigen::Index n) {
  return any_non_finite(g, n);
}
template <class T, bool Checked>
__attribute__((target("avx2"))) Bits<T> update_avx2(const Scalars<T>& u, T* p, const T* g, T* m, T* v, std::size_t n,
                                                    Bits<T> limit_bits) {
  return update<T, Checked>(u, p, g, m, v, n, limit_bits);
}
// AVX-512: 8 doubles or 16 floats per register (GCC and clang vectorise 256 bits wide unless told
// otherwise; clang takes that as min_vector_width, and ignores the whole target attribute when it
// holds GCC's prefer-vector-width).
#if defined(__clang__)
#define HEADLAB_ADAM_TARGET_AVX512 __attribute__((target("avx512f"), min_vector_width(512)))
#else
#define HEADLAB_ADAM_TARGET_AVX512 __attribute__((target("avx512f,prefer-vector-width=512")))
#endif
template <class T, bool Checked>
HEADLAB_ADAM_TARGET_AVX512 Bits<T> update_avx512(const Scalars<T>& u, T* p, const T* g, T* m, T* v, std::size_t n,
                                                 Bits<T> limit_bits) {
  return update<T, Checked>(u, p, g, m, v, n, limit_bits);
}
#endif

// The update of n entries on the widest vectors the machine has; true when every entry is within
// the limit (always true without one).
template <class T>
bool update_within(const AdamStep& step, T* p, const T* g, T* m, T* v, std::size_t n, const double* limit) {
  const Scalars<T> u(step);
  Bits<T> limit_bits = 0;
  if (limit) limit_bits = bits_of(static_cast<T>(*limit));
  Bits<T> beyond;
#ifdef HEADLAB_ADAM_AVX2
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx512) {
    beyond =
        limit ? update_avx512<T, true>(u, p, g, m, v, n, limit_bits) : update_avx512<T, false>(u, p, g, m, v, n, 0);
  } else if (avx2) {
    beyond = limit ? update_avx2<T, true>(u, p, g, m, v, n, limit_bits) : update_avx2<T, false>(u, p, g, m, v, n, 0);
  } else
#endif
  {
    beyond =
        limit ? update_portable<T, true>(u, p, g, m, v, n, limit_bits) : update_portable<T, false>(u, p, g, m, v, n, 0);
  }
  return (beyond & kSignBit<T>) == 0;
}

void require_limit(double limit) {
  if (!(std::isfinite(limit) && limit >= 0)) throw InputError("the magnitude limit must be finite and ≥ 0");
}

}  // namespace

AdamSchedule::AdamSchedule(const AdamSettings& settings)
    : settings_(settings), peak_learning_rate_(settings.learning_rate) {
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
}

void AdamSchedule::set_learning_rate(double learning_rate) {
  if (!(learning_rate >= 0 && learning_rate <= peak_learning_rate_)) {
    throw InputError("a scheduled learning_rate must lie in [0, " + std::to_string(peak_learning_rate_) + "], got " +
                     std::to_string(learning_rate));
  }
  settings_.learning_rate = learning_rate;
}

AdamStep AdamSchedule::next() {
  const auto& s = settings_;
  beta1_power_ *= s.beta1;
  beta2_power_ *= s.beta2;
  ++steps_;
  // p ← (1 − lr·wd)·p − (lr / (1 − β1^t)) · m / (√(v / (1 − β2^t)) + ε)
  return {s.beta1,
          s.beta2,
          1.0 - s.beta1,
          1.0 - s.beta2,
          1.0 - s.learning_rate * s.weight_decay,
          s.learning_rate / (1.0 - beta1_power_),
          1.0 / (1.0 - beta2_power_),
          s.epsilon};
}

Adam::Adam(std::vector<Matrix*> parameters, AdamSettings settings)
    : parameters_(std::move(parameters)), schedule_(settings) {
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (parameters_[i] == nullptr) throw InputError("Adam parameter " + std::to_string(i) + " is null");
    first_moment_.push_back(Matrix::Zero(parameters_[i]->rows(), parameters_[i]->cols()));
    second_moment_.push_back(Matrix::Zero(parameters_[i]->rows(), parameters_[i]->cols()));
  }
}

void Adam::step(const std::vector<const Matrix*>& gradients) { step_impl(gradients, nullptr, true); }

bool Adam::step_within(const std::vector<const Matrix*>& gradients, double limit) {
  require_limit(limit);
  return step_impl(gradients, &limit, true);
}

bool Adam::step_within_unvalidated(const std::vector<const Matrix*>& gradients, double limit) {
  require_limit(limit);
  return step_impl(gradients, &limit, false);
}

// Returns whether every updated entry lies within ±*limit (true when limit is null). validate:
// refuse a non-finite gradient entry first (a pass over every gradient).
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
  const AdamStep step = schedule_.next();
  bool within = true;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    within &= update_within<double>(step, parameters_[i]->data(), gradients[i]->data(), first_moment_[i].data(),
                                    second_moment_[i].data(), static_cast<std::size_t>(parameters_[i]->size()), limit);
  }
  return within;
}

template <class T>
AdamBlock<T>::AdamBlock(T* parameters, std::size_t n, const AdamSettings& settings)
    : parameters_(parameters), n_(n), first_moment_(n, T(0)), second_moment_(n, T(0)), schedule_(settings) {}

template <class T>
bool AdamBlock<T>::step_within_unvalidated(const T* gradient, double limit) {
  require_limit(limit);
  return update_within<T>(schedule_.next(), parameters_, gradient, first_moment_.data(), second_moment_.data(), n_,
                          &limit);
}

template class AdamBlock<float>;
template class AdamBlock<double>;

}  // namespace headlab
