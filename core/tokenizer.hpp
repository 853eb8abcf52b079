// Text to token ids, as Hugging Face's `tokenizers` encodes with the models and pre-tokenizers
// small attention models ship with (formats/tokenizer_json.hpp reads the `tokenizer.json`):
//
//  - byte-level BPE (GPT-2, GPT-NeoX): the text is cut at the added tokens (leftmost, longest
//    first), each other part is split by GPT-2's pattern
//        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//    (over code points; \s as JavaScript's, core/unicode_classes.hpp), each piece's UTF-8 bytes
//    become the printable characters of GPT-2's byte→unicode map, and the piece's characters are
//    merged pair by pair, the pair of lowest merge rank first (the leftmost of equal pairs), until
//    no adjacent pair has a rank. Each merge is O(log n) (a heap of candidate pairs over a linked
//    list of symbols), so a 64 KiB word with no space costs milliseconds, not n² steps.
//  - WordLevel: the text split at whitespace (`WhitespaceSplit`) or into runs of word characters
//    and runs of other non-space characters (`Whitespace`, the pattern \w+|[^\w\s]+), each word
//    looked up in the vocabulary, the unknown token otherwise.
//
// A text that is not UTF-8, longer than kMaxPromptTextBytes, or with a character the vocabulary
// cannot spell (and no unknown token) is refused with an InputError naming the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace headlab::tokenizer {

// The longest text encode() reads, in bytes (a prompt runs at most n_ctx tokens; this bounds the
// work before the count is known).
constexpr std::size_t kMaxPromptTextBytes = 65536;

enum class Model { bpe, word_level };
enum class PreTokenizer {
  byte_level,        // GPT-2's pattern (when use_regex) and the byte→unicode map
  whitespace,        // \w+|[^\w\s]+ (whitespace dropped)
  whitespace_split,  // runs of non-whitespace
};

// A token matched in the raw text before any splitting (`added_tokens` of tokenizer.json).
struct AddedToken {
  std::string content;
  int id = 0;
  bool special = false;
};

struct Tokenizer {
  Model model = Model::bpe;
  PreTokenizer pre_tokenizer = PreTokenizer::byte_level;
  bool add_prefix_space = false;               // byte_level: a space before each part that does not start with one
  bool use_regex = true;                       // byte_level: split by GPT-2's pattern (else each part is one piece)
  bool ignore_merges = false;                  // bpe: a piece found whole in the vocabulary is one token
  int unk_id = -1;                             // the unknown token's id, −1 when there is none
  std::unordered_map<std::string, int> vocab;  // token string (as stored: byte-mapped for byte_level) → id
  std::vector<std::string> tokens;             // id → token string ("" for an id no token has)
  // bpe: (left id << 32 | right id) → {rank, merged id}; the reader checks the merged string is in vocab.
  struct Merge {
    int rank = 0, id = 0;
  };
  std::unordered_map<std::uint64_t, Merge> merges;
  std::vector<AddedToken> added;  // matched longest first where several start at one byte
};

// One token of an encoded text: its id and the bytes [begin, end) of the text it spells (a
// byte-level token may cover part of a character; an added prefix space covers no byte).
struct Piece {
  int id = 0;
  std::size_t begin = 0, end = 0;
};

std::vector<Piece> encode(const Tokenizer& tokenizer, std::string_view text);
std::vector<int> encode_ids(const Tokenizer& tokenizer, std::string_view text);

// Throws unless `pieces` (encode()'s) are a prompt for a model of d_vocab tokens: refused when
// there are none ("the text gives no tokens") or when one is beyond the model ("token 3 " cat" has
// id 262; the model's d_vocab is 100").
void check_prompt(const Tokenizer& tokenizer, const std::vector<Piece>& pieces, int d_vocab);
// A prompt for a model of d_vocab tokens: encode()'s ids, checked by check_prompt.
std::vector<int> encode_prompt(const Tokenizer& tokenizer, std::string_view text, int d_vocab);
// Every id's name for a model of d_vocab tokens: token_text(), or "<unused N>" for an id the
// tokenizer has no token for.
std::vector<std::string> token_names(const Tokenizer& tokenizer, int d_vocab);

// The bytes a token stands for: the byte-level map undone for byte_level, the vocabulary string
// otherwise (an added token: its content). May be part of a UTF-8 character.
std::string token_bytes(const Tokenizer& tokenizer, int id);
// token_bytes() of a vocabulary id, added tokens aside.
std::string vocab_bytes(const Tokenizer& tokenizer, int id);
// Bytes as readable UTF-8: every byte that is not part of a whole UTF-8 character as \xNN.
std::string readable(const std::string& bytes);
// token_bytes() as readable UTF-8: every byte that is not part of a whole UTF-8 character as \xNN.
std::string token_text(const Tokenizer& tokenizer, int id);

// GPT-2's byte→unicode map: byte b stands for the character byte_char(b) in vocabulary strings.
std::uint32_t byte_char(std::uint8_t b);
// Byte-level split of `text` (UTF-8, checked) by GPT-2's pattern: each piece as [begin, end) bytes.
std::vector<std::pair<std::size_t, std::size_t>> gpt2_split(std::string_view text);

// UTF-8 of one code point.
void append_utf8(std::string& out, std::uint32_t cp);
// The byte offset of the first byte that does not start a well-formed UTF-8 character, or npos.
std::size_t first_invalid_utf8(std::string_view text);

}  // namespace headlab::tokenizer
