// The page's part of an author's model at the transformer widgets' limits (docs/limits.md, "The
// transformer widgets' models"; widgets/transformer/model.ts MAX_PAGE_*): what the main thread
// does with a model the worker accepted — read the canonical files (TransformerModel.canonical())
// and run the first prompt a figure shows (the default prompt, n_ctx − 1 tokens: the attention and
// ablation figures run it on the page) — and the worker's read of the author's file, in ms (median
// of HEADLAB_BENCH_RUNS, default 5, CPU time of this process) in the WASM module under Node, with
// the bytes the run hands to JS (patterns L·H·T², logits T·V, as doubles) and the weights' doubles.
// Prints figures; not a test.
import { layoutTensors, wasmTransformerCore } from '../tests/wasm/helpers.mjs';
import { medianCpuMs } from './median.mjs';

const RUNS = Number(process.env.HEADLAB_BENCH_RUNS) || 5;

/** A safetensors file of F32 tensors (the required ones of the core's TransformerLens layout for
 *  learned W_pos and no LayerNorm, values uniform in ±scale) for `c`. */
function modelFile(core, c) {
  const has = { always: true, positional_embedding: true, ungrouped: true };
  const tensors = layoutTensors(core.transformerLayout(), c)
    .filter(([row]) => row.role === 'required' && has[row.presence])
    .map(([row, l]) => [row.name.replace('{l}', String(l)), row.shape.map((dim) => c[dim])]);
  let seed = 1;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648 - 0.5;
  };
  const header = {};
  const parts = [];
  let offset = 0;
  for (const [name, shape] of tensors) {
    const count = shape.reduce((a, b) => a * b, 1);
    const values = new Float32Array(count);
    for (let i = 0; i < count; i++) values[i] = random() * 0.2;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + 4 * count] };
    offset += 4 * count;
    parts.push(new Uint8Array(values.buffer));
  }
  let text = JSON.stringify(header);
  while (text.length % 8) text += ' ';
  const out = new Uint8Array(8 + text.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(new TextEncoder().encode(text), 8);
  let at = 8 + text.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const CONFIGS = [
  ['shipped induction model', { n_layers: 2, n_heads: 4, d_model: 32, d_head: 8, n_ctx: 24, d_vocab: 32 }],
  [
    'the speed benchmark model (bench/transformer.bench.mjs)',
    { n_layers: 2, n_heads: 8, d_model: 128, d_head: 16, n_ctx: 64, d_vocab: 64 },
  ],
  // At the limits: n_ctx 128, n_layers × n_heads 16, d_vocab 4096 or parameters 262,144.
  [
    'limits: n_ctx 128, 2 × 8 heads, d_vocab 4096, d_model 30',
    { n_layers: 2, n_heads: 8, d_model: 30, d_head: 4, n_ctx: 128, d_vocab: 4096 },
  ],
  [
    'limits: n_ctx 128, 4 × 4 heads, d_vocab 512, d_model 112',
    { n_layers: 4, n_heads: 4, d_model: 112, d_head: 16, n_ctx: 128, d_vocab: 512 },
  ],
  [
    'limits: n_ctx 128, 1 × 16 heads, d_vocab 64, d_model 192',
    { n_layers: 1, n_heads: 16, d_model: 192, d_head: 16, n_ctx: 128, d_vocab: 64 },
  ],
  // Beyond them (refused by the worker before the weights are read), for the derivation.
  [
    'beyond: n_ctx 256, 4 × 16 heads, d_vocab 4096, d_model 64',
    { n_layers: 4, n_heads: 16, d_model: 64, d_head: 8, n_ctx: 256, d_vocab: 4096 },
  ],
  [
    'beyond: n_ctx 128, 2 × 8 heads, d_vocab 4096, d_model 256',
    { n_layers: 2, n_heads: 8, d_model: 256, d_head: 32, n_ctx: 128, d_vocab: 4096 },
  ],
];

const core = await wasmTransformerCore();
const fmt = (x) => x.toFixed(1).padStart(7);
console.log(
  'model | worker: read author file + canonical (ms) | page: read canonical (ms) | page: run n_ctx − 1 tokens (ms) | run to JS (MB) | parameters',
);
for (const [name, c] of CONFIGS) {
  const config = JSON.stringify({ ...c, normalization: 'LN' === c.normalization ? 'LN' : 'none' });
  const file = modelFile(core, c);
  const worker = medianCpuMs(RUNS, () => {
    const m = core.loadTransformer(config, file);
    m.canonical();
    m.dispose();
  });
  const m = core.loadTransformer(config, file);
  const canonical = m.canonical();
  const parameters = m.inspect().parameters;
  m.dispose();
  const read = medianCpuMs(RUNS, () => core.loadTransformer(canonical.config, canonical.safetensors).dispose());
  const page = core.loadTransformer(canonical.config, canonical.safetensors);
  const T = Math.max(1, c.n_ctx - 1);
  const prompt = Array.from({ length: T }, (_, i) => (3 + (i % 6) * 7) % c.d_vocab);
  const run = medianCpuMs(RUNS, () => page.run(prompt));
  page.dispose();
  const mb = ((c.n_layers * c.n_heads * T * T + T * c.d_vocab) * 8) / 1e6;
  console.log(`${name} | ${fmt(worker)} | ${fmt(read)} | ${fmt(run)} | ${fmt(mb)} | ${parameters.toLocaleString('en-US')}`);
}
