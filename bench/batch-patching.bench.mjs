// Patching over a batch with intervals in WASM under Node, on the shipped induction model
// (site/pages/data/induction-seed0): N = 64 induction pairs (seed 0), B = K = 1000. Activation
// patching (every grid, core/batch_patching.hpp), path patching (core/path_patching.hpp) and circuit
// faithfulness (core/circuit_faithfulness.hpp: the update after a head is toggled in
// <headlab-circuit-faithfulness>, circuits of 2, 3 and 8 heads, and of 2 and 3 edges), attribution
// patching (core/attribution_patching.hpp: every head and edge, the real patches beside them, one
// call of <headlab-attribution-patching>'s worker task), each returning the CLI's document;
// medians of 5 runs after one warm-up, wall and CPU time, with the native figures of
// build/native/bench/batch_patching_bench beside them. Not a test.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { medianCpuMs, medianMs } from './median.mjs';
import { targetVerdict } from './transformer.bench.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = path.join(root, 'build/wasm/web');
const data = path.join(root, 'site/pages/data');
const { default: factory } = await import(path.join(wasmDir, 'headlab_transformer.mjs'));
const raw = await factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'headlab_transformer.wasm')) });
const handle = new raw.TransformerModelHandle();
handle.load(
  fs.readFileSync(path.join(data, 'induction-seed0.json'), 'utf8'),
  new Uint8Array(fs.readFileSync(path.join(data, 'induction-seed0.safetensors'))),
);

const RUNS = 5;
const request = { task: 'induction', count: 64, pairs_seed: 0 };
const figures = {};
for (const method of ['batch_patching', 'path_patching']) {
  const run = () => {
    const text = handle[method](request);
    if (typeof text !== 'string') throw new Error(`${method}: ${JSON.stringify(text)}`);
  };
  figures[method] = { wall: medianMs(RUNS, run, { warmup: true }), cpu: medianCpuMs(RUNS, run) };
}
// Faithfulness: the circuit the own-model page opens with, one head more (a toggle), every head.
const CIRCUITS = [
  [
    [0, 0],
    [1, 1],
  ],
  [
    [0, 0],
    [1, 1],
    [1, 3],
  ],
  Array.from({ length: 8 }, (_, i) => [i >> 2, i & 3]),
];
const faithfulness = CIRCUITS.map((circuit) => {
  const run = () => {
    const text = handle.faithfulness({ ...request, circuit });
    if (typeof text !== 'string') throw new Error(`faithfulness: ${JSON.stringify(text)}`);
  };
  return { heads: circuit.length, wall: medianMs(RUNS, run, { warmup: true }), cpu: medianCpuMs(RUNS, run) };
});
// Edges: the own-model page's two heads joined through the key, then through the query too.
const EDGES = [
  [[0, 0, 1, 1, 'k']],
  [
    [0, 0, 1, 1, 'k'],
    [0, 0, 1, 1, 'q'],
    [0, 0, 1, 1, 'v'],
  ],
];
const edgeFaithfulness = EDGES.map((edges) => {
  const run = () => {
    const text = handle.faithfulness({ ...request, edges });
    if (typeof text !== 'string') throw new Error(`faithfulness: ${JSON.stringify(text)}`);
  };
  return { edges: edges.length, wall: medianMs(RUNS, run, { warmup: true }), cpu: medianCpuMs(RUNS, run) };
});
const attribution = (() => {
  const run = () => {
    const text = handle.attribution_patching(request);
    if (typeof text !== 'string') throw new Error(`attribution_patching: ${JSON.stringify(text)}`);
  };
  return { wall: medianMs(RUNS, run, { warmup: true }), cpu: medianCpuMs(RUNS, run) };
})();
handle.delete();

let native = '';
try {
  native = execFileSync(path.join(root, 'build/native/bench/batch_patching_bench'), { encoding: 'utf8' });
} catch {
  native = '';
}
const nativeMs = (tag) => Number(new RegExp(`^${tag} (\\S+)$`, 'm').exec(native)?.[1]);
const ratio = (wasm, tag) => {
  const n = nativeMs(tag);
  return Number.isFinite(n) ? `, native ${n.toFixed(1)} ms (WASM / native ${(wasm / n).toFixed(2)})` : '';
};
const load = os.loadavg()[0].toFixed(2);
console.log(`patching over a batch in WASM (shipped induction model, N = 64, B = K = 1000), median of ${RUNS}, load average ${load}:`);
// The page's target for this run (activation patching with intervals, N = 64, in the worker): under 1 s.
const TARGET_MS = 1000;
const b = figures.batch_patching;
const p = figures.path_patching;
console.log(
  `  activation patching with intervals (every grid) ${b.wall.toFixed(1)} ms (${b.cpu.toFixed(1)} ms CPU)${ratio(b.wall, 'NATIVE_BATCH_PATCHING_N64_MS')}`,
);
console.log(`  against the target for N = 64 in the worker: ${targetVerdict(b, load, TARGET_MS)}`);
console.log(
  `  path patching with intervals (16 edges × q, k, v) ${p.wall.toFixed(1)} ms (${p.cpu.toFixed(1)} ms CPU)${ratio(p.wall, 'NATIVE_PATH_PATCHING_N64_MS')}`,
);
// The page's target for a faithfulness update after a toggle (the worker's one call): under 50 ms.
const FAITHFULNESS_TARGET_MS = 50;
for (const f of faithfulness) {
  console.log(
    `  faithfulness with intervals and leave-one-out, ${f.heads} heads: ${f.wall.toFixed(1)} ms (${f.cpu.toFixed(1)} ms CPU); ${targetVerdict(f, load, FAITHFULNESS_TARGET_MS)}`,
  );
}
for (const f of edgeFaithfulness) {
  console.log(
    `  faithfulness of a circuit of ${f.edges} edge${f.edges === 1 ? '' : 's'}: ${f.wall.toFixed(1)} ms (${f.cpu.toFixed(1)} ms CPU); ${targetVerdict(f, load, FAITHFULNESS_TARGET_MS)}`,
  );
}
// The page's target for every head's and edge's attribution (the worker's one call, real patches included): under 200 ms.
const ATTRIBUTION_TARGET_MS = 200;
console.log(
  `  attribution patching (every head and edge, estimate and real patch): ${attribution.wall.toFixed(1)} ms (${attribution.cpu.toFixed(1)} ms CPU); ${targetVerdict(attribution, load, ATTRIBUTION_TARGET_MS)}`,
);
