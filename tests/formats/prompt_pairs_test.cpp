// The prompt-pairs file (formats/prompt_pairs.hpp): prompts as text or token ids, tokens as ids or
// names, the writer's file read back, and every refusal naming the pair and the field.
#include "formats/prompt_pairs.hpp"

#include "core/check.hpp"
#include "core/induction_task.hpp"

#include <catch2/catch.hpp>

using headlab::PromptPair;
using namespace headlab::formats;
namespace tf = headlab::transformer;

namespace {

tf::TransformerConfig named_config() {
  auto c = tf::transformer_config({1, 1, 4, 2, 6, 5});
  c.token_names = {"a", "b", "c", "d", "e"};
  return c;
}

}  // namespace

TEST_CASE("prompt pairs read from text, ids and names", "[prompt_pairs]") {
  const auto pairs = read_prompt_pairs(
      named_config(),
      R"({"pairs":[{"clean":"a b c","corrupted":[0,3,2],"answer":"d","wrong":1},{"clean":"0,1","corrupted":"e b","answer":4,"wrong":"a"}]})",
      "p.json");
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[0].clean == std::vector<int>{0, 1, 2});
  CHECK(pairs[0].corrupted == std::vector<int>{0, 3, 2});
  CHECK(pairs[0].answer == 3);
  CHECK(pairs[0].wrong == 1);
  CHECK(pairs[1].corrupted == std::vector<int>{4, 1});
  CHECK(pairs[1].wrong == 0);
}

TEST_CASE("a generator's pairs written and read back are the same pairs", "[prompt_pairs]") {
  const auto c = tf::induction_default_config();
  const auto pairs = tf::induction_pairs(c, 1, 5);
  const auto back = read_prompt_pairs(c, write_prompt_pairs(pairs), "pairs");
  REQUIRE(back.size() == pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    CHECK(back[i].clean == pairs[i].clean);
    CHECK(back[i].corrupted == pairs[i].corrupted);
    CHECK(back[i].answer == pairs[i].answer);
    CHECK(back[i].wrong == pairs[i].wrong);
  }
}

TEST_CASE("a bad pairs file is refused naming the file, the pair and the field", "[prompt_pairs]") {
  const auto c = named_config();
  const auto refused = [&](const std::string& text) { return read_prompt_pairs(c, text, "p.json"); };
  CHECK_THROWS_WITH(refused("[1]"), Catch::Contains("p.json: must be a JSON object"));
  CHECK_THROWS_WITH(refused(R"({"pairs":[],"extra":1})"), Catch::Contains("p.json: unknown field \"extra\""));
  CHECK_THROWS_WITH(refused(R"({"pairs":[]})"), Catch::Contains("p.json: a batch needs at least one prompt pair"));
  CHECK_THROWS_WITH(refused(R"({"pairs":[{"clean":"a b","corrupted":"a c","answer":1}]})"),
                    Catch::Contains("p.json: pair 0: missing field \"wrong\""));
  CHECK_THROWS_WITH(refused(R"({"pairs":[{"clean":"a x","corrupted":"a c","answer":1,"wrong":2}]})"),
                    Catch::Contains("p.json: pair 0 clean: prompt token \"x\" at position 1"));
  CHECK_THROWS_WITH(refused(R"({"pairs":[{"clean":"a b","corrupted":[0,1.5],"answer":1,"wrong":2}]})"),
                    Catch::Contains("pair 0 corrupted[1] must be a token id in [0, 5)"));
  CHECK_THROWS_WITH(refused(R"({"pairs":[{"clean":"a b","corrupted":"a c","answer":5,"wrong":2}]})"),
                    Catch::Contains("pair 0 answer = 5 is outside [0, 5)"));
  CHECK_THROWS_WITH(refused(R"({"pairs":[{"clean":"a b","corrupted":"a c","answer":"z","wrong":2}]})"),
                    Catch::Contains("pair 0 answer \"z\" is not one of the model's token names"));
  CHECK_THROWS_WITH(refused(R"({"pairs":[{"clean":"a b","corrupted":"a","answer":1,"wrong":2}]})"),
                    Catch::Contains("pair 0: the corrupted prompt has 1 tokens, the clean one 2"));
  CHECK_THROWS_WITH(refused(R"({"pairs":[{"clean":"a b a b a b a","corrupted":"a","answer":1,"wrong":2}]})"),
                    Catch::Contains("pair 0 clean: the prompt has 7 tokens; the model's context n_ctx = 6"));
  std::string many = R"({"pairs":[)";
  for (int i = 0; i <= headlab::kMaxPromptPairs; ++i)
    many += std::string(i ? "," : "") + R"({"clean":"a b","corrupted":"a c","answer":1,"wrong":2})";
  many += "]}";
  CHECK_THROWS_WITH(refused(many), Catch::Contains("p.json: a batch holds at most 1024 prompt pairs, got 1025"));
}
