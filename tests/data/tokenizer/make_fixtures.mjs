// Writes the small tokenizer.json fixtures of tests/formats/tokenizer_json_test.cpp and
// tests/cli/model-tokenizer.cmake (node tests/data/tokenizer/make_fixtures.mjs):
//  - tiny_bpe.json: byte-level BPE, the 256 byte characters as ids 0–255 in byte order, seven
//    merges, <|endoftext|> added as id 263;
//  - word_level.json: WordLevel over a Whitespace pre-tokenizer, [UNK] = 0.
import { writeFileSync } from 'node:fs';
import { byteLevelBpe } from '../../support/gpt2-tokenizer.mjs';

const here = new URL('.', import.meta.url);
const byteChar = [];
{
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    byteChar.push(String.fromCodePoint(printable ? b : next++));
  }
}
const vocab = {};
byteChar.forEach((c, b) => (vocab[c] = b));
const merges = ['h e', 'Ġ t', 'Ġt he', 'i n', 'Ġ c', 'Ġc a', 'Ġca t'];
let id = 256;
for (const m of merges) vocab[m.replace(' ', '')] = id++;
const tinyBpe = byteLevelBpe({
  vocab: { ...vocab, '<|endoftext|>': 263 },
  merges,
  addedTokens: [{ id: 263, content: '<|endoftext|>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
  byteFallback: false,
});
writeFileSync(new URL('tiny_bpe.json', here), JSON.stringify(tinyBpe, null, 1) + '\n');

const wordLevel = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [],
  normalizer: null,
  pre_tokenizer: { type: 'Whitespace' },
  post_processor: null,
  decoder: null,
  model: { type: 'WordLevel', vocab: { '[UNK]': 0, the: 1, cat: 2, sat: 3, '.': 4, on: 5, mat: 6, 'naïve': 7 }, unk_token: '[UNK]' },
};
writeFileSync(new URL('word_level.json', here), JSON.stringify(wordLevel, null, 1) + '\n');
