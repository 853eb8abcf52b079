#include "formats/transformer_json.hpp"

#include "core/check.hpp"
#include "formats/transformer_model.hpp"

#include <nlohmann/json.hpp>

namespace headlab::formats {

using nlohmann::ordered_json;
using namespace headlab::transformer;

namespace {

ordered_json rows(const Matrix& m) {
  ordered_json out = ordered_json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    ordered_json row = ordered_json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
    out.push_back(std::move(row));
  }
  return out;
}

ordered_json patterns(const TransformerActivations& run) {
  ordered_json out = ordered_json::array();
  for (const auto& layer : run.layers) {
    ordered_json heads = ordered_json::array();
    for (const auto& p : layer.pattern) heads.push_back(rows(p));
    out.push_back(std::move(heads));
  }
  return out;
}

ordered_json per_head(const TransformerConfig& c, const std::vector<Matrix>& matrices) {
  ordered_json out = ordered_json::array();
  for (int l = 0; l < c.n_layers; ++l) {
    ordered_json heads = ordered_json::array();
    for (int h = 0; h < c.n_heads; ++h) heads.push_back(rows(matrices[static_cast<std::size_t>(l * c.n_heads + h)]));
    out.push_back(std::move(heads));
  }
  return out;
}

ordered_json run_json(const TransformerWeights& w, const TransformerActivations& run) {
  ordered_json doc;
  doc["tokens"] = run.tokens;
  if (!w.config.token_names.empty()) {
    ordered_json names = ordered_json::array();
    for (int t : run.tokens) names.push_back(w.config.token_names[static_cast<std::size_t>(t)]);
    doc["token_names"] = names;
  }
  doc["logits"] = rows(run.logits);
  doc["patterns"] = patterns(run);
  return doc;
}

std::string dump(const ordered_json& doc) { return doc.dump(-1, ' ', false, ordered_json::error_handler_t::strict) + "\n"; }

}  // namespace

std::string write_transformer_run(const TransformerWeights& w, const TransformerActivations& run) {
  return dump(run_json(w, run));
}

std::string write_transformer_analysis(const TransformerWeights& w, const AnalysisRequest& r, const TransformerAnalysis& a) {
  const auto& c = w.config;
  ordered_json doc = run_json(w, a.run);
  doc["position"] = a.position;
  doc["token"] = a.token;
  const auto& d = a.attribution;
  doc["direct_logit_attribution"] = {{"embed", d.embed},          {"pos_embed", d.pos_embed},
                                     {"heads", rows(d.heads)},    {"attention_bias", rows(d.attention_bias)[0]},
                                     {"constant", d.constant},    {"logit", d.logit}};
  doc["ablation"] = {{"mode", r.ablation == Ablation::zero ? "zero" : "mean"},
                     {"sequences", r.sequences},
                     {"seed", r.seed},
                     {"clean_loss", a.clean_loss},
                     {"loss", rows(a.ablation_loss)}};
  doc["induction"] = {{"previous_token", rows(a.induction.previous_token)},
                      {"induction", rows(a.induction.induction)},
                      {"in_context_loss", a.induction.in_context_loss}};
  if (a.has_patching) {
    std::vector<Matrix> by_head;
    for (Eigen::Index i = 0; i < a.patching.normalised.rows(); ++i) by_head.push_back(a.patching.normalised.row(i));
    ordered_json normalised = ordered_json::array();
    for (int l = 0; l < c.n_layers; ++l) {
      ordered_json heads = ordered_json::array();
      for (int h = 0; h < c.n_heads; ++h) heads.push_back(rows(by_head[static_cast<std::size_t>(l * c.n_heads + h)])[0]);
      normalised.push_back(std::move(heads));
    }
    doc["patching"] = {{"answer", r.answer},
                       {"wrong", r.wrong},
                       {"corrupted", r.corrupted},
                       {"clean_logit_difference", a.patching.clean_logit_difference},
                       {"corrupted_logit_difference", a.patching.corrupted_logit_difference},
                       {"normalised", normalised}};
  }
  if (!a.qk.empty()) doc["circuits"] = {{"qk", per_head(c, a.qk)}, {"ov", per_head(c, a.ov)}};
  return dump(doc);
}

std::string write_transformer_inspection(const TransformerWeights& w, const SafetensorsFile& file) {
  ordered_json doc;
  doc["config"] = ordered_json::parse(transformer_config_to_json(w.config));
  doc["parameters"] = parameter_count(w.config);
  ordered_json tensors = ordered_json::array();
  for (const auto& t : file.tensors) tensors.push_back({{"name", t.name}, {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}});
  doc["tensors"] = tensors;
  doc["checks"] = "ok";
  return dump(doc);
}

std::vector<int> parse_prompt(const TransformerConfig& c, const std::string& text) {
  std::vector<int> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == '\t' || text[i] == '\n')) ++i;
    if (i >= text.size()) break;
    std::size_t j = i;
    while (j < text.size() && !(text[j] == ' ' || text[j] == ',' || text[j] == '\t' || text[j] == '\n')) ++j;
    const std::string piece = text.substr(i, j - i);
    const std::size_t index = tokens.size();
    if (tokens.size() >= static_cast<std::size_t>(kMaxContext)) {
      throw InputError("the prompt has more than " + std::to_string(kMaxContext) + " tokens");
    }
    bool numeric = !piece.empty() && piece.size() <= 9;
    for (std::size_t k = 0; k < piece.size(); ++k) {
      if (!(piece[k] >= '0' && piece[k] <= '9') && !(k == 0 && piece[k] == '-' && piece.size() > 1)) numeric = false;
    }
    int token = -1;
    if (numeric) {
      token = std::stoi(piece);
    } else {
      bool found = false;
      for (std::size_t n = 0; n < c.token_names.size(); ++n) {
        if (c.token_names[n] == piece) {
          token = static_cast<int>(n);
          found = true;
          break;
        }
      }
      if (!found) {
        const std::string shown = piece.size() > 20 ? piece.substr(0, 20) + "…" : piece;
        throw InputError("prompt token \"" + shown + "\" at position " + std::to_string(index) +
                         " is neither a token id nor one of the model's token names");
      }
    }
    tokens.push_back(token);
    i = j;
  }
  require_tokens(c, tokens);
  return tokens;
}

}  // namespace headlab::formats
