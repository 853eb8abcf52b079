#include "core/transformer_config.hpp"

#include <cmath>

namespace headlab::transformer {

const char* normalization_name(Normalization n) {
  switch (n) {
    case Normalization::layer_norm: return "LN";
    case Normalization::layer_norm_pre: return "LNPre";
    case Normalization::rms: return "RMS";
    case Normalization::rms_pre: return "RMSPre";
    default: return "none";
  }
}

const char* positions_name(Positions p) {
  switch (p) {
    case Positions::shortformer: return "shortformer";
    case Positions::rotary: return "rotary";
    case Positions::none: return "none";
    default: return "standard";
  }
}

int key_value_heads(const TransformerConfig& c) { return c.n_key_value_heads > 0 ? c.n_key_value_heads : c.n_heads; }

double attention_scale(const TransformerConfig& c) {
  return c.attn_scale > 0 ? c.attn_scale : std::sqrt(static_cast<double>(c.d_head));
}

bool has_pos_embed(const TransformerConfig& c) {
  return c.positions == Positions::learned || c.positions == Positions::shortformer;
}

Float32Matrix Float32Matrix::zero(Eigen::Index rows, Eigen::Index cols) {
  Float32Matrix m;
  std::shared_ptr<float> entries(new float[static_cast<std::size_t>(rows * cols)](), std::default_delete<float[]>());
  m.owned_ = entries.get();
  m.data_ = entries.get();
  m.owner_ = std::move(entries);
  m.finite_ = std::make_shared<signed char>(kUnknown);
  m.rows_ = rows;
  m.cols_ = cols;
  return m;
}

Float32Matrix Float32Matrix::view(std::shared_ptr<const void> owner, const float* data, Eigen::Index rows,
                                  Eigen::Index cols) {
  Float32Matrix m;
  m.owner_ = std::move(owner);
  m.data_ = data;
  m.finite_ = std::make_shared<signed char>(kUnknown);
  m.rows_ = rows;
  m.cols_ = cols;
  return m;
}

bool Float32Matrix::all_finite() const {
  if (!finite_) return true;
  if (*finite_ == kUnknown) *finite_ = map().allFinite() ? 1 : 0;
  return *finite_ == 1;
}

TransformerConfig transformer_config(const TransformerSizes& sizes, Normalization normalization, Positions positions) {
  TransformerConfig c;
  c.n_layers = sizes.n_layers;
  c.n_heads = sizes.n_heads;
  c.d_model = sizes.d_model;
  c.d_head = sizes.d_head;
  c.n_ctx = sizes.n_ctx;
  c.d_vocab = sizes.d_vocab;
  c.normalization = normalization;
  c.positions = positions;
  return c;
}

}  // namespace headlab::transformer
