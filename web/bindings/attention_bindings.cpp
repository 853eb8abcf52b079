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
    return matrices_to_js({{"q", &r.q},
                           {"k", &r.k},
                           {"v", &r.v},
                           {"dot_products", &r.dot_products},
                           {"scores", &r.scores},
                           {"weights", &r.weights},
                           {"reading", &r.reading}});
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
    return matrices_to_js({{"q", &r.q}, {"k", &r.k}});
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
    val out = matrices_to_js({{"q", &r.q}, {"k", &r.k}, {"inverse_transpose", &r.inverse_transpose}});
    out.set("condition_number", r.condition_number);
    return out;
  });
}

val query_key_picture_js(val q, val k, val v, val score_scale) {
  return guarded([&] {
    const QueryKeyPicture p = query_key_picture(matrix_from_js(q, "q"), matrix_from_js(k, "k"), matrix_from_js(v, "v"),
                                                number_arg(score_scale, "score scale"));
    return matrices_to_js({{"dot_products", &p.dot_products},
                           {"scores", &p.scores},
                           {"weights", &p.weights},
                           {"reading", &p.reading},
                           {"query_lengths", &p.query_lengths},
                           {"key_lengths", &p.key_lengths},
                           {"query_key_angles", &p.query_key_angles},
                           {"query_angles", &p.query_angles}});
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
