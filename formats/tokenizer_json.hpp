// Hugging Face `tokenizers`' tokenizer.json, read into core/tokenizer.hpp's Tokenizer.
//
// Read: "model" of type "BPE" (vocab {token: id}, merges as "a b" strings or [a, b] pairs, the
// rank being the position; unk_token, ignore_merges; dropout null or 0; continuing_subword_prefix
// and end_of_word_suffix null or ""; byte_fallback false) or "WordLevel" (vocab, unk_token, which
// it must have); "pre_tokenizer" ByteLevel (add_prefix_space, use_regex; trim_offsets only moves
// offsets), Whitespace or WhitespaceSplit, or null (WordLevel only: the whole text one word);
// "normalizer" null; "post_processor" null or ByteLevel (offsets only); "decoder" any (decoding is
// not used); "added_tokens" [{id, content, special, single_word, lstrip, rstrip, normalized}]
// with single_word, lstrip and rstrip false; "truncation" and "padding" null. Anything else
// that would change the ids (another model, normalizer, pre-tokenizer or post-processor type, a
// Sequence, dropout, a subword prefix) is refused by name: "<what>: normalizer type NFKC is not
// implemented (headlab reads null)".
//
// Bounds, each inclusive and named in the message with the field: the file (kMaxTokenizerBytes,
// checked by the caller before reading and again here), JSON nesting (kMaxTokenizerDepth), the
// vocabulary (kMaxTokenizerVocab entries, ids in [0, kMaxTokenizerVocab)), the merges
// (kMaxTokenizerMerges), added tokens (kMaxAddedTokens) and one token's string
// (kMaxTokenBytes). Each merge must join two vocabulary tokens into a third; a vocabulary id
// given twice, a merge of unknown tokens and an added token whose id another string holds are
// refused naming the entry.
#pragma once

#include "core/tokenizer.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace headlab::formats {

constexpr std::size_t kMaxTokenizerBytes = std::size_t{8} << 20;
constexpr int kMaxTokenizerDepth = 16;
constexpr std::size_t kMaxTokenizerVocab = 262144;
constexpr std::size_t kMaxTokenizerMerges = 262144;
constexpr std::size_t kMaxAddedTokens = 4096;
constexpr std::size_t kMaxTokenBytes = 1024;

// Throws InputError "<what>: …" naming the field.
tokenizer::Tokenizer read_tokenizer_json(std::string_view text, const std::string& what = "tokenizer");

}  // namespace headlab::formats
