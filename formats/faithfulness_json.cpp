#include "formats/faithfulness_json.hpp"

#include "formats/batch_patching_json.hpp"
#include "formats/json.hpp"

namespace headlab::formats {

namespace {

// Row r of grid g (|rows| × 1): its statistics and its N per-pair values, as keys of an open object.
void row(JsonWriter& out, const transformer::PatchingGrid& g, Eigen::Index r) {
  out.key("mean").value(g.mean(r, 0));
  out.key("lower").value(g.lower(r, 0));
  out.key("upper").value(g.upper(r, 0));
  out.key("p_value").value(g.p_value(r, 0));
  out.key("pairs").begin_array();
  for (const auto& e : g.effects) out.value(e(r, 0));
  out.end_array();
}

// An edge as [sender layer, sender head, receiver layer, receiver head, "q" | "k" | "v"].
void edge(JsonWriter& out, const transformer::CircuitEdge& e) {
  static const char* const inputs[] = {"q", "k", "v"};
  out.begin_array().value(e.edge.sender_layer).value(e.edge.sender_head);
  out.value(e.edge.receiver_layer).value(e.edge.receiver_head).value(inputs[e.input]).end_array();
}

}  // namespace

std::string write_faithfulness(const transformer::Faithfulness& f) {
  JsonWriter out(KeyOrder::as_written);
  const std::size_t N = f.clean_logit_difference.size();
  out.begin_object();
  write_interval_header(out, N, f.prompt_length, f.settings);
  out.key("ablation").value(transformer::circuit_ablation_name(f.ablation));
  out.key("circuit").begin_array();
  for (const auto& hd : f.circuit) out.begin_array().value(hd.layer).value(hd.head).end_array();
  out.end_array();
  if (!f.edges.empty()) {
    out.key("edges").begin_array();
    for (const auto& e : f.edges) edge(out, e);
    out.end_array();
  }
  out.key("clean_logit_difference").numbers(f.clean_logit_difference.data(), N);
  out.key("corrupted_logit_difference").numbers(f.corrupted_logit_difference.data(), N);
  out.key("recovery").begin_object();
  row(out, f.recovery, 0);
  out.end_object();
  out.key("leave_one_out").begin_array();
  for (std::size_t j = 0; j < (f.edges.empty() ? f.circuit.size() : f.edges.size()); ++j) {
    out.begin_object();
    if (f.edges.empty()) {
      out.key("layer").value(f.circuit[j].layer);
      out.key("head").value(f.circuit[j].head);
    } else {
      out.key("edge");
      edge(out, f.edges[j]);
    }
    row(out, f.leave_one_out, static_cast<Eigen::Index>(j));
    out.end_object();
  }
  out.end_array();
  out.end_object();
  return std::move(out.text());
}

}  // namespace headlab::formats
