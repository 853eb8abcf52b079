// The max-digit transformer: weights, the per-token tables, forward and loss (backward: the
// training step in core/max_digit_kernels.hpp).
//
// Model. E (14 × 64), no positional embedding; one causal attention layer of 4 heads,
// d_head = 16: W_Q^h, W_K^h, W_V^h (64 × 16), W_O^h (16 × 64); W_U (64 × 14).
//   logits = (x_ANS + Σ_h head_h) · W_U,   x_ANS = E[ANS]
//   head_h = Σ_p a_h(p) · E[t_p] W_V^h W_O^h,   a_h = softmax_p(q_h · k_h(t_p) / √16)
//   q_h = E[ANS] W_Q^h,   k_h(t) = E[t] W_K^h
// ANS is the last position, so causality lets it see all 9 positions.
//
// Per-token tables. Without positional embedding, every key, value and output
// depends on the token alone, and the loss reads only the ANS row, so per head
//   s_h(t) = E[t] · (W_K^h q_hᵀ) / 4           score table (14)
//   L_h[t] = E[t] W_V^h W_O^h W_U              logit table (14 × 14)
// and an example is its token counts c(t): a_h(t) = c(t) e^{s_h(t)} / Σ_u c(u) e^{s_h(u)}
// is the attention mass on token t, and logits = E[ANS] W_U + Σ_h Σ_t a_h(t) L_h[t].
// The model is exactly invariant to the order of the list (sums run over tokens in
// token order), so evaluation can weight each multiset of digits by its multiplicity.
#pragma once

#include "core/limits.hpp"
#include "core/matrix.hpp"
#include "core/max_digit_task.hpp"

#include <array>
#include <string>
#include <vector>

namespace headlab::max_digit {

constexpr int kDModel = 64;
constexpr int kHeads = 4;
constexpr int kDHead = 16;
constexpr double kScoreScale = 0.25;  // 1/√d_head = 1/4, exact in binary
constexpr int kFormatVersion = 1;     // of the weights file, docs/max-digit-weights.md

// Largest |entry| of any weight matrix: kMaxWeightMagnitude (core/limits.hpp, the derivation beside
// it: with every entry ≤ m a logit is at most 64m² + 4·65,536m⁴ ≈ 2.6e5·m⁴). The trainer works in
// single precision (core/max_digit_training.hpp): its logits stay below 2.6e29, inside the float
// range (3.4e38), while a score-path gradient can overflow near the limit; a non-finite gradient
// makes its weight or second moment non-finite, which the trainer reports as divergence.

struct MaxDigitWeights {
  Matrix E;                 // 14 × 64
  std::vector<Matrix> W_Q;  // 4 × (64 × 16)
  std::vector<Matrix> W_K;  // 4 × (64 × 16)
  std::vector<Matrix> W_V;  // 4 × (64 × 16)
  std::vector<Matrix> W_O;  // 4 × (16 × 64)
  Matrix W_U;               // 64 × 14
  bool unit_norm_unembedding = false;
};

// Throws InputError naming the matrix on a wrong count, a wrong shape, a non-finite entry or an
// entry beyond ±kMaxWeightMagnitude.
void validate_weights(const MaxDigitWeights& weights);
// Throws InputError unless version == kFormatVersion.
void require_format_version(double version);

// Every matrix of the model in one fixed order: E, then per head W_Q, W_K, W_V, W_O, then W_U.
std::vector<Matrix*> parameter_list(MaxDigitWeights& weights);
std::vector<const Matrix*> parameter_list(const MaxDigitWeights& weights);
std::vector<std::string> parameter_names();

// The per-token tables of one set of weights (see the header comment).
struct TokenTables {
  std::array<std::array<double, kDHead>, kHeads> query{};       // q_h = E[ANS] W_Q^h
  std::array<std::array<double, kDModel>, kHeads> key_query{};  // W_K^h q_hᵀ
  std::array<std::array<double, kVocab>, kHeads> score{};       // s_h(t)
  std::array<std::array<double, kVocab>, kHeads> score_exp{};   // e^{s_h(t) − max_u s_h(u)}
  std::vector<double> value;                                    // [h][t][c], 4 × 14 × 16: E[t] W_V^h
  std::vector<double> wo_wu;                                    // [h][c][j], 4 × 16 × 14: W_O^h W_U
  std::vector<double> logit;                    // [h][t][j], 4 × 14 × 14: L_h[t][j] = (E[t] W_V^h)(W_O^h W_U)
  std::vector<double> output;                   // [h][t][i], 4 × 14 × 64: E[t] W_V^h W_O^h (only when asked for)
  std::array<double, kVocab> residual_logit{};  // E[ANS] W_U
};
// with_output also fills `output` (the analyses need it, training does not).
TokenTables token_tables(const MaxDigitWeights& weights, bool with_output = true);

// a_h(t) for one example: attention mass of head h on token t (zero for absent tokens).
std::array<std::array<double, kVocab>, kHeads> attention_mass(const TokenTables& tables, const TokenCounts& counts);

// The attention mass when every present token's score lies so far below the table's maximum
// that Σ_t c(t) e^{s(t) − max} < 1e-290 (score_exp underflows): renormalised against the
// largest present score instead. score: 14, mass: 14 (0 for absent tokens).
void far_below_maximum_mass(const double* score, const TokenCounts& counts, double* mass);
constexpr double kMassUnderflow = 1e-290;

// Logits at ANS for one example from the tables.
std::array<double, kVocab> logits_from_tables(const TokenTables& tables, const TokenCounts& counts);

// Logits at ANS for a list of digits (validates weights and digits).
std::array<double, kVocab> forward_logits(const MaxDigitWeights& weights, const std::vector<int>& digits);

// Argmax with ties to the lowest token.
int answer_of(const std::array<double, kVocab>& logits);

struct MaxDigitGradients {
  Matrix dE;
  std::vector<Matrix> dW_Q, dW_K, dW_V, dW_O;
  Matrix dW_U;
  std::vector<const Matrix*> list() const;  // parameter_list order
  std::vector<Matrix*> list();
};
MaxDigitGradients zero_gradients();

// Mean cross-entropy at ANS over the batch (all 14 logits).
double max_digit_loss(const MaxDigitWeights& weights, const std::vector<TokenCounts>& batch);
// The same loss and its gradient with respect to every matrix, written into grads. Checks the
// weights and that every list holds a digit (InputError).
double max_digit_loss_backward(const MaxDigitWeights& weights, const std::vector<TokenCounts>& batch,
                               MaxDigitGradients& grads);

// Both in double precision; the backward is the training step of core/max_digit_kernels.hpp in
// double (defined there, whose float instantiation the trainer runs); the gradient tests hold it
// against finite differences of max_digit_loss.

}  // namespace headlab::max_digit
