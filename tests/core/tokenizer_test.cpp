#include "core/tokenizer.hpp"

#include "core/check.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using headlab::InputError;
using namespace headlab::tokenizer;

namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& [b, e] : gpt2_split(text)) out.push_back(text.substr(b, e - b));
  return out;
}

using Strings = std::vector<std::string>;

// A byte-level BPE whose ids are the bytes (0–255) and whose merges are given as strings of the
// byte-level alphabet, each new token taking the next id.
Tokenizer byte_bpe(const std::vector<std::pair<std::string, std::string>>& merges) {
  Tokenizer tk;
  for (int b = 0; b < 256; ++b) {
    std::string s;
    append_utf8(s, byte_char(static_cast<std::uint8_t>(b)));
    tk.vocab[s] = b;
    tk.tokens.push_back(s);
  }
  int rank = 0;
  for (const auto& [a, b] : merges) {
    const int id = static_cast<int>(tk.tokens.size());
    tk.vocab[a + b] = id;
    tk.tokens.push_back(a + b);
    const std::uint64_t key =
        static_cast<std::uint64_t>(tk.vocab.at(a)) << 32 | static_cast<std::uint32_t>(tk.vocab.at(b));
    tk.merges[key] = {rank++, id};
  }
  return tk;
}

}  // namespace

TEST_CASE("tokenizer: GPT-2's pattern splits contractions, letters, digits, others and spaces", "[tokenizer]") {
  CHECK(split("Hello world") == Strings{"Hello", " world"});
  CHECK(split("it's they're we've I'm you'll he'd don't") ==
        Strings{"it", "'s", " they", "'re", " we", "'ve", " I", "'m", " you", "'ll", " he", "'d", " don", "'t"});
  // Contractions are lowercase only: 'S is an apostrophe then a letter run.
  CHECK(split("IT'S") == Strings{"IT", "'", "S"});
  CHECK(split("abc123 4.5") == Strings{"abc", "123", " 4", ".", "5"});
  // A run of spaces before a word leaves its last space to the word; at the end it stays whole.
  CHECK(split("a   b  ") == Strings{"a", "  ", " b", "  "});
  // A single tab before a letter is not " ?": \s+(?!\S) fails on it, \s+ takes it alone.
  CHECK(split("a\t\tb\nc") == Strings{"a", "\t", "\t", "b", "\n", "c"});
  CHECK(split("!!! ?") == Strings{"!!!", " ?"});
  // Letters of every script, numbers beyond ASCII (², Ⅻ), a combining mark (not \p{L}), emoji.
  CHECK(split("日本語 テスト") == Strings{"日本語", " テスト"});
  CHECK(split("x² Ⅻ") == Strings{"x", "²", " Ⅻ"});
  CHECK(split("e\xCC\x81t\xC3\xA9") == Strings{"e", "\xCC\x81", "t\xC3\xA9"});
  CHECK(split("hi 👋🏽!") == Strings{"hi", " 👋🏽!"});
  // U+3000 (ideographic space) is \s; U+00A0 (no-break space) too, U+0085 not (JavaScript's \s).
  CHECK(split("a\xE3\x80\x80"
              "b") == Strings{"a", "\xE3\x80\x80", "b"});
  CHECK(split("a\xC2\x85"
              "b") == Strings{"a", "\xC2\x85", "b"});
  CHECK(split("").empty());
}

TEST_CASE("tokenizer: GPT-2's byte map keeps printable bytes and moves the others past U+00FF", "[tokenizer]") {
  CHECK(byte_char('A') == 'A');
  CHECK(byte_char(0xE9) == 0xE9);
  CHECK(byte_char(0) == 0x100);
  CHECK(byte_char(' ') == 0x120);   // Ġ
  CHECK(byte_char('\n') == 0x10A);  // Ċ
  CHECK(byte_char(0xAD) == 0x143);  // the soft hyphen is the last one moved
}

TEST_CASE("tokenizer: BPE merges the lowest rank first, the leftmost of equal pairs", "[tokenizer]") {
  // "aaa": the one merge a+a joins the left pair, leaving [aa, a]; "aaaa" becomes [aa, aa], then
  // aa+aa (rank 1) gives one token.
  const Tokenizer tk = byte_bpe({{"a", "a"}, {"aa", "aa"}, {"b", "c"}, {"a", "b"}});
  const int aa = 256, aaaa = 257, bc = 258, ab = 259;
  CHECK(encode_ids(tk, "aaa") == std::vector<int>{aa, 'a'});
  CHECK(encode_ids(tk, "aaaa") == std::vector<int>{aaaa});
  // "abc": b+c (rank 2) before a+b (rank 3), so [a, bc]; "ab" alone has only a+b.
  CHECK(encode_ids(tk, "abc") == std::vector<int>{'a', bc});
  CHECK(encode_ids(tk, "ab") == std::vector<int>{ab});
  // Spans: each token's bytes of the text; a two-byte character is two byte tokens.
  const auto pieces = encode(tk, "aaa \xC3\xA9");
  REQUIRE(pieces.size() == 5);  // [aa, a] and " é" as Ġ and its two bytes
  CHECK(pieces[0].begin == 0);
  CHECK(pieces[0].end == 2);
  CHECK(pieces[2].id == ' ');
  CHECK(pieces[2].begin == 3);
  CHECK(pieces[3].id == 0xC3);
  CHECK(pieces[3].begin == 4);
  CHECK(pieces[4].id == 0xA9);
  CHECK(pieces[4].end == 6);
  CHECK(token_text(tk, 0xC3) == "\\xc3");
  CHECK(token_text(tk, ' ') == " ");
  CHECK(token_text(tk, aa) == "aa");
}

TEST_CASE("tokenizer: a long word merges in far fewer than n² steps and gives the same tokens", "[tokenizer]") {
  // 65536 'a' bytes: every a+a merge, then aa+aa: 16384 tokens "aaaa".
  const Tokenizer tk = byte_bpe({{"a", "a"}, {"aa", "aa"}});
  const auto ids = encode_ids(tk, std::string(kMaxPromptTextBytes, 'a'));
  CHECK(ids.size() == kMaxPromptTextBytes / 4);
  CHECK(ids.front() == 257);
  CHECK(ids.back() == 257);
}

TEST_CASE("tokenizer: added tokens cut the text first, the longest at a position", "[tokenizer]") {
  Tokenizer tk = byte_bpe({{"a", "a"}});
  tk.added.push_back({"<x>", 300, true});
  tk.added.push_back({"<x><y>", 301, true});
  CHECK(encode_ids(tk, "aa<x>aa<x><y>") == std::vector<int>{256, 300, 256, 301});
  CHECK(token_bytes(tk, 301) == "<x><y>");
}

TEST_CASE("tokenizer: add_prefix_space puts a space before a part that has none", "[tokenizer]") {
  Tokenizer tk = byte_bpe({{"Ġ", "a"}});
  tk.add_prefix_space = true;
  const auto pieces = encode(tk, "a a");
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[0].id == 256);
  CHECK(pieces[0].begin == 0);  // the added space covers no byte
  CHECK(pieces[0].end == 1);
  CHECK(pieces[1].id == 256);
  CHECK(pieces[1].begin == 1);
}

TEST_CASE("tokenizer: WordLevel looks words up, the unknown token otherwise", "[tokenizer]") {
  Tokenizer tk;
  tk.model = Model::word_level;
  tk.pre_tokenizer = PreTokenizer::whitespace;
  tk.tokens = {"[UNK]", "hello", "!", "wörld"};
  for (int i = 0; i < 4; ++i) tk.vocab[tk.tokens[static_cast<std::size_t>(i)]] = i;
  tk.unk_id = 0;
  CHECK(encode_ids(tk, "hello wörld!!  x") == std::vector<int>{1, 3, 0, 0});
  CHECK(encode_ids(tk, "hello !") == std::vector<int>{1, 2});
  tk.pre_tokenizer = PreTokenizer::whitespace_split;
  CHECK(encode_ids(tk, " hello\twörld!\n") == std::vector<int>{1, 0});
  tk.unk_id = -1;
  CHECK_THROWS_WITH(encode_ids(tk, "hello x"),
                    "the tokenizer has no token for the word \"x\" at byte 6 and no unknown token (model.unk_token)");
}

TEST_CASE("tokenizer: text that is not UTF-8 or too long is refused by byte", "[tokenizer]") {
  const Tokenizer tk = byte_bpe({});
  CHECK_THROWS_WITH(encode_ids(tk, "ab\xC3"), "the text is not UTF-8: byte 2 (0xc3) starts no character");
  CHECK_THROWS_WITH(encode_ids(tk, "\xED\xA0\x80"), "the text is not UTF-8: byte 0 (0xed) starts no character");
  CHECK_THROWS_WITH(encode_ids(tk, "\xC0\xAF"), "the text is not UTF-8: byte 0 (0xc0) starts no character");
  CHECK_THROWS_WITH(encode_ids(tk, std::string(kMaxPromptTextBytes + 1, 'a')),
                    "the text has 65537 bytes; a tokenizer reads at most 65536");
  CHECK(encode_ids(tk, std::string(kMaxPromptTextBytes, 'a')).size() == kMaxPromptTextBytes);
}
