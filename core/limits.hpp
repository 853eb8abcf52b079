// The limits every trainer shares (docs/limits.md), named once: the trainers' validate(), the
// command line's usage text, the WASM modules and the widgets (through the generated
// widgets/base/core-limits.ts) read these constants and restate no literal.
#pragma once

namespace headlab {

// Most optimiser steps of one run, for every trainer (max-digit, feature recovery, transformer).
// A bound on the work one request asks for, not on the numbers: a step keeps every weight within
// kMaxWeightMagnitude whatever the count. Ten million steps at the defaults are hours of CPU.
constexpr long kMaxTrainingSteps = 10000000;

// Largest |entry| of any weight: of a file read (max-digit weights, transformer safetensors), of
// every trainer's weights after each step (past it, training has diverged) and of an author's
// matrix in a widget. The deepest product any model computes is four weights deep with at most
// 65,536 terms per sum (max-digit: L_h[t] = E W_V W_O W_U ≤ 64m² + 4·65,536m⁴ ≈ 2.6e5·m⁴ with every
// entry ≤ m; the transformer: a residual through at most 4 layers of W_V·W_O, each ≤ m²·d, then a
// score or logit of two such vectors; attention: x W_q (x W_k)ᵀ). The backward is at most three
// weights deep and AdamW squares it; the analyses square at most a logit and sum ≤ 10⁶ such squares.
// At m = 1e6 the largest of these is (2.6e5·1e24)²·1e6 ≈ 7e64, 240 orders of magnitude below the
// double range (1.8e308), while trained weights stay below 10 (the shipped max-digit seeds:
// max |entry| < 3). Feature recovery's Adam moves an entry by about learning_rate per step, so only
// learning_rate × steps ≳ 1e6 reaches it. Beyond it, |E| ≈ 1e200 overflowed the max-digit logits to
// ±inf and the analyses to NaN, and transformer entries of 1e100 printed all-zero logits.
constexpr double kMaxWeightMagnitude = 1e6;

// Largest init_scale of every trainer. The sampler's normal draws stay below 10 standard deviations
// (the ziggurat's tail from a 53-bit uniform ends near 9.4σ), and every trainer draws its initial
// entries as N(0, σ²) with σ ≤ init_scale, so they stay below 10·1e4 = 1e5, inside
// kMaxWeightMagnitude: the first forward cannot overflow. 1e100 reached a NaN-to-integer conversion
// in max-digit's exp; 1e160 overflowed the transformer's first forward to a loss of ln d_vocab.
constexpr double kMaxInitScale = 1e4;

}  // namespace headlab
