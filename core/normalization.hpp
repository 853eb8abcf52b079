// The normalisations before each attention layer and before the unembedding (TransformerLens
// normalization_type), over the rows of x (T × d), per position:
//   LN      x̂ = (x − mean x) / σ ⊙ w + b,   σ = √(mean((x − mean x)²) + ε)   (biased variance)
//   LNPre   the same without w and b (what fold_ln leaves behind)
//   RMS     x̂ = x / σ ⊙ w,                   σ = √(mean(x²) + ε)             (no centring, no b)
//   RMSPre  the same without w
//   none    x̂ = x
// Each forward writes σ per row into `scale` (left empty by none), which the backward and the
// direct logit attribution (σ frozen) read.
#pragma once

#include "core/matrix.hpp"
#include "core/transformer_config.hpp"

namespace headlab::transformer {

// LayerNorm: returns x̂ and writes σ per row into scale. w, b are 1 × d, or both empty for LNPre.
Matrix layer_norm_forward(const Matrix& x, const Matrix& w, const Matrix& b, double eps, Vector& scale);
// Backward: from dy (T × d) returns dx and adds to dw, db (when w is non-empty).
Matrix layer_norm_backward(const Matrix& x, const Vector& scale, const Matrix& w, const Matrix& dy, Matrix& dw,
                           Matrix& db);
// RMSNorm: returns x̂ and writes σ per row into scale. w is 1 × d, or empty for RMSPre.
Matrix rms_norm_forward(const Matrix& x, const Matrix& w, double eps, Vector& scale);
// Backward: from dy (T × d) returns dx and adds to dw (when w is non-empty).
Matrix rms_norm_backward(const Matrix& x, const Vector& scale, const Matrix& w, const Matrix& dy, Matrix& dw);

// Whether the config normalises at all, and whether it subtracts the mean (LN, LNPre).
bool normalizes(const TransformerConfig& config);
bool centres(const TransformerConfig& config);

// The config's normalisation of x with weights w (and b for LN): x itself for none.
Matrix normalize(const TransformerConfig& config, const Matrix& x, const Matrix& w, const Matrix& b, Vector& scale);
// Its backward: dx from dy, adding to dw (LN, RMS) and db (LN); dy itself for none.
Matrix normalize_backward(const TransformerConfig& config, const Matrix& x, const Vector& scale, const Matrix& w,
                          const Matrix& dy, Matrix& dw, Matrix& db);

}  // namespace headlab::transformer
