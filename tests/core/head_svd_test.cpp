#include "core/head_svd.hpp"

#include "core/check.hpp"
#include "core/tolerances.hpp"

#include <catch2/catch.hpp>

using headlab::InputError;
using headlab::Matrix;
using namespace headlab::transformer;

namespace {

// One layer, one head, d = c = V = 4, W_E = W_U = I: the token-space OV circuit is W_V W_O itself.
TransformerWeights identity_model(const Matrix& W_V, const Matrix& W_O) {
  TransformerWeights w = zero_weights(transformer_config({1, 1, 4, 4, 4, 4}));
  w.W_E = w.W_U = Matrix::Identity(4, 4);
  w.layers[0].W_V[0] = W_V;
  w.layers[0].W_O[0] = W_O;
  w.layers[0].W_Q[0] = Matrix::Identity(4, 4);
  w.layers[0].W_K[0] = Matrix::Identity(4, 4) * 3.0;
  return w;
}

}  // namespace

TEST_CASE("copying score: 1 for a head that copies, 0 for one that suppresses, ½ for ±1, 0 for a rotation",
          "[head_svd]") {
  const Matrix scale = Eigen::Vector4d(4.0, 3.0, 2.0, 1.0).asDiagonal();
  const auto copying = head_svds(identity_model(scale, Matrix::Identity(4, 4)), 2)[0];
  CHECK(copying.copying == 1.0);
  for (int i = 0; i < 4; ++i) {
    CHECK_THAT(copying.ov_singular_values(i), Catch::Matchers::WithinRel(4.0 - i, headlab::test::kSvdRelative));
    CHECK_THAT(copying.qk_singular_values(i), Catch::Matchers::WithinRel(3.0, headlab::test::kSvdRelative));
  }
  // The top OV direction reads token 0 and writes logit 0, sign fixed positive.
  CHECK_THAT(copying.ov_input(0, 0), Catch::Matchers::WithinAbs(1.0, headlab::test::kReorderedSumAbsolute));
  CHECK_THAT(copying.ov_output(0, 0), Catch::Matchers::WithinAbs(1.0, headlab::test::kReorderedSumAbsolute));
  CHECK_THAT(copying.ov_input(1, 1), Catch::Matchers::WithinAbs(1.0, headlab::test::kReorderedSumAbsolute));
  CHECK(head_svds(identity_model(scale, -Matrix::Identity(4, 4)), 1)[0].copying == 0.0);
  CHECK(copying_score({{1.0, 0.0}, {-1.0, 0.0}}) == 0.5);
  CHECK(copying_score({{0.0, 2.0}, {0.0, -2.0}}) == 0.0);
  CHECK(copying_score({{0.0, 0.0}}) == 0.0);
}

TEST_CASE("head SVD: bad directions and models past the work bound are named", "[head_svd]") {
  const auto w = identity_model(Matrix::Identity(4, 4), Matrix::Identity(4, 4));
  CHECK_THROWS_WITH(head_svds(w, 0), Catch::Contains("directions"));
  CHECK_THROWS_WITH(head_svds(w, 5), Catch::Contains("directions"));
  // Refused from the config alone, before any weight is read (so no 2 GB model is built here).
  TransformerWeights big;
  big.config = transformer_config({4, 64, 4096, 64, 8, 8});
  CHECK_THROWS_WITH(head_svds(big, 1), Catch::Contains("exceeds 268435456"));
}
