// Rotary position embedding (RoPE) as TransformerLens's AbstractAttention.apply_rotary computes it,
// on a query or key vector of one head (c = d_head wide) at position p. With R = rotary_dim:
//   pair k = 0 … R/2 − 1 has frequency ω_k = rotary_base^(−2k/R) and angle φ = p·ω_k;
//   GPT-NeoX (half split, rotary_adjacent_pairs false): the pair is (x_k, x_{k+R/2});
//   GPT-J (adjacent pairs, rotary_adjacent_pairs true):  the pair is (x_{2k}, x_{2k+1});
//   (a, b) → (a cos φ − b sin φ,  b cos φ + a sin φ), components R … c − 1 pass unchanged.
// A rotation by φ_i of q_i and by φ_j of k_j leaves q_i·k_j depending on the positions only through
// i − j: the QK circuit of a rotary head is one bilinear form per relative offset.
// sin and cos come from deterministic_sin_cos and ω_k from exp_nonpositive and deterministic_log
// (core/deterministic_math.hpp), so the native and WASM builds rotate to the same bits.
#pragma once

#include "core/matrix.hpp"
#include "core/transformer_config.hpp"

namespace headlab::transformer {

// The angle φ of pair k at position p: p · exp(−(2k/R)·ln rotary_base).
double rotary_angle(const TransformerConfig& config, int pair, long long position);

// Rotates one c-vector x (d_head entries) in place to position `position` (rotary configs only);
// `inverse` rotates by −φ instead, the transpose, which carries a gradient back through the rotation.
void apply_rotary(const TransformerConfig& config, double* x, long long position, bool inverse = false);

// Every row of x (n × d_head) in place: row r at position first_position + r.
void rotate_rows(const TransformerConfig& config, Matrix& x, long long first_position = 0, bool inverse = false);

}  // namespace headlab::transformer
