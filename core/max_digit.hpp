// The max-digit transformer: task, weights and the per-token-table forward/backward.
//
// Task. Vocabulary of 14 tokens: digits 0–9 are tokens 0–9, PAD = 10, BOS = 11,
// SEP = 12, ANS = 13. A prompt is 9 tokens: BOS, six list slots (1 to 6 digits,
// then PAD), SEP, ANS. The answer is the largest digit, read at ANS (position 8).
//
// Model. E (14 × 64), no positional embedding; one causal attention layer of 4
// heads, d_head = 16: W_Q^h, W_K^h, W_V^h (64 × 16), W_O^h (16 × 64); W_U (64 × 14).
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

#include "core/matrix.hpp"
#include "core/random.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace headlab::max_digit {

constexpr int kVocab = 14;
constexpr int kPad = 10, kBos = 11, kSep = 12, kAns = 13;
constexpr int kPromptLength = 9;
constexpr int kAnsPosition = 8;
constexpr int kMaxListLength = 6;
constexpr int kDModel = 64;
constexpr int kHeads = 4;
constexpr int kDHead = 16;
constexpr int kFormatVersion = 1;

// "0" … "9", "PAD", "BOS", "SEP", "ANS".
const std::array<std::string, kVocab>& vocab_names();

struct MaxDigitWeights {
  Matrix E;                     // 14 × 64
  std::vector<Matrix> W_Q;      // 4 × (64 × 16)
  std::vector<Matrix> W_K;      // 4 × (64 × 16)
  std::vector<Matrix> W_V;      // 4 × (64 × 16)
  std::vector<Matrix> W_O;      // 4 × (16 × 64)
  Matrix W_U;                   // 64 × 14
  bool unit_norm_unembedding = false;
};

// Throws InputError naming the matrix on a wrong count, a wrong shape or a non-finite entry.
void validate_weights(const MaxDigitWeights& weights);
// Throws InputError unless version == kFormatVersion.
void require_format_version(double version);

// Every matrix of the model in one fixed order: E, then per head W_Q, W_K, W_V, W_O, then W_U.
std::vector<Matrix*> parameter_list(MaxDigitWeights& weights);
std::vector<std::string> parameter_names();

// The 9 prompt tokens for a list of 1–6 digits (each 0–9); throws InputError otherwise.
std::array<int, kPromptLength> prompt_tokens(const std::vector<int>& digits);

using TokenCounts = std::array<std::uint8_t, kVocab>;
TokenCounts token_counts(const std::vector<int>& digits);
// Largest digit present in the counts.
int maximum_digit(const TokenCounts& counts);

// e^x for x ≤ 0 from basic operations only (same bits natively and in WASM):
// x = k·ln2 + r, |r| ≤ ln2/2, e^r by Horner on Taylor terms to r^14/14!, relative error < 4 ulp.
// Returns 0 below −745.
double exp_nonpositive(double x);

// The per-token tables of one set of weights (see the header comment).
struct TokenTables {
  std::array<std::array<double, kDHead>, kHeads> query{};         // q_h = E[ANS] W_Q^h
  std::array<std::array<double, kDModel>, kHeads> key_query{};    // W_K^h q_hᵀ
  std::array<std::array<double, kVocab>, kHeads> score{};         // s_h(t)
  std::array<std::array<double, kVocab>, kHeads> score_exp{};     // e^{s_h(t) − max_u s_h(u)}
  std::vector<double> value;          // [h][t][c], 4 × 14 × 16: E[t] W_V^h
  std::vector<double> wo_wu;          // [h][c][j], 4 × 16 × 14: W_O^h W_U
  std::vector<double> logit;          // [h][t][j], 4 × 14 × 14: L_h[t][j] = (E[t] W_V^h)(W_O^h W_U)
  std::vector<double> output;         // [h][t][i], 4 × 14 × 64: E[t] W_V^h W_O^h (only when asked for)
  std::array<double, kVocab> residual_logit{};  // E[ANS] W_U
};
// with_output also fills `output` (the analyses need it, training does not).
TokenTables token_tables(const MaxDigitWeights& weights, bool with_output = true);

// a_h(t) for one example: attention mass of head h on token t (zero for absent tokens).
std::array<std::array<double, kVocab>, kHeads> attention_mass(const TokenTables& tables, const TokenCounts& counts);

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
};
MaxDigitGradients zero_gradients();

// Mean cross-entropy at ANS over the batch (all 14 logits).
double max_digit_loss(const MaxDigitWeights& weights, const std::vector<TokenCounts>& batch);
// The same loss and its gradient with respect to every matrix, written into grads.
double max_digit_loss_backward(const MaxDigitWeights& weights, const std::vector<TokenCounts>& batch,
                               MaxDigitGradients& grads);

// The same without validating weights or batch; grads must already have the right shapes
// (zero_gradients()). For the trainer, whose weights and batches are valid by construction.
double loss_backward_unchecked(const MaxDigitWeights& weights, const std::vector<TokenCounts>& batch,
                               MaxDigitGradients& grads);

// A batch of lists whose maximum is uniform on 0–9 and whose length is uniform on 1–6:
// draw the maximum m and the length L, then draw L digits uniform on 0…m until one equals m
// (rejection, so every list of length L with maximum m is equally likely).
std::vector<int> sample_list(Random& rng);
std::vector<TokenCounts> sample_batch(Random& rng, int batch_size);

// Standard evaluation set: every list of 1–4 digits (11,110 lists) and 100,000 lists of
// 5 and 6 digits (50,000 each, digits i.i.d. uniform on 0–9, from a fixed seed), stored
// as distinct multisets with their multiplicity.
struct EvaluationSet {
  std::vector<TokenCounts> counts;
  std::vector<long> multiplicity;
  std::vector<int> maximum;
  long total_lists = 0;
  std::array<long, 10> lists_by_max{};
};
const EvaluationSet& standard_evaluation_set();
constexpr std::uint64_t kEvaluationSeed = 0x6D61782D64696769ULL;  // "max-digi"
constexpr int kRandomListsPerLength = 50000;

}  // namespace headlab::max_digit
