#include "core/circuit_faithfulness.hpp"

#include "core/check.hpp"
#include "core/normalization.hpp"
#include "core/ordered_products.hpp"
#include "core/path_patching.hpp"
#include "core/transformer_heads.hpp"

#include <algorithm>
#include <string>

namespace headlab::transformer {

const char* circuit_ablation_name(CircuitAblation a) { return a == CircuitAblation::mean ? "mean" : "corrupted"; }

std::vector<std::vector<bool>> circuit_mask(const TransformerConfig& c, const std::vector<HeadIndex>& circuit) {
  if (circuit.empty()) throw InputError("circuit is empty: name at least one head (layer.head)");
  std::vector<std::vector<bool>> kept(static_cast<std::size_t>(c.n_layers),
                                      std::vector<bool>(static_cast<std::size_t>(c.n_heads), false));
  for (const auto& hi : circuit) {
    const std::string name = "circuit head " + std::to_string(hi.layer) + "." + std::to_string(hi.head);
    if (hi.layer < 0 || hi.layer >= c.n_layers) {
      throw InputError(name + ": layer must lie in [0, " + std::to_string(c.n_layers - 1) + "] (the model has " +
                       std::to_string(c.n_layers) + " layers)");
    }
    if (hi.head < 0 || hi.head >= c.n_heads) {
      throw InputError(name + ": head must lie in [0, " + std::to_string(c.n_heads - 1) + "] (the model has " +
                       std::to_string(c.n_heads) + " heads per layer)");
    }
    std::vector<bool>& layer = kept[static_cast<std::size_t>(hi.layer)];
    if (layer[static_cast<std::size_t>(hi.head)]) throw InputError(name + " is named twice");
    layer[static_cast<std::size_t>(hi.head)] = true;
  }
  return kept;
}

std::vector<std::vector<Matrix>> mean_corrupted_outputs(const TransformerWeights& w,
                                                        const std::vector<PromptPair>& pairs) {
  const auto& c = w.config;
  const Eigen::Index T = static_cast<Eigen::Index>(pairs[0].corrupted.size());
  std::vector<std::vector<Matrix>> mean(
      static_cast<std::size_t>(c.n_layers),
      std::vector<Matrix>(static_cast<std::size_t>(c.n_heads), Matrix::Zero(T, c.d_model)));
  for (const auto& pair : pairs) {
    // The head outputs only: one row of logits (T × V would be most of the pass's time and memory).
    const TransformerActivations run = transformer_forward_unchecked(w, pair.corrupted, nullptr, T - 1);
    for (int l = 0; l < c.n_layers; ++l)
      for (int h = 0; h < c.n_heads; ++h)
        mean[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)] +=
            run.layers[static_cast<std::size_t>(l)].head_output[static_cast<std::size_t>(h)];
  }
  const double n = static_cast<double>(pairs.size());
  for (auto& layer : mean)
    for (auto& m : layer) m /= n;
  return mean;
}

namespace {

// Head (l, h)'s output (T × d) from its inputs as the forward pass forms them: `qk_q` and `qk_k` the
// normalised streams its queries and keys read (positions added for a shortformer model), `x_v` the
// one its values read.
Matrix head_output_from_inputs(const TransformerWeights& w, int l, int h, const Matrix& qk_q, const Matrix& qk_k,
                               const Matrix& x_v) {
  return head_output_from(w, l, h, head_queries(w, l, h, qk_q, {}), head_keys(w, l, h, qk_k, {}),
                          head_values(w, l, h, x_v));
}

// The stream a head's queries and keys read: the normalised one, with positions for a shortformer model.
Matrix query_key_stream(const TransformerWeights& w, const Matrix& normalized) {
  return w.config.positions == Positions::shortformer ? query_key_input(w, normalized, {}) : normalized;
}

// LD at the last row of the residual stream `resid` after the last layer: the final normalisation of
// that row alone, the two logits formed as PairRuns::effect forms them.
double final_logit_difference(const PairRuns& r, const Matrix& resid) {
  const TransformerWeights& w = r.w;
  Vector scale;
  const Matrix x = normalize(w.config, resid.bottomRows(1), w.ln_final_w, w.ln_final_b, scale);
  const Eigen::Index d = w.config.d_model;
  return (ordered_dot(x.data(), r.u_answer.data(), d) + w.b_U(0, r.answer)) -
         (ordered_dot(x.data(), r.u_wrong.data(), d) + w.b_U(0, r.wrong));
}

// The clean prompt's logit difference at its last row with every head outside `kept` replaced by
// `replacement`: the forward pass circuit_recovery's hook describes, from layer `first` on, `resid` the
// residual stream entering it. A kept head is computed by transformer_forward_unchecked's operations in
// its order; a replaced one is not computed at all (the hook would overwrite it); the final
// normalisation is of the last row alone and its two logits are formed as PairRuns::effect forms them —
// the bits of circuit_recovery. `entering`, when given (n_layers rows), receives the residual stream
// entering each layer from `first` on: a circuit that differs from this one only from layer l on
// resumes from entering[l] (leave one out).
double circuit_logit_difference(const PairRuns& r, const std::vector<std::vector<bool>>& kept,
                                const std::vector<std::vector<Matrix>>& replacement, int first, Matrix resid,
                                std::vector<Matrix>* entering) {
  const TransformerWeights& w = r.w;
  const TransformerConfig& c = w.config;
  for (int l = first; l < c.n_layers; ++l) {
    const auto L = static_cast<std::size_t>(l);
    if (entering) (*entering)[L] = resid;
    const auto& lw = w.layers[L];
    Vector scale;
    const Matrix normalized = normalize(c, resid, lw.ln_w, lw.ln_b, scale);
    const Matrix qk_input = query_key_stream(w, normalized);
    for (int h = 0; h < c.n_heads; ++h) {
      const auto Hh = static_cast<std::size_t>(h);
      if (!kept[L][Hh]) resid += replacement[L][Hh];
      else resid += head_output_from_inputs(w, l, h, qk_input, qk_input, normalized);
    }
    resid.rowwise() += lw.b_O.row(0);
  }
  return final_logit_difference(r, resid);
}

// The edges of a circuit as a mask over every (sender, receiver, input): index ((l_s·H + h_s)·L + l_r)·H
// + h_r, times 3, plus κ.
std::size_t edge_slot(const TransformerConfig& c, int ls, int hs, int lr, int hr, int input) {
  const int L = c.n_layers, H = c.n_heads;
  return static_cast<std::size_t>((((ls * H + hs) * L + lr) * H + hr) * kReceiverInputs + input);
}

struct EdgeCircuitRun {
  const PairRuns& r;
  const std::vector<std::vector<bool>>& kept;  // H(E)
  const std::vector<char>& wired;              // edge_slot → in E
  const std::vector<std::vector<Matrix>>& replacement;
  std::vector<std::vector<Matrix>> change;  // out_s − replacement_s of each head of H(E) computed so far
};

// Receiver (l, h)'s normalised input κ: the layer's input `pre` less the change of every earlier head of
// H(E) whose edge into it is not in E (layer-then-head order); `normalized` (pre's own) when none is.
Matrix edge_input(const EdgeCircuitRun& run, int l, int h, int input, const Matrix& pre, const Matrix& normalized) {
  const TransformerConfig& c = run.r.w.config;
  Matrix x;
  bool cut = false;
  for (int ls = 0; ls < l; ++ls) {
    for (int hs = 0; hs < c.n_heads; ++hs) {
      if (!run.kept[static_cast<std::size_t>(ls)][static_cast<std::size_t>(hs)]) continue;
      if (run.wired[edge_slot(c, ls, hs, l, h, input)]) continue;
      if (!cut) x = pre;
      cut = true;
      x -= run.change[static_cast<std::size_t>(ls)][static_cast<std::size_t>(hs)];
    }
  }
  if (!cut) return normalized;
  const auto& lw = run.r.w.layers[static_cast<std::size_t>(l)];
  Vector scale;
  return normalize(c, x, lw.ln_w, lw.ln_b, scale);
}

// The clean prompt's LD for a circuit of edges (the header's pass): circuit_logit_difference's, with
// each input of a head of H(E) read from edge_input.
double edge_circuit_logit_difference(EdgeCircuitRun& run) {
  const TransformerWeights& w = run.r.w;
  const TransformerConfig& c = w.config;
  Matrix resid = run.r.clean.layers[0].resid_pre;
  run.change.assign(static_cast<std::size_t>(c.n_layers), std::vector<Matrix>(static_cast<std::size_t>(c.n_heads)));
  for (int l = 0; l < c.n_layers; ++l) {
    const auto L = static_cast<std::size_t>(l);
    const auto& lw = w.layers[L];
    const Matrix pre = resid;
    Vector scale;
    const Matrix normalized = normalize(c, pre, lw.ln_w, lw.ln_b, scale);
    for (int h = 0; h < c.n_heads; ++h) {
      const auto Hh = static_cast<std::size_t>(h);
      if (!run.kept[L][Hh]) {
        resid += run.replacement[L][Hh];
        continue;
      }
      const Matrix q = edge_input(run, l, h, 0, pre, normalized), k = edge_input(run, l, h, 1, pre, normalized);
      const Matrix out = head_output_from_inputs(w, l, h, query_key_stream(w, q), query_key_stream(w, k),
                                                 edge_input(run, l, h, 2, pre, normalized));
      run.change[L][Hh] = out - run.replacement[L][Hh];
      resid += out;
    }
    resid.rowwise() += lw.b_O.row(0);
  }
  return final_logit_difference(run.r, resid);
}

// One pair's recovery for the circuit and for the circuit without each of its heads, appended to `out`.
// Without a head of layer l the pass is the circuit's up to layer l: it resumes from there.
// What a replaced head writes: the mean when given, else `storage` filled with the pair's corrupted outputs.
const std::vector<std::vector<Matrix>>& replacement_of(const PairRuns& r, const std::vector<std::vector<Matrix>>* mean,
                                                       std::vector<std::vector<Matrix>>& storage) {
  if (mean) return *mean;
  storage.resize(r.corrupted.layers.size());
  for (std::size_t l = 0; l < storage.size(); ++l) storage[l] = r.corrupted.layers[l].head_output;
  return storage;
}

void faithfulness_pair(const PairRuns& r, std::vector<std::vector<bool>> kept,
                       const std::vector<std::vector<Matrix>>* mean, Faithfulness& out) {
  std::vector<std::vector<Matrix>> corrupted;
  const auto& replacement = replacement_of(r, mean, corrupted);
  out.clean_logit_difference.push_back(r.clean_ld);
  out.corrupted_logit_difference.push_back(r.corrupted_ld);
  std::vector<Matrix> entering(r.clean.layers.size());
  const double ld = circuit_logit_difference(r, kept, replacement, 0, r.clean.layers[0].resid_pre, &entering);
  out.recovery.effects.push_back(Matrix::Constant(1, 1, (ld - r.corrupted_ld) / r.span));
  const Eigen::Index C = static_cast<Eigen::Index>(out.circuit.size());
  Matrix drop(C, 1);
  for (Eigen::Index j = 0; j < C; ++j) {
    const HeadIndex& hi = out.circuit[static_cast<std::size_t>(j)];
    kept[static_cast<std::size_t>(hi.layer)][static_cast<std::size_t>(hi.head)] = false;
    const double ld_j =
        circuit_logit_difference(r, kept, replacement, hi.layer, entering[static_cast<std::size_t>(hi.layer)], nullptr);
    drop(j, 0) = (ld_j - r.corrupted_ld) / r.span;
    kept[static_cast<std::size_t>(hi.layer)][static_cast<std::size_t>(hi.head)] = true;
  }
  out.leave_one_out.effects.push_back(std::move(drop));
}

// One pair's recovery for a circuit of edges and for it without each edge, appended to `out`.
void edge_faithfulness_pair(const PairRuns& r, const std::vector<std::vector<bool>>& kept, std::vector<char> wired,
                            const std::vector<std::vector<Matrix>>* mean, Faithfulness& out) {
  std::vector<std::vector<Matrix>> corrupted;
  EdgeCircuitRun run{r, kept, wired, replacement_of(r, mean, corrupted), {}};
  out.clean_logit_difference.push_back(r.clean_ld);
  out.corrupted_logit_difference.push_back(r.corrupted_ld);
  out.recovery.effects.push_back(
      Matrix::Constant(1, 1, (edge_circuit_logit_difference(run) - r.corrupted_ld) / r.span));
  const Eigen::Index E = static_cast<Eigen::Index>(out.edges.size());
  Matrix drop(E, 1);
  for (Eigen::Index j = 0; j < E; ++j) {
    const CircuitEdge& e = out.edges[static_cast<std::size_t>(j)];
    const std::size_t slot = edge_slot(r.w.config, e.edge.sender_layer, e.edge.sender_head, e.edge.receiver_layer,
                                       e.edge.receiver_head, e.input);
    wired[slot] = 0;
    drop(j, 0) = (edge_circuit_logit_difference(run) - r.corrupted_ld) / r.span;
    wired[slot] = 1;
  }
  out.leave_one_out.effects.push_back(std::move(drop));
}

// Checks the batch, the settings and the pairs' one length; `out` started with them (T, settings).
ResamplingPlan start_faithfulness(const TransformerWeights& w, const std::vector<PromptPair>& pairs,
                                  CircuitAblation ablation, const IntervalSettings& settings, Faithfulness& out) {
  require_prompt_pairs(pairs, w.config.d_vocab, w.config.n_ctx);
  settings.validate();
  out.settings = settings;
  out.ablation = ablation;
  out.prompt_length = static_cast<int>(require_one_prompt_length(pairs));
  // Beside the pair's runs: the mean corrupted outputs (L·H of T × d) and a run's recomputed heads.
  const double heads = static_cast<double>(w.config.n_layers) * w.config.n_heads;
  require_pair_memory(w.config, static_cast<std::size_t>(out.prompt_length), "circuit faithfulness", 2 * heads + 8);
  return resampling_plan(static_cast<int>(pairs.size()), settings);
}

}  // namespace

std::string circuit_edge_name(const CircuitEdge& e) {
  static const char* const inputs[] = {"q", "k", "v"};
  const PathEdge& p = e.edge;
  return std::to_string(p.sender_layer) + "." + std::to_string(p.sender_head) + ">" + std::to_string(p.receiver_layer) +
         "." + std::to_string(p.receiver_head) + ":" +
         (e.input >= 0 && e.input < kReceiverInputs ? inputs[e.input] : "?");
}

std::vector<CircuitEdge> checked_circuit_edges(const TransformerConfig& c, std::vector<CircuitEdge> edges) {
  if (edges.empty()) throw InputError("circuit has no edge: name at least one (sender>receiver:input, e.g. 0.1>1.2:k)");
  const auto inside = [&](const std::string& name, const char* what, int v, int n, const char* unit) {
    if (v < 0 || v >= n) {
      throw InputError("circuit edge " + name + ": " + what + " must lie in [0, " + std::to_string(n - 1) +
                       "] (the model has " + std::to_string(n) + " " + unit + ")");
    }
  };
  for (const auto& e : edges) {
    const std::string name = circuit_edge_name(e);
    inside(name, "sender layer", e.edge.sender_layer, c.n_layers, "layers");
    inside(name, "sender head", e.edge.sender_head, c.n_heads, "heads per layer");
    inside(name, "receiver layer", e.edge.receiver_layer, c.n_layers, "layers");
    inside(name, "receiver head", e.edge.receiver_head, c.n_heads, "heads per layer");
    if (e.input < 0 || e.input >= kReceiverInputs)
      throw InputError("circuit edge " + name + ": input must be q, k or v");
    if (e.edge.sender_layer >= e.edge.receiver_layer)
      throw InputError("circuit edge " + name + ": the sender must be in an earlier layer than the receiver (no path)");
  }
  const auto key = [&](const CircuitEdge& e) {
    return edge_slot(c, e.edge.sender_layer, e.edge.sender_head, e.edge.receiver_layer, e.edge.receiver_head, e.input);
  };
  std::sort(edges.begin(), edges.end(), [&](const CircuitEdge& a, const CircuitEdge& b) { return key(a) < key(b); });
  for (std::size_t j = 1; j < edges.size(); ++j)
    if (key(edges[j]) == key(edges[j - 1]))
      throw InputError("circuit edge " + circuit_edge_name(edges[j]) + " is named twice");
  return edges;
}

double circuit_recovery(const PairRuns& r, const std::vector<std::vector<bool>>& kept,
                        const std::vector<std::vector<Matrix>>& replacement) {
  const double ld = circuit_logit_difference(r, kept, replacement, 0, r.clean.layers[0].resid_pre, nullptr);
  return (ld - r.corrupted_ld) / r.span;
}

Faithfulness circuit_faithfulness(const TransformerWeights& w, const std::vector<PromptPair>& pairs,
                                  const std::vector<HeadIndex>& circuit, CircuitAblation ablation,
                                  const IntervalSettings& settings, const std::function<void(int, int)>& progress) {
  validate_weights(w);
  const auto& c = w.config;
  const auto kept = circuit_mask(c, circuit);
  Faithfulness out;
  const ResamplingPlan plan = start_faithfulness(w, pairs, ablation, settings, out);
  const int N = static_cast<int>(pairs.size());
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h)
      if (kept[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)]) out.circuit.push_back({l, h});
  std::vector<std::vector<Matrix>> mean;
  if (ablation == CircuitAblation::mean) mean = mean_corrupted_outputs(w, pairs);
  for (int i = 0; i < N; ++i) {
    const PairRuns r = checked_pair_runs(w, pairs[static_cast<std::size_t>(i)], i);
    faithfulness_pair(r, kept, ablation == CircuitAblation::mean ? &mean : nullptr, out);
    if (progress) progress(i + 1, N);
  }
  fill_intervals(out.recovery, plan);
  fill_intervals(out.leave_one_out, plan);
  return out;
}

}  // namespace headlab::transformer

namespace headlab::transformer {

Faithfulness edge_circuit_faithfulness(const TransformerWeights& w, const std::vector<PromptPair>& pairs,
                                       const std::vector<CircuitEdge>& edges, CircuitAblation ablation,
                                       const IntervalSettings& settings,
                                       const std::function<void(int, int)>& progress) {
  validate_weights(w);
  const auto& c = w.config;
  Faithfulness out;
  out.edges = checked_circuit_edges(c, edges);
  const ResamplingPlan plan = start_faithfulness(w, pairs, ablation, settings, out);
  std::vector<std::vector<bool>> kept(static_cast<std::size_t>(c.n_layers),
                                      std::vector<bool>(static_cast<std::size_t>(c.n_heads), false));
  std::vector<char> wired(edge_slot(c, c.n_layers - 1, c.n_heads - 1, c.n_layers - 1, c.n_heads - 1, 2) + 1, 0);
  for (const auto& e : out.edges) {
    kept[static_cast<std::size_t>(e.edge.sender_layer)][static_cast<std::size_t>(e.edge.sender_head)] = true;
    kept[static_cast<std::size_t>(e.edge.receiver_layer)][static_cast<std::size_t>(e.edge.receiver_head)] = true;
    wired[edge_slot(c, e.edge.sender_layer, e.edge.sender_head, e.edge.receiver_layer, e.edge.receiver_head, e.input)] =
        1;
  }
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h)
      if (kept[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)]) out.circuit.push_back({l, h});
  std::vector<std::vector<Matrix>> mean;
  if (ablation == CircuitAblation::mean) mean = mean_corrupted_outputs(w, pairs);
  const int N = static_cast<int>(pairs.size());
  for (int i = 0; i < N; ++i) {
    const PairRuns r = checked_pair_runs(w, pairs[static_cast<std::size_t>(i)], i);
    edge_faithfulness_pair(r, kept, wired, ablation == CircuitAblation::mean ? &mean : nullptr, out);
    if (progress) progress(i + 1, N);
  }
  fill_intervals(out.recovery, plan);
  fill_intervals(out.leave_one_out, plan);
  return out;
}

}  // namespace headlab::transformer
