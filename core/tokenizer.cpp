#include "core/tokenizer.hpp"

#include "core/check.hpp"
#include "core/unicode_classes.hpp"

#include <algorithm>
#include <array>
#include <queue>

namespace headlab::tokenizer {

namespace {

template <std::size_t N>
bool in(const unicode::Range (&ranges)[N], std::uint32_t cp) {
  // The last range whose first ≤ cp, then its last ≥ cp.
  const auto* it = std::upper_bound(std::begin(ranges), std::end(ranges), cp,
                                    [](std::uint32_t c, const unicode::Range& r) { return c < r.first; });
  return it != std::begin(ranges) && cp <= (it - 1)->last;
}

bool is_letter(std::uint32_t cp) { return in(unicode::kLetter, cp); }
bool is_number(std::uint32_t cp) { return in(unicode::kNumber, cp); }
bool is_js_space(std::uint32_t cp) { return in(unicode::kSpace, cp); }
bool is_word(std::uint32_t cp) { return in(unicode::kWord, cp); }
bool is_white_space(std::uint32_t cp) { return in(unicode::kWhiteSpace, cp); }

// A UTF-8 text as code points with the byte offset of each (and one past the end).
struct CodePoints {
  std::vector<std::uint32_t> cp;
  std::vector<std::size_t> at;  // cp.size() + 1 offsets
};

// Length of the well-formed UTF-8 character at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0.
std::size_t utf8_length(std::string_view text, std::size_t i, std::uint32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t b0 = byte(i);
  const std::size_t left = text.size() - i;
  const auto cont = [&](std::size_t k) { return k < left && (byte(i + k) & 0xC0) == 0x80; };
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  if (b0 >= 0xC2 && b0 <= 0xDF && cont(1)) {
    cp = (b0 & 0x1Fu) << 6 | (byte(i + 1) & 0x3Fu);
    return 2;
  }
  if (b0 >= 0xE0 && b0 <= 0xEF && cont(1) && cont(2)) {
    cp = (b0 & 0x0Fu) << 12 | (byte(i + 1) & 0x3Fu) << 6 | (byte(i + 2) & 0x3Fu);
    if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4 && cont(1) && cont(2) && cont(3)) {
    cp = (b0 & 0x07u) << 18 | (byte(i + 1) & 0x3Fu) << 12 | (byte(i + 2) & 0x3Fu) << 6 | (byte(i + 3) & 0x3Fu);
    if (cp < 0x10000 || cp > 0x10FFFF) return 0;
    return 4;
  }
  return 0;
}

CodePoints decode(std::string_view text) {
  CodePoints out;
  out.cp.reserve(text.size());
  out.at.reserve(text.size() + 1);
  std::size_t i = 0;
  while (i < text.size()) {
    std::uint32_t cp = 0;
    const std::size_t n = utf8_length(text, i, cp);
    if (n == 0) {
      throw InputError("the text is not UTF-8: byte " + std::to_string(i) + " (0x" +
                       "0123456789abcdef"[static_cast<std::uint8_t>(text[i]) >> 4] +
                       "0123456789abcdef"[static_cast<std::uint8_t>(text[i]) & 15] + ") starts no character");
    }
    out.cp.push_back(cp);
    out.at.push_back(i);
    i += n;
  }
  out.at.push_back(text.size());
  return out;
}

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

// GPT-2's pattern over code points [from, to) of `t`, tried alternative by alternative at each
// position as a backtracking regex engine does (the first alternative that matches wins).
void split_gpt2(const CodePoints& t, std::size_t from, std::size_t to, Spans& out) {
  const auto& c = t.cp;
  const auto other = [](std::uint32_t cp) { return !is_js_space(cp) && !is_letter(cp) && !is_number(cp); };
  std::size_t i = from;
  while (i < to) {
    std::size_t j = i;
    // 's 't 're 've 'm 'll 'd (ASCII, case-sensitive)
    if (c[i] == '\'' && i + 1 < to) {
      const std::uint32_t a = c[i + 1];
      const std::uint32_t b = i + 2 < to ? c[i + 2] : 0;
      if (a == 's' || a == 't' || a == 'm' || a == 'd') j = i + 2;
      else if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) j = i + 3;
    }
    // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+', in this order
    for (int kind = 0; kind < 3 && j == i; ++kind) {
      const auto matches = [&](std::uint32_t cp) {
        return kind == 0 ? is_letter(cp) : kind == 1 ? is_number(cp) : other(cp);
      };
      std::size_t k = i + (c[i] == ' ' ? 1 : 0);
      if (k < to && matches(c[k])) {
        while (k < to && matches(c[k])) ++k;
        j = k;
      }
    }
    if (j == i) {
      // \s+(?!\S) then \s+: c[i] is a space here (every other character matched above).
      std::size_t k = i;
      while (k < to && is_js_space(c[k])) ++k;
      if (k == to || k - i == 1) j = k;  // the whole run (at the end, or a single space before \S)
      else j = k - 1;                    // all but the last, which then prefixes the next piece
    }
    out.emplace_back(t.at[i], t.at[j]);
    i = j;
  }
}

// \w+|[^\w\s]+ (Rust's Unicode \w and \s), whitespace dropped.
void split_whitespace(const CodePoints& t, std::size_t from, std::size_t to, Spans& out) {
  std::size_t i = from;
  while (i < to) {
    if (is_white_space(t.cp[i])) {
      ++i;
      continue;
    }
    const bool word = is_word(t.cp[i]);
    std::size_t j = i;
    while (j < to && !is_white_space(t.cp[j]) && is_word(t.cp[j]) == word) ++j;
    out.emplace_back(t.at[i], t.at[j]);
    i = j;
  }
}

void split_whitespace_split(const CodePoints& t, std::size_t from, std::size_t to, Spans& out) {
  std::size_t i = from;
  while (i < to) {
    if (is_white_space(t.cp[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < to && !is_white_space(t.cp[j])) ++j;
    out.emplace_back(t.at[i], t.at[j]);
    i = j;
  }
}

const std::array<std::uint32_t, 256>& byte_map() {
  // GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes
  // for U+0100, U+0101, … in byte order.
  static const std::array<std::uint32_t, 256> map = [] {
    std::array<std::uint32_t, 256> m{};
    std::uint32_t next = 256;
    for (std::uint32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      m[b] = printable ? b : next++;
    }
    return m;
  }();
  return map;
}

std::string describe(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s.substr(0, 40)) {
    const auto b = static_cast<std::uint8_t>(ch);
    if (b < 0x20 || b == 0x7F || b == '"' || b == '\\') {
      out += "\\x";
      out += "0123456789abcdef"[b >> 4];
      out += "0123456789abcdef"[b & 15];
    } else {
      out += ch;
    }
  }
  return out + (s.size() > 40 ? "…\"" : "\"");
}

// BPE over the symbols of one piece (ids of its characters in order, each with its byte span):
// the pair of lowest rank merges first, the leftmost of equal ranks; a heap of candidate pairs
// (rank, left position) over a doubly linked list, each candidate checked when it is popped.
void bpe(const Tokenizer& tk, std::vector<Piece>& sym, std::vector<Piece>& out) {
  const std::size_t n = sym.size();
  std::vector<std::ptrdiff_t> prev(n), next(n);
  std::vector<bool> alive(n, true);
  for (std::size_t i = 0; i < n; ++i) {
    prev[i] = static_cast<std::ptrdiff_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<std::ptrdiff_t>(i + 1) : -1;
  }
  struct Candidate {
    int rank;
    std::size_t left;
    int left_id, right_id;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
  const auto key = [](int a, int b) { return static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b); };
  const auto push = [&](std::size_t left) {
    if (next[left] < 0) return;
    const auto right = static_cast<std::size_t>(next[left]);
    const auto it = tk.merges.find(key(sym[left].id, sym[right].id));
    if (it != tk.merges.end()) heap.push({it->second.rank, left, sym[left].id, sym[right].id});
  };
  for (std::size_t i = 0; i + 1 < n; ++i) push(i);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    if (!alive[c.left] || sym[c.left].id != c.left_id || next[c.left] < 0) continue;
    const auto right = static_cast<std::size_t>(next[c.left]);
    if (sym[right].id != c.right_id) continue;
    sym[c.left].id = tk.merges.at(key(c.left_id, c.right_id)).id;
    sym[c.left].end = sym[right].end;
    alive[right] = false;
    next[c.left] = next[right];
    if (next[right] >= 0) prev[static_cast<std::size_t>(next[right])] = static_cast<std::ptrdiff_t>(c.left);
    if (prev[c.left] >= 0) push(static_cast<std::size_t>(prev[c.left]));
    push(c.left);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (alive[i]) out.push_back(sym[i]);
  }
}

int lookup_or_unk(const Tokenizer& tk, const std::string& s, std::size_t at, const char* what) {
  const auto it = tk.vocab.find(s);
  if (it != tk.vocab.end()) return it->second;
  if (tk.unk_id >= 0) return tk.unk_id;
  throw InputError(std::string("the tokenizer has no token for the ") + what + " " + describe(s) + " at byte " +
                   std::to_string(at) + " and no unknown token (model.unk_token)");
}

// One piece [begin, end) of the text (prefixed with a space when `prefix`) to tokens.
void encode_piece(const Tokenizer& tk, std::string_view text, std::size_t begin, std::size_t end, bool prefix,
                  std::unordered_map<std::string, std::vector<Piece>>& cache, std::vector<Piece>& out) {
  const std::string_view piece = text.substr(begin, end - begin);
  if (tk.model == Model::word_level) {
    out.push_back({lookup_or_unk(tk, std::string(piece), begin, "word"), begin, end});
    return;
  }
  const bool bytes = tk.pre_tokenizer == PreTokenizer::byte_level;
  // The piece as the vocabulary spells it, with each symbol's byte span.
  std::string spelled;
  std::vector<Piece> sym;
  std::vector<std::string> units;
  const auto unit = [&](std::string s, std::size_t b, std::size_t e) {
    spelled += s;
    units.push_back(std::move(s));
    sym.push_back({0, b, e});
  };
  if (bytes) {
    if (prefix) {
      std::string s;
      append_utf8(s, byte_map()[' ']);
      unit(std::move(s), begin, begin);
    }
    for (std::size_t i = begin; i < end; ++i) {
      std::string s;
      append_utf8(s, byte_map()[static_cast<std::uint8_t>(text[i])]);
      unit(std::move(s), i, i + 1);
    }
  } else {
    const CodePoints t = decode(piece);
    for (std::size_t k = 0; k < t.cp.size(); ++k) {
      unit(std::string(piece.substr(t.at[k], t.at[k + 1] - t.at[k])), begin + t.at[k], begin + t.at[k + 1]);
    }
  }
  if (tk.ignore_merges) {
    const auto it = tk.vocab.find(spelled);
    if (it != tk.vocab.end()) {
      out.push_back({it->second, begin, end});
      return;
    }
  }
  const std::string cache_key = (prefix ? "\x01" : "\x00") + spelled;
  const auto cached = cache.find(cache_key);
  if (cached != cache.end()) {
    // The same spelling elsewhere: the same ids, the spans moved by the offset.
    const std::size_t from = cached->second.empty() ? begin : cached->second.front().begin;
    for (Piece p : cached->second) {
      p.begin = p.begin - from + begin;
      p.end = p.end - from + begin;
      out.push_back(p);
    }
    return;
  }
  for (std::size_t k = 0; k < sym.size(); ++k) sym[k].id = lookup_or_unk(tk, units[k], sym[k].begin, "character");
  const std::size_t first = out.size();
  bpe(tk, sym, out);
  if (cache.size() < 65536) cache.emplace(cache_key, std::vector<Piece>(out.begin() + first, out.end()));
}

}  // namespace

std::uint32_t byte_char(std::uint8_t b) { return byte_map()[b]; }

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::size_t first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    std::uint32_t cp = 0;
    const std::size_t n = utf8_length(text, i, cp);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::vector<std::pair<std::size_t, std::size_t>> gpt2_split(std::string_view text) {
  const CodePoints t = decode(text);
  Spans out;
  split_gpt2(t, 0, t.cp.size(), out);
  return out;
}

std::vector<Piece> encode(const Tokenizer& tk, std::string_view text) {
  if (text.size() > kMaxPromptTextBytes) {
    throw InputError("the text has " + std::to_string(text.size()) + " bytes; a tokenizer reads at most " +
                     std::to_string(kMaxPromptTextBytes));
  }
  const CodePoints t = decode(text);
  // Cut at the added tokens: at each character, the longest added token that starts there.
  std::vector<Piece> out;
  std::unordered_map<std::string, std::vector<Piece>> cache;
  std::size_t part = 0;  // first character of the current part
  const auto flush = [&](std::size_t upto) {
    if (upto == part) return;
    Spans pieces;
    if (tk.pre_tokenizer == PreTokenizer::byte_level) {
      if (tk.use_regex) split_gpt2(t, part, upto, pieces);
      else pieces.emplace_back(t.at[part], t.at[upto]);
    } else if (tk.pre_tokenizer == PreTokenizer::whitespace) {
      split_whitespace(t, part, upto, pieces);
    } else {
      split_whitespace_split(t, part, upto, pieces);
    }
    // add_prefix_space: one space before the part when it does not start with one (on its first piece).
    const bool prefix = tk.pre_tokenizer == PreTokenizer::byte_level && tk.add_prefix_space && t.cp[part] != ' ';
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      encode_piece(tk, text, pieces[k].first, pieces[k].second, prefix && k == 0, cache, out);
    }
  };
  std::array<std::vector<const AddedToken*>, 256> by_first_byte;
  for (const auto& a : tk.added) {
    if (!a.content.empty()) by_first_byte[static_cast<std::uint8_t>(a.content[0])].push_back(&a);
  }
  std::size_t i = 0;
  while (i < t.cp.size()) {
    const AddedToken* best = nullptr;
    const std::string_view rest = text.substr(t.at[i]);
    for (const AddedToken* a : by_first_byte[static_cast<std::uint8_t>(rest[0])]) {
      if (rest.size() >= a->content.size() && rest.compare(0, a->content.size(), a->content) == 0 &&
          (best == nullptr || a->content.size() > best->content.size())) {
        best = a;
      }
    }
    if (best == nullptr) {
      ++i;
      continue;
    }
    flush(i);
    const std::size_t end_byte = t.at[i] + best->content.size();
    out.push_back({best->id, t.at[i], end_byte});
    while (i < t.cp.size() && t.at[i] < end_byte) ++i;
    part = i;
  }
  flush(t.cp.size());
  return out;
}

std::vector<int> encode_ids(const Tokenizer& tokenizer, std::string_view text) {
  std::vector<int> ids;
  for (const auto& p : encode(tokenizer, text)) ids.push_back(p.id);
  return ids;
}

void check_prompt(const Tokenizer& tk, const std::vector<Piece>& pieces, int d_vocab) {
  if (pieces.empty()) throw InputError("the text gives no tokens");
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    if (pieces[k].id >= d_vocab) {
      throw InputError("token " + std::to_string(k) + " " + describe(token_text(tk, pieces[k].id)) + " has id " +
                       std::to_string(pieces[k].id) + "; the model's d_vocab is " + std::to_string(d_vocab));
    }
  }
}

std::vector<int> encode_prompt(const Tokenizer& tk, std::string_view text, int d_vocab) {
  const auto pieces = encode(tk, text);
  check_prompt(tk, pieces, d_vocab);
  std::vector<int> ids;
  ids.reserve(pieces.size());
  for (const auto& p : pieces) ids.push_back(p.id);
  return ids;
}

std::vector<std::string> token_names(const Tokenizer& tk, int d_vocab) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(std::max(d_vocab, 0)));
  std::unordered_map<int, const std::string*> added;
  for (const auto& a : tk.added) added.emplace(a.id, &a.content);
  for (int id = 0; id < d_vocab; ++id) {
    const auto it = added.find(id);
    std::string name = readable(it != added.end() ? *it->second : vocab_bytes(tk, id));
    names.push_back(name.empty() ? "<unused " + std::to_string(id) + ">" : std::move(name));
  }
  return names;
}

std::string token_bytes(const Tokenizer& tk, int id) {
  for (const auto& a : tk.added) {
    if (a.id == id) return a.content;
  }
  return vocab_bytes(tk, id);
}

std::string vocab_bytes(const Tokenizer& tk, int id) {
  if (id < 0 || static_cast<std::size_t>(id) >= tk.tokens.size()) return {};
  const std::string& s = tk.tokens[static_cast<std::size_t>(id)];
  if (tk.pre_tokenizer != PreTokenizer::byte_level) return s;
  static const std::unordered_map<std::uint32_t, std::uint8_t> inverse = [] {
    std::unordered_map<std::uint32_t, std::uint8_t> m;
    for (std::uint32_t b = 0; b < 256; ++b) m[byte_map()[b]] = static_cast<std::uint8_t>(b);
    return m;
  }();
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::uint32_t cp = 0;
    std::size_t n = utf8_length(s, i, cp);
    if (n == 0) n = 1;
    const auto it = inverse.find(cp);
    if (it != inverse.end()) out += static_cast<char>(it->second);
    else out += s.substr(i, n);  // a vocabulary string outside the map stands for itself
    i += n;
  }
  return out;
}

std::string token_text(const Tokenizer& tk, int id) { return readable(token_bytes(tk, id)); }

std::string readable(const std::string& b) {
  std::string out;
  std::size_t i = 0;
  while (i < b.size()) {
    std::uint32_t cp = 0;
    const std::size_t n = utf8_length(b, i, cp);
    if (n == 0) {
      const auto v = static_cast<std::uint8_t>(b[i]);
      out += "\\x";
      out += "0123456789abcdef"[v >> 4];
      out += "0123456789abcdef"[v & 15];
      ++i;
    } else {
      out.append(b, i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace headlab::tokenizer
