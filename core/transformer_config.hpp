// What an attention-only transformer is made of, and nothing that computes with it: its config
// (TransformerLens's HookedTransformerConfig fields the core reads: sizes, normalisation, positions,
// rotary settings, grouped key-value heads, the score divisor, token names) and its weights, one
// Matrix per TransformerLens tensor (core/transformer_layout.hpp names them). The forward pass, its
// gradients and the checks that need the layout table are in core/transformer.hpp; the pieces it
// is built from (core/normalization.hpp, core/rotary.hpp, core/transformer_heads.hpp,
// core/transformer_layout.hpp) need only this header.
#pragma once

#include "core/matrix.hpp"

#include <memory>
#include <string>
#include <vector>

namespace headlab::transformer {

enum class Normalization { none, layer_norm, layer_norm_pre, rms, rms_pre };
// "none", "LN", "LNPre", "RMS", "RMSPre": TransformerLens's normalization_type names.
const char* normalization_name(Normalization n);

// Where positions enter (TransformerLens positional_embedding_type):
//   learned      "standard":    resid_0 = W_E[tokens] + W_pos[0:T]
//   shortformer  "shortformer": resid_0 = W_E[tokens]; every layer's queries and keys read
//                               x̂ + W_pos[0:T] (values and the residual stream never see W_pos)
//   rotary       "rotary":      resid_0 = W_E[tokens]; q and k of position i rotated by angle i·θ
//   none         "none":        no positional input at all
enum class Positions { learned, shortformer, rotary, none };
const char* positions_name(Positions p);

// Size limits of a model the core accepts (a model file larger than this is refused before allocation).
constexpr int kMaxLayers = 4;
constexpr int kMaxHeads = 64;
constexpr int kMaxDModel = 4096;
constexpr int kMaxDHead = 1024;
constexpr int kMaxContext = 4096;
constexpr int kMaxVocab = 65536;
// 128M parameters: 1 GiB as float64, 512 MiB as float32. A model read from a float32 (or F16/BF16)
// file keeps W_E and W_U, most of a large vocabulary's parameters, as float32 (TransformerWeights):
// the ARENA induction model's shape (2 × 12 heads, d_model 768, d_vocab 50,278, n_ctx 2,048; 84.0M
// parameters, 77.2M of them in W_E and W_U) then holds 309 MB of float32 and 54 MB of float64, within
// the WASM module's 2 GiB heap (ALLOW_MEMORY_GROWTH's default maximum in Emscripten 3.1.6) beside
// the file's own bytes. The safetensors and torch checkpoint readers' 134M-value limit is above it.
constexpr long long kMaxParameters = 128LL * 1024 * 1024;
// The largest |entry| of a weight, of a tensor read from a file (formats/transformer_model.hpp) and
// of the trainer's weights after each step, is kMaxWeightMagnitude (core/limits.hpp): the longest
// product the forward and the analyses compute is a residual through at most kMaxLayers (4) layers
// of W_V·W_O, then a score or logit that multiplies two such vectors.

struct TransformerConfig {
  int n_layers = 1;
  int n_heads = 1;
  int d_model = 1;
  int d_head = 1;
  int n_ctx = 1;
  int d_vocab = 1;
  Normalization normalization = Normalization::none;
  Positions positions = Positions::learned;
  double layer_norm_eps = 1e-5;  // TransformerLens cfg.eps (LayerNorm and RMSNorm alike)
  // Rotary only (TransformerLens names): the first rotary_dim of the d_head components of q and k
  // are rotated (even, 2 ≤ rotary_dim ≤ d_head), at frequencies rotary_base^(−2k/rotary_dim);
  // rotary_adjacent_pairs: true pairs components (2k, 2k+1) as GPT-J, false pairs (k, k + rotary_dim/2)
  // as GPT-NeoX. rotary_dim is 0 for every other positions setting.
  int rotary_dim = 0;
  double rotary_base = 10000;
  bool rotary_adjacent_pairs = false;
  // Grouped key-value heads: 0 = one key and value per head (no grouping); otherwise G divides
  // n_heads and query head h reads key/value head h / (n_heads / G) (TransformerLens's repeat_interleave).
  int n_key_value_heads = 0;
  // Scores are q·k / attn_scale; 0 means √d_head (TransformerLens's default; its use_attn_scale=False is 1).
  double attn_scale = 0;
  std::vector<std::string> token_names;  // optional: empty, or d_vocab names for display
};

// G: n_key_value_heads, or n_heads without grouping.
int key_value_heads(const TransformerConfig& config);
// The divisor of the attention scores: attn_scale, or √d_head when it is 0.
double attention_scale(const TransformerConfig& config);
// Whether the config gives the model a learned W_pos (learned or shortformer positions).
bool has_pos_embed(const TransformerConfig& config);

// The sizes of a config, in the order of its fields, so that a config written in code (a
// default, a test's model, a benchmark's) is one expression:
//   transformer_config({2, 4, 32, 8, 24, 32}, Normalization::layer_norm)
//   = 2 layers, 4 heads, d_model 32, d_head 8, n_ctx 24, d_vocab 32, LayerNorm, learned W_pos.
struct TransformerSizes {
  int n_layers, n_heads, d_model, d_head, n_ctx, d_vocab;
};
// A config of these sizes (not validated: validate_config does that where it is used).
TransformerConfig transformer_config(const TransformerSizes& sizes, Normalization normalization = Normalization::none,
                                     Positions positions = Positions::learned);

// Bounds of the rotary base and the score divisor: the largest angle the core computes is
// (n_ctx − 1)·base^0 = n_ctx − 1 rad (the lowest frequency is 1 at base ≥ 1), and a divisor at
// least kMinAttnScale keeps a score within 1e3 of the dot product it divides.
constexpr double kMinRotaryBase = 1.0;
constexpr double kMaxRotaryBase = 1e12;
constexpr double kMinAttnScale = 1e-3;
constexpr double kMaxAttnScale = 1e6;

struct AttentionLayerWeights {
  Matrix ln_w;                   // 1 × d (normalization LN or RMS), else 0 × 0
  Matrix ln_b;                   // 1 × d (normalization LN), else 0 × 0
  std::vector<Matrix> W_Q;       // H × (d × c)
  std::vector<Matrix> W_K, W_V;  // G × (d × c), G = key_value_heads(config)
  std::vector<Matrix> W_O;       // H × (c × d)
  Matrix b_Q;                    // H × c
  Matrix b_K, b_V;               // G × c
  Matrix b_O;                    // 1 × d
};

// Float32 storage (row-major, as Matrix).
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A row-major float32 matrix that owns its entries or reads them where a file's bytes hold them
// (an F32 tensor, little-endian and 4-byte aligned, viewed in place: the weights then keep the
// file's bytes alive through `owner` rather than a second copy of V·d floats). Copies share the
// entries, which are not changed after the reader fills them.
class Float32Matrix {
 public:
  Float32Matrix() = default;
  // rows × cols zeros, owned.
  static Float32Matrix zero(Eigen::Index rows, Eigen::Index cols);
  // The entries at `data`, kept alive by `owner`.
  static Float32Matrix view(std::shared_ptr<const void> owner, const float* data, Eigen::Index rows, Eigen::Index cols);
  Eigen::Index rows() const { return rows_; }
  Eigen::Index cols() const { return cols_; }
  Eigen::Index size() const { return rows_ * cols_; }
  const float* data() const { return data_; }
  // The entries of an owned matrix, for the reader to fill (nullptr for a view); forgets all_finite's
  // answer, so a reader asks for the pointer again before each write.
  float* owned_data() {
    if (finite_) *finite_ = kUnknown;
    return owned_;
  }
  Eigen::Map<const MatrixF> map() const { return {data_, rows_, cols_}; }
  // Whether every entry is finite: scanned once and remembered by every copy (the entries do not
  // change after the reader fills them), so validate_weights before each analysis of a model whose
  // W_E and W_U hold 77 M floats does not read 300 MB each time (1–2 s in WASM).
  bool all_finite() const;

 private:
  static constexpr signed char kUnknown = -1;
  std::shared_ptr<signed char> finite_;  // kUnknown, 0 or 1; shared by copies; null for 0 × 0
  std::shared_ptr<const void> owner_;
  const float* data_ = nullptr;
  float* owned_ = nullptr;
  Eigen::Index rows_ = 0, cols_ = 0;
};

// W_E and W_U are held either as float64 (W_E, W_U; the W_E_f32, W_U_f32 pair 0 × 0) or, for a model
// read from a file that stores both in float32, F16 or BF16, as float32 (W_E_f32, W_U_f32; W_E, W_U
// then 0 × 0): every such value is exactly a float32, so nothing is rounded, and the core converts
// entries to double where it reads them (core/transformer.hpp: embedding_row, unembed_product, …),
// so every figure is computed in float64 with the bits float64 storage of the same values gives.
// Every other tensor is float64. A trainer's weights and every gradient are float64.
struct TransformerWeights {
  TransformerConfig config;
  Matrix W_E;    // V × d
  Matrix W_pos;  // n_ctx × d (learned or shortformer positions), else 0 × 0
  std::vector<AttentionLayerWeights> layers;
  Matrix ln_final_w;      // 1 × d (normalization LN or RMS), else 0 × 0
  Matrix ln_final_b;      // 1 × d (normalization LN), else 0 × 0
  Matrix W_U;             // d × V
  Matrix b_U;             // 1 × V
  Float32Matrix W_E_f32;  // V × d when W_E and W_U are stored as float32, else 0 × 0
  Float32Matrix W_U_f32;  // d × V likewise
};

// Whether W_E and W_U are stored as float32.
inline bool float32_embeddings(const TransformerWeights& w) { return w.W_E_f32.size() > 0; }

}  // namespace headlab::transformer
