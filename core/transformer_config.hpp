// What an attention-only transformer is made of, and nothing that computes with it: its config
// (TransformerLens's HookedTransformerConfig fields the core reads: sizes, normalisation, positions,
// rotary settings, grouped key-value heads, the score divisor, token names) and its weights, one
// Matrix per TransformerLens tensor (core/transformer_layout.hpp names them). The forward pass, its
// gradients and the checks that need the layout table are in core/transformer.hpp; the pieces it
// is built from (core/normalization.hpp, core/rotary.hpp, core/transformer_heads.hpp,
// core/transformer_layout.hpp) need only this header.
#pragma once

#include "core/matrix.hpp"

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
constexpr long long kMaxParameters = 64LL * 1024 * 1024;
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

struct TransformerWeights {
  TransformerConfig config;
  Matrix W_E;    // V × d
  Matrix W_pos;  // n_ctx × d (learned or shortformer positions), else 0 × 0
  std::vector<AttentionLayerWeights> layers;
  Matrix ln_final_w;  // 1 × d (normalization LN or RMS), else 0 × 0
  Matrix ln_final_b;  // 1 × d (normalization LN), else 0 × 0
  Matrix W_U;         // d × V
  Matrix b_U;         // 1 × V
};

}  // namespace headlab::transformer
