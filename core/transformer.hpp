// Attention-only transformers as TransformerLens builds them with attn_only=True.
//
// Shapes (T = sequence length ≤ n_ctx, H = n_heads, d = d_model, c = d_head, V = d_vocab,
// G = key-value heads, g = h / (H / G) the one head h reads):
//   resid_0 = W_E[tokens] (+ W_pos[0:T] with learned positions)      T × d
//   for each layer l:
//     x̂ = LN_l(resid_l)                                              T × d  (identity without normalisation)
//     u = x̂ + W_pos[0:T] (shortformer positions), else u = x̂         T × d  (what queries and keys read)
//     q_h = R(u W_Q^h + b_Q^h),  k_h = R(u W_K^g + b_K^g),  v_h = x̂ W_V^g + b_V^g   T × c
//       (R rotates row i to position i with rotary positions, core/rotary.hpp; identity otherwise)
//     pattern_h = softmax_rows(q_h k_hᵀ / attn_scale, causal: key j ≤ query i)     T × T  (attn_scale √c by default)
//     z_h = pattern_h v_h                                              T × c
//     head_output_h = z_h W_O^h                                        T × d  (the head's write into the residual stream)
//     resid_{l+1} = resid_l + Σ_h head_output_h + b_O
//   logits = LN_final(resid_L) W_U + b_U                               T × V
//
// Normalisation (TransformerLens `normalization_type`, core/normalization.hpp): none; "LN",
// LayerNorm with weights w, b before every attention layer and before the unembedding:
//   LN(x) = (x − mean(x)) / σ ⊙ w + b,   σ = √(mean((x − mean(x))²) + eps)   (per position, biased variance);
// "LNPre", the same without w and b (what fold_ln leaves behind); "RMS", x / √(mean(x²) + eps) ⊙ w;
// "RMSPre", the same without w.
//
// Tensors as in TransformerLens's state_dict (names, shapes, which config setting gives the model
// each one: the table of core/transformer_layout.hpp): W_Q, W_K, W_V are H × (d × c), W_O is
// H × (c × d), b_Q, b_K, b_V are H × c (one row per head); with grouped key-value heads W_K, W_V,
// b_K, b_V have G heads. Biases absent from a file are zero.
#pragma once

#include "core/limits.hpp"
#include "core/matrix.hpp"
#include "core/transformer_config.hpp"

#include <functional>
#include <string>
#include <vector>

namespace headlab::transformer {

// Throws InputError naming the field, its value and the bound: every size in [1, its kMax…],
// layer_norm_eps finite and > 0, rotary_dim even in [2, d_head] for rotary positions and 0 otherwise,
// rotary_base in [kMinRotaryBase, kMaxRotaryBase], n_key_value_heads 0 or a divisor of n_heads,
// attn_scale 0 or in [kMinAttnScale, kMaxAttnScale], token_names empty or d_vocab long,
// parameter count ≤ kMaxParameters.
void validate_config(const TransformerConfig& config);
// Number of scalar parameters (biases and LayerNorm weights included).
long long parameter_count(const TransformerConfig& config);

// Zero weights of the configuration's shapes (also the shape of a gradient).
TransformerWeights zero_weights(const TransformerConfig& config);
// Throws InputError naming the tensor (TransformerLens name, e.g. "blocks.1.attn.W_Q") on a wrong
// count, shape or non-finite entry; validates the config first.
void validate_weights(const TransformerWeights& weights);

// Every parameter in TransformerLens state_dict order, with its TransformerLens name: the
// parameters of core/transformer_layout.hpp's table the config gives the model, the per-layer ones
// as "blocks.l.…". Stacked per-head tensors appear once per head as "blocks.l.attn.W_Q[h]".
struct NamedParameter {
  std::string name;
  Matrix* value;
};
std::vector<NamedParameter> named_parameters(TransformerWeights& weights);
std::vector<Matrix*> parameter_list(TransformerWeights& weights);
std::vector<const Matrix*> parameter_list(const TransformerWeights& weights);

// Zero weights of the configuration's shapes except W_E and W_U, left 0 × 0 in both storages for a
// reader to set (as float32: a file whose W_E and W_U are float32, F16 or BF16); no V·d entries are
// allocated for them here, so a reader that views them in the file's bytes never holds a second copy.
TransformerWeights zero_weights_without_embeddings(const TransformerConfig& config);

// W_E and W_U read as float64, whichever storage holds them (TransformerWeights). Each entry is
// converted exactly and every sum runs in the order of core/ordered_products.hpp, so the results
// have the bits the same products of float64-stored W_E and W_U give.
// Row `token` of W_E (1 × d), written to out[0 … d).
void embedding_row(const TransformerWeights& weights, int token, double* out);
// Column `token` of W_U as a row (1 × d).
RowVector unembedding_column(const TransformerWeights& weights, int token);
// x W_U (T × d)(d × V) → T × V, ordered_product's sums.
Matrix unembed_product(const Matrix& x, const TransformerWeights& weights);
// W_E b (V × d)(d × p) → V × p, ordered_product's sums.
Matrix embedding_product(const TransformerWeights& weights, const Matrix& b);
// a W_Eᵀ (n × d)(V × d)ᵀ → n × V, ordered_product_nt's sums.
Matrix product_embedding_t(const Matrix& a, const TransformerWeights& weights);
// The whole of W_E (V × d) or W_U (d × V) as float64: the matrix itself, or its float32 storage
// converted into `scratch` (V·d doubles: for the analyses that need every entry at once).
const Matrix& embedding_f64(const TransformerWeights& weights, Matrix& scratch);
const Matrix& unembedding_f64(const TransformerWeights& weights, Matrix& scratch);

// Every activation of one forward pass over a token sequence of length T.
struct LayerActivations {
  Matrix resid_pre;             // T × d, the residual stream entering the layer
  Matrix normalized;            // T × d, x̂ (equals resid_pre without normalisation)
  Vector scale;                 // T, σ per position (LN, LNPre, RMS, RMSPre), else empty
  Matrix qk_input;              // T × d, x̂ + W_pos[0:T] with shortformer positions (what q and k read), else empty
  std::vector<Matrix> q, k, v;  // H × (T × c); q, k rotated to their positions (rotary); a grouped
                                // head's k, v are its key-value head's
  std::vector<Matrix> pattern;  // H × (T × T), row i = query position i, zero above the diagonal
  std::vector<Matrix> z;        // H × (T × c)
  std::vector<Matrix> head_output;  // H × (T × d): z_h W_O^h, each head's write into the residual stream
  Matrix resid_post;                // T × d = resid_pre + Σ_h head_output_h + b_O
};

struct TransformerActivations {
  std::vector<int> tokens;
  Matrix embed;  // T × d, W_E[tokens]
  Matrix
      pos_embed;  // T × d, W_pos[0:T] with learned positions (zero otherwise: shortformer adds W_pos to q and k only)
  std::vector<LayerActivations> layers;
  Matrix final_normalized;       // T × d, LN_final(resid_L)
  Vector final_scale;            // T, σ of the final normalisation, else empty
  Matrix logits;                 // (T − logits_from) × V: row r is position logits_from + r
  Eigen::Index logits_from = 0;  // 0 unless the pass was asked for the last rows' logits only
};

// An intervention on the forward pass: called with (layer, head, head_output T × d) after each head's
// output is computed and before it is added to the residual stream; may overwrite head_output.
// Used by ablation and activation patching.
using HeadHook = std::function<void(int layer, int head, Matrix& head_output)>;

// The backward of one head's attention, shared by the trainer's backward (core/transformer.cpp) and
// attribution patching (core/attribution_patching.hpp). Given dresid = dL/d head_output (T × d) at
// the activations `la` of its layer:
//   dz = dresid W_Oᵀ,  dv = patternᵀ dz,  dpattern = dz vᵀ,
//   dscores = pattern ⊙ (dpattern − rowsum(dpattern ⊙ pattern)) / attn_scale,
//   dq = dscores k,  dk = dscoresᵀ q   (rotated back to unrotated coordinates with rotary positions)
// so dq = dL/d(qk_input W_Q^h + b_Q^h), dk = dL/d(qk_input W_K^g + b_K^g), dv = dL/d(x̂ W_V^g + b_V^g),
// each T × c.
struct HeadInputGradients {
  Matrix dq, dk, dv;
};
HeadInputGradients head_input_gradients(const TransformerConfig& config, const AttentionLayerWeights& layer,
                                        const LayerActivations& la, int head, const Matrix& dresid);

// Throws InputError on an empty sequence, one longer than n_ctx, or a token outside [0, d_vocab)
// (the message gives the position). Weights are validated.
void require_tokens(const TransformerConfig& config, const std::vector<int>& tokens);
TransformerActivations transformer_forward(const TransformerWeights& weights, const std::vector<int>& tokens,
                                           const HeadHook& hook = nullptr, Eigen::Index logits_from = 0);
// The same without validating weights or tokens (the trainer's weights and batches are valid by construction).
// With logits_from > 0 only rows [logits_from, T) of the logits are formed (each with the bits of
// the full product): T × V doubles are 823 MB for 2,047 tokens of a 50,278-token vocabulary, and
// the patching analyses read one row.
TransformerActivations transformer_forward_unchecked(const TransformerWeights& weights, const std::vector<int>& tokens,
                                                     const HeadHook& hook = nullptr, Eigen::Index logits_from = 0);

// The end of a forward pass after an intervention, recomputing only what it changed (activation
// patching and head ablation, core/transformer_analysis.cpp). `changed_rows` are rows
// [first_row, first_row + changed_rows.rows()) of the residual stream entering layer `first_layer`
// (each row d wide); every other row is the clean run's there (read from `clean`, T = clean.tokens.size()).
// Causal attention leaves every row before `first_row` of every later layer as in `clean`: in the
// first layer resumed only the keys and values of the changed rows are recomputed (the others, and
// the queries of unchanged rows, are read from `clean`), after it every row from first_row on; in the
// last layer only the queries from `logit_row` on. Returns the logits of rows [logit_row, T)
// ((T − logit_row) × V); requires first_row + changed_rows.rows() ≤ T and first_row ≤ logit_row < T.
// Every row is computed by the operations transformer_forward_unchecked applies to it, in the same
// order: the same bits as a full forward pass with the same intervention.
Matrix resume_forward(const TransformerWeights& weights, const TransformerActivations& clean, int first_layer,
                      const Matrix& changed_rows, Eigen::Index first_row, Eigen::Index logit_row);
// The same end of the forward pass up to the final LayerNorm: LN_final of rows [logit_row, T)
// ((T − logit_row) × d), which resume_forward multiplies by W_U (and adds b_U). A caller that reads
// a few logits (patching's logit difference) forms just those: logit(i, t) = Σ_k x(i, k) W_U(k, t)
// (ordered_dot, k ascending) + b_U(t), the bits resume_forward would give for that entry.
Matrix resume_final_normalized(const TransformerWeights& weights, const TransformerActivations& clean, int first_layer,
                               const Matrix& changed_rows, Eigen::Index first_row, Eigen::Index logit_row);

// Causal softmax of one head's scaled scores in place, as the forward pass applies it: row r is
// query position first_query + r and keeps columns 0 … first_query + r (exp_nonpositive of each
// score minus the row's largest, summed in column order, each divided by the sum), zero after them.
void causal_softmax(Matrix& scores, Eigen::Index first_query = 0);
// Head (layer, head)'s output (T × d) from its queries, keys and values (T × c each) as the forward
// pass forms it, in its order: pattern = causal_softmax(q kᵀ · (1 / attn_scale)) (products below the
// diagonal only), output = (pattern v) W_O^h. The patching analyses recompute a head with one input
// changed through this, so their unchanged heads keep the forward pass's bits.
Matrix head_output_from(const TransformerWeights& weights, int layer, int head, const Matrix& q, const Matrix& k,
                        const Matrix& v);

// Backward of transformer_forward (no hook): given dlogits (T × V), adds dL/dparameter to every matrix of
// dweights (shaped by zero_weights(config)).
void transformer_backward(const TransformerWeights& weights, const TransformerActivations& activations,
                          const Matrix& dlogits, TransformerWeights& dweights);

// A training sequence: next-token cross-entropy is taken at positions p ∈ [loss_from, T − 2]
// (predicting tokens[p + 1]); loss_from = 0 is ordinary language-model loss.
struct TokenSequence {
  std::vector<int> tokens;
  int loss_from = 0;
};
// Throws InputError on an empty batch, a bad sequence (require_tokens) or a loss_from leaving no
// position to predict.
void require_batch(const TransformerConfig& config, const std::vector<TokenSequence>& batch);
// Next-token cross-entropy summed over the counted positions of one sequence, from its logits (T × V).
double sequence_cross_entropy(const Matrix& logits, const TokenSequence& sequence);
// Number of counted positions of a batch, Σ (T − 1 − loss_from) in batch order.
double counted_positions(const std::vector<TokenSequence>& batch);
// Mean next-token cross-entropy over every counted position of every sequence:
// Σ sequence_cross_entropy (batch order, from 0.0) / counted_positions.
double transformer_loss(const TransformerWeights& weights, const std::vector<TokenSequence>& batch);
// The same loss; adds its gradient to dweights (zero it first for a fresh gradient).
double transformer_loss_backward(const TransformerWeights& weights, const std::vector<TokenSequence>& batch,
                                 TransformerWeights& dweights);

}  // namespace headlab::transformer
