// The files a page's model elements load: chosen by the page's author only — never by the URL hash,
// whatever a crafted link names (another origin, a protocol-relative URL, javascript:, data:, a
// server that stalls) — each download within its time (a stalled or dripping server gives a
// message and a "Try again" button, not "Loading…" for ever), a `%` in a file name, and the
// author's file read in the worker (the page reads the canonical files, whatever the header held).
// Served by the test's own server (site/serve.mjs with a hook) on 127.0.0.1, port 0, under the
// strict CSP; screenshots of the message state at 360 and 1280 px, light and dark.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { gpt2TokenizerJson } from '../support/gpt2-tokenizer.mjs';
import { root, screenshot, startSession } from './helpers.mjs';
import { traced } from './long-tasks.mjs';
import { atEachLook, bundleDir, frames } from './widget-fixtures.mjs';
import { cliRun } from '../wasm/helpers.mjs';

const DATA = path.join(root, 'site/pages/data');
const WEIGHTS = fs.readFileSync(path.join(DATA, 'induction-seed0.safetensors'));
const CONFIG = fs.readFileSync(path.join(DATA, 'induction-seed0.json'));

/** The shipped model's file with a header padded to about `bytes` by __metadata__ entries (valid safetensors). */
function withLargeHeader(bytes) {
  const n = Number(WEIGHTS.readBigUInt64LE(0));
  const header = JSON.parse(WEIGHTS.subarray(8, 8 + n).toString('utf8'));
  const metadata = { ...header.__metadata__ };
  for (let i = 0, length = 0; length < bytes; i++) {
    metadata[`note-${i}`] = 'x'.repeat(50);
    length += 64;
  }
  let text = JSON.stringify({ ...header, __metadata__: metadata });
  while (text.length % 8) text += ' ';
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(BigInt(text.length), 0);
  return { file: Buffer.concat([out, Buffer.from(text), WEIGHTS.subarray(8 + n)]), headerBytes: text.length };
}
const LARGE = withLargeHeader(844 * 1024);
const TORCH = (file) => fs.readFileSync(path.join(root, 'tests/data', file));

/**
 * The fixture model (tests/data/transformer/two_layer_ln_pos: 2 layers × 3 heads, d_model 12,
 * n_ctx 10) with a vocabulary of `vocab` tokens, so that GPT-2's tokenizer has words in it: row i of
 * W_E and column i of W_U (and b_U[i]) are the fixture's token i mod 17 scaled by 1 + i / vocab;
 * every other tensor is the fixture's. A valid safetensors file and its config.
 */
function widerVocabulary(vocab) {
  const file = TORCH('transformer/two_layer_ln_pos.safetensors');
  const n = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + n).toString('utf8'));
  const data = file.subarray(8 + n);
  const tensor = (name) => {
    const [begin, end] = header[name].data_offsets;
    return new Float64Array(data.buffer.slice(data.byteOffset + begin, data.byteOffset + end));
  };
  const V = 17,
    D = 12;
  const W_E = tensor('embed.W_E'),
    W_U = tensor('unembed.W_U'),
    b_U = tensor('unembed.b_U');
  const scale = (i) => 1 + i / vocab;
  const wide = {
    'embed.W_E': Float64Array.from({ length: vocab * D }, (_, k) => W_E[(Math.floor(k / D) % V) * D + (k % D)] * scale(Math.floor(k / D))),
    'unembed.W_U': Float64Array.from(
      { length: D * vocab },
      (_, k) => W_U[Math.floor(k / vocab) * V + ((k % vocab) % V)] * scale(k % vocab),
    ),
    'unembed.b_U': Float64Array.from({ length: vocab }, (_, i) => b_U[i % V] * scale(i)),
  };
  const shapes = { 'embed.W_E': [vocab, D], 'unembed.W_U': [D, vocab], 'unembed.b_U': [vocab] };
  const out = {};
  const parts = [];
  let at = 0;
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const bytes = wide[name] ? Buffer.from(wide[name].buffer) : data.subarray(info.data_offsets[0], info.data_offsets[1]);
    out[name] = { dtype: info.dtype, shape: shapes[name] ?? info.shape, data_offsets: [at, at + bytes.length] };
    parts.push(bytes);
    at += bytes.length;
  }
  let text = JSON.stringify(out);
  while (text.length % 8) text += ' ';
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(text.length), 0);
  const config = { ...JSON.parse(TORCH('transformer/two_layer_ln_pos.json')), d_vocab: vocab };
  return { weights: Buffer.concat([length, Buffer.from(text), ...parts]), config: JSON.stringify(config) };
}
/** GPT-2's 1.3 MB tokenizer.json (50,257 tokens) beside a model of its first 4,096 (the page's vocabulary limit). */
const GPT2 = gpt2TokenizerJson();
const WIDE = widerVocabulary(4096);

/**
 * The test's files under /models/: whole ones, and ones that stall (no answer), send their headers
 * and then nothing, or drip 64 bytes a second — until `healed`, when every one is served whole.
 * Requests are counted by path. The path is decoded as the site's server does (a bare `%` is a 400).
 */
const FILES = new Map([
  ['ok.safetensors', WEIGHTS],
  ['ok.json', CONFIG],
  ['50%.safetensors', WEIGHTS],
  ['50%.json', CONFIG],
  ['large-header.safetensors', LARGE.file],
  ['large-header.json', CONFIG],
  // torch.save checkpoints (told apart by their bytes, whatever the name), TransformerLens 4 names
  // under TransformerLens 4's own config, and a checkpoint the reader refuses.
  ['pt.pt', TORCH('torch_checkpoint/two_layer_ln_pos.pt')],
  ['pt.json', TORCH('transformer/two_layer_ln_pos.json')],
  ['pt-safetensors.safetensors', TORCH('transformer/two_layer_ln_pos.safetensors')],
  ['pt-named.safetensors', TORCH('torch_checkpoint/two_layer_ln_pos.pt')],
  ['bridge.pth', TORCH('transformerlens_names/bridge.pt')],
  ['bridge.json', TORCH('transformerlens_config/bridge_native_ln.json')],
  ['long.pt', TORCH('torch_checkpoint/long.pt')],
  // A model with GPT-2's tokenizer (its first 4,096 ids).
  ['wide.safetensors', WIDE.weights],
  ['wide.json', WIDE.config],
  ['gpt2.json', Buffer.from(GPT2)],
  // Configs beyond the page's limits (the weights beside them are never read).
  // Beyond the core's limits (core/transformer_config.hpp: n_ctx 4,096, d_vocab 65,536), which are the page's.
  ['big-ctx.json', JSON.stringify({ ...JSON.parse(CONFIG), n_ctx: 8192 })],
  ['big-vocab.json', JSON.stringify({ ...JSON.parse(CONFIG), d_vocab: 131072 })],
]);
const requests = new Map();
const held = new Set();
let healed = false;
function handle(req, res, headers) {
  const url = new URL(req.url, 'http://localhost');
  if (!url.pathname.startsWith('/models/')) return false;
  let name;
  try {
    name = decodeURIComponent(url.pathname.slice('/models/'.length));
  } catch {
    res.writeHead(400, headers).end('bad request');
    return true;
  }
  requests.set(name, (requests.get(name) ?? 0) + 1);
  const behaviour = /^(stall|headers|drip)-(.*)$/.exec(name);
  const body = FILES.get(behaviour && healed ? `ok.${behaviour[2].split('.').pop()}` : name);
  const type = {
    'Content-Type': name.endsWith('.json') ? 'application/json' : 'application/octet-stream',
    'Cache-Control': 'no-store',
    ...headers,
  };
  if (!behaviour || healed) {
    if (!body) res.writeHead(404, type).end('no such test model');
    else res.writeHead(200, { ...type, 'Content-Length': body.length }).end(body);
    return true;
  }
  held.add(res);
  res.on('close', () => held.delete(res));
  if (behaviour[1] === 'stall') return true; // no answer at all
  const whole = FILES.get(`ok.${behaviour[2].split('.').pop()}`);
  res.writeHead(200, { ...type, 'Content-Length': whole.length });
  if (behaviour[1] === 'headers') {
    res.flushHeaders();
    return true;
  }
  // 64 bytes a second, in 16-byte pieces.
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed || at >= whole.length) {
      clearInterval(timer);
      return;
    }
    res.write(whole.subarray(at, at + 16));
    at += 16;
  }, 250);
  res.on('close', () => clearInterval(timer));
  return true;
}

const STALLED = {
  'stall-w': { src: 'models/stall-w.safetensors', config: 'models/ok.json', file: '/models/stall-w.safetensors', what: 'weights' },
  'stall-c': { src: 'models/ok.safetensors', config: 'models/stall-c.json', file: '/models/stall-c.json', what: 'config' },
  headers: { src: 'models/headers-w.safetensors', config: 'models/ok.json', file: '/models/headers-w.safetensors', what: 'weights' },
  drip: { src: 'models/drip-w.safetensors', config: 'models/ok.json', file: '/models/drip-w.safetensors', what: 'weights' },
};

// Every element that names a file it loads, with the author's file.
const HASH_PAGE = `
<headlab-transformer-model id="tm" share-state src="models/ok.safetensors" config="models/ok.json"></headlab-transformer-model>
<headlab-transformer-attention model="tm"></headlab-transformer-attention>
<headlab-max-digit-model id="md" share-state src="data/max-digit-seed0.json" loading="eager"></headlab-max-digit-model>
<headlab-seed-grid id="sg" share-state src="data/max-digit-seeds-0-9.json"></headlab-seed-grid>`;

let session;
before(async () => {
  const dir = bundleDir({
    'stalled.html': {
      body:
        Object.entries(STALLED)
          .map(
            ([id, m]) =>
              `<headlab-transformer-model id="${id}" src="${m.src}" config="${m.config}" timeout="1"></headlab-transformer-model>`,
          )
          .join('\n') + '\n<headlab-transformer-attention model="drip"></headlab-transformer-attention>',
    },
    'percent.html': {
      body: `<headlab-transformer-model id="bare" src="models/50%.safetensors"></headlab-transformer-model>
<headlab-transformer-model id="escaped" src="models/50%25.safetensors" config="models/50%25.json"></headlab-transformer-model>`,
    },
    'large-header.html': { body: '<headlab-transformer-model id="m" src="models/large-header.safetensors"></headlab-transformer-model>' },
    'hash.html': { body: HASH_PAGE },
    'torch.html': {
      body: `<headlab-transformer-model id="st" src="models/pt-safetensors.safetensors" config="models/pt.json"></headlab-transformer-model>
<headlab-transformer-model id="pt" src="models/pt.pt"></headlab-transformer-model>
<headlab-transformer-model id="named" src="models/pt-named.safetensors" config="models/pt.json"></headlab-transformer-model>
<headlab-transformer-model id="bridge" src="models/bridge.pth"></headlab-transformer-model>
<headlab-transformer-model id="long" src="models/long.pt" config="models/pt.json"></headlab-transformer-model>`,
    },
    'gpt2.html': {
      body: `<headlab-transformer-model id="gpt" src="models/wide.safetensors" config="models/wide.json" tokenizer="models/gpt2.json"></headlab-transformer-model>
<headlab-transformer-attention model="gpt"></headlab-transformer-attention>`,
    },
    'missing.html': {
      body: `<headlab-transformer-model id="missing" src="models/missing.safetensors" config="models/ok.json"></headlab-transformer-model>
<headlab-transformer-model id="refused" src="models/ok.safetensors" config="models/big-vocab.json"></headlab-transformer-model>
<headlab-transformer-model id="nosrc"></headlab-transformer-model>`,
    },
    'limits.html': {
      body: `<headlab-transformer-model id="ctx" src="models/ok.safetensors" config="models/big-ctx.json"></headlab-transformer-model>
<headlab-transformer-model id="vocab" src="models/ok.safetensors" config="models/big-vocab.json"></headlab-transformer-model>
<headlab-transformer-attention model="ctx"></headlab-transformer-attention>`,
    },
  });
  fs.mkdirSync(path.join(dir, 'data'));
  for (const f of ['max-digit-seed0.json', 'max-digit-seeds-0-9.json']) fs.copyFileSync(path.join(DATA, f), path.join(dir, 'data', f));
  session = await startSession({ dir, csp: true, handle });
});
after(async () => {
  for (const res of held) res.destroy();
  await session?.close();
});

/** Each model element's status, failure line and buttons. */
function modelStates(p) {
  return p.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('headlab-transformer-model')].map((m) => {
        const r = m.shadowRoot;
        return [
          m.id,
          {
            status: m.state.status,
            label: m.state.label,
            failure: r?.querySelector('.failure')?.hidden ? '' : (r?.querySelector('.failure')?.textContent ?? ''),
            // The buttons a load's outcome offers (the file button, "Open a model…", is always there).
            buttons: [...(r?.querySelectorAll('.row button:not([data-opens-files])') ?? [])].map((b) => b.textContent),
          },
        ];
      }),
    ),
  );
}

test('a stalled, header-only or dripping server ends in a message naming the file and the time, with a Try again button that loads it', async () => {
  healed = false;
  const p = await session.newPage();
  await p.goto(`${session.url}stalled.html`);
  await p.waitForFunction(
    () => [...document.querySelectorAll('headlab-transformer-model')].every((m) => m.state.status === 'failed'),
    null,
    { timeout: 60_000 },
  );
  const states = await modelStates(p);
  for (const [id, m] of Object.entries(STALLED)) {
    assert.equal(
      states[id].failure,
      `the model could not be loaded: the ${m.what} file ${m.file} could not be fetched (no complete answer within 1 s; the download was abandoned)`,
      id,
    );
    assert.deepEqual(states[id].buttons, ['Try again'], id);
  }
  // The figure reading the dripping model says so too.
  const alert = await p.evaluate(
    () => document.querySelector('headlab-transformer-attention').shadowRoot.querySelector('.alert').textContent,
  );
  assert.match(alert, /the weights file \/models\/drip-w\.safetensors could not be fetched \(no complete answer within 1 s/);
  await atEachLook(p, (width, scheme) => screenshot(p, `model-sources-timeout-${width}-${scheme}`));
  // The server answers again: Try again (keyboard) loads the files, the figure draws the model.
  healed = true;
  const before = requests.get('drip-w.safetensors');
  await p.evaluate(() => document.getElementById('drip').shadowRoot.querySelector('.row button').focus());
  await p.keyboard.press('Enter');
  await p.waitForFunction(
    () =>
      document.getElementById('drip').state.status === 'ready' &&
      document.querySelector('headlab-transformer-attention').currentModel &&
      document.querySelector('headlab-transformer-attention').renderCount > 0,
  );
  assert.equal(requests.get('drip-w.safetensors'), before + 1);
  const after = await modelStates(p);
  assert.equal(after.drip.label, 'drip-w.safetensors');
  assert.deepEqual(after.drip.buttons, []);
  assert.equal(after['stall-w'].status, 'failed', 'the others wait for their own Try again');
  assert.equal(
    await p.evaluate(() => document.querySelector('headlab-transformer-attention').shadowRoot.querySelector('.alert').hidden),
    true,
  );
  await p.close();
});

test('a % in a file name: bare (a literal %) or escaped as %25, the file loads and the caption shows its name', async () => {
  requests.clear();
  const p = await session.newPage();
  await p.goto(`${session.url}percent.html`);
  await p.waitForFunction(() =>
    [...document.querySelectorAll('headlab-transformer-model')].every((m) => m.state.status !== 'loading' && m.state.status !== 'idle'),
  );
  const states = await modelStates(p);
  for (const id of ['bare', 'escaped']) {
    assert.equal(states[id].status, 'ready', `${id}: ${states[id].failure}`);
    assert.equal(states[id].label, '50%.safetensors', id);
  }
  assert.equal(requests.get('50%.safetensors'), 2);
  assert.equal(requests.get('50%.json'), 2);
  assert.deepEqual(p.problems, []);
  await p.close();
});

test('an 844 KB safetensors header is read in the worker: the page holds the config it read and the weights only as a Blob', async () => {
  const p = await session.newPage();
  await p.goto(`${session.url}large-header.html`);
  await p.waitForFunction(() => document.getElementById('m').state.status === 'ready');
  const held = await p.evaluate(() => {
    const model = document.getElementById('m').modelSource.model;
    const arrays = Object.values(model).filter((v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer).length;
    return { arrays, blob: model.weights instanceof Blob, size: model.weights.size, handle: 'handle' in model };
  });
  assert.ok(LARGE.headerBytes > 844 * 1024, `served header ${LARGE.headerBytes}`);
  assert.deepEqual(held, { arrays: 0, blob: true, size: LARGE.file.length, handle: false });
  assert.deepEqual(p.problems, []);
  await p.close();
});

test('a model element removed while its files download reads them again when it is back on the page', async () => {
  const p = await session.newPage();
  // The weights are held back until the element is off the page: its worker (which ends with it)
  // is then asked to read them, and refuses.
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  await p.route('**/models/large-header.safetensors', async (route) => {
    await held;
    await route.continue();
  });
  await p.goto(`${session.url}large-header.html`);
  await p.waitForFunction(() => document.getElementById('m').modelSource.status === 'loading');
  await p.evaluate(() => {
    const m = document.getElementById('m');
    window.__removed = { m, parent: m.parentNode, next: m.nextSibling };
    m.remove();
  });
  release();
  // Nothing was wrong with the files: the source waits to load again, rather than failing.
  await p.waitForFunction(() => window.__removed.m.modelSource.status !== 'loading');
  assert.equal(await p.evaluate(() => window.__removed.m.modelSource.status), 'idle');
  await p.evaluate(() => {
    const { m, parent, next } = window.__removed;
    parent.insertBefore(m, next);
  });
  await p.waitForFunction(() => document.getElementById('m').state.status === 'ready');
  assert.deepEqual(p.problems, []);
  await p.close();
});

test("a torch.save checkpoint loads in the worker as its safetensors file does, by its bytes; a refused one shows the reader's message", async () => {
  const p = await session.newPage();
  await p.goto(`${session.url}torch.html`);
  await p.waitForFunction(() =>
    [...document.querySelectorAll('headlab-transformer-model')].every((m) => m.state.status !== 'loading' && m.state.status !== 'idle'),
  );
  const states = await modelStates(p);
  for (const id of ['st', 'pt', 'named', 'bridge']) assert.equal(states[id].status, 'ready', `${id}: ${states[id].failure}`);
  assert.equal(states.pt.label, 'pt.pt');
  assert.equal(states.bridge.label, 'bridge.pth');
  // Each worker's model: the .pt, and the .pt named .safetensors, compute what the safetensors file's model computes, bit for bit.
  const runs = await p.evaluate(async () => {
    const out = {};
    for (const id of ['st', 'pt', 'named', 'bridge']) {
      const { run } = await document.getElementById(id).modelSource.compute('transformer-analyze', { run: { prompt: [1, 2, 3] } });
      // Each Matrix { rows, cols, data } as its shape and numbers.
      const numbers = (m) => [m.rows, m.cols, ...m.data];
      out[id] = { patterns: run.patterns.map((l) => l.map(numbers)), logits: numbers(run.logits) };
    }
    return out;
  });
  assert.deepEqual(runs.pt, runs.st);
  assert.deepEqual(runs.named, runs.st);
  assert.equal(
    states.long.failure,
    'the model could not be loaded: torch checkpoint: tensor steps is stored as torch.LongStorage; read are float32, float64, float16, bfloat16 and bool',
  );
  assert.deepEqual(p.problems, []);
  await p.close();
});

test("a model beyond the core's limits (the page's) is refused with the limit named, in the element and its figures", async () => {
  const p = await session.newPage();
  await p.goto(`${session.url}limits.html`);
  await p.waitForFunction(() => [...document.querySelectorAll('headlab-transformer-model')].every((m) => m.state.status === 'failed'));
  const states = await modelStates(p);
  assert.equal(states.ctx.failure, 'the model could not be loaded: config: config.n_ctx must lie in [1, 4096], got 8192');
  assert.equal(states.vocab.failure, 'the model could not be loaded: config: config.d_vocab must lie in [1, 65536], got 131072');
  assert.deepEqual(states.ctx.buttons, [], 'a refused model is not offered again');
  await p.waitForFunction(() => !document.querySelector('headlab-transformer-attention').shadowRoot.querySelector('.alert').hidden);
  const alert = await p.evaluate(
    () => document.querySelector('headlab-transformer-attention').shadowRoot.querySelector('.alert').textContent,
  );
  assert.match(alert, /config: config\.n_ctx must lie in \[1, 4096\], got 8192/);
  assert.deepEqual(p.problems, []);
  await p.close();
});

test("file locations are never taken from the URL hash: no request, and the author's files stay", async () => {
  const hostile = [
    'http://other-host.test/x.json',
    '//other-host.test/x.safetensors',
    'javascript:alert(1)',
    'data:application/json,{"n_layers":1}',
    'models/stall-hash.json',
    'models/stall-hash.safetensors',
  ];
  const author = {
    tm: { src: 'models/ok.safetensors', config: 'models/ok.json' },
    md: { src: 'data/max-digit-seed0.json' },
    sg: { src: 'data/max-digit-seeds-0-9.json' },
  };
  const ready = () =>
    document.getElementById('tm').state.status === 'ready' &&
    document.getElementById('md').modelSource?.status === 'ready' &&
    document.querySelector('headlab-transformer-attention').renderCount > 0 &&
    document.getElementById('sg').renderCount > 0;
  healed = false;
  for (const value of hostile) {
    const hash =
      '#' +
      ['tm', 'md', 'sg']
        .flatMap((key) =>
          ['src', 'config', 'weights', 'data'].map((name) => `${encodeURIComponent(`${key}.${name}`)}=${encodeURIComponent(value)}`),
        )
        .join('&');
    const p = await session.newPage();
    const seen = [];
    p.on('request', (r) => seen.push(r.url()));
    await p.goto(`${session.url}hash.html${hash}`);
    await p.waitForFunction(ready);
    // And once more as a followed link (hashchange).
    await p.evaluate((h) => {
      location.hash = `${h}&again=1`;
    }, hash);
    await frames(p);
    const state = await p.evaluate(() => ({
      tm: { src: document.getElementById('tm').getAttribute('src'), config: document.getElementById('tm').getAttribute('config') },
      md: { src: document.getElementById('md').getAttribute('src') },
      sg: { src: document.getElementById('sg').getAttribute('src') },
      label: document.getElementById('tm').state.label,
      mdStatus: document.getElementById('md').modelSource?.status,
      mdLabel: document.getElementById('md').modelSource?.model?.label,
      figure: document.querySelector('headlab-transformer-attention').currentModel?.label,
    }));
    assert.deepEqual({ tm: state.tm, md: state.md, sg: state.sg }, author, value);
    assert.equal(state.label, 'ok.safetensors', value);
    assert.equal(state.figure, 'ok.safetensors', value);
    assert.equal(state.mdStatus, 'ready', value);
    // The author's weights file, fetched and shown (named to readers by its seed, not its file name).
    assert.match(state.mdLabel, /^the shipped weights \(seed 0\)$/, value);
    assert.ok(
      seen.some((u) => /\/max-digit-seed0\.json$/.test(u)),
      `${value}: requests ${seen.join(', ')}`,
    );
    const foreign = seen.filter((u) => !u.startsWith(session.url) || /stall|other-host/.test(u));
    assert.deepEqual(foreign, [], `${value}: requests ${foreign.join(', ')}`);
    assert.equal(requests.get('stall-hash.json') ?? 0, 0);
    assert.equal(requests.get('stall-hash.safetensors') ?? 0, 0);
    assert.deepEqual(p.problems, [], value);
    await p.close();
  }
});

/** The longest main-thread task a reader may wait behind (docs/limits.md, "Main-thread tasks"). */
const LONG_TASK_MS = 50;

test("GPT-2's 1.3 MB tokenizer is read and prompts encoded in the worker only: no main-thread task over 50 ms loading it or typing; the default prompt reads as text", async () => {
  const p = await session.newPage();
  const figureReady = () =>
    p.waitForFunction(
      () => {
        const m = document.getElementById('gpt');
        const f = document.querySelector('headlab-transformer-attention');
        return (
          m.state.status !== 'loading' && m.state.status !== 'idle' && f.currentModel && f.renderCount > 0 && !f.busy && !f.updatePending
        );
      },
      null,
      { timeout: 60_000 },
    );
  const loading = await traced(session.browser, p, async () => {
    await p.goto(`${session.url}gpt2.html`);
    await figureReady();
  });
  const state = await p.evaluate(() => document.getElementById('gpt').state);
  assert.deepEqual([state.status, state.tokenizer, state.d_vocab], ['ready', 'gpt2.json', 4096]);
  console.log(`# loading a model with GPT-2's tokenizer: longest main-thread task ${loading.ms.toFixed(1)} ms (${loading.what})`);
  assert.ok(loading.ms < LONG_TASK_MS, `loading: a main-thread task of ${loading.ms.toFixed(1)} ms (${loading.what})`);

  // The default prompt: the first min(6, ⌊n_ctx / 2⌋) = 5 words of three letters or more of the
  // vocabulary below d_vocab (GPT-2's " the", …), found here from encoder.json, repeated to
  // n_ctx − 1 = 9 tokens, as text; its ids are the CLI's
  // encoding of that text, and the chips show its tokens.
  const encoder = JSON.parse(GPT2).model.vocab;
  const words = Object.entries(encoder)
    .filter(([t, id]) => id < 4096 && /^Ġ[A-Za-z]{3,}$/.test(t))
    .sort((a, b) => a[1] - b[1])
    .slice(0, 5)
    .map(([t]) => ` ${t.slice(1)}`);
  const text = Array.from({ length: 9 }, (_, i) => words[i % 5])
    .join('')
    .trim();
  const shown = await p.evaluate(() => {
    const f = document.querySelector('headlab-transformer-attention');
    const r = f.shadowRoot;
    return {
      field: r.querySelector('textarea[name="prompt"]').value,
      prompt: f.state.prompt,
      chips: [...r.querySelectorAll('.token-chips li .text')].map((c) => c.textContent),
      count: r.querySelector('.token-count').textContent,
    };
  });
  assert.equal(shown.field, text);
  assert.match(shown.field, /^[A-Za-z]+( [A-Za-z]+){8}$/, 'nine words separated by spaces');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-gpt2-'));
  const files = {
    config: path.join(dir, 'wide.json'),
    weights: path.join(dir, 'wide.safetensors'),
    tokenizer: path.join(dir, 'gpt2.json'),
  };
  fs.writeFileSync(files.config, WIDE.config);
  fs.writeFileSync(files.weights, WIDE.weights);
  fs.writeFileSync(files.tokenizer, GPT2);
  const cli = (prompt) => {
    const r = cliRun([
      'model',
      'run',
      '--config',
      files.config,
      '--weights',
      files.weights,
      '--tokenizer',
      files.tokenizer,
      '--prompt',
      prompt,
    ]);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const want = cli(text);
  assert.deepEqual(shown.prompt, want.tokens);
  assert.equal(shown.count, `${want.tokens.length} tokens, as gpt2.json cuts the prompt:`);
  assert.deepEqual(
    shown.chips,
    want.token_names.map((n) => n.replace(/ /g, '␣')),
  );

  // Typing a prompt: each keystroke and the encoding in the worker, the figure redrawn on the new ids.
  const typed = 'the cat sat on the mat';
  const field = p.locator('headlab-transformer-attention textarea[name="prompt"]');
  const typing = await traced(session.browser, p, async () => {
    await field.focus();
    await p.keyboard.press('Control+A');
    await p.keyboard.type(typed);
    await p.keyboard.press('Enter');
    await p.waitForFunction((t) => document.querySelector('headlab-transformer-attention').getAttribute('prompt') === t, typed);
    await figureReady();
  });
  console.log(`# typing a prompt: longest main-thread task ${typing.ms.toFixed(1)} ms (${typing.what})`);
  assert.ok(typing.ms < LONG_TASK_MS, `typing: a main-thread task of ${typing.ms.toFixed(1)} ms (${typing.what})`);
  assert.deepEqual(await p.evaluate(() => document.querySelector('headlab-transformer-attention').state.prompt), cli(typed).tokens);
  fs.rmSync(dir, { recursive: true });
  await atEachLook(p, async (width, scheme) => {
    await field.evaluate((f) => f.blur());
    await p.evaluate(() => document.querySelector('headlab-transformer-attention').removeAttribute('prompt'));
    await figureReady();
    await frames(p);
    await screenshot(p.locator('headlab-transformer-attention .prompt-row'), `model-sources-gpt2-default-prompt-${width}-${scheme}`);
  });
  assert.deepEqual(p.problems, []);
  await p.close();
});

test('after a failed first load (a missing file, a refused config, no src) "Open a model…" is there, reachable by Tab, and opens the files', async () => {
  const p = await session.newPage();
  await p.goto(`${session.url}missing.html`);
  await p.waitForFunction(() => [...document.querySelectorAll('headlab-transformer-model')].every((m) => m.state.status === 'failed'));
  await frames(p);
  const shown = await p.evaluate(() =>
    [...document.querySelectorAll('headlab-transformer-model')].map((m) => {
      const r = m.shadowRoot;
      const open = r.querySelector('button[data-opens-files]');
      return {
        id: m.id,
        body: !r.querySelector('.body').hidden,
        open: open?.checkVisibility() ?? false,
        failure: r.querySelector('.failure').hidden ? '' : r.querySelector('.failure').textContent,
      };
    }),
  );
  for (const s of shown) {
    assert.ok(s.body && s.open, `${s.id}: the panel with "Open a model…" is shown (${JSON.stringify(s)})`);
    assert.match(s.failure, /^the model could not be loaded: /, s.id);
  }
  assert.match(shown[2].failure, /needs src="model\.safetensors"/);
  // Tab from the top of the page reaches each element's file button.
  const reached = [];
  await p.evaluate(() => document.activeElement?.blur());
  for (let i = 0; i < 12 && reached.length < 3; i++) {
    await p.keyboard.press('Tab');
    const at = await p.evaluate(() => {
      const host = document.activeElement;
      const inner = host?.shadowRoot?.activeElement;
      return inner?.hasAttribute('data-opens-files') ? host.id : null;
    });
    if (at && !reached.includes(at)) reached.push(at);
  }
  assert.deepEqual(reached, ['missing', 'refused', 'nosrc']);
  await atEachLook(p, (width, scheme) => screenshot(p.locator('#nosrc'), `model-sources-failed-open-${width}-${scheme}`));
  // The reader recovers: the file button of each takes the model's files.
  for (const id of ['missing', 'nosrc']) {
    await p
      .locator(`#${id} input[type=file]`)
      .setInputFiles([path.join(DATA, 'induction-seed0.safetensors'), path.join(DATA, 'induction-seed0.json')]);
    await p.waitForFunction((i) => document.getElementById(i).state.status === 'ready', id, { timeout: 60_000 });
    const after = await p.evaluate((i) => {
      const e = document.getElementById(i);
      return { state: e.state, failure: e.shadowRoot.querySelector('.failure').hidden };
    }, id);
    assert.deepEqual(
      [after.state.label, after.state.origin, after.state.trained, after.failure],
      ['induction-seed0.safetensors', 'reader', false, true],
      id,
    );
  }
  // Only the missing file's 404 was logged.
  assert.ok(
    p.problems.every((m) => /missing\.safetensors|404/.test(m)),
    p.problems.join('\n'),
  );
  await p.close();
});
