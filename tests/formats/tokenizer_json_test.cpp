#include "formats/tokenizer_json.hpp"

#include "core/check.hpp"
#include "formats/file_io.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using headlab::InputError;
using namespace headlab::formats;
using namespace headlab::tokenizer;

namespace {

std::string fixture(const std::string& name) {
  return read_text_file(std::string(HEADLAB_TEST_DATA) + "/tokenizer/" + name, "fixture");
}

// The tiny byte-level fixture with one substring replaced (must occur).
std::string tiny_with(const std::string& from, const std::string& to) {
  std::string text = fixture("tiny_bpe.json");
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string refusal(const std::string& text) {
  try {
    read_tokenizer_json(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(read)";
}

// A byte-level tokenizer with vocab and merges given, every byte spelled (ids 0–255).
std::string byte_level_json(const std::string& extra_vocab, const std::string& merges) {
  std::string vocab;
  for (int b = 0; b < 256; ++b) {
    std::string s;
    append_utf8(s, byte_char(static_cast<std::uint8_t>(b)));
    if (s == "\"" || s == "\\") s = "\\" + s;
    vocab += "\"" + s + "\":" + std::to_string(b) + ",";
  }
  return R"({"model":{"type":"BPE","vocab":{)" + vocab + extra_vocab + R"(},"merges":[)" + merges +
         R"(]},"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false}})";
}

}  // namespace

TEST_CASE("tokenizer.json: the tiny byte-level BPE fixture encodes as its merges say", "[tokenizer_json]") {
  const Tokenizer tk = read_tokenizer_json(fixture("tiny_bpe.json"), "tiny_bpe.json");
  CHECK(tk.model == Model::bpe);
  CHECK(tk.pre_tokenizer == PreTokenizer::byte_level);
  CHECK_FALSE(tk.add_prefix_space);
  CHECK(tk.tokens.size() == 264);
  CHECK(tk.merges.size() == 7);
  // "the": h+e (rank 0), no "t he" merge; " cat": Ġ+c, Ġc+a, Ġca+t; " the": h+e, Ġ+t, Ġt+he.
  CHECK(encode_ids(tk, "the cat the") == std::vector<int>{'t', 256, 262, 258});
  CHECK(encode_ids(tk, "in<|endoftext|>the") == std::vector<int>{259, 263, 't', 256});
  // Two spaces before a word: the first alone (Ġ = byte 0x20), the second joins " the".
  CHECK(encode_ids(tk, "  the") == std::vector<int>{' ', 258});
  CHECK(encode_ids(tk, "\xC3\xA9") == std::vector<int>{0xC3, 0xA9});
  CHECK(token_text(tk, 262) == " cat");
  CHECK(token_text(tk, 263) == "<|endoftext|>");
}

TEST_CASE("tokenizer.json: merges as [a, b] pairs read as \"a b\" strings", "[tokenizer_json]") {
  const Tokenizer a = read_tokenizer_json(byte_level_json(R"("ab":256)", R"("a b")"));
  const Tokenizer b = read_tokenizer_json(byte_level_json(R"("ab":256)", R"(["a","b"])"));
  CHECK(encode_ids(a, "xab") == std::vector<int>{'x', 256});
  CHECK(encode_ids(b, "xab") == std::vector<int>{'x', 256});
}

TEST_CASE("tokenizer.json: the WordLevel fixture splits at whitespace and punctuation", "[tokenizer_json]") {
  const Tokenizer tk = read_tokenizer_json(fixture("word_level.json"), "word_level.json");
  CHECK(tk.model == Model::word_level);
  CHECK(tk.unk_id == 0);
  CHECK(encode_ids(tk, "the cat sat on the mat.") == std::vector<int>{1, 2, 3, 5, 1, 6, 4});
  CHECK(encode_ids(tk, "naïve dog!") == std::vector<int>{7, 0, 0});
  CHECK(token_text(tk, 7) == "naïve");
}

TEST_CASE("tokenizer.json: what headlab does not implement is refused by name", "[tokenizer_json]") {
  CHECK(refusal(tiny_with(R"("normalizer": null)", R"("normalizer": {"type": "NFKC"})")) ==
        "t.json: normalizer type \"NFKC\" is not implemented (headlab reads null)");
  CHECK(refusal(tiny_with(R"("type": "ByteLevel",
  "add_prefix_space": false)",
                          R"("type": "Metaspace",
  "add_prefix_space": false)")) ==
        "t.json: pre_tokenizer type \"Metaspace\" is not implemented (headlab reads ByteLevel, Whitespace or "
        "WhitespaceSplit)");
  CHECK(refusal(tiny_with(R"("type": "BPE")", R"("type": "Unigram")")) ==
        "t.json: model type \"Unigram\" is not implemented (headlab reads BPE or WordLevel)");
  CHECK(refusal(tiny_with(R"("post_processor": {
  "type": "ByteLevel")",
                          R"("post_processor": {
  "type": "TemplateProcessing")")) ==
        "t.json: post_processor type \"TemplateProcessing\" is not implemented (headlab reads null or ByteLevel)");
  CHECK(refusal(tiny_with(R"("dropout": null)", R"("dropout": 0.1)")) ==
        "t.json: model.dropout is set (0.1); headlab's BPE reads it off (null)");
  CHECK(refusal(tiny_with(R"("continuing_subword_prefix": "")", R"("continuing_subword_prefix": "##")")) ==
        "t.json: model.continuing_subword_prefix is set (\"##\"); headlab's BPE reads it off (null)");
  CHECK(refusal(tiny_with(R"("truncation": null)", R"("truncation": {"max_length": 5})")) ==
        "t.json: truncation is set; headlab reads tokenizers without it (null)");
  CHECK(refusal(tiny_with(R"("lstrip": false)", R"("lstrip": true)")) ==
        "t.json: added_tokens[0].lstrip is true; headlab matches added tokens as written");
}

TEST_CASE("tokenizer.json: broken entries are refused naming the entry", "[tokenizer_json]") {
  CHECK(refusal("[1]") == "t.json: the document must be a JSON object (a Hugging Face tokenizer.json)");
  CHECK(refusal("{").rfind("t.json is not valid JSON", 0) == 0);
  CHECK(refusal(R"({"model":{"type":"BPE"},"pre_tokenizer":{"type":"ByteLevel"}})") ==
        "t.json: missing field \"model.vocab\" (an object of token: id)");
  CHECK(refusal(byte_level_json(R"("ab":256)", R"("a c")")) == "t.json: model.merges[0]: \"ac\" is not in model.vocab");
  CHECK(refusal(byte_level_json(R"("ab":256)", R"("a b c")")) ==
        "t.json: model.merges[0] \"a b c\" must be two tokens separated by one space");
  CHECK(refusal(byte_level_json(R"("ab":65)", "")) == "t.json: model.vocab[\"ab\"]: id 65 is also \"A\"");
  CHECK(refusal(byte_level_json(R"("ab":-1)", "")) ==
        "t.json: model.vocab[\"ab\"] must be an integer id in [0, 262143]");
  CHECK(refusal(byte_level_json(R"("ab":262144)", "")) ==
        "t.json: model.vocab[\"ab\"] must be an integer id in [0, 262143]");
  CHECK(refusal(tiny_with(R"("Ġ": 32,)", "")) ==
        "t.json: model.vocab has no token for the byte 0x20 (\"Ġ\"); a byte-level vocabulary spells all 256");
  CHECK(refusal(tiny_with(R"("unk_token": null)", R"("unk_token": "<unk>")")) ==
        "t.json: model.unk_token \"<unk>\" is not in model.vocab");
  CHECK(refusal(tiny_with(R"("id": 263)", R"("id": 5)")) ==
        "t.json: added_tokens[0]: id 5 is \"ą\" in model.vocab, not \"<|endoftext|>\"");
  std::string wl = fixture("word_level.json");
  wl.replace(wl.find(R"("unk_token": "[UNK]")"), 20, R"("unk_token": null)");
  CHECK(refusal(wl) ==
        "t.json: model.unk_token is missing; a WordLevel model needs one (a word not in the vocabulary becomes it)");
}

TEST_CASE("tokenizer.json: the bounds are inclusive and named", "[tokenizer_json][limits]") {
  // A token string of kMaxTokenBytes is read, one byte more is not.
  const std::string at_limit(kMaxTokenBytes, 'x');
  CHECK_NOTHROW(read_tokenizer_json(byte_level_json("\"" + at_limit + "\":256", "")));
  CHECK(
      refusal(byte_level_json("\"" + at_limit + "x\":256", "")) ==
      "t.json: model.vocab key \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…\" has 1025 bytes; a token has at most 1024");
  // JSON nesting: kMaxTokenizerDepth levels are read, one more is not.
  std::string nested = "1";
  for (int d = 0; d < kMaxTokenizerDepth - 1; ++d) nested = "[" + nested + "]";
  CHECK_NOTHROW(read_tokenizer_json(tiny_with(R"("version": "1.0")", R"("version": )" + nested)));
  CHECK(refusal(tiny_with(R"("version": "1.0")", R"("version": [)" + nested + "]"))
            .find("values nested deeper than 16 levels") != std::string::npos);
  // The file size.
  CHECK(refusal(std::string(kMaxTokenizerBytes + 1, ' ')) ==
        "t.json: the file has 8388609 bytes; the limit is 8388608");
  // The vocabulary and merge counts: one past each limit (entries are checked by count first).
  std::string vocab, merges;
  for (std::size_t i = 0; i <= kMaxTokenizerVocab; ++i) vocab += (i ? ",\"" : "\"") + std::to_string(i) + "\":0";
  CHECK(refusal(R"({"model":{"type":"WordLevel","vocab":{)" + vocab + "}}}") ==
        "t.json: model.vocab has 262145 entries; the limit is 262144");
  for (std::size_t i = 0; i <= kMaxTokenizerMerges; ++i) merges += i ? ",\"a b\"" : "\"a b\"";
  CHECK(refusal(byte_level_json(R"("ab":256)", merges)) ==
        "t.json: model.merges has 262145 entries; the limit is 262144");
  std::string added;
  for (std::size_t i = 0; i <= kMaxAddedTokens; ++i) added += std::string(i ? "," : "") + R"({"id":1,"content":"x"})";
  CHECK(refusal(tiny_with(R"("added_tokens": [)", R"("added_tokens": [)" + added + ",")) ==
        "t.json: added_tokens has 4098 entries; the limit is 4096");
}

TEST_CASE("tokenizer.json: a prompt for a model checks each id against d_vocab and names every id",
          "[tokenizer_json]") {
  const Tokenizer tk = read_tokenizer_json(fixture("tiny_bpe.json"), "tiny_bpe.json");
  CHECK(encode_prompt(tk, "the cat", 264) == std::vector<int>{'t', 256, 262});
  CHECK_THROWS_WITH(encode_prompt(tk, "the cat", 262), "token 2 \" cat\" has id 262; the model's d_vocab is 262");
  CHECK_THROWS_WITH(encode_prompt(tk, "", 264), "the text gives no tokens");
  const auto names = token_names(tk, 266);
  REQUIRE(names.size() == 266);
  CHECK(names[' '] == " ");
  CHECK(names[0xC3] == "\\xc3");
  CHECK(names[263] == "<|endoftext|>");
  CHECK(names[264] == "<unused 264>");
}
