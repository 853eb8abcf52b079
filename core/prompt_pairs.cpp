#include "core/prompt_pairs.hpp"

#include "core/check.hpp"

#include <string>

namespace headlab {

namespace {

std::string pair_name(std::size_t i) { return "pair " + std::to_string(i); }

void require_prompt(const std::string& where, const std::vector<int>& tokens, int d_vocab, int n_ctx) {
  if (tokens.empty()) throw InputError(where + " is empty");
  if (tokens.size() > static_cast<std::size_t>(n_ctx)) {
    throw InputError(where + " has " + std::to_string(tokens.size()) + " tokens; the model's n_ctx is " +
                     std::to_string(n_ctx));
  }
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    if (tokens[p] < 0 || tokens[p] >= d_vocab) {
      throw InputError(where + ": token " + std::to_string(tokens[p]) + " at position " + std::to_string(p) +
                       " is outside [0, " + std::to_string(d_vocab) + ")");
    }
  }
}

void require_token(const std::string& where, int token, int d_vocab) {
  if (token < 0 || token >= d_vocab) {
    throw InputError(where + " = " + std::to_string(token) + " is outside [0, " + std::to_string(d_vocab) + ")");
  }
}

}  // namespace

void require_prompt_pairs(const std::vector<PromptPair>& pairs, int d_vocab, int n_ctx) {
  if (pairs.empty()) throw InputError("a batch needs at least one prompt pair, got none");
  if (pairs.size() > static_cast<std::size_t>(kMaxPromptPairs)) {
    throw InputError("a batch holds at most " + std::to_string(kMaxPromptPairs) + " prompt pairs, got " +
                     std::to_string(pairs.size()));
  }
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& p = pairs[i];
    const std::string name = pair_name(i);
    require_prompt(name + " clean", p.clean, d_vocab, n_ctx);
    require_prompt(name + " corrupted", p.corrupted, d_vocab, n_ctx);
    if (p.clean.size() != p.corrupted.size()) {
      throw InputError(name + ": the corrupted prompt has " + std::to_string(p.corrupted.size()) +
                       " tokens, the clean one " + std::to_string(p.clean.size()) +
                       " (patching needs prompts of one length)");
    }
    require_token(name + " answer", p.answer, d_vocab);
    require_token(name + " wrong", p.wrong, d_vocab);
    if (p.answer == p.wrong) {
      throw InputError(name + ": answer and wrong are both " + std::to_string(p.answer) +
                       " (their logit difference is 0 on every run)");
    }
  }
}

}  // namespace headlab
