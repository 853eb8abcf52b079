// Edits of one projection at a time, for the ablations of the first article.
#pragma once

#include "core/matrix.hpp"

namespace headlab {

// Returns w (d_model × d) with output columns a and b exchanged: every projected
// vector x·w has its coordinates a and b swapped.
Matrix swap_projection_coordinates(const Matrix& w, int a, int b);

// Returns {Q R, K R} for Q, K (n × d) and an orthogonal R (d × d). Because
// R Rᵀ = I, (Q R)(K R)ᵀ = Q Kᵀ: the scores are unchanged while the coordinates move.
// Throws InputError unless ‖Rᵀ R − I‖_max ≤ orthogonality_tolerance.
struct RotatedQueryKey {
  Matrix q;  // n × d
  Matrix k;  // m × d
};
RotatedQueryKey rotate_query_key(const Matrix& q, const Matrix& k, const Matrix& rotation,
                                 double orthogonality_tolerance = 1e-9);

// The plane rotation by angle θ (radians) in coordinates (a, b) of a d × d identity.
Matrix plane_rotation(int d, int a, int b, double angle);

}  // namespace headlab
