#include "formats/path_patching_json.hpp"

#include "formats/batch_patching_json.hpp"
#include "formats/json.hpp"

namespace headlab::formats {

namespace {

// m is E × 3: written [E][3].
void cells(JsonWriter& out, const Matrix& m) {
  out.begin_array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) out.numbers(m.data() + r * m.cols(), static_cast<std::size_t>(m.cols()));
  out.end_array();
}

}  // namespace

std::string write_path_patching(const transformer::PathPatching& r) {
  JsonWriter out(KeyOrder::as_written);
  const std::size_t N = r.clean_logit_difference.size();
  out.begin_object();
  write_interval_header(out, N, r.prompt_length, r.settings);
  out.key("inputs").begin_array();
  for (const char* name : {"q", "k", "v"}) out.value(name);
  out.end_array();
  out.key("clean_logit_difference").numbers(r.clean_logit_difference.data(), N);
  out.key("corrupted_logit_difference").numbers(r.corrupted_logit_difference.data(), N);
  out.key("edges").begin_array();
  for (const auto& e : r.edges) {
    out.begin_array().value(e.sender_layer).value(e.sender_head).value(e.receiver_layer).value(e.receiver_head);
    out.end_array();
  }
  out.end_array();
  out.key("mean");
  cells(out, r.grid.mean);
  out.key("lower");
  cells(out, r.grid.lower);
  out.key("upper");
  cells(out, r.grid.upper);
  out.key("p_value");
  cells(out, r.grid.p_value);
  out.key("effects").begin_array();
  for (const auto& e : r.grid.effects) cells(out, e);
  out.end_array();
  out.end_object();
  return std::move(out.text());
}

}  // namespace headlab::formats
