#include "formats/attribution_patching_json.hpp"

#include "formats/json.hpp"

#include <cmath>
#include <vector>

namespace headlab::formats {

namespace {

namespace tf = headlab::transformer;
const char* const kInputs[] = {"q", "k", "v"};

// m (rows × cols, row-major) written as [rows][cols].
void cells(JsonWriter& out, const Matrix& m, Eigen::Index rows, Eigen::Index cols) {
  out.begin_array();
  for (Eigen::Index r = 0; r < rows; ++r) out.numbers(m.data() + r * cols, static_cast<std::size_t>(cols));
  out.end_array();
}

void correlation(JsonWriter& out, double rho) {
  if (std::isnan(rho)) out.value(nullptr);  // undefined: fewer than two cells or a constant side
  else out.value(rho);
}

void gap_fields(JsonWriter& out, const tf::Disagreement& d) {
  out.key("estimate").value(d.estimate);
  out.key("actual").value(d.actual);
  out.key("gap").value(d.gap);
}

// "estimate" and "actual" (the means over the pairs), then "estimates" and "actuals" (one per
// pair), each rows × cols cells: the same four fields for the nodes and the edges.
void estimates_and_actuals(JsonWriter& out, const Matrix& estimate, const Matrix& actual,
                           const std::vector<Matrix>& estimates, const std::vector<Matrix>& actuals, Eigen::Index rows,
                           Eigen::Index cols) {
  out.key("estimate");
  cells(out, estimate, rows, cols);
  out.key("actual");
  cells(out, actual, rows, cols);
  out.key("estimates").begin_array();
  for (const Matrix& m : estimates) cells(out, m, rows, cols);
  out.end_array();
  out.key("actuals").begin_array();
  for (const Matrix& m : actuals) cells(out, m, rows, cols);
  out.end_array();
}

void write_nodes(JsonWriter& out, const tf::TransformerConfig& c, const tf::AttributionPatching& r) {
  out.key("nodes").begin_object();
  estimates_and_actuals(out, r.node_estimate_mean, r.node_actual_mean, r.node_estimate, r.node_actual, c.n_layers,
                        c.n_heads);
  out.end_object();
}

void write_edges(JsonWriter& out, const tf::AttributionPatching& r) {
  const Eigen::Index E = static_cast<Eigen::Index>(r.edges.size()), K = tf::kReceiverInputs;
  out.key("edges").begin_object();
  out.key("edges").begin_array();
  for (const auto& e : r.edges) {
    out.begin_array().value(e.sender_layer).value(e.sender_head).value(e.receiver_layer).value(e.receiver_head);
    out.end_array();
  }
  out.end_array();
  estimates_and_actuals(out, r.edge_estimate_mean, r.edge_actual_mean, r.edge_estimate, r.edge_actual, E, K);
  out.end_object();
}

void write_agreement(JsonWriter& out, const tf::TransformerConfig& c, const tf::AttributionPatching& r) {
  out.key("agreement").begin_object();
  out.key("nodes").begin_object().key("spearman");
  correlation(out, r.node_agreement.spearman);
  out.key("largest").begin_array();
  for (const auto& d : r.node_agreement.largest) {
    out.begin_object().key("layer").value(d.cell / c.n_heads).key("head").value(d.cell % c.n_heads);
    gap_fields(out, d);
    out.end_object();
  }
  out.end_array().end_object();
  out.key("edges").begin_object().key("spearman");
  correlation(out, r.edge_agreement.spearman);
  out.key("spearman_by_input").begin_object();
  for (int k = 0; k < tf::kReceiverInputs; ++k) {
    out.key(kInputs[k]);
    correlation(out, r.edge_input_spearman[static_cast<std::size_t>(k)]);
  }
  out.end_object();
  out.key("largest").begin_array();
  for (const auto& d : r.edge_agreement.largest) {
    const auto& e = r.edges[static_cast<std::size_t>(d.cell / tf::kReceiverInputs)];
    out.begin_object();
    out.key("sender").begin_array().value(e.sender_layer).value(e.sender_head).end_array();
    out.key("receiver").begin_array().value(e.receiver_layer).value(e.receiver_head).end_array();
    out.key("input").value(kInputs[d.cell % tf::kReceiverInputs]);
    gap_fields(out, d);
    out.end_object();
  }
  out.end_array().end_object();
  out.end_object();
}

}  // namespace

std::string write_attribution_patching(const tf::TransformerConfig& c, const tf::AttributionPatching& r) {
  JsonWriter out(KeyOrder::as_written);
  const std::size_t N = r.clean_logit_difference.size();
  out.begin_object();
  out.key("pairs").value(static_cast<unsigned long long>(N));
  out.key("prompt_length").value(r.prompt_length);
  out.key("inputs").begin_array();
  for (const char* name : kInputs) out.value(name);
  out.end_array();
  out.key("clean_logit_difference").numbers(r.clean_logit_difference.data(), N);
  out.key("corrupted_logit_difference").numbers(r.corrupted_logit_difference.data(), N);
  write_nodes(out, c, r);
  write_edges(out, r);
  write_agreement(out, c, r);
  out.end_object();
  return std::move(out.text());
}

}  // namespace headlab::formats
