#include "core/logit_lens.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"
#include "core/normalization.hpp"
#include "core/ordered_products.hpp"
#include "core/transformer.hpp"
#include "core/top_tokens.hpp"

#include <algorithm>
#include <string>

namespace headlab::transformer {

namespace {

// LN_final(resid) W_U + b_U, the operations transformer_forward applies to its last stream.
Matrix read_out(const TransformerWeights& w, const Matrix& resid) {
  const auto& c = w.config;
  Vector scale;
  const Matrix normalized = normalize(c, resid, w.ln_final_w, w.ln_final_b, scale);
  Matrix logits = unembed_product(normalized, w);
  logits.rowwise() += w.b_U.row(0);
  return logits;
}

// softmax of each row: e^{x − max} by exp_nonpositive, summed in token order.
Matrix row_softmax(const Matrix& logits) {
  Matrix p(logits.rows(), logits.cols());
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    const double top = logits.row(i).maxCoeff();
    double total = 0.0;
    for (Eigen::Index j = 0; j < logits.cols(); ++j) {
      p(i, j) = exp_nonpositive(logits(i, j) - top);
      total += p(i, j);
    }
    p.row(i) /= total;
  }
  return p;
}

}  // namespace

LogitLens logit_lens(const TransformerWeights& w, const std::vector<int>& tokens, std::vector<int> answers, int top) {
  require_tokens(w.config, tokens);
  return logit_lens(w, transformer_forward(w, tokens), std::move(answers), top);
}

LogitLens logit_lens(const TransformerWeights& w, const TransformerActivations& run, std::vector<int> answers,
                     int top) {
  const auto& c = w.config;
  const int T = static_cast<int>(run.tokens.size()), L = c.n_layers, V = c.d_vocab;
  require_integer_in("top", top, 1, std::min(kMaxLogitLensTop, V));
  if (answers.empty()) {
    answers.assign(run.tokens.begin() + 1, run.tokens.end());
    const Eigen::Index last = T - 1;
    answers.push_back(top_indices(run.logits.row(last - run.logits_from).data(), V, 1)[0]);
  }
  if (static_cast<int>(answers.size()) != T) {
    throw InputError("answers: " + std::to_string(answers.size()) + " tokens for a prompt of " + std::to_string(T));
  }
  for (int i = 0; i < T; ++i) {
    if (answers[static_cast<std::size_t>(i)] < 0 || answers[static_cast<std::size_t>(i)] >= V) {
      throw InputError("answers[" + std::to_string(i) + "] = " + std::to_string(answers[static_cast<std::size_t>(i)]) +
                       " is outside [0, " + std::to_string(V) + ")");
    }
  }
  LogitLens out;
  out.top = top;
  out.answers = answers;
  out.answer_probability.resize(L + 1, T);
  out.answer_rank.resize(L + 1, T);
  for (int s = 0; s <= L; ++s) {
    const Matrix& resid = s == 0 ? run.layers[0].resid_pre : run.layers[static_cast<std::size_t>(s - 1)].resid_post;
    const Matrix logits = read_out(w, resid);
    const Matrix p = row_softmax(logits);
    Matrix tokens_k(T, top), probability_k(T, top);
    for (int i = 0; i < T; ++i) {
      const int answer = answers[static_cast<std::size_t>(i)];
      const auto best = top_indices(logits.row(i).data(), V, top);
      for (int r = 0; r < top; ++r) {
        tokens_k(i, r) = best[static_cast<std::size_t>(r)];
        probability_k(i, r) = p(i, best[static_cast<std::size_t>(r)]);
      }
      out.answer_probability(s, i) = p(i, answer);
      // Rank in top_indices' order: tokens with a larger logit, or an equal one at a lower index.
      int rank = 0;
      for (int t = 0; t < V; ++t) {
        if (logits(i, t) > logits(i, answer) || (logits(i, t) == logits(i, answer) && t < answer)) ++rank;
      }
      out.answer_rank(s, i) = rank;
    }
    out.top_tokens.push_back(std::move(tokens_k));
    out.top_probability.push_back(std::move(probability_k));
  }
  return out;
}

}  // namespace headlab::transformer
