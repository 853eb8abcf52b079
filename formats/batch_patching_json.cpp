#include "formats/batch_patching_json.hpp"

#include "formats/json.hpp"

namespace headlab::formats {

namespace {

// m is (L·H) × cols (per head, row l·H + h): written [L][H][cols]; or L × cols: written [L][cols].
void cells(JsonWriter& out, const Matrix& m, int heads) {
  out.begin_array();
  if (heads == 0) {
    for (Eigen::Index r = 0; r < m.rows(); ++r)
      out.numbers(m.data() + r * m.cols(), static_cast<std::size_t>(m.cols()));
  } else {
    for (Eigen::Index l = 0; l * heads < m.rows(); ++l) {
      out.begin_array();
      for (int h = 0; h < heads; ++h)
        out.numbers(m.data() + (l * heads + h) * m.cols(), static_cast<std::size_t>(m.cols()));
      out.end_array();
    }
  }
  out.end_array();
}

void grid(JsonWriter& out, const char* name, const transformer::PatchingGrid& g, int heads) {
  out.key(name).begin_object();
  out.key("mean");
  cells(out, g.mean, heads);
  out.key("lower");
  cells(out, g.lower, heads);
  out.key("upper");
  cells(out, g.upper, heads);
  out.key("p_value");
  cells(out, g.p_value, heads);
  out.key("effects").begin_array();
  for (const auto& e : g.effects) cells(out, e, heads);
  out.end_array();
  out.end_object();
}

}  // namespace

void write_interval_header(JsonWriter& out, std::size_t pairs, long long prompt_length,
                           const transformer::IntervalSettings& settings) {
  out.key("pairs").value(static_cast<unsigned long long>(pairs));
  out.key("prompt_length").value(prompt_length);
  out.key("resamples").value(settings.resamples);
  out.key("permutations").value(settings.permutations);
  out.key("seed").value(static_cast<unsigned long long>(settings.seed));
  out.key("confidence").value(0.95);
}

std::string write_batch_patching(const transformer::TransformerConfig& c, const transformer::BatchPatching& r) {
  JsonWriter out(KeyOrder::as_written);
  const std::size_t N = r.clean_logit_difference.size();
  out.begin_object();
  write_interval_header(out, N, r.head_position.mean.cols(), r.settings);
  out.key("components").begin_array();
  for (const char* name : {"q", "k", "v", "z"}) out.value(name);
  out.end_array();
  out.key("clean_logit_difference").numbers(r.clean_logit_difference.data(), N);
  out.key("corrupted_logit_difference").numbers(r.corrupted_logit_difference.data(), N);
  grid(out, "head_position", r.head_position, c.n_heads);
  grid(out, "resid_position", r.resid_position, 0);
  grid(out, "head_component", r.head_component, c.n_heads);
  out.end_object();
  return std::move(out.text());
}

}  // namespace headlab::formats
