// Analyses of any attention-only transformer (core/transformer.hpp), after TransformerLens's
// conventions. Shapes: L = n_layers, H = n_heads, T = prompt length, V = d_vocab; "per head" results
// are (L·H) × … matrices with row l·H + h.
#pragma once

#include "core/head_composition.hpp"
#include "core/head_svd.hpp"
#include "core/logit_lens.hpp"
#include "core/qk_attribution.hpp"
#include "core/transformer.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace headlab::transformer {

// Direct logit attribution of every component to the logit of `token` at `position`, with the final
// LayerNorm's scale σ frozen at its value on this prompt (TransformerLens apply_ln_to_stack): a
// component c (a row of the residual stream) contributes ((c − mean(c)) / σ) ⊙ w_final · W_U[:, token]
// (c · W_U[:, token] without normalisation). The components sum to the residual stream, and
// LN centring is linear, so Σ contributions + constant = logit exactly (constant = b_final·W_U[:, t] + b_U[t]).
struct LogitAttribution {
  double embed = 0.0;        // W_E[token at position]
  double pos_embed = 0.0;    // W_pos[position] (0 without positional embedding)
  Matrix heads;              // L × H
  RowVector attention_bias;  // 1 × L: b_O of each layer
  double constant = 0.0;     // ln_final.b · W_U[:, token] + b_U[token]
  double logit = 0.0;        // the model's logit, for reference
};
// Throws InputError on bad tokens, position ∉ [0, T) or token ∉ [0, V).
LogitAttribution direct_logit_attribution(const TransformerWeights& weights, const std::vector<int>& tokens,
                                          int position, int token);

enum class Ablation { zero, mean };
// Mean next-token loss (as transformer_loss) with one head's output replaced, for every head:
// zero ablation writes 0; mean ablation writes the head's output averaged over the batch at each
// position (sequences of equal length required). Returns L × H losses; `clean_loss` receives the loss
// without ablation.
Matrix head_ablation_loss(const TransformerWeights& weights, const std::vector<TokenSequence>& batch, Ablation mode,
                          double* clean_loss = nullptr);

// The forward pass of `tokens` with every head in `heads` ((layer, head) pairs) ablated at once, as
// head_ablation_loss ablates one: zero writes 0 to the head's output; mean writes the head's output at
// each position averaged over `sequences` repeated random sequences (repeated_batch from
// Random(seed).stream(kEvaluationStream): the batch analyze_transformer ablates on). Those sequences have
// n_ctx ≥ T tokens; a head's output at position p depends only on positions ≤ p (causal), so the first T
// rows of the mean are the mean over the sequences' length-T prefixes. Throws InputError naming a head
// outside the model, a repeated head, a bad token or sequences ∉ [1, 10000].
struct HeadIndex {
  int layer = 0, head = 0;
};
TransformerActivations ablated_forward(const TransformerWeights& weights, const std::vector<int>& tokens,
                                       const std::vector<HeadIndex>& heads, Ablation mode, int sequences,
                                       std::uint64_t seed);

// Where mean ablation takes each head's mean output from: the `reference` sequences when any are
// given (an author's own prompts, for a model of any task), else `sequences` repeated random
// sequences of `seed` (the batch above; the induction task's). A head's output at position p
// depends only on positions ≤ p (causal), so its mean at p is over the reference sequences that
// reach p: Σ_{s : |s| > p} out_s[p] / #{s : |s| > p}.
constexpr int kMaxReferenceSequences = 10000;
struct MeanSource {
  std::vector<std::vector<int>> reference;  // each 1..n_ctx tokens; at most kMaxReferenceSequences
  int sequences = 32;                       // repeated random sequences when `reference` is empty
  std::uint64_t seed = 0;
};
// As above, with the means from `means`. Also throws InputError naming a bad reference sequence
// ("reference sequence 2: …") or a prompt longer than every reference sequence. logits_from as
// transformer_forward_unchecked's (the logits of rows [logits_from, T) only).
TransformerActivations ablated_forward(const TransformerWeights& weights, const std::vector<int>& tokens,
                                       const std::vector<HeadIndex>& heads, Ablation mode, const MeanSource& means,
                                       Eigen::Index logits_from = 0);

// The next-token loss of one prompt, in nats: the mean over positions p ∈ [0, T − 1) of
// −log softmax(logits_p)[prompt_{p+1}] — the model's own prediction of the prompt's next tokens, no
// task assumed (so ≥ 0) — clean and with each head ablated alone (zero: its output replaced by 0;
// mean: by its mean output at each position, from `means`). The ablated losses are those of
// ablated_forward with the one head, computed from layer l on (resume_forward). Throws InputError on
// a prompt of fewer than 2 tokens (nothing to predict), a bad token, or a bad mean source.
struct PromptAblation {
  double clean_loss = 0.0;
  Matrix loss;  // L × H: the prompt's loss with head (l, h) ablated
};
PromptAblation prompt_ablation_loss(const TransformerWeights& weights, const std::vector<int>& prompt, Ablation mode,
                                    const MeanSource& means);

// Activation patching (noising): for each head h of layer l and each position p, run the clean prompt
// with head_output_{l,h}[p] replaced by its value on the corrupted prompt (same length), and measure
// the logit difference LD = logit[answer] − logit[wrong] at the last position, normalised
//   (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted)
// so 1 means the patch changed nothing and 0 means it moved the logit difference all the way to the
// corrupted run's. Returns (L·H) × T. Throws InputError when LD_clean = LD_corrupted (nothing to normalise by).
struct PatchingResult {
  Matrix normalised;  // (L·H) × T
  double clean_logit_difference = 0.0;
  double corrupted_logit_difference = 0.0;
};
PatchingResult head_position_patching(const TransformerWeights& weights, const std::vector<int>& clean,
                                      const std::vector<int>& corrupted, int answer, int wrong);

// Token-space circuits of head h in layer l along the direct path from the embedding (positional
// embedding, LayerNorm and biases left out, as TransformerLens's FactoredMatrix circuits do):
//   QK = W_E W_Q^h (W_E W_K^g)ᵀ (V × V: query token × key token, unscaled; g the key-value head of h)
//   OV = W_E W_V^g W_O^h W_U   (V × V: attended token × output logit)
// With rotary positions a score depends on how far the key lies before the query, so QK is one
// matrix per offset o: the query row rotated to position o, the key row to position 0,
//   QK_o = R_o(W_E W_Q^h) (W_E W_K^g)ᵀ   (any pair of positions o apart gives the same matrix);
// without rotary positions `offset` changes nothing. Throws InputError when d_vocab >
// kMaxCircuitVocab (core/head_matrices.hpp) or offset is outside [0, n_ctx).
Matrix qk_circuit(const TransformerWeights& weights, int layer, int head, int offset = 0);
Matrix ov_circuit(const TransformerWeights& weights, int layer, int head);

// Previous-token and induction (prefix-matching) scores of every head on `count` repeated random
// sequences (repeated_batch from Random(seed).stream(kEvaluationStream)): over the positions p of
// the repeated half, the mean attention from p to p − 1 (previous token) and to p − m + 1, the token
// after the previous occurrence of the current token (induction). Also the in-context loss: mean
// next-token loss on the repeated half.
struct InductionScores {
  Matrix previous_token;  // L × H
  Matrix induction;       // L × H
  double in_context_loss = 0.0;
};
InductionScores induction_scores(const TransformerWeights& weights, int count, std::uint64_t seed);

// The repeated random sequences (induction scores, in-context loss, ablation losses, mean ablation's
// means) are n_ctx tokens each: a model with a long context and a large vocabulary makes them the
// longest thing the core computes (the ARENA induction model's shape, n_ctx 2,048 and d_vocab 50,278:
// 2·10¹² multiply-adds for one sequence). Their work, estimated as sequences · n_ctx · d_model ·
// d_vocab · (1 + n_layers · n_heads) (the logits of a clean pass and of a resumed pass per head),
// is bounded by kMaxRepeatedSequenceWork, about a minute natively (the benchmark model's 32
// sequences are 2.9·10⁸); beyond it they are refused with the estimate and the bound.
constexpr double kMaxRepeatedSequenceWork = 68719476736.0;  // 2³⁶
double repeated_sequence_work(const TransformerConfig& config, int sequences);
void require_repeated_work(const TransformerConfig& config, int sequences);

// Every analysis above for one prompt, as `headlab model analyze` and the WASM module report them.
struct AnalysisRequest {
  std::vector<int> prompt;
  int position = -1;            // DLA position; −1: the last
  int token = -1;               // DLA token; −1: the model's top prediction at `position`
  std::vector<int> corrupted;   // patching runs when given (same length as prompt)
  int answer = -1, wrong = -1;  // patching's logit difference; required with `corrupted`
  Ablation ablation = Ablation::mean;
  int sequences = 32;  // repeated random sequences for ablation and induction scores; 0: none (their
                       // figures NaN: the prompt's own figures alone, for a model too large for them)
  std::uint64_t seed = 0;
  bool circuits = false;        // QK and OV circuits of every head (d_vocab ≤ kMaxCircuitVocab)
  int qk_offset = 0;            // the query-key offset of the QK circuits (it matters with rotary positions only)
  bool qk_attribution = false;  // QK attribution of head qk_head's scores at query `position`
  HeadIndex qk_head;
  // Composition scores (baseline: kCompositionBaselineSamples draws from `seed`), the logit lens
  // (answers: the next prompt token, and the top prediction at the last position) and the head
  // SVDs, each when asked for.
  bool composition = false, logit_lens = false, head_svd = false;
  int top = 5;          // tokens per logit-lens position and per head-SVD direction
  int directions = -1;  // head-SVD directions read in token space; −1: min(3, d_head)
  // The run's logits are formed for rows [min(logits_from, position), T) only (run.logits_from says
  // which): a figure that reads one position's logits asks for that row, not T × d_vocab of them (64
  // × 50,278 are 2.5·10⁹ multiply-adds, most of a forward pass of a large vocabulary). In [0, T).
  int logits_from = 0;
};
constexpr int kCompositionBaselineSamples = 200;
struct TransformerAnalysis {
  TransformerActivations run;  // patterns, logits, every activation of the prompt
  int position = 0, token = 0;
  LogitAttribution attribution;
  double clean_loss = 0.0;  // in-context loss on the repeated random sequences
  Matrix ablation_loss;     // L × H, the same loss with each head ablated
  bool has_patching = false;
  PatchingResult patching;
  InductionScores induction;
  std::vector<Matrix> qk, ov;  // L·H circuits (row l·H + h order), when asked for
  bool has_qk_attribution = false;
  QkAttribution qk_attribution;  // at query `position`, when asked for
  std::optional<CompositionScores> composition;
  std::optional<LogitLens> lens;
  std::vector<HeadSvd> svd;  // L·H (row l·H + h order), when asked for
  int directions = 0;        // the head SVD's directions
};

// The part of an analysis that does not read the prompt: the previous-token and induction scores,
// the in-context loss and the per-head ablation losses, all over the `sequences` repeated random
// sequences of `seed` (one pass over them, core/transformer_analysis.cpp batch_pass). For the
// benchmark model (docs/own-model.md "Speed") it is ~85 % of the multiply-adds of a whole analysis,
// and the same for every prompt: a page that re-analyses each prompt a reader types computes it once.
struct BatchAnalysis {
  int sequences = 0;
  std::uint64_t seed = 0;
  Ablation mode = Ablation::mean;
  double clean_loss = 0.0;  // in-context loss on the sequences
  Matrix ablation_loss;     // L × H
  InductionScores induction;
};
// Throws InputError on sequences ∉ [1, 10000] or n_ctx < 4 (induction_scores' checks).
BatchAnalysis batch_analysis(const TransformerWeights& weights, int sequences, std::uint64_t seed, Ablation mode);

// The BatchAnalysis of one model's weights for the (sequences, seed, ablation) it was asked for,
// each computed once (at most kKept kept, the oldest dropped first). The cache belongs to one
// TransformerWeights: whoever owns both clears it when the weights change (the WASM model handle,
// web/bindings/transformer_bindings.cpp, on every load). Results are the bits batch_analysis gives.
class AnalysisCache {
 public:
  static constexpr std::size_t kKept = 4;
  const BatchAnalysis& batch(const TransformerWeights& weights, int sequences, std::uint64_t seed, Ablation mode);
  void clear() { kept_.clear(); }
  std::size_t size() const { return kept_.size(); }

 private:
  std::vector<BatchAnalysis> kept_;
};

// Throws InputError naming the request field (prompt, position, token, corrupted, answer, wrong, sequences,
// the QK attribution's layer and head, top, directions).
// With a cache, the prompt-independent part (BatchAnalysis) is read from it (and computed into it
// the first time): the same result, bit for bit, as without.
TransformerAnalysis analyze_transformer(const TransformerWeights& weights, const AnalysisRequest& request,
                                        AnalysisCache* cache = nullptr);

}  // namespace headlab::transformer
