// Activation patching over a batch of prompt pairs (core/prompt_pairs.hpp), with intervals.
//
// For each pair i (clean prompt, corrupted prompt of the same length T, answer a, wrong b) the logit
// difference at the last position is LD = logit[a] − logit[b]. A patch runs the clean prompt with one
// activation replaced by its value on the corrupted prompt; its effect on pair i is
//   e_i = 1 − n_i,   n_i = (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted)
// (n_i as head_position_patching normalises it): e = 0 when the patch changes nothing, e = 1 when it
// moves the logit difference all the way to the corrupted run's. Three grids of patches:
//   head_position   (L·H) × T  head h of layer l's output at position p (row l·H + h), as
//                              head_position_patching;
//   resid_position  L × T      the residual stream entering layer l (resid_pre) at position p;
//   head_component  (L·H) × 4  one activation of head (l, h) at every position: its query, key or
//                              value input (q, k, v: the head's pattern and mix recomputed with it)
//                              or its z (equivalently its output z W_O).
// For every cell: the N per-pair effects, their mean, a percentile bootstrap 95 % interval of the
// mean and a sign-flip permutation p-value (ResamplingPlan). A pair whose clean and corrupted runs
// give the same LD has nothing to normalise by: an InputError names it.
#pragma once

#include "core/prompt_pairs.hpp"
#include "core/transformer.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace headlab::transformer {

// B bootstrap resamples and K sign-flip permutations, drawn from `seed` (docs/limits.md).
constexpr int kMinResamples = 100;
constexpr int kMaxResamples = 10000;
struct IntervalSettings {
  int resamples = 1000;     // B ∈ [kMinResamples, kMaxResamples]
  int permutations = 1000;  // K, the same range
  std::uint64_t seed = 0;
  void validate() const;  // InputError naming resamples, permutations
};

// The resampling every cell shares (paired across cells: cell statistics are computed on the same
// resamples), from core/random only:
//   indices: B × N, row b the pair indices of resample b, each Random::below(N), drawn b-major from
//            Random(seed).stream(kBootstrapStream);
//   signs:   K × W 64-bit words, W = ⌈N/64⌉: bit (i mod 64) of word i/64 of row k set = pair i's
//            effect negated in permutation k; words next_u64() of Random(seed).stream(kPermutationStream).
constexpr std::uint64_t kBootstrapStream = 11;
constexpr std::uint64_t kPermutationStream = 12;
struct ResamplingPlan {
  int pairs = 0, resamples = 0, permutations = 0, words = 0;
  std::vector<std::uint16_t> indices;  // resamples × pairs (N ≤ kMaxPromptPairs < 2^16)
  std::vector<std::uint64_t> signs;    // permutations × words
};
ResamplingPlan resampling_plan(int pairs, const IntervalSettings& settings);

// The statistics of one cell from its N per-pair effects e_0 … e_{N−1}:
//   mean  = (Σ_i e_i, i ascending from 0.0) / N;
//   the bootstrap means m_b = (Σ_i e_{indices(b, i)}, i ascending) / N, sorted ascending:
//   lower = m_(⌊0.025 (B − 1)⌋), upper = m_(⌈0.975 (B − 1)⌉) (order statistics, 0-based);
//   p_value = (1 + #{k : |s_k / N| ≥ |mean|}) / (1 + K), s_k = Σ_i ±e_i (i ascending, − where sign
//   bit set): the two-sided test of "the effect is symmetric about 0" (no effect).
struct CellInterval {
  double mean = 0.0, lower = 0.0, upper = 0.0, p_value = 1.0;
};
CellInterval cell_interval(const double* effects, const ResamplingPlan& plan);

struct PatchingGrid {
  std::vector<Matrix> effects;  // N × (rows × cols): e per pair
  Matrix mean, lower, upper, p_value;
};
struct BatchPatching {
  IntervalSettings settings;
  std::vector<double> clean_logit_difference, corrupted_logit_difference;  // N
  PatchingGrid head_position;                                              // (L·H) × T
  PatchingGrid resid_position;                                             // L × T
  PatchingGrid head_component;                                             // (L·H) × 4: q, k, v, z
};
constexpr int kHeadComponents = 4;  // q, k, v, z: the columns of head_component

// One pair's clean and corrupted runs (prompts of length T) and what every patch of it reads:
// the logit differences LD at the last position, span = LD_clean − LD_corrupted, and the
// unembedding columns of the answer and wrong tokens (d_model wide). Shared by batch and path
// patching. The weights must outlive it.
struct PairRuns {
  const TransformerWeights& w;
  TransformerActivations clean, corrupted;
  int answer, wrong;
  Eigen::Index last;  // T − 1
  double clean_ld, corrupted_ld, span;
  RowVector u_answer, u_wrong;
  // e = 1 − (LD − LD_corrupted)/span from a final-normalised row x (d_model wide): LD as
  // resume_forward forms each logit, Σ_k x_k W_U(k, t) (k ascending) + b_U(t).
  double effect(const double* x) const;
};
// Runs both prompts of `pair` (checked by the caller); LD_clean and LD_corrupted are read from the
// runs' logits at T − 1.
PairRuns pair_runs(const TransformerWeights& weights, const PromptPair& pair);
// The effect of replacing head (l, h)'s output (T × d_model) by `output` in the clean run: layer
// l's output summed as the forward pass sums it (resid_pre, each head in order, then b_O), the
// layers after l resumed from it, and the effect of the last row.
double head_output_effect(const PairRuns& runs, int l, int h, const Matrix& output);

// Fills mean, lower, upper and p_value of every cell from its N per-pair effects (cell_interval).
void fill_intervals(PatchingGrid& grid, const ResamplingPlan& plan);
// The grids of a batch are over positions: throws InputError naming the first pair whose prompts
// are not as long as pair 0's. Returns that length T.
std::size_t require_one_prompt_length(const std::vector<PromptPair>& pairs);

// What a pairs analysis holds at once, in bytes of float64: both runs of one pair (PairRuns: every
// activation of two forward passes of T tokens, the logits of the last row only) and `extra` T × d
// matrices of its own (attribution patching's gradients and head-output changes; faithfulness's
// mean outputs). One run, for L layers of H heads (d_head c, vocabulary V):
//   8 · (L · (4·T·d + 4·H·T·c + H·T² + H·T·d + T) + 3·T·d + T + V)
// (resid_pre, normalized, qk_input, resid_post; q, k, v, z; the patterns; the head outputs; the
// scales; embed, pos_embed, final_normalized; one row of logits). The H·T² patterns dominate a long
// prompt: 2 runs × 24 heads × 2,047² doubles are 1.6 GB for the ARENA induction model's default pairs.
double pair_working_bytes(const TransformerConfig& config, double T, double extra);
// Most bytes a pairs analysis may hold at once: 2^30. The WASM module's memory stops at 2 GiB, and
// a model of 83.6 M parameters keeps about 0.4 GB of it; natively the same bound keeps the CLI's
// answer the page's.
constexpr double kMaxPairWorkingBytes = 1073741824.0;
// Throws InputError when pair_working_bytes(T, extra) exceeds kMaxPairWorkingBytes, naming the
// analysis, the prompt length T, the estimate, the limit and the longest prompt length that fits.
void require_pair_memory(const TransformerConfig& config, std::size_t T, const std::string& analysis, double extra);

// batch_patching a few pairs at a time, for a caller that reports progress or stops between steps
// (the page's worker task 'transformer-batch-patching'): the constructor checks everything
// batch_patching checks up front (weights, pairs, settings, one prompt length), step(k) patches the
// next k pairs (a pair with nothing to normalise by throws there), result() fills the intervals
// once every pair is done. The same bits as batch_patching, which is this loop. The weights must
// outlive the run.
class BatchPatchingRun {
 public:
  BatchPatchingRun(const TransformerWeights& weights, std::vector<PromptPair> pairs, const IntervalSettings& settings);
  int step(int pairs);  // patches up to `pairs` (≥ 1) more; returns how many are done
  int done() const { return static_cast<int>(out_.clean_logit_difference.size()); }
  int total() const { return static_cast<int>(pairs_.size()); }
  // Throws InputError naming how many pairs are left unless done() == total().
  BatchPatching result() const;

 private:
  const TransformerWeights& w_;
  std::vector<PromptPair> pairs_;
  BatchPatching out_;
};

// Throws InputError on bad pairs (require_prompt_pairs), bad settings, or a pair whose clean and
// corrupted runs give the same logit difference. `progress(done, N)` is called after each pair.
BatchPatching batch_patching(const TransformerWeights& weights, const std::vector<PromptPair>& pairs,
                             const IntervalSettings& settings,
                             const std::function<void(int done, int total)>& progress = nullptr);

}  // namespace headlab::transformer
