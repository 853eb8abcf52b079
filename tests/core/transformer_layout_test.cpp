#include "core/transformer.hpp"
#include "core/transformer_layout.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

using namespace headlab::transformer;

TEST_CASE("transformer layout: TransformerLens's state_dict names and shapes, in its order", "[transformer]") {
  // HookedTransformer(attn_only=True, normalization_type="LN", positional_embedding_type="standard")
  // .state_dict() for n_layers 2, n_heads 3, d_model 4, d_head 2, n_ctx 5, d_vocab 6, written out.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> expected{{"embed.W_E", {6, 4}},
                                                                          {"pos_embed.W_pos", {5, 4}}};
  for (const std::string p : {"blocks.0.", "blocks.1."}) {
    const std::vector<std::pair<std::string, std::vector<std::int64_t>>> layer{
        {p + "ln1.w", {4}},       {p + "ln1.b", {4}},       {p + "attn.W_Q", {3, 4, 2}}, {p + "attn.W_O", {3, 2, 4}},
        {p + "attn.b_Q", {3, 2}}, {p + "attn.b_O", {4}},    {p + "attn.W_K", {3, 4, 2}}, {p + "attn.W_V", {3, 4, 2}},
        {p + "attn.b_K", {3, 2}}, {p + "attn.b_V", {3, 2}}, {p + "attn.mask", {5, 5}},   {p + "attn.IGNORE", {}}};
    expected.insert(expected.end(), layer.begin(), layer.end());
  }
  expected.insert(expected.end(),
                  {{"ln_final.w", {4}}, {"ln_final.b", {4}}, {"unembed.W_U", {4, 6}}, {"unembed.b_U", {6}}});
  const auto c = transformer_config({2, 3, 4, 2, 5, 6}, Normalization::layer_norm);
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> walked;
  for_each_tensor(c, [&](const TensorLayout& row, int layer) {
    if (present(c, row.presence)) walked.emplace_back(tensor_name(row, layer), tensor_shape(c, row));
  });
  CHECK(walked == expected);
  // Without LayerNorm weights or W_pos the walk skips exactly those rows.
  for (auto norm : {Normalization::none, Normalization::layer_norm_pre}) {
    const auto bare = transformer_config({2, 3, 4, 2, 5, 6}, norm, Positions::none);
    std::vector<std::string> names;
    for_each_tensor(bare, [&](const TensorLayout& row, int layer) {
      if (present(bare, row.presence)) names.push_back(tensor_name(row, layer));
    });
    std::vector<std::string> kept;
    for (const auto& e : expected) {
      if (e.first != "pos_embed.W_pos" && e.first.find("ln") == std::string::npos) kept.push_back(e.first);
    }
    CHECK(names == kept);
  }
}

TEST_CASE("transformer layout: RMSNorm, grouped heads and rotary buffers in TransformerLens's order", "[transformer]") {
  // HookedTransformer(attn_only=True, normalization_type="RMS", positional_embedding_type="rotary",
  // rotary_dim=2, n_key_value_heads=1).state_dict() for 1 layer, 2 heads, d_model 4, d_head 2,
  // n_ctx 5, d_vocab 6: RMSNorm has w only, GroupedQueryAttention stores _W_K … with G = 1 head
  // after AbstractAttention's W_Q, W_O, b_Q, b_O, and the buffers follow the parameters.
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> expected{{"embed.W_E", {6, 4}},
                                                                                {"blocks.0.ln1.w", {4}},
                                                                                {"blocks.0.attn.W_Q", {2, 4, 2}},
                                                                                {"blocks.0.attn.W_O", {2, 2, 4}},
                                                                                {"blocks.0.attn.b_Q", {2, 2}},
                                                                                {"blocks.0.attn.b_O", {4}},
                                                                                {"blocks.0.attn._W_K", {1, 4, 2}},
                                                                                {"blocks.0.attn._W_V", {1, 4, 2}},
                                                                                {"blocks.0.attn._b_K", {1, 2}},
                                                                                {"blocks.0.attn._b_V", {1, 2}},
                                                                                {"blocks.0.attn.mask", {5, 5}},
                                                                                {"blocks.0.attn.IGNORE", {}},
                                                                                {"blocks.0.attn.rotary_sin", {5, 2}},
                                                                                {"blocks.0.attn.rotary_cos", {5, 2}},
                                                                                {"ln_final.w", {4}},
                                                                                {"unembed.W_U", {4, 6}},
                                                                                {"unembed.b_U", {6}}};
  auto c = transformer_config({1, 2, 4, 2, 5, 6}, Normalization::rms, Positions::rotary);
  c.rotary_dim = 2;
  c.n_key_value_heads = 1;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> walked;
  for_each_tensor(c, [&](const TensorLayout& row, int layer) {
    if (present(c, row.presence)) walked.emplace_back(tensor_name(row, layer), tensor_shape(c, row));
  });
  CHECK(walked == expected);
  // Shortformer positions keep W_pos (added to queries and keys only); RMSPre has no weights.
  const auto shortformer = transformer_config({1, 2, 4, 2, 5, 6}, Normalization::rms_pre, Positions::shortformer);
  for (const TensorLayout& row : kTransformerLayout) {
    const std::string name = row.name;
    if (name == "pos_embed.W_pos") CHECK(present(shortformer, row.presence));
    if (name == "ln_final.w") {
      CHECK_FALSE(present(shortformer, row.presence));
      CHECK(absence_reason(shortformer, row.presence) ==
            "config.normalization is \"RMSPre\" (ln*.w needs \"LN\" or \"RMS\")");
    }
    if (name == "blocks.{l}.attn._W_K") {
      CHECK_FALSE(present(shortformer, row.presence));
      CHECK(stack_size(c, row) == 1);
    }
  }
  // parameter_count: W_E, W_U, b_U; ln1.w; W_Q, W_O, b_Q, b_O; the grouped K, V and their biases; ln_final.w.
  const long long d = 4, H = 2, G = 1, dh = 2, V = 6;
  CHECK(parameter_count(c) == 2 * V * d + V + d + (2 * H * d * dh + H * dh + d) + (2 * G * d * dh + 2 * G * dh) + d);
}

TEST_CASE("transformer layout: parameter_count is the closed form of the layout's shapes", "[transformer]") {
  for (auto norm : {Normalization::none, Normalization::layer_norm, Normalization::layer_norm_pre}) {
    for (bool pos : {false, true}) {
      const auto c = transformer_config({3, 4, 32, 8, 24, 50}, norm, pos ? Positions::learned : Positions::none);
      const long long d = 32, H = 4, dh = 8, V = 50, n_ctx = 24, L = 3, ln = norm == Normalization::layer_norm;
      // W_E, W_U, b_U; W_pos; per layer W_Q, W_K, W_V, W_O, b_Q, b_K, b_V, b_O (+ ln1 w, b); ln_final w, b.
      const long long expected =
          2 * V * d + V + (pos ? n_ctx * d : 0) + L * (4 * H * d * dh + 3 * H * dh + d + ln * 2 * d) + ln * 2 * d;
      INFO(normalization_name(norm) << (pos ? " with W_pos" : ""));
      CHECK(parameter_count(c) == expected);
    }
  }
}

TEST_CASE("transformer layout: each row's shape and presence in config terms", "[transformer]") {
  const auto c = transformer_config({1, 3, 4, 2, 5, 6}, Normalization::layer_norm_pre);
  for (const TensorLayout& row : kTransformerLayout) {
    INFO(row.name);
    const std::string name = row.name;
    if (name == "blocks.{l}.attn.W_O") {
      CHECK(shape_text(row) == "[n_heads, d_head, d_model]");
      CHECK(tensor_name(row, 3) == "blocks.3.attn.W_O");
      CHECK(std::string(layer_suffix(row)) == "attn.W_O");
      CHECK((matrix_rows(c, row) == 2 && matrix_cols(c, row) == 4));  // each head c × d
    }
    if (name == "unembed.b_U") CHECK((matrix_rows(c, row) == 1 && matrix_cols(c, row) == 6));
    if (name == "blocks.{l}.attn.IGNORE") CHECK(shape_text(row) == "[]");
    if (name == "ln_final.w") {
      CHECK_FALSE(present(c, row.presence));
      CHECK(absence_reason(c, row.presence) == "config.normalization is \"LNPre\" (ln*.w needs \"LN\" or \"RMS\")");
    }
    // A parameter has exactly one place in TransformerWeights; a buffer none.
    const int places = (row.model != nullptr) + (row.layer != nullptr) + (row.heads != nullptr);
    CHECK(places == (row.role == Role::buffer ? 0 : 1));
    CHECK((row.heads != nullptr) == (row.role != Role::buffer && row.shape.rank == 3));
    CHECK(per_layer(row) == (row.model == nullptr));  // model-level tensors live in TransformerWeights itself
  }
}
