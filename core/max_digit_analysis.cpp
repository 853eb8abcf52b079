#include "core/max_digit_analysis.hpp"

#include "core/check.hpp"
#include "core/deterministic_math.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <set>

namespace headlab::max_digit {
namespace {

constexpr int V = kVocab, D = kDModel, H = kHeads;
// The digits d = 0…9 as a regressor: mean 4.5 and Σ (d − 4.5)² = 10·(10² − 1)/12 = 82.5 (both exact).
constexpr double kMeanDigit = (kDigits - 1) / 2.0;
constexpr double kDigitSpread = kDigits * (kDigits * kDigits - 1) / 12.0;

// Logit table of every head with the output projected: L_h[t] = O_h[t] P W_U (4 × 14 × 14).
std::vector<double> projected_logit_table(const TokenTables& T, const MaxDigitWeights& w, const Matrix& P) {
  std::vector<double> L(H * V * V, 0.0);
  const Matrix PW = P * w.W_U;  // 64 × 14
  for (int h = 0; h < H; ++h) {
    for (int t = 0; t < V; ++t) {
      const double* o = &T.output[(h * V + t) * D];
      for (int i = 0; i < D; ++i) {
        for (int j = 0; j < V; ++j) L[(h * V + t) * V + j] += o[i] * PW(i, j);
      }
    }
  }
  return L;
}

Matrix top_k(const Matrix& directions, int k) { return directions.leftCols(k); }

void require_k(int k) {
  if (k < 1 || k > D) throw InputError("k must lie in 1…64, got " + std::to_string(k));
}

// Coordinates of a 64-vector in the basis U_k.
Matrix coordinates(const double* v, const Matrix& Uk) {
  Matrix out = Matrix::Zero(1, Uk.cols());
  for (int i = 0; i < D; ++i) {
    for (Eigen::Index c = 0; c < Uk.cols(); ++c) out(0, c) += v[i] * Uk(i, c);
  }
  return out;
}

}  // namespace

AccuracyReport readout_accuracy(const MaxDigitWeights& w, const Readout& readout, const EvaluationSet& set) {
  validate_weights(w);
  TokenTables T = token_tables(w, readout.projection != nullptr);
  if (readout.projection) {
    require_shape("projection", *readout.projection, D, D);
    require_finite("projection", *readout.projection);
    T.logit = projected_logit_table(T, w, *readout.projection);
  }
  if (!readout.include_residual) T.residual_logit.fill(0.0);
  for (int h = 0; h < H; ++h) {
    if (!readout.ablated[h]) continue;
    std::fill(T.logit.begin() + h * V * V, T.logit.begin() + (h + 1) * V * V, 0.0);
  }
  AccuracyReport r;
  std::array<long, kDigits> correct_by_max{};
  for (std::size_t n = 0; n < set.counts.size(); ++n) {
    if (answer_of(logits_from_tables(T, set.counts[n])) == set.maximum[n]) {
      r.correct += set.multiplicity[n];
      correct_by_max[set.maximum[n]] += set.multiplicity[n];
    }
  }
  r.total = set.total_lists;
  r.accuracy = static_cast<double>(r.correct) / static_cast<double>(r.total);
  for (int m = 0; m < kDigits; ++m) {
    r.by_max[m] = set.lists_by_max[m] ? static_cast<double>(correct_by_max[m]) / set.lists_by_max[m] : 0.0;
  }
  return r;
}

Matrix ans_attention(const MaxDigitWeights& w, const std::vector<int>& digits) {
  validate_weights(w);
  const auto tokens = prompt_tokens(digits);
  const TokenCounts counts = token_counts(digits);
  const auto mass = attention_mass(token_tables(w, false), counts);
  Matrix out(H, kPromptLength);
  for (int h = 0; h < H; ++h) {
    for (int p = 0; p < kPromptLength; ++p) out(h, p) = mass[h][tokens[p]] / counts[tokens[p]];
  }
  return out;
}

Matrix score_table(const MaxDigitWeights& w) {
  validate_weights(w);
  const TokenTables T = token_tables(w, false);
  Matrix out(H, V);
  for (int h = 0; h < H; ++h) {
    for (int t = 0; t < V; ++t) out(h, t) = T.score[h][t];
  }
  return out;
}

Matrix head_logits(const MaxDigitWeights& w, const std::vector<int>& digits) {
  validate_weights(w);
  const TokenCounts counts = token_counts(digits);
  const TokenTables T = token_tables(w, false);
  const auto mass = attention_mass(T, counts);
  Matrix out = Matrix::Zero(H + 1, V);
  for (int h = 0; h < H; ++h) {
    for (int t = 0; t < V; ++t) {
      if (mass[h][t] == 0.0) continue;
      for (int j = 0; j < V; ++j) out(h, j) += mass[h][t] * T.logit[(h * V + t) * V + j];
    }
  }
  for (int j = 0; j < V; ++j) out(H, j) = T.residual_logit[j];
  return out;
}

std::vector<Matrix> attention_by_max(const MaxDigitWeights& w, const EvaluationSet& set) {
  validate_weights(w);
  const TokenTables T = token_tables(w, false);
  std::vector<Matrix> out(H, Matrix::Zero(kDigits, V));
  for (std::size_t n = 0; n < set.counts.size(); ++n) {
    const auto mass = attention_mass(T, set.counts[n]);
    const int m = set.maximum[n];
    for (int h = 0; h < H; ++h) {
      for (int t = 0; t < V; ++t) out[h](m, t) += set.multiplicity[n] * mass[h][t];
    }
  }
  for (int h = 0; h < H; ++h) {
    for (int m = 0; m < kDigits; ++m) {
      if (set.lists_by_max[m]) out[h].row(m) /= static_cast<double>(set.lists_by_max[m]);
    }
  }
  return out;
}

PatchResult patch_attention(const MaxDigitWeights& w, const std::vector<int>& digits,
                            const std::vector<AttentionPatch>& patches) {
  validate_weights(w);
  const auto tokens = prompt_tokens(digits);
  const TokenCounts counts = token_counts(digits);
  std::array<bool, H> patched{};
  for (const auto& p : patches) {
    require_index("patch head", p.head, H);
    require_index("patch position", p.position, kPromptLength);
    if (patched[p.head]) throw InputError("head " + std::to_string(p.head) + " is patched twice");
    patched[p.head] = true;
  }
  const TokenTables T = token_tables(w, false);
  PatchResult r;
  r.original_logits = logits_from_tables(T, counts);
  r.original_answer = answer_of(r.original_logits);
  const auto mass = attention_mass(T, counts);
  r.logits = T.residual_logit;
  for (int h = 0; h < H; ++h) {
    std::array<double, V> a = mass[h];
    if (patched[h]) {
      a.fill(0.0);
      for (const auto& p : patches) {
        if (p.head == h) a[tokens[p.position]] = 1.0;
      }
    }
    for (int t = 0; t < V; ++t) {
      if (a[t] == 0.0) continue;
      for (int j = 0; j < V; ++j) r.logits[j] += a[t] * T.logit[(h * V + t) * V + j];
    }
  }
  r.answer = answer_of(r.logits);
  return r;
}

AccuracyReport ablation_accuracy(const MaxDigitWeights& w, const std::array<bool, kHeads>& ablated) {
  Readout readout;
  readout.ablated = ablated;
  return readout_accuracy(w, readout);
}

AccuracyReport residual_only_accuracy(const MaxDigitWeights& w) {
  validate_weights(w);
  const TokenTables T = token_tables(w, false);
  const int answer = answer_of(T.residual_logit);
  const EvaluationSet& set = standard_evaluation_set();
  AccuracyReport r;
  r.total = set.total_lists;
  if (answer < kDigits) {
    r.correct = set.lists_by_max[answer];
    r.by_max[answer] = 1.0;
  }
  r.accuracy = static_cast<double>(r.correct) / static_cast<double>(r.total);
  return r;
}

AccuracyReport residual_free_accuracy(const MaxDigitWeights& w) {
  Readout readout;
  readout.include_residual = false;
  return readout_accuracy(w, readout);
}

Basis basis_from_name(const std::string& name) {
  if (name == "w_o") return Basis::w_o;
  if (name == "w_u") return Basis::w_u;
  throw InputError("basis must be \"w_o\" or \"w_u\", got \"" + name + "\"");
}

const char* basis_name(Basis basis) { return basis == Basis::w_o ? "w_o" : "w_u"; }

PrincipalDirections principal_directions(const MaxDigitWeights& w, Basis basis) {
  validate_weights(w);
  // points: n × 64, one point in residual space per row
  Matrix points;
  if (basis == Basis::w_o) {
    points.resize(H * kDHead, D);
    for (int h = 0; h < H; ++h) points.middleRows(h * kDHead, kDHead) = w.W_O[h];
  } else {
    points = w.W_U.transpose();
  }
  const Eigen::RowVectorXd mean = points.colwise().mean();
  const Matrix centred = points.rowwise() - mean;
  const Matrix covariance = (centred.transpose() * centred) / static_cast<double>(points.rows() - 1);
  Eigen::SelfAdjointEigenSolver<Matrix> solver(covariance);
  if (solver.info() != Eigen::Success) throw InputError("the covariance eigen-decomposition did not converge");
  PrincipalDirections out;
  out.directions.resize(D, D);
  double trace = 0.0;
  for (int i = 0; i < D; ++i) trace += std::max(0.0, solver.eigenvalues()(i));
  for (int i = 0; i < D; ++i) {
    const int source = D - 1 - i;  // eigenvalues come in increasing order
    Eigen::VectorXd u = solver.eigenvectors().col(source);
    Eigen::Index largest = 0;
    u.cwiseAbs().maxCoeff(&largest);
    if (u(largest) < 0) u = -u;
    out.directions.col(i) = u;
    const double variance = std::max(0.0, solver.eigenvalues()(source));  // clamp −ε round-off of null directions
    out.variance.push_back(variance);
    out.variance_ratio.push_back(trace > 0 ? variance / trace : 0.0);
  }
  return out;
}

AccuracyReport subspace_accuracy(const MaxDigitWeights& w, Basis basis, int k) {
  require_k(k);
  const Matrix Uk = top_k(principal_directions(w, basis).directions, k);
  const Matrix P = Uk * Uk.transpose();
  Readout readout;
  readout.include_residual = false;
  readout.projection = &P;
  return readout_accuracy(w, readout);
}

Matrix cosine_top3(const MaxDigitWeights& w) {
  const Matrix Uo = principal_directions(w, Basis::w_o).directions.leftCols(3);
  const Matrix Uu = principal_directions(w, Basis::w_u).directions.leftCols(3);
  return (Uo.transpose() * Uu).cwiseAbs();  // unit vectors: the dot product is the cosine
}

Contributions contributions(const MaxDigitWeights& w, const std::vector<int>& digits, Basis basis, int k) {
  require_k(k);
  validate_weights(w);
  const auto counts = token_counts(digits);
  const Matrix Uk = top_k(principal_directions(w, basis).directions, k);
  const TokenTables T = token_tables(w, true);
  const auto mass = attention_mass(T, counts);
  Contributions c;
  c.head_outputs = Matrix::Zero(H, k);
  c.default_outputs = Matrix::Zero(H, k);
  for (int h = 0; h < H; ++h) {
    double head[D] = {};
    for (int t = 0; t < V; ++t) {
      if (mass[h][t] == 0.0) continue;
      for (int i = 0; i < D; ++i) head[i] += mass[h][t] * T.output[(h * V + t) * D + i];
    }
    c.head_outputs.row(h) = coordinates(head, Uk);
    c.default_outputs.row(h) = coordinates(&T.output[(h * V + kAns) * D], Uk);
  }
  c.head_sum = c.head_outputs.colwise().sum();
  c.default_sum = c.default_outputs.colwise().sum();
  c.corrections = c.head_outputs - c.default_outputs;
  c.residual = coordinates(w.E.data() + kAns * D, Uk);
  c.unembedding = w.W_U.transpose() * Uk;
  c.logits = logits_from_tables(T, counts);
  c.answer = answer_of(c.logits);
  return c;
}

AngleVsDot angle_vs_dot(const MaxDigitWeights& w, Basis basis, int k) {
  require_k(k);
  validate_weights(w);
  const Matrix Uk = top_k(principal_directions(w, basis).directions, k);
  const TokenTables T = token_tables(w, true);
  const EvaluationSet& set = standard_evaluation_set();
  // Mean Σ_h head_h over the lists with maximum m, then its coordinates.
  Matrix mean = Matrix::Zero(kDigits, D);
  for (std::size_t n = 0; n < set.counts.size(); ++n) {
    const auto mass = attention_mass(T, set.counts[n]);
    for (int h = 0; h < H; ++h) {
      for (int t = 0; t < V; ++t) {
        if (mass[h][t] == 0.0) continue;
        const double weight = set.multiplicity[n] * mass[h][t];
        for (int i = 0; i < D; ++i) mean(set.maximum[n], i) += weight * T.output[(h * V + t) * D + i];
      }
    }
  }
  AngleVsDot r;
  r.mean_output = Matrix::Zero(kDigits, k);
  for (int m = 0; m < kDigits; ++m) {
    if (set.lists_by_max[m]) mean.row(m) /= static_cast<double>(set.lists_by_max[m]);
    r.mean_output.row(m) = mean.row(m) * Uk;
  }
  const Matrix digits = w.W_U.leftCols(kDigits).transpose() * Uk;  // 10 × k
  r.cosine.resize(kDigits, kDigits);
  r.dot.resize(kDigits, kDigits);
  for (int m = 0; m < kDigits; ++m) {
    const double norm_r = r.mean_output.row(m).norm();
    for (int d = 0; d < kDigits; ++d) {
      const double dot = r.mean_output.row(m).dot(digits.row(d));
      const double norms = norm_r * digits.row(d).norm();
      r.dot(m, d) = dot;
      r.cosine(m, d) = norms > 0 ? dot / norms : 0.0;
    }
    r.cosine.row(m).maxCoeff(&r.best_by_cosine[m]);
    r.dot.row(m).maxCoeff(&r.best_by_dot[m]);
  }
  return r;
}

Mechanism mechanism(const MaxDigitWeights& w, const std::array<std::vector<int>, kDigits>& recruited) {
  validate_weights(w);
  const TokenTables T = token_tables(w, false);
  Mechanism m;
  for (int h = 0; h < H; ++h) {
    // Least-squares slope over d = 0…9: Σ (d − 4.5)(s − s̄) / Σ (d − 4.5)², Σ (d − 4.5)² = 82.5.
    double mean = 0.0;
    for (int d = 0; d < kDigits; ++d) mean += T.score[h][d] / static_cast<double>(kDigits);
    double slope = 0.0;
    for (int d = 0; d < kDigits; ++d) slope += (d - kMeanDigit) * (T.score[h][d] - mean);
    m.score_slope[h] = slope / kDigitSpread;
    bool monotone = true;
    for (int d = 1; d < kDigits; ++d) monotone = monotone && T.score[h][d] > T.score[h][d - 1];
    m.score_monotone[h] = monotone;
    double lowest_digit = T.score[h][0], highest_marker = T.score[h][kPad];
    for (int d = 1; d < kDigits; ++d) lowest_digit = std::min(lowest_digit, T.score[h][d]);
    for (int t = kPad; t < V; ++t) highest_marker = std::max(highest_marker, T.score[h][t]);
    m.marker_gap[h] = lowest_digit - highest_marker;
  }
  for (int t = 0; t < V; ++t) {
    m.embedding_norm[t] = w.E.row(t).norm();
    m.unembedding_norm[t] = w.W_U.col(t).norm();
  }
  // A head one-hot on token t adds L_h[t]; "every head on ANS" is the default.
  const auto one_hot = [&](const std::array<int, H>& token, bool residual) {
    std::array<double, V> logits = residual ? T.residual_logit : std::array<double, V>{};
    for (int h = 0; h < H; ++h) {
      for (int j = 0; j < V; ++j) logits[j] += T.logit[(h * V + token[h]) * V + j];
    }
    return logits;
  };
  m.default_logits = one_hot({kAns, kAns, kAns, kAns}, true);
  m.default_answer = answer_of(m.default_logits);
  m.default_answer_residual_free = answer_of(one_hot({kAns, kAns, kAns, kAns}, false));
  for (int d = 0; d < kDigits; ++d) {
    m.one_hot_answer[d] = answer_of(one_hot({d, d, d, d}, true));
    std::array<int, H> token{kAns, kAns, kAns, kAns};
    for (int h : recruited[d]) token[h] = d;
    m.recruited_one_hot_answer[d] = answer_of(one_hot(token, true));
  }
  return m;
}

RunnerUpSplit runner_up_split(const MaxDigitWeights& w, int maximum, int runner_up) {
  validate_weights(w);
  require_index("maximum", maximum, kDigits);
  require_index("runner_up", runner_up, kDigits);
  if (runner_up >= maximum) {
    throw InputError("runner_up must be below maximum, got runner_up " + std::to_string(runner_up) + " and maximum " +
                     std::to_string(maximum));
  }
  const TokenTables T = token_tables(w, false);
  const auto mass = attention_mass(T, token_counts({runner_up, maximum}));
  RunnerUpSplit r;
  r.maximum = maximum;
  r.runner_up = runner_up;
  for (int h = 0; h < H; ++h) {
    r.gap[h] = T.score[h][maximum] - T.score[h][runner_up];
    r.on_maximum[h] = mass[h][maximum];
    r.on_runner_up[h] = mass[h][runner_up];
    // σ(gap) from e^x for x ≤ 0 only (same bits natively and in WASM).
    r.two_token_share[h] = r.gap[h] >= 0 ? 1.0 / (1.0 + exp_nonpositive(-r.gap[h]))
                                         : exp_nonpositive(r.gap[h]) / (1.0 + exp_nonpositive(r.gap[h]));
  }
  return r;
}

SeedClaims seed_claims(const MaxDigitAnalysis& a) {
  SeedClaims c;
  c.accuracy = a.accuracy.accuracy;
  c.min_single_head_accuracy = 1.0;
  c.min_one_ablated_accuracy = 1.0;
  for (const HeadAblation& row : a.head_ablation) {
    if (row.heads.size() == 1) c.min_one_ablated_accuracy = std::min(c.min_one_ablated_accuracy, row.report.accuracy);
    if (row.heads.size() != 3) continue;
    int kept = 0 + 1 + 2 + 3;
    for (int h : row.heads) kept -= h;
    c.single_head_accuracy[kept] = row.report.accuracy;
    c.min_single_head_accuracy = std::min(c.min_single_head_accuracy, row.report.accuracy);
    if (row.report.correct == row.report.total) ++c.single_heads_perfect;
  }
  const auto needed = [](const std::vector<AccuracyReport>& reports) {
    for (std::size_t k = 0; k < reports.size(); ++k) {
      if (reports[k].correct == reports[k].total) return static_cast<int>(k + 1);
    }
    return 0;
  };
  c.directions_w_o = needed(a.subspace_w_o);
  c.directions_w_u = needed(a.subspace_w_u);
  for (int m = 0; m < kDigits; ++m) {
    if (a.angle.best_by_cosine[m] == a.angle.best_by_dot[m]) ++c.angle_dot_agree;
    if (a.angle.best_by_dot[m] == m) ++c.dot_correct;
  }
  for (const SinglePatch& p : a.patch_single) {
    if (p.result.answer != p.result.original_answer) c.single_flips.push_back(p.head);
  }
  for (const PairPatch& p : a.patch_pairs) {
    if (p.result.answer != p.result.original_answer) c.pair_flips.push_back(p.heads);
  }
  c.all_heads_answer = a.patch_all.answer;
  for (int m = 0; m < kDigits; ++m) {
    if (a.mechanism_figures.one_hot_answer[m] != m) c.one_hot_exceptions.push_back(m);
    c.recruited_cells += static_cast<int>(a.recruited[m].size());
  }
  c.default_answer = a.mechanism_figures.default_answer;
  c.scores_monotone = true;
  c.markers_below_digits = true;
  for (int h = 0; h < H; ++h) {
    c.scores_monotone = c.scores_monotone && a.mechanism_figures.score_monotone[h];
    c.markers_below_digits = c.markers_below_digits && a.mechanism_figures.marker_gap[h] > 0;
  }
  return c;
}

namespace {

// Accuracy with every non-empty set of heads ablated, sets in the order of their bit masks 1 … 2^H − 1.
std::vector<HeadAblation> head_ablations(const MaxDigitWeights& w) {
  std::vector<HeadAblation> out;
  for (int mask = 1; mask < (1 << H); ++mask) {
    HeadAblation ablation;
    std::array<bool, H> ablated{};
    for (int h = 0; h < H; ++h) {
      if (mask & (1 << h)) {
        ablated[h] = true;
        ablation.heads.push_back(h);
      }
    }
    ablation.report = ablation_accuracy(w, ablated);
    out.push_back(ablation);
  }
  return out;
}

// Readout accuracy through the top-k principal directions (projection P = U_k U_kᵀ, no residual),
// k = 1 … kSubspaceMaxK, of W_O's and of W_U's bases; and their variance ratios, directions and the
// |cosine| between their first three.
void subspace_readouts(const MaxDigitWeights& w, MaxDigitAnalysis& a) {
  const PrincipalDirections po = principal_directions(w, Basis::w_o), pu = principal_directions(w, Basis::w_u);
  for (int k = 1; k <= kSubspaceMaxK; ++k) {
    for (auto [p, out] : {std::pair{&po, &a.subspace_w_o}, std::pair{&pu, &a.subspace_w_u}}) {
      const Matrix Uk = p->directions.leftCols(k);
      const Matrix P = Uk * Uk.transpose();
      Readout readout;
      readout.include_residual = false;
      readout.projection = &P;
      out->push_back(readout_accuracy(w, readout));
    }
  }
  a.variance_w_o = po.variance_ratio;
  a.variance_w_u = pu.variance_ratio;
  a.directions_w_o = po.directions.leftCols(kSubspaceMaxK);
  a.directions_w_u = pu.directions.leftCols(kSubspaceMaxK);
  a.cosine = (po.directions.leftCols(3).transpose() * pu.directions.leftCols(3)).cwiseAbs();
}

// Attention patching on the list 2 3 4 5 6 at the digit 4 (position 3: BOS, 2, 3, 4): each head
// alone, every head at once, and each pair of heads.
void attention_patches(const MaxDigitWeights& w, MaxDigitAnalysis& a) {
  a.patch_digits = {2, 3, 4, 5, 6};
  a.patch_position = 3;  // BOS, 2, 3, 4: the digit 4 sits at position 3
  for (int h = 0; h < H; ++h) {
    a.patch_single.push_back({h, patch_attention(w, a.patch_digits, {{h, a.patch_position}})});
  }
  std::vector<AttentionPatch> every;
  for (int h = 0; h < H; ++h) every.push_back({h, a.patch_position});
  a.patch_all = patch_attention(w, a.patch_digits, every);
  for (int h0 = 0; h0 < H; ++h0) {
    for (int h1 = h0 + 1; h1 < H; ++h1) {
      a.patch_pairs.push_back(
          {{h0, h1}, patch_attention(w, a.patch_digits, {{h0, a.patch_position}, {h1, a.patch_position}})});
    }
  }
}

}  // namespace

MaxDigitAnalysis analyze_max_digit(const MaxDigitWeights& w) {
  validate_weights(w);
  const EvaluationSet& set = standard_evaluation_set();
  MaxDigitAnalysis a;
  a.unit_norm_unembedding = w.unit_norm_unembedding;
  a.evaluation_lists = set.total_lists;
  a.evaluation_lists_by_max = set.lists_by_max;
  a.accuracy = readout_accuracy(w, Readout{});
  a.residual_free = residual_free_accuracy(w);
  a.residual_only = residual_only_accuracy(w);
  a.head_ablation = head_ablations(w);
  subspace_readouts(w, a);
  a.scores = score_table(w);
  a.attention_by_max = attention_by_max(w, set);
  // Head h is recruited for max digit m when attention_by_max puts more than half of it on m.
  for (int m = 0; m < kDigits; ++m) {
    for (int h = 0; h < H; ++h) {
      if (a.attention_by_max[h](m, m) > 0.5) a.recruited[m].push_back(h);
    }
  }
  attention_patches(w, a);
  a.angle = angle_vs_dot(w, Basis::w_o, 3);
  a.mechanism_figures = mechanism(w, a.recruited);
  return a;
}

}  // namespace headlab::max_digit
