// embind: one attention head and the projection edits of the first article.
#include "bindings/marshal.hpp"
#include "core/attention.hpp"
#include "core/projection_edit.hpp"

namespace headlab::web {
namespace {

// input: { x, w_q, w_k, w_v, causal?, weights_override? }
val attention_forward_js(val input) {
  return guarded([&] {
    AttentionOptions options;
    options.causal = optional_bool(input, "causal", false);
    const val override_v = input["weights_override"];
    if (!override_v.isUndefined() && !override_v.isNull())
      options.weights_override = matrix_from_js(override_v, "weights_override");
    const AttentionResult r =
        attention_forward(matrix_from_js(input["x"], "x"), matrix_from_js(input["w_q"], "w_q"),
                          matrix_from_js(input["w_k"], "w_k"), matrix_from_js(input["w_v"], "w_v"), options);
    val out = val::object();
    out.set("q", matrix_to_js(r.q));
    out.set("k", matrix_to_js(r.k));
    out.set("v", matrix_to_js(r.v));
    out.set("dot_products", matrix_to_js(r.dot_products));
    out.set("scores", matrix_to_js(r.scores));
    out.set("weights", matrix_to_js(r.weights));
    out.set("reading", matrix_to_js(r.reading));
    return out;
  });
}

val swap_projection_coordinates_js(val w, val a, val b) {
  return guarded([&] {
    return matrix_to_js(swap_projection_coordinates(matrix_from_js(w, "projection"), int_arg(a, "coordinate a"),
                                                    int_arg(b, "coordinate b")));
  });
}

val rotate_query_key_js(val q, val k, val rotation) {
  return guarded([&] {
    const RotatedQueryKey r =
        rotate_query_key(matrix_from_js(q, "q"), matrix_from_js(k, "k"), matrix_from_js(rotation, "rotation"));
    val out = val::object();
    out.set("q", matrix_to_js(r.q));
    out.set("k", matrix_to_js(r.k));
    return out;
  });
}

val plane_rotation_js(val d, val a, val b, val angle) {
  return guarded([&] {
    return matrix_to_js(plane_rotation(int_arg(d, "rotation size d"), int_arg(a, "coordinate a"),
                                       int_arg(b, "coordinate b"), number_arg(angle, "angle")));
  });
}

val change_query_key_basis_js(val q, val k, val a) {
  return guarded([&] {
    const ChangedBasis r =
        change_query_key_basis(matrix_from_js(q, "q"), matrix_from_js(k, "k"), matrix_from_js(a, "A"));
    val out = val::object();
    out.set("q", matrix_to_js(r.q));
    out.set("k", matrix_to_js(r.k));
    out.set("inverse_transpose", matrix_to_js(r.inverse_transpose));
    out.set("condition_number", r.condition_number);
    return out;
  });
}

val query_key_picture_js(val q, val k, val v, val score_scale) {
  return guarded([&] {
    const QueryKeyPicture p = query_key_picture(matrix_from_js(q, "q"), matrix_from_js(k, "k"), matrix_from_js(v, "v"),
                                                number_arg(score_scale, "score scale"));
    val out = val::object();
    out.set("dot_products", matrix_to_js(p.dot_products));
    out.set("scores", matrix_to_js(p.scores));
    out.set("weights", matrix_to_js(p.weights));
    out.set("reading", matrix_to_js(p.reading));
    out.set("query_lengths", matrix_to_js(p.query_lengths));
    out.set("key_lengths", matrix_to_js(p.key_lengths));
    out.set("query_key_angles", matrix_to_js(p.query_key_angles));
    out.set("query_angles", matrix_to_js(p.query_angles));
    return out;
  });
}

}  // namespace
}  // namespace headlab::web

EMSCRIPTEN_BINDINGS(headlab_attention) {
  emscripten::function("attention_forward", &headlab::web::attention_forward_js);
  emscripten::function("swap_projection_coordinates", &headlab::web::swap_projection_coordinates_js);
  emscripten::function("rotate_query_key", &headlab::web::rotate_query_key_js);
  emscripten::function("plane_rotation", &headlab::web::plane_rotation_js);
  emscripten::function("change_query_key_basis", &headlab::web::change_query_key_basis_js);
  emscripten::function("query_key_picture", &headlab::web::query_key_picture_js);
}
