#include "core/head_svd.hpp"

#include "core/check.hpp"
#include "core/head_matrices.hpp"
#include "core/jacobi_svd.hpp"
#include "core/ordered_products.hpp"
#include "core/transformer.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <string>

namespace headlab::transformer {

namespace {

// Flips singular pairs so that each row of `reading` (directions × V, W_E u_i) has its
// largest-magnitude entry positive; flips the same rows of the other readings.
void fix_signs(Matrix& reading, Matrix& other) {
  for (Eigen::Index i = 0; i < reading.rows(); ++i) {
    Eigen::Index best = 0;
    for (Eigen::Index t = 1; t < reading.cols(); ++t) {
      if (std::abs(reading(i, t)) > std::abs(reading(i, best))) best = t;
    }
    if (reading(i, best) < 0.0) {
      reading.row(i) *= -1.0;
      other.row(i) *= -1.0;
    }
  }
}

}  // namespace

double copying_score(const std::vector<std::complex<double>>& eigenvalues) {
  double positive = 0.0, total = 0.0;
  for (const auto& l : eigenvalues) {
    positive += l.real() > 0.0 ? l.real() : 0.0;
    total += std::sqrt(l.real() * l.real() + l.imag() * l.imag());
  }
  return total > 0.0 ? positive / total : 0.0;
}

std::vector<HeadSvd> head_svds(const TransformerWeights& w, int directions) {
  const auto& c = w.config;
  require_integer_in("directions", directions, 1, c.d_head);
  const long long work = static_cast<long long>(c.n_layers) * c.n_heads * c.d_model * c.d_head * c.d_head;
  if (work > kMaxHeadSvdWork) {
    throw InputError("head SVD: n_layers · n_heads · d_model · d_head² = " + std::to_string(work) + " exceeds " +
                     std::to_string(kMaxHeadSvdWork));
  }
  if (c.d_vocab > kMaxCircuitVocab) {
    throw InputError("head SVD: d_vocab = " + std::to_string(c.d_vocab) + " exceeds " +
                     std::to_string(kMaxCircuitVocab));
  }
  const Matrix W_U = folded_unembedding(w);
  std::vector<HeadSvd> out;
  for (int l = 0; l < c.n_layers; ++l) {
    for (int h = 0; h < c.n_heads; ++h) {
      const FoldedHead f = folded_head(w, l, h);
      HeadSvd r;
      const Svd ov = factored_svd(f.W_V, f.W_O);
      const Svd qk = factored_svd(f.W_Q, f.W_K.transpose());
      r.ov_singular_values = ov.singular_values;
      r.qk_singular_values = qk.singular_values;
      const auto top = [directions](const Matrix& rows) { return Matrix(rows.topRows(directions)); };
      // W_E u_i for each direction row: (directions × d)(V × d)ᵀ.
      r.ov_input = product_embedding_t(top(ov.u), w);
      r.ov_output = ordered_product(top(ov.v), W_U);
      fix_signs(r.ov_input, r.ov_output);
      r.qk_query = product_embedding_t(top(qk.u), w);
      r.qk_key = product_embedding_t(top(qk.v), w);
      fix_signs(r.qk_query, r.qk_key);
      // (W_O W_U)(W_E W_V): c × c.
      const Matrix twin = ordered_product(ordered_product(f.W_O, W_U), embedding_product(w, f.W_V));
      const Eigen::MatrixXd column_major = twin;
      const Eigen::EigenSolver<Eigen::MatrixXd> solver(column_major, false);
      if (solver.info() != Eigen::Success) {
        throw InputError("head SVD: the eigenvalues of head " + std::to_string(l) + "." + std::to_string(h) +
                         "'s OV circuit did not converge");
      }
      const auto& values = solver.eigenvalues();
      for (Eigen::Index i = 0; i < values.size(); ++i) r.ov_eigenvalues.push_back(values(i));
      // Largest |λ| first (then larger real part, then larger imaginary part): a stable order to show.
      std::stable_sort(r.ov_eigenvalues.begin(), r.ov_eigenvalues.end(),
                       [](const std::complex<double>& a, const std::complex<double>& b) {
                         const double ma = a.real() * a.real() + a.imag() * a.imag();
                         const double mb = b.real() * b.real() + b.imag() * b.imag();
                         if (ma != mb) return ma > mb;
                         if (a.real() != b.real()) return a.real() > b.real();
                         return a.imag() > b.imag();
                       });
      r.copying = copying_score(r.ov_eigenvalues);
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace headlab::transformer
