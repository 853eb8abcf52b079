// Analyses of a trained max-digit transformer, as plain data: every figure and claim of the
// article "Four attention heads that find the largest digit" (fields: docs/max-digit-analysis.md).
//
// Accuracies are over an EvaluationSet (default: standard_evaluation_set()), each
// multiset weighted by how many lists share it; a list is correct when the argmax of
// the 14 logits (ties to the lowest token) is its largest digit.
//
// Principal directions (docs/max-digit-analysis.md, "PCA convention") live in the 64-dim residual space. The points are the
// 64 rows of the stacked W_O (4·16 × 64) for the W_O basis and the 14 columns of W_U for
// the W_U basis. The points are CENTRED (their mean subtracted) before the covariance
// Σ = XcᵀXc / (n − 1); the directions are Σ's eigenvectors by decreasing eigenvalue, and
// "variance explained" is eigenvalue / trace. Projections use the directions only (no
// mean is subtracted from a head's output): P_k = U_k U_kᵀ. Each direction's sign is
// fixed so that its entry of largest magnitude is positive.
#pragma once

#include "core/max_digit_evaluation.hpp"
#include "core/max_digit_model.hpp"

#include <array>
#include <string>
#include <vector>

namespace headlab::max_digit {

struct AccuracyReport {
  double accuracy = 0;  // correct / total
  long correct = 0;
  long total = 0;
  std::array<double, kDigits> by_max{};  // accuracy over the lists whose maximum is m
};

// How the logits are read out for an accuracy figure.
struct Readout {
  bool include_residual = true;        // add x_ANS·W_U (false: residual-free, article "Silencing heads")
  std::array<bool, kHeads> ablated{};  // zero these heads' outputs (article "Silencing heads")
  const Matrix* projection =
      nullptr;  // 64 × 64: project every head's output before W_U (article "A three-dimensional readout")
};
AccuracyReport readout_accuracy(const MaxDigitWeights& weights, const Readout& readout,
                                const EvaluationSet& set = standard_evaluation_set());

// (a) The ANS row of each head's attention after softmax: 4 × 9 (positions 0–8).
Matrix ans_attention(const MaxDigitWeights& weights, const std::vector<int>& digits);
// (a) s_h(t) = (E[ANS] W_Q^h)·(E[t] W_K^h) / 4: 4 × 14.
Matrix score_table(const MaxDigitWeights& weights);

// What each head writes, read through the unembedding, for one list: 5 × 14, row h (0–3) is
// head_h W_U = Σ_t a_h(t) L_h[t], row 4 is x_ANS W_U; the column sums are the logits.
Matrix head_logits(const MaxDigitWeights& weights, const std::vector<int>& digits);

// (b) For each head, a 10 × 14 matrix: row m is the mean attention mass on each token over
// the evaluation lists whose maximum is m.
std::vector<Matrix> attention_by_max(const MaxDigitWeights& weights,
                                     const EvaluationSet& set = standard_evaluation_set());

// (c) One-hot patching: head `head`'s ANS row becomes one-hot on `position` (0–8).
struct AttentionPatch {
  int head = 0;
  int position = 0;
};
struct PatchResult {
  std::array<double, kVocab> logits{};
  int answer = 0;
  std::array<double, kVocab> original_logits{};
  int original_answer = 0;
};
PatchResult patch_attention(const MaxDigitWeights& weights, const std::vector<int>& digits,
                            const std::vector<AttentionPatch>& patches);

// (d) Accuracy with the heads in `ablated` zeroed (residual kept).
AccuracyReport ablation_accuracy(const MaxDigitWeights& weights, const std::array<bool, kHeads>& ablated);
// Accuracy of always answering argmax(x_ANS·W_U), the same answer for every list.
AccuracyReport residual_only_accuracy(const MaxDigitWeights& weights);
// (e) logits = (Σ_h head_h)·W_U.
AccuracyReport residual_free_accuracy(const MaxDigitWeights& weights);

// (f)
enum class Basis { w_o, w_u };
Basis basis_from_name(const std::string& name);  // "w_o" or "w_u"; InputError otherwise
const char* basis_name(Basis basis);
struct PrincipalDirections {
  Matrix directions;                   // 64 × 64, column i is direction i (unit norm, orthogonal)
  std::vector<double> variance;        // 64 eigenvalues, decreasing
  std::vector<double> variance_ratio;  // variance / Σ variance
};
PrincipalDirections principal_directions(const MaxDigitWeights& weights, Basis basis);
// Residual-free accuracy with every head's output projected onto the top k (1–64) directions.
AccuracyReport subspace_accuracy(const MaxDigitWeights& weights, Basis basis, int k);
// |cos| between direction i of the W_O basis and direction j of the W_U basis, i, j < 3.
Matrix cosine_top3(const MaxDigitWeights& weights);

// (g) Per-head contribution vectors for one prompt in the top-k basis (coordinates U_kᵀ v).
struct Contributions {
  Matrix head_outputs;                  // 4 × k: head_h U_k
  Matrix head_sum;                      // 1 × k
  Matrix default_outputs;               // 4 × k: head_h when it attends to ANS only, O_h[ANS] U_k
  Matrix default_sum;                   // 1 × k
  Matrix corrections;                   // 4 × k: head_outputs − default_outputs
  Matrix residual;                      // 1 × k: x_ANS U_k
  Matrix unembedding;                   // 14 × k: row t is W_U[:, t]ᵀ U_k
  std::array<double, kVocab> logits{};  // full model logits for the prompt
  int answer = 0;
};
Contributions contributions(const MaxDigitWeights& weights, const std::vector<int>& digits, Basis basis, int k = 3);

// (h) For each maximum m, the mean residual-free final vector r̄_m = mean (Σ_h head_h) U_k over
// the evaluation lists with maximum m, and its cosine and dot product with each digit's
// unembedding in the same k-dim space.
struct AngleVsDot {
  Matrix mean_output;  // 10 × k
  Matrix cosine;       // 10 × 10: [m][d]
  Matrix dot;          // 10 × 10: [m][d]
  std::array<int, kDigits> best_by_cosine{};
  std::array<int, kDigits> best_by_dot{};
};
AngleVsDot angle_vs_dot(const MaxDigitWeights& weights, Basis basis, int k = 3);

// The mechanism in numbers (analysis.json "mechanism"; article section "The mechanism at a glance").
struct Mechanism {
  std::array<double, kHeads> score_slope{};       // least-squares slope of s_h(d) against d = 0…9
  std::array<bool, kHeads> score_monotone{};      // s_h(0) < s_h(1) < … < s_h(9)
  std::array<double, kHeads> marker_gap{};        // min_d s_h(d) − max over PAD, BOS, SEP, ANS of s_h
  std::array<double, kVocab> embedding_norm{};    // ‖E[t]‖
  std::array<double, kVocab> unembedding_norm{};  // ‖W_U[:, t]‖
  // Every head attending to ANS alone: logits x_ANS W_U + Σ_h O_h[ANS] W_U, O_h[t] = E[t] W_V^h W_O^h.
  std::array<double, kVocab> default_logits{};
  int default_answer = 0;
  int default_answer_residual_free = 0;  // argmax of Σ_h O_h[ANS] W_U
  // Every head one-hot on the maximum m: argmax(x_ANS W_U + Σ_h O_h[m] W_U), one answer per m.
  std::array<int, kDigits> one_hot_answer{};
  // Recruited heads (mass on m > ½, averaged) one-hot on m, the other heads one-hot on ANS.
  std::array<int, kDigits> recruited_one_hot_answer{};
};
Mechanism mechanism(const MaxDigitWeights& weights, const std::array<std::vector<int>, kDigits>& recruited);

// The softmax splitting attention between the maximum m and the runner-up r < m, for the
// list (r, m). With only m and r in the softmax, a_h(m) would be σ(gap) = 1 / (1 + e^{−gap}),
// gap = s_h(m) − s_h(r); the markers BOS, PAD, SEP, ANS take the rest of the measured mass.
struct RunnerUpSplit {
  int maximum = 0, runner_up = 0;
  std::array<double, kHeads> gap{};
  std::array<double, kHeads> on_maximum{};
  std::array<double, kHeads> on_runner_up{};
  std::array<double, kHeads> two_token_share{};  // σ(gap)
};
RunnerUpSplit runner_up_split(const MaxDigitWeights& weights, int maximum, int runner_up);

// Everything analysis.json holds (see docs/max-digit-analysis.md).
struct HeadAblation {
  std::vector<int> heads;
  AccuracyReport report;
};
struct SinglePatch {
  int head = 0;
  PatchResult result;
};
struct PairPatch {
  std::array<int, 2> heads{};
  PatchResult result;
};
struct MaxDigitAnalysis {
  bool unit_norm_unembedding = false;
  long evaluation_lists = 0;
  std::array<long, kDigits> evaluation_lists_by_max{};
  AccuracyReport accuracy;
  AccuracyReport residual_free;
  AccuracyReport residual_only;
  std::vector<HeadAblation> head_ablation;                 // every non-empty subset of heads
  std::vector<AccuracyReport> subspace_w_o, subspace_w_u;  // k = 1…8
  std::vector<double> variance_w_o, variance_w_u;          // variance ratios, 64 each
  Matrix directions_w_o, directions_w_u;                   // 64 × 8: the top 8 directions
  Matrix cosine;                                           // 3 × 3
  Matrix scores;                                           // 4 × 14
  std::vector<Matrix> attention_by_max;                    // 4 × (10 × 14)
  std::array<std::vector<int>, kDigits> recruited{};       // heads putting > ½ of their mass on the maximum
  std::vector<int> patch_digits;                           // (2, 3, 4, 5, 6)
  int patch_position = 0;                                  // position of the digit 4
  std::vector<SinglePatch> patch_single;                   // each head alone pointed at that position
  PatchResult patch_all;                                   // every head pointed there
  AngleVsDot angle;                                        // W_O basis, k = 3
  std::vector<PairPatch> patch_pairs;                      // each of the 6 pairs of heads pointed at that position
  Mechanism mechanism_figures;
};

// The findings the article compares across seeds (analysis.json "claims"), derived from one analysis.
struct SeedClaims {
  double accuracy = 0;
  std::array<double, kHeads> single_head_accuracy{};  // only head h kept, the other three ablated
  double min_single_head_accuracy = 0;
  int single_heads_perfect = 0;                // heads that alone answer every list
  double min_one_ablated_accuracy = 0;         // worst accuracy with one head ablated
  int directions_w_o = 0, directions_w_u = 0;  // smallest k ≤ 8 with every list right (0: none)
  int angle_dot_agree = 0;                     // maxima whose closest direction is also the largest dot product
  int dot_correct = 0;                         // maxima whose largest dot product is the maximum itself
  std::vector<int> single_flips;               // heads that alone, pointed at the 4, change the answer
  std::vector<std::array<int, 2>> pair_flips;  // pairs that, pointed at the 4, change the answer
  int all_heads_answer = 0;                    // every head pointed at the 4
  std::vector<int> one_hot_exceptions;         // maxima m where every head one-hot on m does not answer m
  int default_answer = 0;                      // every head on ANS
  int recruited_cells = 0;                     // (maximum, head) pairs with mass on the maximum > ½, of 40
  bool scores_monotone = false;                // every head's score rises from digit 0 to digit 9
  bool markers_below_digits = false;           // every head scores every marker below every digit
};
SeedClaims seed_claims(const MaxDigitAnalysis& analysis);
constexpr int kSubspaceMaxK = 8;
MaxDigitAnalysis analyze_max_digit(const MaxDigitWeights& weights);

}  // namespace headlab::max_digit
