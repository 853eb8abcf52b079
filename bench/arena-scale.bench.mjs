// A model of the ARENA induction model's shape (2 layers × 12 heads, d_model 768, d_head 64,
// d_vocab 50,278, n_ctx 2,048, attention-only, LN, shortformer positions; 83.6 M parameters), random
// (a seeded generator below) and stored F32 in a safetensors file written to a temporary directory,
// opened natively (`headlab model run` and `model analyze --sequences 0`, under /usr/bin/time -v
// for the peak resident memory) and by the WASM module under Node (one child process: the file
// read into the module's heap, the model loaded, the first run of a 64-token prompt — its
// attention patterns — and its direct logit attribution; peak resident memory from
// /proc/self/status VmHWM). Then the same for the same tensors as a torch.save checkpoint (written
// by Debian's python3-torch when installed). Then in the page, in headless Chromium (playwright-core,
// as tests/browser drives it, on build/site's own-model.html): the file picked with the model
// element's file button and its config, streamed into the element's worker, and the time until the
// attention figure shows its first patterns and the attribution figure its bars on the default
// prompt (64 tokens), with the renderer process's peak resident memory (VmHWM: the page and its
// workers) against the file. Prints each time, the resident memory against the file's size, and the
// targets: the first figure (load + first pattern) within 10 s in WASM, resident memory ≤ 2× the
// file. Not a test.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SHAPE = {
  n_layers: 2,
  n_heads: 12,
  d_model: 768,
  d_head: 64,
  n_ctx: 2048,
  d_vocab: 50278,
  normalization: 'LN',
  positional_embedding: 'shortformer',
};
const PROMPT_LENGTH = 64;
const TARGET_FIRST_FIGURE_S = 10;
const TARGET_MEMORY_RATIO = 2;

/** mulberry32: a seeded generator of uniform numbers in [0, 1). */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** TransformerLens names and shapes of the model's tensors, in state_dict order. */
function tensors(c) {
  const { n_heads: H, d_model: d, d_head: h, n_ctx, d_vocab: V } = c;
  const out = [
    ['embed.W_E', [V, d]],
    ['pos_embed.W_pos', [n_ctx, d]],
  ];
  for (let l = 0; l < c.n_layers; l++) {
    const b = `blocks.${l}.`;
    out.push([`${b}ln1.w`, [d]], [`${b}ln1.b`, [d]]);
    out.push([`${b}attn.W_Q`, [H, d, h]], [`${b}attn.W_O`, [H, h, d]], [`${b}attn.b_Q`, [H, h]], [`${b}attn.b_O`, [d]]);
    out.push([`${b}attn.W_K`, [H, d, h]], [`${b}attn.W_V`, [H, d, h]], [`${b}attn.b_K`, [H, h]], [`${b}attn.b_V`, [H, h]]);
  }
  out.push(['ln_final.w', [d]], ['ln_final.b', [d]], ['unembed.W_U', [d, V]], ['unembed.b_U', [V]]);
  return out;
}

/** Writes config.json and model.safetensors (F32: weights uniform in ±0.04, LayerNorm scales 1 ± 0.04) into `dir`. */
function writeModel(dir) {
  const list = tensors(SHAPE);
  const header = {};
  let offset = 0;
  for (const [name, shape] of list) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  while ((8 + text.length) % 8) text += ' ';
  const file = path.join(dir, 'model.safetensors');
  const fd = fs.openSync(file, 'w');
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(text.length));
  fs.writeSync(fd, length);
  fs.writeSync(fd, text);
  const random = generator(20261207);
  const chunk = new Float32Array(1 << 20);
  for (const [name, shape] of list) {
    let left = shape.reduce((a, b) => a * b, 1);
    const scale = name.endsWith('ln1.w') || name === 'ln_final.w' ? 1 : 0;
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      for (let i = 0; i < n; i++) chunk[i] = scale + (random() - 0.5) * 0.08;
      fs.writeSync(fd, new Uint8Array(chunk.buffer, 0, 4 * n));
      left -= n;
    }
  }
  fs.closeSync(fd);
  fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(SHAPE));
  return { config: path.join(dir, 'model.json'), weights: file, bytes: fs.statSync(file).size };
}

const prompt = Array.from({ length: PROMPT_LENGTH }, (_, i) => (17 + (i % 32) * 1543) % SHAPE.d_vocab);

/** The WASM part, in its own process (argv: config weights): prints one JSON line of figures. */
async function wasmChild(configPath, weightsPath) {
  const { wasmTransformerCore } = await import('../tests/wasm/helpers.mjs');
  const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
  const t0 = performance.now();
  const core = await wasmTransformerCore();
  const tModule = performance.now();
  const config = fs.readFileSync(configPath, 'utf8');
  // The file into the module's heap 8 MiB at a time (what a worker does with a dropped File's
  // slices): the heap holds its only copy, which the model then reads in place.
  const size = fs.statSync(weightsPath).size;
  const buffer = core.transformerWeightsBuffer(size);
  const chunk = new Uint8Array(8 << 20);
  const fd = fs.openSync(weightsPath, 'r');
  for (let at = 0; at < size;) {
    const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - at), at);
    buffer.write(chunk.subarray(0, n), at);
    at += n;
  }
  fs.closeSync(fd);
  const model = core.loadTransformer(config, buffer);
  buffer.dispose();
  const tLoad = performance.now();
  const run = model.run(prompt);
  const tRun = performance.now();
  const analysis = model.analyze({ prompt, sequences: 0 });
  const tDla = performance.now();
  // What the page's figures ask for: the logits of the last position only (logits_from), the
  // patterns and the attribution the same bits.
  const lastRow = model.run(prompt, { logits_from: prompt.length - 1 });
  const tRunLast = performance.now();
  const lastDla = model.analyze({ prompt, sequences: 0, logits_from: prompt.length - 1 });
  const tDlaLast = performance.now();
  if (lastDla.direct_logit_attribution.logit !== analysis.direct_logit_attribution.logit || lastRow.logits.rows !== 1)
    throw new Error('the last row differs');
  if (!(run.patterns?.length > 0) || !Number.isFinite(analysis.direct_logit_attribution.logit))
    throw new Error('no pattern or attribution');
  globalThis.gc?.();
  const settled = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
  console.log(
    JSON.stringify({
      module_ms: tModule - t0,
      load_ms: tLoad - tModule,
      run_ms: tRun - tLoad,
      dla_ms: tDla - tRun,
      run_last_ms: tRunLast - tDla,
      dla_last_ms: tDlaLast - tRunLast,
      peak_rss: hwm(),
      rss_after: settled,
      wasm_memory: core.memoryDiagnostics().memory_bytes,
    }),
  );
  model.dispose();
}

function timed(args) {
  const r = spawnSync('/usr/bin/time', ['-v', ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\):\s*(?:(\d+):)?(\d+):([\d.]+)/.exec(r.stderr);
  const seconds = (wall[1] ? Number(wall[1]) * 3600 : 0) + Number(wall[2]) * 60 + Number(wall[3]);
  const rss = Number(/Maximum resident set size \(kbytes\):\s*(\d+)/.exec(r.stderr)[1]) * 1024;
  return { seconds, rss };
}

/**
 * The same tensors as a torch.save checkpoint (`torch.save(state_dict)`, float32), written by
 * Debian's python3-torch from the safetensors file; null when torch is not installed.
 */
function writeCheckpoint(dir, safetensors) {
  const file = path.join(dir, 'model.pt');
  const script = `
import json, struct, sys, numpy, torch
src, dst = sys.argv[1], sys.argv[2]
with open(src, 'rb') as f:
    n = struct.unpack('<Q', f.read(8))[0]
    header = json.loads(f.read(n))
    data = f.read()
state = {}
for name, e in header.items():
    a, b = e['data_offsets']
    state[name] = torch.from_numpy(numpy.frombuffer(data, dtype='<f4', count=(b - a) // 4, offset=a).reshape(e['shape']).copy())
torch.save(state, dst)
`;
  // Debian's interpreter, which has its torch (a python3 earlier on PATH may not).
  const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  const r = spawnSync(python, ['-c', script, safetensors, file], { encoding: 'utf8' });
  return r.status === 0 ? file : null;
}

/** Native CLI and WASM figures of one weights file. */
function measure(label, m, weights, dir) {
  const bytes = fs.statSync(weights).size;
  const mb = (x) => `${(x / 1e6).toFixed(0)} MB`;
  const ratio = (x) => (x / bytes).toFixed(2);
  const cli = path.join(root, 'build/native/cli/headlab');
  const common = ['--config', m.config, '--weights', weights];
  const out = path.join(dir, 'out.json');
  const inspect = timed([cli, 'model', 'inspect', ...common]);
  const run = timed([cli, 'model', 'run', ...common, '--prompt', prompt.join(' '), '--out', out]);
  const dla = timed([cli, 'model', 'analyze', ...common, '--prompt', prompt.join(' '), '--sequences', '0', '--out', out]);
  console.log(`${label}: ${mb(bytes)}; native (CLI, wall s, peak RSS, RSS / file):`);
  console.log(`  load (model inspect)                        ${inspect.seconds.toFixed(2)} s  ${mb(inspect.rss)}  ${ratio(inspect.rss)}×`);
  console.log(`  load + patterns (model run, 64 tokens)      ${run.seconds.toFixed(2)} s  ${mb(run.rss)}  ${ratio(run.rss)}×`);
  console.log(`  load + DLA (model analyze --sequences 0)    ${dla.seconds.toFixed(2)} s  ${mb(dla.rss)}  ${ratio(dla.rss)}×`);
  const child = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--wasm-child', m.config, weights], {
    encoding: 'utf8',
    env: { ...process.env, NODE_PATH: '/usr/share/nodejs' },
  });
  const w = JSON.parse(child.trim().split('\n').pop());
  const first = (w.load_ms + w.run_ms) / 1000;
  console.log(`${label}: WASM in Node (headlab_transformer module, one process):`);
  console.log(
    `  module start ${(w.module_ms / 1000).toFixed(2)} s; load ${(w.load_ms / 1000).toFixed(2)} s; first run (patterns) ${(w.run_ms / 1000).toFixed(2)} s; DLA ${(w.dla_ms / 1000).toFixed(2)} s`,
  );
  console.log(
    `  as the page asks (the last position's logits only): run ${(w.run_last_ms / 1000).toFixed(2)} s (${(w.run_ms / w.run_last_ms).toFixed(1)}× faster), ` +
      `DLA ${(w.dla_last_ms / 1000).toFixed(2)} s (${(w.dla_ms / w.dla_last_ms).toFixed(1)}× faster)`,
  );
  console.log(
    `  peak RSS ${mb(w.peak_rss)} (${ratio(w.peak_rss)}× the file); after, settled ${mb(w.rss_after)} (${ratio(w.rss_after)}×); WASM memory ${mb(w.wasm_memory)}`,
  );
  const peak = Math.max(inspect.rss, run.rss, dla.rss);
  console.log(
    `${label} targets: first figure (load + patterns) in WASM ${first.toFixed(2)} s ≤ ${TARGET_FIRST_FIGURE_S} s: ${first <= TARGET_FIRST_FIGURE_S ? 'met' : 'MISSED'} (ratio ${(first / TARGET_FIRST_FIGURE_S).toFixed(2)}); ` +
      `peak RSS native ${ratio(peak)}×, WASM ${ratio(w.peak_rss)}× ≤ ${TARGET_MEMORY_RATIO}×: ${Math.max(peak, w.peak_rss) <= TARGET_MEMORY_RATIO * bytes ? 'met' : 'MISSED'}`,
  );
}

/** The pids of `pid`'s descendants whose command line has --type=renderer (Chromium's renderers). */
function renderers(pid) {
  const out = [];
  const walk = (p) => {
    let children;
    try {
      children = fs.readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      return;
    }
    for (const c of children) {
      try {
        if (fs.readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('--type=renderer')) out.push(Number(c));
      } catch {
        // ended meanwhile
      }
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** VmRSS and VmHWM (bytes) of process `pid`. */
function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * The page's figures of one weights file: own-model.html in headless Chromium, the file and its
 * config picked with the model element's file button; seconds until the attention figure shows the
 * model's patterns and the attribution figure its bars (both on the default prompt of 64 tokens,
 * computed in the element's worker), and the renderer's peak resident memory (the page and its
 * workers share the renderer process) against the file.
 */
async function measureBrowser(label, m, weights, pageName = 'own-model.html') {
  const bytes = fs.statSync(weights).size;
  const mb = (x) => `${(x / 1e6).toFixed(0)} MB`;
  const { startSession } = await import('../tests/browser/helpers.mjs');
  // The built site, with a page of the model element and the two figures alone (FIGURES_PAGE) beside its own.
  const site = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-arena-site-'));
  fs.cpSync(path.join(root, 'build/site'), site, { recursive: true });
  fs.writeFileSync(path.join(site, 'figures-only.html'), FIGURES_PAGE);
  const session = await startSession({ dir: site, csp: true });
  try {
    const page = await session.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${session.url}${pageName}`);
    await page.waitForFunction(
      () => {
        const m = document.getElementById('induction');
        return m?.state?.status === 'ready' && m.shadowRoot.querySelectorAll('input[type=file]').length === 1;
      },
      null,
      { timeout: 120_000 },
    );
    // The default prompt: min(n_ctx − 1, 64) tokens, the position its last.
    await page.evaluate(() => {
      for (const s of ['headlab-transformer-attention', 'headlab-transformer-attribution'])
        for (const a of ['prompt', 'position', 'token']) document.querySelector(s).removeAttribute(a);
    });
    // Chromium is a child of this process (playwright-core launches it).
    const pids = renderers(process.pid);
    const before = pids.map((pid) => ({ pid, ...memoryOf(pid) }));
    const name = path.basename(weights);
    const t0 = performance.now();
    await page.locator('#induction input[type=file]').setInputFiles([weights, m.config]);
    await page.waitForFunction((n) => document.querySelector('headlab-transformer-attention').shown?.model.label === n, name, {
      timeout: 300_000,
      polling: 50,
    });
    const tPatterns = performance.now();
    await page.waitForFunction(
      (n) => {
        const e = document.querySelector('headlab-transformer-attribution');
        return e.currentModel?.label === n && e.figureData?.direct_logit_attribution != null;
      },
      name,
      { timeout: 300_000, polling: 50 },
    );
    const tAttribution = performance.now();
    const shown = await page.evaluate(() => ({
      tokens: document.querySelector('headlab-transformer-attention').figureData.prompt.length,
      problem: document.getElementById('induction').modelSource.problem,
    }));
    if (shown.problem) throw new Error(shown.problem);
    // The renderer that grew: the page's (with its workers).
    const after = before.map(({ pid, rss }) => ({ pid, rss0: rss, ...memoryOf(pid) })).sort((a, b) => b.hwm - b.rss0 - (a.hwm - a.rss0))[0];
    const first = (tPatterns - t0) / 1000;
    const attribution = (tAttribution - t0) / 1000;
    console.log(`${label}: in the page (headless Chromium, ${pageName}, file button; prompt ${shown.tokens} tokens):`);
    console.log(`  first attention patterns ${first.toFixed(2)} s; attribution ${attribution.toFixed(2)} s after the files were picked`);
    console.log(
      `  renderer (page and workers): before ${mb(after.rss0)}, peak ${mb(after.hwm)} (${(after.hwm / bytes).toFixed(2)}× the file; ` +
        `${((after.hwm - after.rss0) / bytes).toFixed(2)}× for the model), after ${mb(after.rss)}`,
    );
    console.log(
      `${label} page targets: first figure ${first.toFixed(2)} s ≤ ${TARGET_FIRST_FIGURE_S} s: ${first <= TARGET_FIRST_FIGURE_S ? 'met' : 'MISSED'}; ` +
        `attribution ${attribution.toFixed(2)} s ≤ ${TARGET_FIRST_FIGURE_S} s: ${attribution <= TARGET_FIRST_FIGURE_S ? 'met' : 'MISSED'}; ` +
        `model's memory ${((after.hwm - after.rss0) / bytes).toFixed(2)}× ≤ ${TARGET_MEMORY_RATIO}×: ${after.hwm - after.rss0 <= TARGET_MEMORY_RATIO * bytes ? 'met' : 'MISSED'}`,
    );
  } finally {
    await session.close();
    fs.rmSync(site, { recursive: true, force: true });
  }
}

/**
 * A page of the model element (the shipped model first) and the attention and attribution figures
 * alone: the time to those two figures without the other nine figures of own-model.html asking the
 * same worker for their analyses first.
 */
const FIGURES_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ARENA shape: two figures</title>
<link rel="stylesheet" href="headlab/headlab.css">
<script type="module" src="headlab/autoload.js"></script></head>
<body>
<headlab-transformer-model id="induction" src="data/induction-seed0.safetensors" config="data/induction-seed0.json"></headlab-transformer-model>
<headlab-transformer-attention model="induction"></headlab-transformer-attention>
<headlab-transformer-attribution model="induction"></headlab-transformer-attribution>
</body></html>
`;

if (process.argv[2] === '--wasm-child') {
  await wasmChild(process.argv[3], process.argv[4]);
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-arena-'));
  try {
    const tWrite = performance.now();
    const m = writeModel(dir);
    console.log(
      `ARENA induction shape (${((performance.now() - tWrite) / 1000).toFixed(1)} s to write the F32 safetensors file); prompt ${PROMPT_LENGTH} tokens`,
    );
    const only = process.env.HEADLAB_ARENA_ONLY; // 'browser': the page's figures alone
    if (only !== 'browser') measure('safetensors', m, m.weights, dir);
    await measureBrowser('safetensors', m, m.weights);
    await measureBrowser('safetensors', m, m.weights, 'figures-only.html');
    const pt = writeCheckpoint(dir, m.weights);
    if (pt) {
      if (only !== 'browser') measure('torch.save checkpoint', m, pt, dir);
      await measureBrowser('torch.save checkpoint', m, pt);
    } else console.log('torch.save checkpoint: skipped (python3-torch is not installed)');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
