// Named error bounds for the tests, derived from machine epsilon and the
// number of rounded operations on the path being checked.
#pragma once

#include <cmath>
#include <limits>

namespace headlab::test {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();  // 2.2e-16

// A dot product of length d rounds at most d times; each rounding errs by
// ε/2 of the running sum (Higham, §3.1): |fl(x·y) − x·y| ≤ d·ε·Σ|x_i y_i|.
inline double dot_product_bound(int d, double magnitude) { return d * kEpsilon * magnitude; }

// ---- central finite differences (tests/support/gradient_check.hpp) ----
// (f(x + h) − f(x − h)) / 2h errs by the truncation h²·|f‴|/6 plus the rounding ε·|f|/h.
// For the losses here (|f| and |f‴| of order one to a few) h = 1e-5 gives ≈ 1e-10 + 1e-11.
struct GradientTolerance {
  double step;      // h
  double absolute;  // allowed |analytic − numeric| …
  double relative;  // … plus this times |numeric|
};
// A loss of order one, h = 1e-5: 1e-8 is two orders of magnitude above the ≈ 1e-10 error.
constexpr GradientTolerance kSmoothLossGradient{1e-5, 1e-8, 0.0};
// The max-digit loss (|f| ≈ 3, gradients up to ≈ 10): the same plus a relative 1e-6, which
// still catches a wrong or missing term (those are off by their own size).
constexpr GradientTolerance kMaxDigitGradient{1e-5, 1e-8, 1e-6};
// A patching effect e = 1 − (LD − LD_corrupted)/span as a function of a head's output or of one
// receiver input's resid_pre (tests/core/attribution_patching_test.cpp), h = 1e-5: dividing by span
// (≥ 0.05 in those tests) and LayerNorm over d = 6 (see kFiniteDifferenceStep below) raise |f‴| to
// ~1e3, so the truncation h²|f‴|/6 reaches ≈ 2e-8 (seen: 1.2e-8 at a gradient of 3.1); the rounding
// ε|f|/h stays ≈ 1e-10. 1e-7 absolute plus 1e-6 relative is ≥ 5× that, and a dropped or mis-scaled
// term (off by its own size, ≳ 1e-3) still fails.
constexpr GradientTolerance kPatchEffectGradient{1e-5, 1e-7, 1e-6};
// softmax of a row with h = 1e-6: truncation ≈ 1e-12, rounding ε/h ≈ 1e-10.
constexpr GradientTolerance kSoftmaxGradient{1e-6, 1e-9, 0.0};

// ---- closed-form values ----
// A value computed by a handful of rounded operations against its closed form (sqrt, a
// division): each operation errs by ε/2, so 4ε relative covers them with margin.
constexpr double kFewOperationsRelative = 4 * kEpsilon;
// A closed form through a libm call (exp, cos, acos, sqrt in another order): libm is within
// 1 ulp, and the core's path takes tens of operations; 1e-14 relative is ≈ 45ε.
constexpr double kLibmPathRelative = 1e-14;
// Two paths through the same ≈ 64-long sums of terms of order one (the analyses against the
// model's own forward): 1e-12 absolute is ≈ 4500ε, the rounding of a few such sums.
constexpr double kReorderedSumAbsolute = 1e-12;
// An attention mass read two ways (analysis tables vs. a fresh forward), masses ≤ 1: a few ulp.
constexpr double kMassAbsolute = 1e-15;
// The angle between two vectors as acos of a clamped cosine, and a length as a square root of a
// short sum, against the closed form: 1e-15 relative, ≈ 4.5ε.
constexpr double kAngleRelative = 1e-15;
// A condition number from a 2 × 2 SVD (iterative, tens of rotations) against its exact value 1.
constexpr double kSvdRelative = 1e-12;
// A softmax through exp_nonpositive against one through std::exp: each exponential within 4 ulp
// of e^x (8ε apart), then a sum and a normalisation (a few ε more): 16ε relative.
constexpr double kExpVariantRelative = 16 * kEpsilon;

// A ziggurat layer edge (core/ziggurat.hpp) against its defining equation evaluated in long double
// from the edge before it: the stored edge came from one exp and one log (each within 4 ulp), a
// division, an addition and a square root (which halves its argument's relative error); measured
// 4.6 ulp at most, so 8 ulp, in units of the edge's own ulp.
constexpr double kZigguratEdgeUlps = 8.0;

// Scores after a d × d rotation: Q R and K R each add a length-d dot product
// per entry before the length-d score product, so the bound is three dot
// products' worth, doubled for the √d_k scaling and the final subtraction.
inline double rotated_score_bound(int d, double magnitude) { return 6.0 * dot_product_bound(d, magnitude); }

// Scores after a change of basis by an invertible A with condition number κ:
// Q A rounds like a rotation, but A^{−T} (from an SVD) carries a relative error of
// about d·ε·κ, which the product K A^{−T} and then the score pass on; so the
// rotation bound grows by the factor κ (Higham, §14.1: the inverse is accurate to κ·ε).
inline double changed_basis_score_bound(int d, double magnitude, double condition) {
  return condition * rotated_score_bound(d, magnitude);
}

// A softmax row of length m: m exponentials (each within 1 ulp), m − 1
// additions and m divisions, so the row sum is within 3·m·ε of one.
inline double softmax_row_sum_bound(int m) { return 3.0 * m * kEpsilon; }

}  // namespace headlab::test

namespace headlab::test {

// Five-point central differences (f(x−2h) − 8f(x−h) + 8f(x+h) − f(x+2h)) / 12h of a loss of order
// one: truncation h⁴/30·|f⁽⁵⁾| ≈ 3e-18·|f⁽⁵⁾| for h = 1e-4, small even where LayerNorm over a few
// dimensions makes high derivatives reach 1e4–1e7 (the plain central difference errs by 5e-7 there at
// h = 1e-5); rounding 1.5·ε·|f|/h ≈ 3e-12. The bound leaves a factor ≥ 100 over both; a dropped or
// mis-scaled backward term errs by the size of the gradient entry itself and fails it.
constexpr double kFiniteDifferenceStep = 1e-4;
inline double finite_difference_bound(double gradient_magnitude) { return 2e-8 * (1.0 + gradient_magnitude); }

// Two forwards of the same model that add the same products in different orders (per-token
// tables vs the residual-stream forward): logits of size ≲ 30 from sums of ≤ 64·16·9 products,
// each order within dot_product_bound; the max-digit parity promise is 1e-12 absolute.
constexpr double kSameModelLogitBound = 1e-12;

}  // namespace headlab::test

namespace headlab::test {

// Parity with the PyTorch float64 reference (tests/data/transformer/make_fixtures.py): the same
// model computed by torch's kernels in another summation order. Values of order ten through ≤ 4
// layers of length-≤16 dot products, softmax and LayerNorm: a few hundred roundings, ≈ 1e-13; the
// promised bound is 1e-10.
constexpr double kReferenceParityBound = 1e-10;
// Composition scores, singular values, eigenvalue moduli, copying scores, token readings and
// logit-lens probabilities against the torch float64 reference (tests/data/head_circuits/
// make_fixtures.py), which forms each d × d matrix whole where the core factors through d_head
// (Gram traces, Jacobi rotations) and takes LAPACK's SVD and eigenvalues: values of order one to a
// few hundred after ~10⁴ roundings, ≈ 1e-12 relative; an eigenvalue modulus moves by ≈ ε‖M‖ times
// its condition number. The promised bound, relative to max(1, |reference|): 1e-9.
constexpr double kCircuitReferenceRelative = 1e-9;
// A patching effect against the PyTorch float64 reference (tests/data/batch_patching/make_fixtures.py):
// e = 1 − (LD_patched − LD_corrupted)/(LD_clean − LD_corrupted), so the forward's ≈ 1e-13 error in each
// logit difference is divided by the span (> 0.1 in the fixture): ≈ 1e-12; the promised bound is 1e-9.
constexpr double kPatchingReferenceBound = 1e-9;
// A prompt's next-token loss, clean and with one head ablated, against the PyTorch float64 reference
// (tests/data/prompt_ablation/make_fixtures.py, which ablates by a hook in a full forward pass where
// the core resumes from the ablated layer): a mean over T − 1 positions of log Σ exp − logit, so its
// error is at most 2·max|Δ logit| ≤ 2·kReferenceParityBound, plus the mean head outputs' ≈ 1e-15
// relative difference carried through ≤ 2 layers (≈ 1e-13). Promised: 1e-9 absolute (losses ≈ 2–5 nats).
constexpr double kPromptLossReferenceBound = 1e-9;

}  // namespace headlab::test

namespace headlab::test {

// QK attribution (core/qk_attribution.hpp): Σ_{a,b} part_ij(a, b) against the forward pass's s_ij.
// Both are the same sum in two orders: S² parts (S ≤ 12 in the tests) of dot products of length
// c ≤ 8, after projections of length d ≤ 32 and a LayerNorm; each path rounds a few hundred times,
// each rounding ≤ ε/2 of what it adds, so |Σ parts − s_ij| ≲ 300·ε·Σ|parts| ≈ 7e-14·Σ|parts|.
// The promise: 1e-12 relative to Σ_{a,b} |part_ij(a, b)| (relative to s_ij itself would fail where
// the parts cancel, which is the interesting case).
constexpr double kQkPartsSumRelative = 1e-12;
// The parts against the PyTorch float64 reference (tests/data/qk_attribution/make_fixtures.py):
// values of order ten, each a few hundred roundings in another order (≈ 1e-13); promised 1e-9.
constexpr double kQkReferenceParityBound = 1e-9;

}  // namespace headlab::test

namespace headlab::test {

// A vector of order one rotated by deterministic_sin_cos's sine and cosine (each within 4 ulp, so
// sin² + cos² within a few ε of 1), against its length, its rotation back or the closed form with
// libm's cos and sin: a few roundings per component, 1e-14 ≈ 45ε.
constexpr double kRotationAbsolute = 1e-14;
// Scores of rotated vectors at two position pairs the same offset apart: each angle p·ω rounds on
// its own (ω within 4 ulp of e^{−(2k/R) ln base}, then the product), ≤ p·8ε ≈ 2e-13 rad at p ≈ 100,
// times |q||k| ≈ 5: 1e-12.
constexpr double kRotaryOffsetAbsolute = 1e-12;

}  // namespace headlab::test
