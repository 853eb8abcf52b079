// Each head's weight matrices with the normalisation that feeds it folded in, the form in which
// composition scores and head SVDs (core/head_composition.hpp, core/head_svd.hpp) read them.
//
// A layer reads its residual stream x (1 × d) through LN(x) = P x ⊙ w / σ (+ b), P = I − 11ᵀ/d the
// centring. Folding writes that as x (P diag(w) W) / σ for every matrix W (d × k) the layer reads
// with: the reading matrix becomes
//   W_f = P diag(w) W        (LN: row i scaled by w_i, then every column centred over its d rows)
//   W_f = P W                (LNPre: centred only)
//   W_f = diag(w) W, W       (RMS, RMSPre: no centring)
//   W_f = W                  (no normalisation)
// as TransformerLens's fold_ln with center_weights leaves W_Q, W_K, W_V and W_U. The scale 1/σ is
// a positive number per position, not a weight, and is left out (composition scores are ratios of
// norms and do not see it); the offsets b are constants, not part of any head's matrix. W_O and
// W_E write into the stream and are unchanged.
#pragma once

#include "core/transformer.hpp"

namespace headlab::transformer {

// The largest vocabulary for which a head's token-space circuits (V × V: QK and OV circuits of
// core/transformer_analysis.hpp, the OV eigenvalues of core/head_svd.hpp) are computed.
constexpr int kMaxCircuitVocab = 512;

// W_f = P diag(w) W, P W or W for a reading matrix W (d × k) of a layer with normalisation
// `normalization` and LayerNorm weight w (1 × d; empty unless LN). Column means are summed over
// rows in ascending order.                                                        d × k → d × k
Matrix fold_normalization(const Matrix& reading, const Matrix& ln_w, Normalization normalization);

// One head's matrices: W_Q, W_K, W_V folded (d × c), W_O as stored (c × d). The head's circuits
// are W_QK = W_Q W_Kᵀ (d × d: query residual × key residual) and W_OV = W_V W_O (d × d: attended
// residual → written residual), row vectors on the left.
struct FoldedHead {
  Matrix W_Q, W_K, W_V;  // d × c
  Matrix W_O;            // c × d
};
// Throws InputError naming a layer or head outside the model.
FoldedHead folded_head(const TransformerWeights& weights, int layer, int head);
// W_U with the final normalisation folded in (d × V).
Matrix folded_unembedding(const TransformerWeights& weights);

}  // namespace headlab::transformer
