// How the pages with a model host it (docs/model-pattern.md): per page of the built site, in
// Chromium under the strict CSP, until every widget is live with its model and every worker
// answer is back, then through a few updates of every widget's natural input
// (site/assets/bench-widgets.js SCENARIOS):
//   requests     how often each .wasm and each model file (data/*.json, *.safetensors) was
//                fetched; a file fetched more than once is marked
//   workers      workers the page started, and jobs that sent a model's weights to a worker
//                (params carrying safetensors, a max-digit weights file's text, or a
//                feature-recovery run's W_q, W_v)
//   memory       the main thread's JS heap (CDP Performance.getMetrics JSHeapUsedSize), the
//                WASM linear memory of the page's instances and of every worker's, summed
//   copies       bytes copied from JS typed arrays into any WASM memory (page and workers), and
//                weight bytes posted to workers, per widget update (total over the updates ÷ count)
// The page's WebAssembly.instantiate and TypedArray.prototype.set are wrapped before its scripts
// run (an init script); the worker's by a prologue this script's server adds to headlab-worker.js.
// HEADLAB_BENCH_SITE=dir measures another build of the site (e.g. main's, for a before/after);
// HEADLAB_BENCH_PAGES=own-model.html,… limits the pages; HEADLAB_BENCH_UPDATES (default 4) sets
// the updates per input. Needs a built site (./dev build). Not a test: it prints figures.
import fs from 'node:fs';
import path from 'node:path';
import { root, startSession } from '../tests/browser/helpers.mjs';

const siteDir = path.resolve(process.env.HEADLAB_BENCH_SITE ?? path.join(root, 'build/site'));
if (!fs.existsSync(path.join(siteDir, 'index.html'))) throw new Error(`${siteDir} has no built site: run ./dev build first`);
const PAGES = (
  process.env.HEADLAB_BENCH_PAGES ??
  'articles/max-digit-heads.html,articles/max-digit-heads-appendix.html,articles/induction-heads.html,own-model.html,articles/feature-recovery-two-projections.html'
)
  .split(',')
  .filter(Boolean);
const UPDATES = Number(process.env.HEADLAB_BENCH_UPDATES) || 4;

/** Runs first in the page and in each worker: records WASM memories, copies into them and posted weights. */
function instrument(scope) {
  const t = { memories: [], copiedIn: 0, workers: [], weightsPosted: 0, weightJobs: 0 };
  scope.__hlHost = t;
  const keep = (result) => {
    const instance = result instanceof WebAssembly.Instance ? result : result?.instance;
    // The memory's export name is minified (Emscripten renames exports): found by its type.
    const memory = Object.values(instance?.exports ?? {}).find((v) => v instanceof WebAssembly.Memory);
    if (memory) t.memories.push(memory);
    return result;
  };
  for (const name of ['instantiate', 'instantiateStreaming']) {
    const f = WebAssembly[name];
    if (typeof f === 'function') WebAssembly[name] = (...args) => f.apply(WebAssembly, args).then(keep);
  }
  // A typed array set() into a view of a WASM memory is a copy into the heap (Emscripten's
  // typed_memory_view(...).set(data): web/bindings/marshal.hpp copy_in).
  for (const Typed of [Float64Array, Float32Array, Uint8Array, Int32Array]) {
    const set = Typed.prototype.set;
    Typed.prototype.set = function (source, offset) {
      if (t.memories.some((m) => m.buffer === this.buffer)) t.copiedIn += (source?.length ?? 0) * this.BYTES_PER_ELEMENT;
      return set.call(this, source, offset);
    };
  }
  if (typeof scope.Worker === 'function') {
    const Native = scope.Worker;
    scope.Worker = class extends Native {
      constructor(url, options) {
        super(url, options);
        t.workers.push(this);
      }

      postMessage(message, transfer) {
        const p = message?.params;
        // A feature-recovery run's W_q, W_v: in the params (the figure's own worker, before one host)
        // or as the run a source sends to a worker that does not hold it.
        const projections = [p?.w_q, p?.w_v, p?.run?.w_q, p?.run?.w_v].reduce((n, m) => n + (m?.data?.byteLength ?? 0), 0);
        const bytes =
          (p?.safetensors?.byteLength ?? 0) +
          (typeof p?.text === 'string' && /max-digit/.test(message.kind) ? p.text.length : 0) +
          projections;
        if (bytes) {
          t.weightsPosted += bytes;
          t.weightJobs++;
        }
        return super.postMessage(message, transfer);
      }
    };
  }
  scope.addEventListener('message', (e) => {
    if (e.data?.__hlHost !== 'ask') return;
    scope.postMessage({ __hlHost: 'answer', copiedIn: t.copiedIn, wasmBytes: t.memories.reduce((n, m) => n + m.buffer.byteLength, 0) });
  });
}

const workerPrologue = `(${instrument})(self);\n`;
const { url, newPage, close } = await startSession({
  dir: siteDir,
  csp: true,
  handle(req, res, headers) {
    if (!/\/headlab-worker\.js(\?|$)/.test(req.url)) return false;
    const file = path.join(siteDir, 'headlab', 'headlab-worker.js');
    res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript' });
    res.end(workerPrologue + fs.readFileSync(file, 'utf8'));
    return true;
  },
});

/** { copiedIn, wasmBytes } summed over the page and its live workers. */
async function totals(page) {
  return page.evaluate(async () => {
    const t = window.__hlHost;
    const answers = await Promise.all(
      t.workers.map(
        (w) =>
          new Promise((resolve) => {
            const on = (e) => {
              if (e.data?.__hlHost !== 'answer') return;
              w.removeEventListener('message', on);
              resolve(e.data);
            };
            w.addEventListener('message', on);
            w.postMessage({ __hlHost: 'ask' });
            // An ended worker never answers: counted as nothing once a frame has passed with no answer.
            setTimeout(() => resolve({ copiedIn: 0, wasmBytes: 0, ended: true }), 500);
          }),
      ),
    );
    return {
      copiedIn: t.copiedIn + answers.reduce((n, a) => n + a.copiedIn, 0),
      wasmBytes: t.memories.reduce((n, m) => n + m.buffer.byteLength, 0) + answers.reduce((n, a) => n + a.wasmBytes, 0),
      liveWorkers: answers.filter((a) => !a.ended).length,
      weightsPosted: t.weightsPosted,
      weightJobs: t.weightJobs,
    };
  });
}

const widgetsOf = () =>
  [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value');

const rows = [];
for (const name of PAGES) {
  const page = await newPage();
  await page.addInitScript(`(${instrument})(window); window.__hlWidgets = ${widgetsOf};`);
  const fetched = new Map();
  page.on('request', (r) => {
    const p = new URL(r.url()).pathname;
    if (/\.(wasm|safetensors)$/.test(p) || /\/data\/[^/]+\.json$/.test(p))
      fetched.set(p.split('/').pop(), (fetched.get(p.split('/').pop()) ?? 0) + 1);
  });
  await page.goto(`${url}${name}`);
  // Everything live: the first interaction (the max-digit figures wait for one), the lazy models
  // asked to load, every widget scrolled past.
  await page.evaluate(async () => {
    window.dispatchEvent(new PointerEvent('pointerdown'));
    for (const m of document.querySelectorAll('headlab-max-digit-model, headlab-transformer-model')) m.load?.();
    for (const e of [...document.querySelectorAll('*')].filter((x) => x.localName.startsWith('headlab-'))) e.scrollIntoView();
    // A feature-recovery trainer scrolled past too fast for its autostart: trained now, so its figures have a run.
    for (const f of document.querySelectorAll('headlab-feature-recovery')) if (f.trainingStatus === 'idle') f.train();
  });
  await page.waitForFunction(
    () =>
      window.__hlWidgets().every(
        (e) =>
          (e.renderCount > 0 &&
            (!('currentModel' in e) || e.currentModel !== null) &&
            // a feature-recovery trainer (autostart) has its run, so the figures reading it have a model
            (e.localName !== 'headlab-feature-recovery' || e.run !== null) &&
            !e.busy) ||
          !e.shadowRoot?.querySelector('.alert')?.hidden,
      ),
    null,
    { timeout: 120_000 },
  );
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'JSHeapUsedSize').value;
  const start = await totals(page);
  const workersStarted = await page.evaluate(() => window.__hlHost.workers.length);
  // Updates: each widget's inputs, a few times each (the first of each input uncached).
  const perWidget = [];
  const scenarios = new URL('assets/bench-widgets.js', url).href;
  const count = await page.evaluate(() => window.__hlWidgets().length);
  for (let i = 0; i < count; i++) {
    const before = await totals(page);
    const updates = await page.evaluate(
      async ([i, s, n]) => {
        const m = await import(s);
        const e = window.__hlWidgets()[i];
        let done = 0;
        for (const scenario of m.SCENARIOS[e.localName] ?? []) {
          if (/train|restart/i.test(scenario.input)) continue; // a training run is not a figure update
          await m.measureScenario(e, scenario, { samples: n, warmup: 0, forceLayout: false });
          done += n;
        }
        return { tag: e.localName, done };
      },
      [i, scenarios, UPDATES],
    );
    if (!updates.done) continue;
    const after = await totals(page);
    perWidget.push({
      tag: updates.tag,
      updates: updates.done,
      copied: (after.copiedIn - before.copiedIn) / updates.done,
      posted: (after.weightsPosted - before.weightsPosted) / updates.done,
    });
  }
  rows.push({ name, fetched, heap, start, workersStarted, perWidget });
  await page.close();
}
await close();

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;
console.log(`site: ${path.relative(process.cwd(), siteDir) || '.'}; ${UPDATES} updates per input`);
for (const r of rows) {
  console.log(`\n${r.name}`);
  console.log(`  requests: ${[...r.fetched].map(([f, n]) => `${f} ×${n}${n > 1 ? ' (more than once)' : ''}`).join(', ') || 'none'}`);
  console.log(
    `  workers: ${r.workersStarted} started, ${r.start.liveWorkers} live at start-up; jobs that sent a model's weights to a worker: ${r.start.weightJobs} (${kb(r.start.weightsPosted)})`,
  );
  console.log(`  memory at start-up: JS heap (main thread) ${mb(r.heap)}; WASM memory (page + workers) ${mb(r.start.wasmBytes)}`);
  console.log(`  copied into WASM during start-up: ${kb(r.start.copiedIn)}`);
  const worst = r.perWidget.reduce((m, w) => Math.max(m, w.copied), 0);
  console.log(`  per widget update (mean over its updates): bytes copied into WASM | weight bytes posted to a worker`);
  for (const w of r.perWidget) console.log(`    ${w.tag.padEnd(34)} ${String(Math.round(w.copied)).padStart(9)} | ${Math.round(w.posted)}`);
  console.log(`  largest mean copy per update on this page: ${Math.round(worst)} bytes`);
}
