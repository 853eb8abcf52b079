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

// A general change of the query–key basis by an invertible A (d × d):
//   Q′ = Q A,  K′ = K A^{−T}   ⇒   Q′K′ᵀ = Q A A^{−1} Kᵀ = Q Kᵀ.
// Every score is unchanged, yet lengths of queries and the angles between them move
// (unless A is orthogonal, where A^{−T} = A and this is rotate_query_key).
// Throws InputError when A is not square d × d, has a non-finite entry, is singular,
// or has condition number σ_max/σ_min above max_condition (scores would lose about
// log10 κ digits, so "unchanged" could no longer be shown).
struct ChangedBasis {
  Matrix q;                  // n × d, Q A
  Matrix k;                  // m × d, K A^{−T}
  Matrix inverse_transpose;  // d × d, A^{−T}
  double condition_number;   // κ(A) = σ_max/σ_min ≥ 1
};
ChangedBasis change_query_key_basis(const Matrix& q, const Matrix& k, const Matrix& a, double max_condition = 1e8);

// The query–key picture of the first article, at a chosen score scale s ≥ 0:
//   dot_products = Q Kᵀ (n × m), scores = s · Q Kᵀ, weights = softmax_rows(scores),
//   reading = weights · V (n × d_v).
// s = 1/√d_k is the head's own scale; larger s sharpens the weights, s = 0 makes them uniform.
// Also the geometry the canvas annotates: lengths ‖q_i‖, ‖k_j‖ and the angles (radians,
// in [0, π]) between queries and keys and between queries; a zero vector's angle is NaN-free 0.
struct QueryKeyPicture {
  Matrix dot_products;      // n × m
  Matrix scores;            // n × m
  Matrix weights;           // n × m, rows sum to one
  Matrix reading;           // n × d_v
  RowVector query_lengths;  // 1 × n
  RowVector key_lengths;    // 1 × m
  Matrix query_key_angles;  // n × m
  Matrix query_angles;      // n × n
};
QueryKeyPicture query_key_picture(const Matrix& q, const Matrix& k, const Matrix& v, double score_scale);

}  // namespace headlab
