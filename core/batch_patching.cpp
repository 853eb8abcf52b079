#include "core/batch_patching.hpp"

#include "core/check.hpp"
#include "core/ordered_products.hpp"
#include "core/transformer.hpp"
#include "core/random.hpp"
#include "core/transformer_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace headlab::transformer {

void IntervalSettings::validate() const {
  require_integer_in("resamples", resamples, kMinResamples, kMaxResamples);
  require_integer_in("permutations", permutations, kMinResamples, kMaxResamples);
}

ResamplingPlan resampling_plan(int pairs, const IntervalSettings& s) {
  s.validate();
  require_integer_in("pairs", pairs, 1, kMaxPromptPairs);
  ResamplingPlan plan;
  plan.pairs = pairs;
  plan.resamples = s.resamples;
  plan.permutations = s.permutations;
  plan.words = (pairs + 63) / 64;
  plan.indices.resize(static_cast<std::size_t>(s.resamples) * static_cast<std::size_t>(pairs));
  Random boot = Random(s.seed).stream(kBootstrapStream);
  for (auto& index : plan.indices) index = static_cast<std::uint16_t>(boot.below(static_cast<std::uint32_t>(pairs)));
  plan.signs.resize(static_cast<std::size_t>(s.permutations) * static_cast<std::size_t>(plan.words));
  Random flip = Random(s.seed).stream(kPermutationStream);
  for (auto& word : plan.signs) word = flip.next_u64();
  return plan;
}

CellInterval cell_interval(const double* e, const ResamplingPlan& plan) {
  const int N = plan.pairs, B = plan.resamples, K = plan.permutations;
  const double n = static_cast<double>(N);
  CellInterval out;
  double sum = 0.0;
  for (int i = 0; i < N; ++i) sum += e[i];
  out.mean = sum / n;
  std::vector<double> means(static_cast<std::size_t>(B));
  for (int b = 0; b < B; ++b) {
    const std::uint16_t* row = plan.indices.data() + static_cast<std::size_t>(b) * static_cast<std::size_t>(N);
    double s = 0.0;
    for (int i = 0; i < N; ++i) s += e[row[i]];
    means[static_cast<std::size_t>(b)] = s / n;
  }
  std::sort(means.begin(), means.end());
  // Order statistics ⌊0.025 (B − 1)⌋ and ⌈0.975 (B − 1)⌉ in integer arithmetic (no rounding of 0.025).
  const long last = B - 1;
  out.lower = means[static_cast<std::size_t>(last * 25 / 1000)];
  out.upper = means[static_cast<std::size_t>((last * 975 + 999) / 1000)];
  const double observed = std::abs(out.mean);
  long extreme = 0;
  for (int k = 0; k < K; ++k) {
    const std::uint64_t* row = plan.signs.data() + static_cast<std::size_t>(k) * static_cast<std::size_t>(plan.words);
    double s = 0.0;
    for (int i = 0; i < N; ++i) s += (row[i / 64] >> (i % 64)) & 1u ? -e[i] : e[i];
    if (std::abs(s / n) >= observed) ++extreme;
  }
  out.p_value = static_cast<double>(1 + extreme) / static_cast<double>(1 + K);
  return out;
}

double PairRuns::effect(const double* x) const {
  const Eigen::Index d = w.config.d_model;
  const double ld =
      (ordered_dot(x, u_answer.data(), d) + w.b_U(0, answer)) - (ordered_dot(x, u_wrong.data(), d) + w.b_U(0, wrong));
  return 1.0 - (ld - corrupted_ld) / span;
}

PairRuns pair_runs(const TransformerWeights& w, const PromptPair& pair) {
  const Eigen::Index last = static_cast<Eigen::Index>(pair.clean.size()) - 1;
  // Only the last row's logits: every patch reads LD there, and T × V logits of a long prompt and a
  // large vocabulary are most of a run's memory.
  PairRuns r{w,
             transformer_forward_unchecked(w, pair.clean, nullptr, last),
             transformer_forward_unchecked(w, pair.corrupted, nullptr, last),
             pair.answer,
             pair.wrong,
             last,
             0.0,
             0.0,
             0.0,
             unembedding_column(w, pair.answer),
             unembedding_column(w, pair.wrong)};
  r.clean_ld = r.clean.logits(0, pair.answer) - r.clean.logits(0, pair.wrong);
  r.corrupted_ld = r.corrupted.logits(0, pair.answer) - r.corrupted.logits(0, pair.wrong);
  r.span = r.clean_ld - r.corrupted_ld;
  return r;
}

double head_output_effect(const PairRuns& r, int l, int h, const Matrix& output) {
  const auto& clean = r.clean.layers[static_cast<std::size_t>(l)];
  Matrix resid = clean.resid_pre;
  for (int g = 0; g < r.w.config.n_heads; ++g) resid += g == h ? output : clean.head_output[g];
  resid.rowwise() += r.w.layers[static_cast<std::size_t>(l)].b_O.row(0);
  const Matrix x = resume_final_normalized(r.w, r.clean, l + 1, resid, 0, r.last);
  return r.effect(x.data());
}

namespace {

// Head (l, h) with one of q, k, v (component 0, 1, 2) taken from the corrupted run at every
// position, or z (3): the head's output T × d. q, k, v: pattern = causal softmax(q kᵀ/attn_scale), z = pattern v,
// output = z W_O, the forward pass's operations; z: the corrupted run's output, which is z_corrupted W_O.
Matrix component_output(const PairRuns& r, int l, int h, int component) {
  const auto& clean = r.clean.layers[static_cast<std::size_t>(l)];
  const auto& corrupted = r.corrupted.layers[static_cast<std::size_t>(l)];
  if (component == 3) return corrupted.head_output[h];
  const Matrix& q = component == 0 ? corrupted.q[h] : clean.q[h];
  const Matrix& k = component == 1 ? corrupted.k[h] : clean.k[h];
  const Matrix& v = component == 2 ? corrupted.v[h] : clean.v[h];
  return head_output_from(r.w, l, h, q, k, v);
}

double component_effect(const PairRuns& r, int l, int h, int component) {
  return head_output_effect(r, l, h, component_output(r, l, h, component));
}

double resid_effect(const PairRuns& r, int l, Eigen::Index p) {
  const Matrix row = r.corrupted.layers[static_cast<std::size_t>(l)].resid_pre.row(p);
  const Matrix x = resume_final_normalized(r.w, r.clean, l, row, p, r.last);
  return r.effect(x.data());
}

}  // namespace

void fill_intervals(PatchingGrid& g, const ResamplingPlan& plan) {
  const Eigen::Index rows = g.effects[0].rows(), cols = g.effects[0].cols();
  g.mean.resize(rows, cols);
  g.lower.resize(rows, cols);
  g.upper.resize(rows, cols);
  g.p_value.resize(rows, cols);
  std::vector<double> values(g.effects.size());
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j) {
      for (std::size_t n = 0; n < g.effects.size(); ++n) values[n] = g.effects[n](i, j);
      const CellInterval c = cell_interval(values.data(), plan);
      g.mean(i, j) = c.mean;
      g.lower(i, j) = c.lower;
      g.upper(i, j) = c.upper;
      g.p_value(i, j) = c.p_value;
    }
  }
}

double pair_working_bytes(const TransformerConfig& c, double T, double extra) {
  const double L = c.n_layers, H = c.n_heads, d = c.d_model, k = c.d_head, V = c.d_vocab;
  const double run = L * (4 * T * d + 4 * H * T * k + H * T * T + H * T * d + T) + 3 * T * d + T + V;
  return 8.0 * (2.0 * run + extra * T * d);
}

void require_pair_memory(const TransformerConfig& c, std::size_t T, const std::string& analysis, double extra) {
  const double bytes = pair_working_bytes(c, static_cast<double>(T), extra);
  if (bytes <= kMaxPairWorkingBytes) return;
  // The estimate grows with T: the longest length that fits, by bisection over [0, T).
  std::size_t low = 0, high = T;
  while (high - low > 1) {
    const std::size_t mid = low + (high - low) / 2;
    (pair_working_bytes(c, static_cast<double>(mid), extra) <= kMaxPairWorkingBytes ? low : high) = mid;
  }
  const auto mb = [](double b) { return std::to_string(static_cast<long long>(std::ceil(b / 1048576.0))) + " MiB"; };
  throw InputError(analysis + " of prompt pairs of " + std::to_string(T) + " tokens would hold about " + mb(bytes) +
                   " at once (two forward passes with " + std::to_string(c.n_layers * c.n_heads) +
                   " attention patterns of T × T each); the limit is " + mb(kMaxPairWorkingBytes) +
                   ": prompt pairs of at most " + std::to_string(low) +
                   " tokens fit this model (a pairs file of shorter prompts)");
}

std::size_t require_one_prompt_length(const std::vector<PromptPair>& pairs) {
  const std::size_t T = pairs[0].clean.size();
  for (std::size_t i = 1; i < pairs.size(); ++i) {
    if (pairs[i].clean.size() != T) {
      throw InputError("pair " + std::to_string(i) + " has " + std::to_string(pairs[i].clean.size()) +
                       " tokens, pair 0 has " + std::to_string(T) +
                       " (the grids of a batch are over positions: one prompt length for every pair)");
    }
  }
  return T;
}

namespace {

// Pair i's effects on every grid and its two logit differences, appended to `out`.
void patch_pair(const TransformerWeights& w, const PromptPair& pair, int i, BatchPatching& out) {
  const auto& c = w.config;
  const int L = c.n_layers, H = c.n_heads;
  const Eigen::Index Tn = static_cast<Eigen::Index>(pair.clean.size());
  PatchingResult heads;
  try {
    heads = head_position_patching(w, pair.clean, pair.corrupted, pair.answer, pair.wrong);
  } catch (const InputError& e) {
    throw InputError("pair " + std::to_string(i) + ": " + e.what());
  }
  PairRuns r = pair_runs(w, pair);
  // The differences head_position_patching normalised by, so that every grid shares one span.
  r.clean_ld = heads.clean_logit_difference;
  r.corrupted_ld = heads.corrupted_logit_difference;
  r.span = heads.clean_logit_difference - heads.corrupted_logit_difference;
  out.clean_logit_difference.push_back(r.clean_ld);
  out.corrupted_logit_difference.push_back(r.corrupted_ld);
  out.head_position.effects.push_back((1.0 - heads.normalised.array()).matrix());
  Matrix resid(L, Tn);
  for (int l = 0; l < L; ++l)
    for (Eigen::Index p = 0; p < Tn; ++p) resid(l, p) = resid_effect(r, l, p);
  out.resid_position.effects.push_back(std::move(resid));
  Matrix comp(L * H, kHeadComponents);
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h)
      for (int k = 0; k < kHeadComponents; ++k) comp(l * H + h, k) = component_effect(r, l, h, k);
  out.head_component.effects.push_back(std::move(comp));
}

}  // namespace

BatchPatchingRun::BatchPatchingRun(const TransformerWeights& w, std::vector<PromptPair> pairs,
                                   const IntervalSettings& settings)
    : w_(w), pairs_(std::move(pairs)) {
  validate_weights(w_);
  require_prompt_pairs(pairs_, w_.config.d_vocab, w_.config.n_ctx);
  settings.validate();
  require_pair_memory(w_.config, require_one_prompt_length(pairs_), "activation patching", 8);
  out_.settings = settings;
}

int BatchPatchingRun::step(int pairs) {
  require_integer_in("pairs per step", pairs, 1, kMaxPromptPairs);
  for (int k = 0; k < pairs && done() < total(); ++k)
    patch_pair(w_, pairs_[static_cast<std::size_t>(done())], done(), out_);
  return done();
}

BatchPatching BatchPatchingRun::result() const {
  if (done() < total()) {
    throw InputError("batch patching has " + std::to_string(total() - done()) + " of " + std::to_string(total()) +
                     " pairs left; no result before every pair is patched");
  }
  BatchPatching out = out_;
  const ResamplingPlan plan = resampling_plan(total(), out.settings);
  fill_intervals(out.head_position, plan);
  fill_intervals(out.resid_position, plan);
  fill_intervals(out.head_component, plan);
  return out;
}

BatchPatching batch_patching(const TransformerWeights& w, const std::vector<PromptPair>& pairs,
                             const IntervalSettings& settings, const std::function<void(int, int)>& progress) {
  BatchPatchingRun run(w, pairs, settings);
  while (run.done() < run.total()) {
    run.step(1);
    if (progress) progress(run.done(), run.total());
  }
  return run.result();
}

}  // namespace headlab::transformer
