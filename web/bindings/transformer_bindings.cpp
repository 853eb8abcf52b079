// embind: your own attention-only transformer (docs/own-model.md). Conversion and lifetimes only:
// a model handle owns checked weights read by the one reader (formats/transformer_model.hpp) from
// the config text and the safetensors bytes; a trainer handle owns a TransformerTrainer. The
// `headlab model inspect / run / analyze` documents cross as the text their one writer
// (formats/transformer_json.hpp) produces, byte for byte what the CLI writes; web/transformer.js
// parses it. Every rule (ranges, names, lengths) is the core's; both handles stay inside
// web/transformer.js.
#include "bindings/marshal.hpp"
#include "core/batch_patching.hpp"
#include "core/check.hpp"
#include "core/circuit_faithfulness.hpp"
#include "core/attribution_patching.hpp"
#include "core/path_patching.hpp"
#include "core/induction_task.hpp"
#include "core/max_digit_task.hpp"
#include "core/qk_attribution.hpp"
#include "core/transformer_analysis.hpp"
#include "core/transformer_layout.hpp"
#include "core/transformer_training.hpp"
#include "formats/batch_patching_json.hpp"
#include "formats/faithfulness_json.hpp"
#include "formats/attribution_patching_json.hpp"
#include "formats/path_patching_json.hpp"
#include "formats/prompt_pairs.hpp"
#include "formats/safetensors.hpp"
#include "formats/tokenizer_json.hpp"
#include "formats/transformer_json.hpp"
#include "formats/transformer_model.hpp"

#include <cmath>
#include <functional>
#include <memory>

namespace headlab::web {
namespace {

namespace tf = headlab::transformer;
namespace fm = headlab::formats;

std::string string_arg(const val& v, const std::string& name) {
  if (v.typeOf().as<std::string>() != "string") throw InputError(name + " must be a string");
  return v.as<std::string>();
}

// A Uint8Array's bytes in one bulk copy into a string the size of the array.
std::string bytes_from_js(const val& v, const std::string& name) {
  if (v.isUndefined() || v.isNull() || !v.instanceof (val::global("Uint8Array"))) {
    throw InputError(name + " must be a Uint8Array (or an ArrayBuffer) of the safetensors file");
  }
  const double length = v["length"].as<double>();
  if (length > static_cast<double>(fm::SafetensorsLimits{}.max_file_bytes)) {
    // The reader names the limit; only make sure the copy below is not the thing that fails.
    fm::read_safetensors(nullptr, static_cast<std::size_t>(length));
  }
  std::string out(static_cast<std::size_t>(length), '\0');
  if (!out.empty()) copy_in(v, reinterpret_cast<std::uint8_t*>(out.data()), out.size());
  return out;
}

val bytes_to_js(const std::string& bytes) {
  val view(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data())));
  return view.call<val>("slice");  // copy out of the heap
}

val ints_to_js(const std::vector<int>& v) {
  val out = val::array();
  for (int x : v) out.call<void>("push", x);
  return out;
}

val strings_to_js(const std::vector<std::string>& v) {
  val out = val::array();
  for (const auto& x : v) out.call<void>("push", x);
  return out;
}

// A matrix as an array of rows of numbers (the shape the JSON documents use).
val rows_to_js(const Matrix& m) {
  val out = val::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    val row = val::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.call<void>("push", m(i, j));
    out.call<void>("push", row);
  }
  return out;
}

val scores_to_js(const tf::InductionScores& s) {
  val out = val::object();
  out.set("previous_token", rows_to_js(s.previous_token));
  out.set("induction", rows_to_js(s.induction));
  out.set("in_context_loss", s.in_context_loss);
  return out;
}

// A prompt: text for the `--prompt` reader, or an array of token ids checked by the core.
std::vector<int> prompt_from_js(const tf::TransformerConfig& c, const val& v, const std::string& name) {
  if (v.typeOf().as<std::string>() == "string") {
    try {
      return fm::parse_prompt(c, v.as<std::string>());
    } catch (const InputError& e) {
      throw InputError(name + ": " + e.what());
    }
  }
  const auto tokens = array_from_js(v, name, "a string of tokens or an array of token ids", int_arg);
  try {
    tf::require_tokens(c, tokens);
  } catch (const InputError& e) {
    throw InputError(name + ": " + e.what());
  }
  return tokens;
}

// One token: an id, or text the prompt reader turns into exactly one token.
int token_from_js(const tf::TransformerConfig& c, const val& v, const std::string& name) {
  if (v.typeOf().as<std::string>() != "string") return int_arg(v, name);
  const auto tokens = prompt_from_js(c, v, name);
  if (tokens.size() != 1) throw InputError(name + " must be one token, got " + std::to_string(tokens.size()));
  return tokens[0];
}

// [layer, head]: one head of the model.
tf::HeadIndex head_from_js(const val& v, const std::string& name) {
  const auto pair = array_from_js(v, name, "a [layer, head] pair", int_arg);
  if (pair.size() != 2) throw InputError(name + " must be a [layer, head] pair");
  return tf::HeadIndex{pair[0], pair[1]};
}

// [sender layer, sender head, receiver layer, receiver head, "q" | "k" | "v"] as a circuit edge (the core
// checks it against the model).
tf::CircuitEdge edge_from_js(const val& v, const std::string& name) {
  const std::string expected =
      name + " must be an edge [sender layer, sender head, receiver layer, receiver head, \"q\" | \"k\" | \"v\"]";
  if (v.isUndefined() || v.isNull() || !v.isArray() || v["length"].as<int>() != 5) throw InputError(expected);
  const std::string input = string_arg(v[4], name + "[4]");
  if (input != "q" && input != "k" && input != "v") throw InputError(expected);
  return {{int_arg(v[0], name + "[0]"), int_arg(v[1], name + "[1]"), int_arg(v[2], name + "[2]"),
           int_arg(v[3], name + "[3]")},
          input == "q"   ? 0
          : input == "k" ? 1
                         : 2};
}

tf::AnalysisRequest request_from_js(const tf::TransformerConfig& c, const val& request) {
  if (request.isUndefined() || request.isNull())
    throw InputError("the analysis request must be an object with a prompt");
  tf::AnalysisRequest r;
  ObjectReader in(request, "the analysis request");
  if (!in.has("prompt")) throw InputError("the analysis request needs a prompt");
  r.prompt = prompt_from_js(c, in.get("prompt"), "prompt");
  in.integer("position", r.position);
  if (in.has("token")) r.token = token_from_js(c, in.get("token"), "token");
  if (in.has("corrupted")) r.corrupted = prompt_from_js(c, in.get("corrupted"), "corrupted");
  if (in.has("answer")) r.answer = token_from_js(c, in.get("answer"), "answer");
  if (in.has("wrong")) r.wrong = token_from_js(c, in.get("wrong"), "wrong");
  if (in.has("ablation")) {
    const std::string mode = string_arg(in.get("ablation"), "ablation");
    if (mode != "zero" && mode != "mean")
      throw InputError("ablation must be \"zero\" or \"mean\", got \"" + mode + "\"");
    r.ablation = mode == "zero" ? tf::Ablation::zero : tf::Ablation::mean;
  }
  in.integer("sequences", r.sequences);
  in.seed("seed", r.seed);
  in.boolean("circuits", r.circuits);
  if (in.has("qk_attribution")) {
    r.qk_attribution = true;
    r.qk_head = head_from_js(in.get("qk_attribution"), "qk_attribution");
  }
  in.boolean("composition", r.composition);
  in.boolean("logit_lens", r.logit_lens);
  in.boolean("head_svd", r.head_svd);
  in.integer("top", r.top);
  in.integer("directions", r.directions);
  in.integer("logits_from", r.logits_from);
  in.finish();
  return r;
}

// The numbers of a run or an analysis in one Float64Array, for web/transformer.js to view without a
// JSON text: every value the `headlab model run / analyze` document holds, the same doubles (the
// writer prints each as its shortest round-trip decimal, so JSON.parse of the text gives these bits).
// Order, row-major, L = n_layers, H = n_heads, T = prompt length, V = d_vocab:
//   logits (T − logits_from) × V, patterns L × H × T × T                        (run and analysis)
//   DLA heads L × H, DLA attention_bias L, ablation loss L × H, previous_token L × H,
//   induction L × H                                                            (analysis)
//   patching normalised (L·H) × T when asked; circuits qk then ov, (L·H) × V × V when asked;
//   QK attribution parts (i + 1) × S × S then its scores (i + 1) when asked (i = position).
// The scalars and token ids travel beside it (run_to_js, analysis_to_js).
void append(std::vector<double>& out, const Matrix& m) { out.insert(out.end(), m.data(), m.data() + m.size()); }

std::vector<double> run_numbers(const tf::TransformerActivations& run, std::size_t extra) {
  std::size_t n = static_cast<std::size_t>(run.logits.size()) + extra;
  for (const auto& layer : run.layers)
    for (const auto& p : layer.pattern) n += static_cast<std::size_t>(p.size());
  std::vector<double> out;
  out.reserve(n);
  append(out, run.logits);
  for (const auto& layer : run.layers)
    for (const auto& p : layer.pattern) append(out, p);
  return out;
}

val ints_view_to_js(const std::vector<int>& v) {
  val view(emscripten::typed_memory_view(v.size(), v.data()));
  return view.call<val>("slice");  // an Int32Array copy
}

val run_to_js(const tf::TransformerActivations& run, std::vector<double>&& numbers) {
  val out = val::object();
  out.set("tokens", ints_view_to_js(run.tokens));
  out.set("logits_from", static_cast<double>(run.logits_from));
  out.set("numbers", vector_to_js(numbers));
  return out;
}

val analysis_to_js(const tf::TransformerWeights& w, const tf::AnalysisRequest& r, const tf::TransformerAnalysis& a) {
  const tf::TransformerConfig& c = w.config;
  const std::size_t LH = static_cast<std::size_t>(c.n_layers * c.n_heads);
  std::size_t extra = 4 * LH + static_cast<std::size_t>(c.n_layers);
  if (a.has_patching) extra += static_cast<std::size_t>(a.patching.normalised.size());
  for (const auto& m : a.qk) extra += 2 * static_cast<std::size_t>(m.size());
  for (const auto& m : a.qk_attribution.parts) extra += static_cast<std::size_t>(m.size()) + 1;
  std::vector<double> numbers = run_numbers(a.run, extra);
  append(numbers, a.attribution.heads);
  append(numbers, a.attribution.attention_bias);
  append(numbers, a.ablation_loss);
  append(numbers, a.induction.previous_token);
  append(numbers, a.induction.induction);
  if (a.has_patching) append(numbers, a.patching.normalised);
  for (const auto& m : a.qk) append(numbers, m);
  for (const auto& m : a.ov) append(numbers, m);
  for (const auto& m : a.qk_attribution.parts) append(numbers, m);
  append(numbers, a.qk_attribution.scores);
  val out = run_to_js(a.run, std::move(numbers));
  out.set("position", a.position);
  out.set("token", a.token);
  out.set("embed", a.attribution.embed);
  out.set("pos_embed", a.attribution.pos_embed);
  out.set("constant", a.attribution.constant);
  out.set("logit", a.attribution.logit);
  out.set("mode", std::string(r.ablation == tf::Ablation::zero ? "zero" : "mean"));
  out.set("sequences", r.sequences);
  out.set("seed", static_cast<double>(r.seed));
  out.set("clean_loss", a.clean_loss);
  out.set("in_context_loss", a.induction.in_context_loss);
  out.set("patching", a.has_patching);
  if (a.has_patching) {
    out.set("answer", r.answer);
    out.set("wrong", r.wrong);
    out.set("corrupted", ints_view_to_js(r.corrupted));
    out.set("clean_logit_difference", a.patching.clean_logit_difference);
    out.set("corrupted_logit_difference", a.patching.corrupted_logit_difference);
  }
  out.set("circuits", !a.qk.empty());
  out.set("qk_attribution", a.has_qk_attribution);
  if (a.has_qk_attribution) {
    out.set("qk_layer", a.qk_attribution.layer);
    out.set("qk_head", a.qk_attribution.head);
    out.set("qk_sources", strings_to_js(a.qk_attribution.sources));
  }
  // Composition, logit lens and head SVD (small: (L·H)², (L+1)·T·k, L·H·c numbers) travel as the
  // writer's JSON text of just those members; web/transformer.js parses it into the document.
  if (a.composition || a.lens || !a.svd.empty()) out.set("head_circuits", fm::write_head_circuits(w, r, a));
  return out;
}

int live_handles = 0;

// --- a weights file written into the heap piece by piece ---
// The bytes of a weights file of known size, filled by JS in chunks (write), then read by
// TransformerModelHandle::load_buffer: the file's only copy is in the heap (a whole-file
// Uint8Array would be a second one in JS, 334 MB for the ARENA induction model's shape). The
// loaded weights share the bytes (F32 W_E and W_U are read in place).
class WeightsBytesHandle {
 public:
  // { size } once the bytes are reserved; the reader's limit on a file's size holds here too.
  val reserve(val size) {
    return guarded("reserving the weights buffer", [&] {
      if (size.typeOf().as<std::string>() != "number") throw InputError("the size must be a number of bytes");
      const double n = size.as<double>();
      if (!(n >= 0 && n == std::floor(n))) throw InputError("the size must be a whole number of bytes");
      if (n > static_cast<double>(fm::SafetensorsLimits{}.max_file_bytes)) {
        fm::read_safetensors(nullptr, static_cast<std::size_t>(n));  // the reader's message naming the limit
      }
      bytes_ = std::make_shared<std::string>(static_cast<std::size_t>(n), '\0');
      val out = val::object();
      out.set("size", n);
      return out;
    });
  }
  // Copies the Uint8Array `chunk` to bytes [offset, offset + chunk.length).
  val write(val chunk, val offset) {
    return guarded("writing the weights", [&] {
      if (!bytes_) throw InputError("reserve the bytes before writing them");
      if (chunk.isUndefined() || chunk.isNull() || !chunk.instanceof (val::global("Uint8Array")))
        throw InputError("a chunk must be a Uint8Array");
      const double at = offset.typeOf().as<std::string>() == "number" ? offset.as<double>() : -1;
      const double length = chunk["length"].as<double>();
      if (!(at >= 0 && at == std::floor(at) && at + length <= static_cast<double>(bytes_->size())))
        throw InputError("a chunk of " + number_text(length) + " bytes at offset " + number_text(at) +
                         " does not fit in the " + std::to_string(bytes_->size()) + " bytes reserved");
      if (length > 0) {
        val view(emscripten::typed_memory_view(
            static_cast<std::size_t>(length),
            reinterpret_cast<std::uint8_t*>(bytes_->data()) + static_cast<std::size_t>(at)));
        view.call<void>("set", chunk);
      }
      return val(true);
    });
  }
  std::shared_ptr<const std::string> bytes() const {
    if (!bytes_) throw InputError("the weights buffer holds no bytes: reserve and write them first");
    return bytes_;
  }

 private:
  std::shared_ptr<std::string> bytes_;
};

// --- a loaded model ---
class TransformerModelHandle {
 public:
  TransformerModelHandle() { ++live_handles; }
  ~TransformerModelHandle() { --live_handles; }
  TransformerModelHandle(const TransformerModelHandle&) = delete;
  TransformerModelHandle& operator=(const TransformerModelHandle&) = delete;

  // The config as its writer writes it (defaults filled in).
  val load(val config_text, val bytes) {
    return guarded("reading the model", [&] {
      const std::string text = string_arg(config_text, "the config");
      // The heap's one copy of the file, shared with the weights: F32 W_E and W_U are read in place.
      return load_shared(text, std::make_shared<const std::string>(bytes_from_js(bytes, "the weights")));
    });
  }
  // The same from bytes written into the heap (WeightsBytesHandle), without a copy.
  val load_buffer(val config_text, const WeightsBytesHandle& bytes) {
    return guarded("reading the model",
                   [&] { return load_shared(string_arg(config_text, "the config"), bytes.bytes()); });
  }

 private:
  val load_shared(const std::string& text, const std::shared_ptr<const std::string>& data) {
    {
      const tf::TransformerConfig config = fm::transformer_config_from_json(text);
      // safetensors or a torch.save checkpoint, by the first bytes; file_ (names, dtypes, shapes) for inspect().
      fm::SafetensorsFile listing;
      weights_ = std::make_unique<tf::TransformerWeights>(fm::transformer_weights_from_file(
          config, reinterpret_cast<const std::uint8_t*>(data->data()), data->size(), listing, data));
      cache_.clear();  // the kept batch analyses were of the weights just replaced
      batch_run_.reset();
      file_ = std::move(listing);
      return val(fm::transformer_config_to_json(config));
    }
  }

 public:
  // { config: text, safetensors: Uint8Array } of the loaded weights as headlab writes a model (F64,
  // TransformerLens names, a header of a few KB), without the attn.mask / attn.IGNORE buffers: the
  // files the page hands on once the worker has read the author's (whose header may be large).
  val canonical() {
    return guarded("writing the canonical model", [&] {
      val out = val::object();
      out.set("config", fm::transformer_config_to_json(loaded().config));
      out.set("safetensors", bytes_to_js(fm::transformer_to_safetensors(loaded(), false)));
      return out;
    });
  }
  val inspect() {
    return guarded("the inspection", [&] { return val(fm::write_transformer_inspection(loaded(), file_)); });
  }
  // options: undefined, or { ablate: [[layer, head]…], mode?, sequences?, seed? } (transformer::ablated_forward).
  val run(val prompt, val options) {
    return guarded("the forward pass",
                   [&] { return val(fm::write_transformer_run(loaded(), forward_of(prompt, options))); });
  }
  // `headlab model run --head-losses`'s "head_losses": the prompt's next-token loss clean and with each
  // head ablated alone (transformer::prompt_ablation_loss); options undefined or { mode?, sequences?,
  // seed?, reference? } as run()'s. Returns { mode, means, sequences, seed?, clean_loss, loss: L × H rows }.
  val head_losses(val prompt, val options) {
    return guarded("the ablation losses", [&] {
      const auto tokens = prompt_from_js(loaded().config, prompt, "prompt");
      ObjectReader in(options, "the head-loss options");
      tf::MeanSource means;
      const tf::Ablation mode = means_from(in, means);
      in.finish();
      const auto r = tf::prompt_ablation_loss(loaded(), tokens, mode, means);
      val out = val::object();
      out.set("mode", std::string(mode == tf::Ablation::zero ? "zero" : "mean"));
      out.set("means", std::string(means.reference.empty() ? "repeated random sequences" : "reference"));
      out.set("sequences", means.reference.empty() ? means.sequences : static_cast<int>(means.reference.size()));
      if (means.reference.empty()) out.set("seed", static_cast<double>(means.seed));
      out.set("clean_loss", r.clean_loss);
      val rows = val::array();
      for (Eigen::Index l = 0; l < r.loss.rows(); ++l) {
        val row = val::array();
        for (Eigen::Index h = 0; h < r.loss.cols(); ++h) row.call<void>("push", r.loss(l, h));
        rows.call<void>("push", row);
      }
      out.set("loss", rows);
      return out;
    });
  }
  // run's numbers as one Float64Array beside the token ids (run_to_js).
  val run_arrays(val prompt, val options) {
    return guarded("the forward pass", [&] {
      const auto a = forward_of(prompt, options);
      return run_to_js(a, run_numbers(a, 0));
    });
  }
  // request: { pairs: <pairs file text> } or { task: "induction" | "max-digit", count?: 64,
  // pairs_seed?: 0 }, with resamples?, permutations?, seed? (core/batch_patching.hpp). Returns the
  // document `headlab model analyze --pairs / --pairs-task` writes, byte for byte.
  val batch_patching(val request) {
    return guarded("activation patching", [&] {
      tf::IntervalSettings settings;
      const auto pairs = pairs_request(request, "the batch-patching request", settings);
      return val(fm::write_batch_patching(loaded().config, tf::batch_patching(loaded(), pairs, settings)));
    });
  }
  // batch_patching a few pairs at a time (core BatchPatchingRun), for the worker task that reports
  // progress and stops between steps: start(request) checks the request and returns { done: 0, total: N };
  // step(k) patches k more pairs and returns { done, total }; result() the document batch_patching
  // returns, byte for byte, once done = total. One run per handle; a new start or load replaces it.
  val batch_patching_start(val request) {
    return guarded("activation patching", [&] {
      batch_run_.reset();
      tf::IntervalSettings settings;
      auto pairs = pairs_request(request, "the batch-patching request", settings);
      batch_run_ = std::make_unique<tf::BatchPatchingRun>(loaded(), std::move(pairs), settings);
      return run_progress();
    });
  }
  val batch_patching_step(val pairs) {
    return guarded("activation patching", [&] {
      running().step(int_arg(pairs, "pairs"));
      return run_progress();
    });
  }
  val batch_patching_result() {
    return guarded("activation patching", [&] {
      const std::string text = fm::write_batch_patching(loaded().config, running().result());
      batch_run_.reset();
      return val(text);
    });
  }
  // The same request; path patching between heads (core/path_patching.hpp). Returns the document
  // `headlab model analyze --path-patching` writes, byte for byte.
  val path_patching(val request) {
    return guarded("path patching", [&] {
      tf::IntervalSettings settings;
      const auto pairs = pairs_request(request, "the path-patching request", settings);
      return val(fm::write_path_patching(tf::path_patching(loaded(), pairs, settings)));
    });
  }
  // The same request without interval settings; attribution patching (core/attribution_patching.hpp).
  // Returns the document `headlab model analyze --attribution-patching` writes, byte for byte.
  val attribution_patching(val request) {
    return guarded("attribution patching", [&] {
      tf::IntervalSettings unused;
      const auto pairs = pairs_request(request, "the attribution-patching request", unused);
      for (const char* key : {"resamples", "permutations", "seed"}) {
        if (request.call<bool>("hasOwnProperty", std::string(key)))
          throw InputError(std::string(key) + " sets intervals, which attribution patching does not draw");
      }
      return val(fm::write_attribution_patching(loaded().config, tf::attribution_patching(loaded(), pairs)));
    });
  }
  // The same request with circuit: [[layer, head]…] (or edges: [[l_s, h_s, l_r, h_r, "q" | "k" | "v"]…],
  // a circuit of edges) and ablation?: "corrupted" | "mean"; circuit faithfulness
  // (core/circuit_faithfulness.hpp). Returns the document `headlab model analyze --faithfulness` (or
  // --faithfulness-edges) writes, byte for byte.
  val faithfulness(val request) {
    return guarded("circuit faithfulness", [&] {
      tf::IntervalSettings settings;
      std::vector<tf::HeadIndex> circuit;
      std::vector<tf::CircuitEdge> edges;
      bool of_edges = false;
      auto ablation = tf::CircuitAblation::corrupted;
      const auto pairs = pairs_request(request, "the faithfulness request", settings, [&](ObjectReader& in) {
        of_edges = in.has("edges");
        if (of_edges && in.has("circuit"))
          throw InputError("the faithfulness request takes a circuit or edges, not both");
        if (of_edges) edges = array_from_js(in.get("edges"), "edges", "an array of edges", edge_from_js);
        else if (!in.has("circuit")) throw InputError("the faithfulness request needs a circuit: [[layer, head], …]");
        else circuit = array_from_js(in.get("circuit"), "circuit", "an array of [layer, head] pairs", head_from_js);
        if (in.has("ablation")) {
          const std::string name = string_arg(in.get("ablation"), "ablation");
          if (name != "corrupted" && name != "mean")
            throw InputError("ablation must be \"corrupted\" or \"mean\", got \"" + name.substr(0, 40) + "\"");
          ablation = name == "mean" ? tf::CircuitAblation::mean : tf::CircuitAblation::corrupted;
        }
      });
      return val(fm::write_faithfulness(of_edges
                                            ? tf::edge_circuit_faithfulness(loaded(), pairs, edges, ablation, settings)
                                            : tf::circuit_faithfulness(loaded(), pairs, circuit, ablation, settings)));
    });
  }
  val analyze(val request) {
    return guarded("the analysis", [&] {
      const tf::AnalysisRequest r = request_from_js(loaded().config, request);
      return val(fm::write_transformer_analysis(loaded(), r, tf::analyze_transformer(loaded(), r, &cache_)));
    });
  }
  // analyze's numbers as one Float64Array beside its scalars and token ids (analysis_to_js).
  val analyze_arrays(val request) {
    return guarded("the analysis", [&] {
      const tf::AnalysisRequest r = request_from_js(loaded().config, request);
      return analysis_to_js(loaded(), r, tf::analyze_transformer(loaded(), r, &cache_));
    });
  }
  // Forgets the prompt-independent analyses kept since load (the next analyze computes them again):
  // for timing a model's first analysis (bench/transformer.bench.mjs). Returns how many were kept.
  int clear_analysis_cache() {
    const int n = static_cast<int>(cache_.size());
    cache_.clear();
    return n;
  }
  // Head (layer, head)'s QK attribution for every query of the prompt (transformer::qk_attribution_table):
  // { layer, head, positions: T, sources: [S] names, parts: Float64Array T × T × S × S ([i][j][a][b],
  // zero for j > i), scores: Float64Array T × T (zero above the diagonal) }.
  val qk_attribution_table(val prompt, val layer, val head) {
    return guarded("QK attribution", [&] {
      const auto tokens = prompt_from_js(loaded().config, prompt, "prompt");
      const auto t = tf::qk_attribution_table(loaded(), tf::transformer_forward(loaded(), tokens),
                                              int_arg(layer, "layer"), int_arg(head, "head"));
      val out = val::object();
      out.set("layer", t.layer);
      out.set("head", t.head);
      out.set("positions", t.positions);
      out.set("sources", strings_to_js(t.sources));
      out.set("parts", vector_to_js(t.parts));
      const std::vector<double> scores(t.scores.data(), t.scores.data() + t.scores.size());
      out.set("scores", vector_to_js(scores));
      return out;
    });
  }
  val tokenize(val text) {
    return guarded("reading the prompt",
                   [&] { return ints_to_js(fm::parse_prompt(loaded().config, string_arg(text, "the prompt"))); });
  }
  val induction_scores(val count, val seed) {
    return guarded(
        [&] { return scores_to_js(tf::induction_scores(loaded(), int_arg(count, "sequences"), seed_arg(seed))); });
  }

 private:
  // Mean ablation's settings from run() and head_losses() options: mode?, and sequences?, seed? (repeated
  // random sequences) or reference? (the sequences the means are taken over: prompts, as `prompt`).
  tf::Ablation means_from(ObjectReader& in, tf::MeanSource& means) const {
    tf::Ablation mode = tf::Ablation::mean;
    if (in.has("mode")) {
      const std::string name = string_arg(in.get("mode"), "mode");
      if (name != "zero" && name != "mean") throw InputError("mode must be \"zero\" or \"mean\", got \"" + name + "\"");
      mode = name == "zero" ? tf::Ablation::zero : tf::Ablation::mean;
    }
    in.integer("sequences", means.sequences);
    in.seed("seed", means.seed);
    if (in.has("reference")) {
      const auto& c = loaded().config;
      means.reference =
          array_from_js(in.get("reference"), "reference", "an array of prompts",
                        [&](const val& v, const std::string& name) { return prompt_from_js(c, v, name); });
    }
    return mode;
  }
  // The forward pass of run(): options undefined, or { ablate?: [[layer, head]…], mode?, sequences?,
  // seed?, reference?, logits_from? } (logits_from: only rows [logits_from, T) of the logits are formed,
  // in [0, T); the document's writer refuses it, the arrays carry it).
  tf::TransformerActivations forward_of(const val& prompt, const val& options) const {
    const auto tokens = prompt_from_js(loaded().config, prompt, "prompt");
    if (options.isUndefined() || options.isNull()) return tf::transformer_forward(loaded(), tokens);
    ObjectReader in(options, "the run options");
    int logits_from = 0;
    in.integer("logits_from", logits_from);
    require_integer_in("logits_from", logits_from, 0, static_cast<long long>(tokens.size()) - 1);
    if (!in.has("ablate")) {
      in.finish();
      return tf::transformer_forward(loaded(), tokens, nullptr, logits_from);
    }
    const auto heads = array_from_js(in.get("ablate"), "ablate", "an array of [layer, head] pairs", head_from_js);
    tf::MeanSource means;
    const tf::Ablation mode = means_from(in, means);
    in.finish();
    return tf::ablated_forward(loaded(), tokens, heads, mode, means, logits_from);
  }
  // The pairs of a batch request ({ pairs } or { task, count?, pairs_seed? }) and its interval settings
  // (resamples?, permutations?, seed?); `what` names the request in messages.
  // `extra` reads a caller's own keys before unknown keys are refused.
  std::vector<PromptPair> pairs_request(const val& request, const char* what, tf::IntervalSettings& settings,
                                        const std::function<void(ObjectReader&)>& extra = nullptr) const {
    const auto& c = loaded().config;
    ObjectReader in(request, what);
    in.integer("resamples", settings.resamples);
    in.integer("permutations", settings.permutations);
    in.seed("seed", settings.seed);
    int count = 64;
    std::uint64_t pairs_seed = 0;
    in.integer("count", count);
    in.seed("pairs_seed", pairs_seed);
    std::vector<PromptPair> pairs;
    if (in.has("pairs")) {
      pairs = fm::read_prompt_pairs(c, string_arg(in.get("pairs"), "pairs"), "pairs");
    } else if (in.has("task")) {
      const std::string task = string_arg(in.get("task"), "task");
      if (task == "induction") pairs = tf::induction_pairs(c, pairs_seed, count);
      else if (task == "max-digit") pairs = max_digit::max_digit_pairs(pairs_seed, count);
      else throw InputError("task must be \"induction\" or \"max-digit\", got \"" + task.substr(0, 40) + "\"");
    } else {
      throw InputError(std::string(what) + " needs pairs (a pairs file's text) or a task");
    }
    if (extra) extra(in);
    in.finish();
    return pairs;
  }
  tf::BatchPatchingRun& running() {
    if (!batch_run_) throw InputError("no batch-patching run: call batch_patching_start first");
    return *batch_run_;
  }
  val run_progress() {
    val out = val::object();
    out.set("done", batch_run_->done());
    out.set("total", batch_run_->total());
    return out;
  }
  const tf::TransformerWeights& loaded() const {
    if (!weights_) throw InputError("the model was not loaded");
    return *weights_;
  }
  std::unique_ptr<tf::TransformerWeights> weights_;
  fm::SafetensorsFile file_;
  // Scores, in-context loss and ablation losses per (sequences, seed, ablation) of weights_, which
  // never change between loads: a new prompt's analysis pays only for what reads the prompt.
  tf::AnalysisCache cache_;
  // The batch-patching run in progress (batch_patching_start), of weights_.
  std::unique_ptr<tf::BatchPatchingRun> batch_run_;
};

// --- the transformer trainer (induction task) ---
tf::TransformerTrainingSettings settings_from_js(const val& s) {
  return trainer_settings_from_js<tf::TransformerTrainingSettings>(
      s, [](ObjectReader& in, tf::TransformerTrainingSettings& out) {
        if (in.has("model"))
          out.model = fm::transformer_config_from_json(string_arg(in.get("model"), "settings.model"));
        in.number("weight_decay", out.weight_decay);
        in.integer("warmup_steps", out.warmup_steps);
        in.number("final_learning_rate_fraction", out.final_learning_rate_fraction);
        in.number("init_scale", out.init_scale);
      });
}

class TransformerTrainerHandle {
 public:
  TransformerTrainerHandle() { ++live_handles; }
  ~TransformerTrainerHandle() { --live_handles; }
  TransformerTrainerHandle(const TransformerTrainerHandle&) = delete;
  TransformerTrainerHandle& operator=(const TransformerTrainerHandle&) = delete;

  // settings.model arrives as config text (web/transformer.js writes the merged object).
  val start(val settings) {
    return guarded([&] {
      trainer_ = std::make_unique<tf::TransformerTrainer>(settings_from_js(settings));
      return progress_to_js(trainer_->progress());
    });
  }
  // The settings with defaults filled in; model as config text.
  val settings() {
    return guarded([&] {
      const auto& s = started().settings();
      val out = val::object();
      out.set("model", fm::transformer_config_to_json(s.model));
      out.set("seed", static_cast<double>(s.seed));
      out.set("steps", static_cast<double>(s.steps));
      out.set("batch_size", s.batch_size);
      out.set("learning_rate", s.learning_rate);
      out.set("weight_decay", s.weight_decay);
      out.set("warmup_steps", static_cast<double>(s.warmup_steps));
      out.set("final_learning_rate_fraction", s.final_learning_rate_fraction);
      out.set("init_scale", s.init_scale);
      return out;
    });
  }
  val step(val n) {
    return guarded([&] {
      const auto p = started().step(int_arg(n, "step count"));
      return progress_with_divergence_to_js(p, *trainer_);
    });
  }
  val stop() {
    return guarded([&] {
      started().stop();
      return progress_to_js(trainer_->progress());
    });
  }
  val progress() {
    return guarded([&] { return progress_to_js(started().progress()); });
  }
  val scores(val count, val seed) {
    return guarded([&] {
      return scores_to_js(tf::induction_scores(started().result(), int_arg(count, "sequences"), seed_arg(seed)));
    });
  }
  // { config: text, safetensors: Uint8Array } of the current weights, as `headlab model train` writes them.
  val result() {
    return guarded([&] {
      val out = val::object();
      out.set("config", fm::transformer_config_to_json(started().result().config));
      out.set("safetensors", bytes_to_js(fm::transformer_to_safetensors(started().result())));
      return out;
    });
  }

 private:
  tf::TransformerTrainer& started() {
    if (!trainer_) throw InputError("the trainer was not started");
    return *trainer_;
  }
  std::unique_ptr<tf::TransformerTrainer> trainer_;
};

// A tokenizer.json read by the one reader (formats/tokenizer_json.hpp); encode() gives each
// token's id, its readable text and its UTF-8 byte span of the text.
class TokenizerHandle {
 public:
  TokenizerHandle() { ++live_handles; }
  ~TokenizerHandle() { --live_handles; }
  TokenizerHandle(const TokenizerHandle&) = delete;
  TokenizerHandle& operator=(const TokenizerHandle&) = delete;

  val load(val text) {
    return guarded([&] {
      tokenizer_ = std::make_unique<headlab::tokenizer::Tokenizer>(
          fm::read_tokenizer_json(string_arg(text, "the tokenizer"), "tokenizer"));
      val out = val::object();
      out.set("model", tokenizer_->model == headlab::tokenizer::Model::bpe ? "BPE" : "WordLevel");
      out.set("vocab_size", static_cast<int>(tokenizer_->tokens.size()));
      return out;
    });
  }
  val encode(val text) {
    return guarded([&] {
      if (!tokenizer_) throw InputError("no tokenizer is loaded");
      return pieces_to_js(headlab::tokenizer::encode(*tokenizer_, string_arg(text, "the text")));
    });
  }
  // A prompt for a model of d_vocab tokens, as the CLI's --prompt with --tokenizer reads it
  // (check_prompt: refused when it gives no tokens or a token beyond d_vocab), with encode()'s spans.
  val encode_prompt(val text, val d_vocab) {
    return guarded([&] {
      if (!tokenizer_) throw InputError("no tokenizer is loaded");
      const auto pieces = headlab::tokenizer::encode(*tokenizer_, string_arg(text, "the text"));
      headlab::tokenizer::check_prompt(*tokenizer_, pieces, int_arg(d_vocab, "d_vocab"));
      return pieces_to_js(pieces);
    });
  }
  // Every id's name for a model of d_vocab tokens (token_names: what the CLI's documents name them).
  val token_names(val d_vocab) {
    return guarded([&] {
      if (!tokenizer_) throw InputError("no tokenizer is loaded");
      return strings_to_js(headlab::tokenizer::token_names(*tokenizer_, int_arg(d_vocab, "d_vocab")));
    });
  }

 private:
  val pieces_to_js(const std::vector<headlab::tokenizer::Piece>& pieces) const {
    val ids = val::array(), begins = val::array(), ends = val::array(), texts = val::array();
    for (const auto& p : pieces) {
      ids.call<void>("push", p.id);
      begins.call<void>("push", static_cast<double>(p.begin));
      ends.call<void>("push", static_cast<double>(p.end));
      texts.call<void>("push", headlab::tokenizer::token_text(*tokenizer_, p.id));
    }
    val out = val::object();
    out.set("ids", ids);
    out.set("begins", begins);
    out.set("ends", ends);
    out.set("texts", texts);
    return out;
  }

  std::unique_ptr<headlab::tokenizer::Tokenizer> tokenizer_;
};

int live_handles_js() { return live_handles; }

// The core's table of TransformerLens tensors (core/transformer_layout.hpp), row for row:
// [{ name: "blocks.{l}.attn.W_Q", shape: ["n_heads", "d_model", "d_head"], presence, role }].
val layout_js() {
  val out = val::array();
  for (const auto& row : tf::kTransformerLayout) {
    val shape = val::array();
    for (int i = 0; i < row.shape.rank; ++i) shape.call<void>("push", std::string(tf::dim_name(row.shape.dims[i])));
    val entry = val::object();
    entry.set("name", std::string(row.name));
    entry.set("shape", shape);
    entry.set("presence", std::string(tf::presence_name(row.presence)));
    entry.set("role", std::string(tf::role_name(row.role)));
    out.call<void>("push", entry);
  }
  return out;
}

val induction_default_config_js() { return val(fm::transformer_config_to_json(tf::induction_default_config())); }

}  // namespace
}  // namespace headlab::web

EMSCRIPTEN_BINDINGS(headlab_transformer) {
  using namespace headlab::web;
  emscripten::class_<WeightsBytesHandle>("WeightsBytesHandle")
      .constructor<>()
      .function("reserve", &WeightsBytesHandle::reserve)
      .function("write", &WeightsBytesHandle::write);
  emscripten::class_<TransformerModelHandle>("TransformerModelHandle")
      .constructor<>()
      .function("load", &TransformerModelHandle::load)
      .function("load_buffer", &TransformerModelHandle::load_buffer)
      .function("inspect", &TransformerModelHandle::inspect)
      .function("canonical", &TransformerModelHandle::canonical)
      .function("run", &TransformerModelHandle::run)
      .function("analyze", &TransformerModelHandle::analyze)
      .function("batch_patching", &TransformerModelHandle::batch_patching)
      .function("path_patching", &TransformerModelHandle::path_patching)
      .function("attribution_patching", &TransformerModelHandle::attribution_patching)
      .function("faithfulness", &TransformerModelHandle::faithfulness)
      .function("batch_patching_start", &TransformerModelHandle::batch_patching_start)
      .function("batch_patching_step", &TransformerModelHandle::batch_patching_step)
      .function("batch_patching_result", &TransformerModelHandle::batch_patching_result)
      .function("run_arrays", &TransformerModelHandle::run_arrays)
      .function("head_losses", &TransformerModelHandle::head_losses)
      .function("analyze_arrays", &TransformerModelHandle::analyze_arrays)
      .function("clear_analysis_cache", &TransformerModelHandle::clear_analysis_cache)
      .function("qk_attribution_table", &TransformerModelHandle::qk_attribution_table)
      .function("tokenize", &TransformerModelHandle::tokenize)
      .function("induction_scores", &TransformerModelHandle::induction_scores);
  emscripten::class_<TransformerTrainerHandle>("TransformerTrainerHandle")
      .constructor<>()
      .function("start", &TransformerTrainerHandle::start)
      .function("settings", &TransformerTrainerHandle::settings)
      .function("step", &TransformerTrainerHandle::step)
      .function("stop", &TransformerTrainerHandle::stop)
      .function("progress", &TransformerTrainerHandle::progress)
      .function("scores", &TransformerTrainerHandle::scores)
      .function("result", &TransformerTrainerHandle::result);
  emscripten::class_<TokenizerHandle>("TokenizerHandle")
      .constructor<>()
      .function("load", &TokenizerHandle::load)
      .function("encode", &TokenizerHandle::encode)
      .function("encode_prompt", &TokenizerHandle::encode_prompt)
      .function("token_names", &TokenizerHandle::token_names);
  emscripten::function("transformer_live_handles", &live_handles_js);
  emscripten::function("transformer_induction_default_config", &induction_default_config_js);
  emscripten::function("transformer_layout", &layout_js);
}
