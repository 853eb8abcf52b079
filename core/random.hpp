// The project's one source of randomness.
//
// Engine: xoshiro256** (Blackman & Vigna), seeded through splitmix64.
// Normals: the ZIGNOR ziggurat (Doornik 2005, 128 layers; core/ziggurat.hpp),
// whose tables are literals and whose accept/reject tests use only exp and log
// from basic operations (core/deterministic_math.hpp), so the native and the
// WASM build draw the same bits from the same seed. Library
// distributions (std::normal_distribution, …) are never used: libstdc++ and
// libc++ implement them differently.
#pragma once

#include "core/matrix.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace headlab {

class Random {
 public:
  explicit Random(std::uint64_t seed);

  // 64 uniformly distributed bits. (Defined in this header so that samplers inline it.)
  std::uint64_t next_u64();
  // Uniform on [0, 1) with 53 random bits.
  double uniform();
  // Uniform integer on [0, n), n ≥ 1, without modulo bias (Lemire's method).
  std::uint32_t below(std::uint32_t n);
  // Standard normal N(0, 1).
  double normal();
  // n standard normals into out[0 … n−1]: the same bits as n calls of normal(),
  // faster because the generator state stays in registers between draws.
  void fill_normal(double* out, std::size_t n);
  // groups × (first_count normals into first + g·first_count, then second_count into
  // second + g·second_count), g = 0 … groups − 1: the same bits as those fill_normal calls in that
  // order, in one loop (a batch's examples, each a request row and its records, with no call per example).
  void fill_normal_groups(double* first, std::size_t first_count, double* second, std::size_t second_count,
                          std::size_t groups);
  // rows × cols matrix of independent N(0, stddev²), filled row by row.
  Matrix normal_matrix(Eigen::Index rows, Eigen::Index cols, double stddev = 1.0);

  // An independent generator for a named sub-stream (e.g. "evaluation set"),
  // derived from this generator's seed and the stream number only, so adding
  // draws to one stream never shifts another.
  Random stream(std::uint64_t stream_id) const;

 private:
  [[noreturn]] static void below_zero();
  double normal_tail(bool negative);
  // normal() after its first 64 bits were drawn: the rectangle test, tail and wedge.
  double normal_from(std::uint64_t bits);
  std::uint64_t seed_;
  std::array<std::uint64_t, 4> state_;
};

// A d × d orthogonal matrix drawn from the Haar measure: Q of the QR
// factorisation of a Gaussian matrix, with column signs fixed so diag(R) > 0.
Matrix random_orthogonal(Eigen::Index d, Random& rng);

inline std::uint64_t Random::next_u64() {
  const auto rotl = [](std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

inline std::uint32_t Random::below(std::uint32_t n) {
  if (n == 0) below_zero();
  std::uint64_t m = (next_u64() >> 32) * n;
  auto low = static_cast<std::uint32_t>(m);
  if (low < n) {
    const std::uint32_t threshold = (0u - n) % n;
    while (low < threshold) {
      m = (next_u64() >> 32) * n;
      low = static_cast<std::uint32_t>(m);
    }
  }
  return static_cast<std::uint32_t>(m >> 32);
}

}  // namespace headlab
