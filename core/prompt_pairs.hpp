// Prompt pairs for activation patching over a batch (core/batch_patching.hpp): a clean prompt, a
// corrupted prompt of the same length, and the two tokens whose logit difference at the last
// position is measured, LD = logit[answer] − logit[wrong]. Pairs come from a file
// (formats/prompt_pairs.hpp) or from a task's generator (induction_pairs in core/induction_task.hpp,
// max_digit::max_digit_pairs in core/max_digit_task.hpp).
#pragma once

#include <vector>

namespace headlab {

struct PromptPair {
  std::vector<int> clean, corrupted;
  int answer = 0, wrong = 0;
};

// Most pairs in one batch (docs/limits.md). Patching costs one patched forward per (pair, cell), and
// the per-pair values are kept: 1,024 pairs of the shipped induction model (8 heads × 23 positions)
// are 0.2 M values per grid.
constexpr int kMaxPromptPairs = 1024;

// Throws InputError naming the pair (numbered from 0) and the field: a count outside
// [1, kMaxPromptPairs]; an empty prompt or one longer than n_ctx; a token, answer or wrong outside
// [0, d_vocab) (with its position); prompts of different lengths; answer = wrong (the logit
// difference would be 0 on every run).
void require_prompt_pairs(const std::vector<PromptPair>& pairs, int d_vocab, int n_ctx);

}  // namespace headlab
