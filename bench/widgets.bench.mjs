// Every page of the built site in Chromium (served locally under the strict CSP, as the tests
// serve it): start-up, widget updates, and the longest main-thread task in each phase.
//
//   start-up     navigation → each widget interactive: its first live render (core loaded,
//                controls built) with its model when it shows one (a `headlab-render` event
//                seen from a capture listener; performance.now() counts from navigation). A
//                widget that loads on approach (loading="lazy", training near the viewport,
//                the max-digit figures waiting behind their snapshots for a first interaction)
//                is scrolled to and pointed at (pointerover) once the eager ones are done and
//                reported as "+ms after scrolled to". Also counted: requests for each .wasm, WebAssembly compile and
//                instantiate calls on the page, workers started (with when).
//   updates      every widget driven through its natural input, SAMPLES per input, one per frame
//                (site/assets/bench-widgets.js says exactly what a sample times): p50, p95,
//                max of the script time, p95 with the forced layout, pass/fail vs 4 ms at p95.
//                Each sample twice: the main thread's CPU time in the sample's frame (a trace of
//                the run, tests/browser/long-tasks.mjs sampleCpu; the verdict) and the wall time
//                performance.now() gives in the page (which on a loaded machine includes the
//                time the thread sat descheduled).
//   limits       the widgets whose size an author sets, at their limits and half of them
//                (docs/limits.md "Why these values"), on a page of their own.
//   long tasks   the longest main-thread task (Chromium trace, RunTask on CrRendererMain) during
//                start-up, during the update sweeps, during a retraining and around a Stop, as
//                tests/browser/long-tasks.mjs measures it: the thread's CPU time, the task's
//                computation (less the browser's own parsing, style, layout and paint of the
//                document) with the whole task and its wall time beside it. Target: none over 50 ms
//                (asserted by tests/browser/product-sweep.test.mjs).
// Writes build/bench/widgets.json (read by bench/targets.mjs; a run over every page keeps the
// one before as widgets-previous.json). Needs a built site
// (./dev build). HEADLAB_BENCH_SAMPLES (default 200) sets the samples per input;
// HEADLAB_BENCH_PAGES=articles/max-digit-heads.html,… limits the pages ("limits" names the
// limits page). Not a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, startSession } from '../tests/browser/helpers.mjs';
import { sampleCpu, traced as tracedTask, TRACE_CATEGORIES } from '../tests/browser/long-tasks.mjs';
import { bundleDir } from '../tests/browser/widget-fixtures.mjs';

const SAMPLES = Number(process.env.HEADLAB_BENCH_SAMPLES) || 200;
const WARMUP = Math.min(20, SAMPLES);
const UPDATE_TARGET_MS = 4;
const LONG_TASK_TARGET_MS = 50;
/** How long start-up may go without a widget becoming interactive before the rest count as "on approach". */
const QUIET_MS = 2500;
/** Samples per input of the traced sweep (the timed one runs untraced, so tracing adds nothing to its figures). */
const SWEEP_SAMPLES = Math.min(30, SAMPLES);

const siteDir = path.join(root, 'build/site');
if (!fs.existsSync(path.join(siteDir, 'index.html'))) throw new Error('build/site is missing: run ./dev build first');
const ALL_PAGES = (function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return ['headlab', 'assets', 'data'].includes(d.name) ? [] : walk(p);
    return d.name.endsWith('.html') ? [path.relative(siteDir, p).split(path.sep).join('/')] : [];
  });
})(siteDir).sort();
const PAGES = process.env.HEADLAB_BENCH_PAGES ? process.env.HEADLAB_BENCH_PAGES.split(',').filter((p) => p !== 'limits') : ALL_PAGES;
/** The author-sized widgets at their size limits (docs/limits.md "Why these values"): run unless HEADLAB_BENCH_PAGES leaves out "limits". */
const LIMITS = !process.env.HEADLAB_BENCH_PAGES || process.env.HEADLAB_BENCH_PAGES.split(',').includes('limits');

/** Runs in the page before its scripts: records interactive times, WebAssembly calls and workers. */
function instrument() {
  const t = { interactive: new Map(), wasm: {}, workers: [] };
  window.__hlBench = t;
  for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) {
    const f = WebAssembly[name];
    if (typeof f !== 'function') continue;
    WebAssembly[name] = function (...args) {
      // instantiate(bytes) compiles as well; instantiate(module) only instantiates.
      const key = name === 'instantiate' && !(args[0] instanceof WebAssembly.Module) ? 'instantiate(bytes)' : name;
      t.wasm[key] = (t.wasm[key] ?? 0) + 1;
      const result = f.apply(this, args);
      if (name === 'compileStreaming') {
        // When each module finished compiling (the start-up table's "compiled at").
        const start = performance.now();
        Promise.resolve(args[0]).then(
          (r) =>
            result.then(() => {
              (t.compiled ??= []).push({ file: String(r.url).split('/').pop(), start, end: performance.now() });
            }),
          () => {},
        );
      }
      return result;
    };
  }
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(url, options) {
      super(url, options);
      const record = { url: String(url).replace(location.origin, ''), at: performance.now(), jobs: [] };
      t.workers.push(record);
      // The task of each job posted to it (web/worker.js: { kind, params, wasm }), and when.
      const post = this.postMessage.bind(this);
      this.postMessage = (message, ...rest) => {
        record.jobs.push({ kind: String(message?.kind), at: performance.now() });
        return post(message, ...rest);
      };
    }
  };
  document.addEventListener(
    'headlab-render',
    (e) => {
      const el = e.target;
      if (t.interactive.has(el) || !(el.renderCount > 0) || ('currentModel' in el && el.currentModel === null)) return;
      t.interactive.set(el, performance.now());
    },
    true,
  );
}

const session = await startSession({ csp: true });
const origin = new URL(session.url).origin;
const results = {
  when: new Date().toISOString(),
  chromium: session.browser.version(),
  cores: os.cpus().length,
  load: os.loadavg(),
  samples: SAMPLES,
  pages: [],
};

/** Traces `fn` and returns its longest main-thread task (thread CPU time; tests/browser/long-tasks.mjs). */
const traced = (page, fn) => tracedTask(session.browser, page, fn);

/**
 * Runs `measure()` (a page.evaluate of measureScenario with mark: true) under a light trace and
 * adds each sample's thread CPU time (tests/browser/long-tasks.mjs sampleCpu) to its result.
 */
async function withCpu(browser, page, measure) {
  await browser.startTracing(page, { categories: [...TRACE_CATEGORIES, 'blink.user_timing'] });
  let r, buffer;
  try {
    r = await measure();
  } finally {
    buffer = await browser.stopTracing();
  }
  if (r.error) return r;
  const samples = sampleCpu(buffer);
  // The renders that drew a worker's answer (a later frame of the same update), as CPU too.
  const answers = sampleCpu(buffer, 'headlab-settled');
  return {
    ...r,
    cpu: summarizeMs(samples.map((x) => x.script)),
    cpuLayout: summarizeMs(samples.map((x) => x.withLayout)),
    ...(answers.length ? { cpuSettled: summarizeMs(answers.map((x) => x.script)) } : {}),
  };
}
function summarizeMs(times) {
  const s = [...times].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
  return { samples: s.length, p50: q(0.5), p95: q(0.95), max: s[s.length - 1] };
}

/**
 * The worker tasks a widget computes its first render with, by tag (the rest start a worker only
 * for what the reader asks: a training, a seed grid): the transformer figures and their model
 * analyse in theirs, the max-digit figures' model is read and analysed in one (widgets/max-digit/model.ts),
 * feature recovery trains on approach and the replay near the viewport, and the interventions
 * compute the first intervention of the run they are handed.
 */
function workerTasksOf(tag) {
  if (tag.startsWith('headlab-transformer-') && tag !== 'headlab-transformer-training') return ['transformer-analyze'];
  if (
    [
      'headlab-max-digit-model',
      'headlab-max-digit-mechanism',
      'headlab-score-ramps',
      'headlab-attention-bars',
      'headlab-head-contributions',
      'headlab-attention-patch',
      'headlab-head-ablation',
      'headlab-subspace-accuracy',
      'headlab-angle-dot',
      'headlab-seed-grid',
    ].includes(tag)
  )
    return ['max-digit-load'];
  return (
    {
      'headlab-feature-recovery': ['feature-recovery-train'],
      'headlab-training-replay': ['feature-recovery-replay'],
      'headlab-interventions': ['feature-recovery-intervene'],
    }[tag] ?? []
  );
}

const waitFor = (page, fn, arg, timeout = 120000) => page.waitForFunction(fn, arg, { timeout, polling: 100 });

try {
  for (const name of PAGES) {
    const page = await session.newPage({ viewport: { width: 1280, height: 900 } });
    const wasmRequests = {};
    page.on('request', (req) => {
      const file = new URL(req.url()).pathname.split('/').pop();
      if (file.endsWith('.wasm')) wasmRequests[file] = (wasmRequests[file] ?? 0) + 1;
    });
    await page.addInitScript(instrument);
    const out = { page: name, widgets: [], updates: [], longTasks: {} };
    results.pages.push(out);

    // ---- start-up ----
    out.longTasks['start-up'] = await traced(page, async () => {
      await page.goto(`${session.url}${name}`, { waitUntil: 'load' });
      // Eager widgets: until all are interactive or none became interactive for QUIET_MS.
      let last = -1,
        since = Date.now();
      for (;;) {
        const [done, total] = await page.evaluate(() => {
          const ws = [...document.querySelectorAll('*')].filter(
            (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value',
          );
          return [ws.filter((e) => window.__hlBench.interactive.has(e)).length, ws.length];
        });
        if (done === total) break;
        if (done !== last) {
          last = done;
          since = Date.now();
        }
        if (Date.now() - since > QUIET_MS) break;
        await page.waitForTimeout(100);
      }
      const eager = await page.evaluate(() => {
        const ws = [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value');
        return ws.map((e, index) => ({ index, tag: e.localName, id: e.id, ms: window.__hlBench.interactive.get(e) ?? null }));
      });
      // The rest load on approach: scroll to each, time from there (or from the first such
      // scroll, for one that a scroll to an earlier one already brought in).
      let firstScroll = null;
      for (const w of eager) {
        if (w.ms !== null) {
          out.widgets.push({ ...w, when: 'at load' });
          continue;
        }
        const start = await page.evaluate((i) => {
          const el = [...document.querySelectorAll('*')].filter(
            (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value',
          )[i];
          el.scrollIntoView({ block: 'center' });
          // A reader reaching for the figure: the pointer entering it (what releases the max-digit
          // widgets kept behind their snapshots until the first interaction, widgets/max-digit/loading.ts).
          el.dispatchEvent(new PointerEvent('pointerover', { bubbles: true, composed: true, pointerType: 'mouse', isPrimary: true }));
          return performance.now();
        }, w.index);
        // A widget that never becomes interactive is reported (its ms null), not a reason to stop.
        const came = await waitFor(
          page,
          (i) => {
            const el = [...document.querySelectorAll('*')].filter(
              (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value',
            )[i];
            return window.__hlBench.interactive.has(el) || !el.shadowRoot?.querySelector('.alert')?.hidden;
          },
          w.index,
          60000,
        ).then(
          () => true,
          () => false,
        );
        if (!came) {
          const why = await page
            .evaluate((i) => {
              const el = [...document.querySelectorAll('*')].filter(
                (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value',
              )[i];
              return `renderCount ${el.renderCount}, currentModel ${'currentModel' in el ? (el.currentModel === null ? 'null' : 'set') : '–'}, status ${el.state?.status ?? '–'}`;
            }, w.index)
            .catch((err) => err.message);
          console.log(`# ${name}: ${w.tag}#${w.id} not interactive 60 s after it was scrolled to (${why})`);
        }
        const ms = await page.evaluate((i) => {
          const el = [...document.querySelectorAll('*')].filter(
            (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value',
          )[i];
          return window.__hlBench.interactive.get(el) ?? null;
        }, w.index);
        firstScroll ??= start;
        out.widgets.push({ ...w, ms, afterScroll: ms === null ? null : ms - (ms >= start ? start : firstScroll), when: 'on approach' });
      }
      await page.waitForTimeout(300);
    });
    const probe = await page.evaluate(() => ({
      wasm: window.__hlBench.wasm,
      workers: window.__hlBench.workers,
      compiled: window.__hlBench.compiled ?? [],
      domContentLoaded: performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? null,
    }));
    out.compiled = probe.compiled;
    out.domContentLoadedMs = probe.domContentLoaded;
    out.wasmRequests = wasmRequests;
    out.wasmCalls = probe.wasm;
    out.workersAtStartUp = probe.workers;
    out.eagerInteractiveMs = out.widgets.filter((w) => w.when === 'at load').reduce((m, w) => Math.max(m, w.ms), 0);

    // ---- updates ----
    if (out.widgets.length) {
      await page.evaluate(async (url) => {
        window.__hlScenarios = await import(url);
      }, `${origin}/assets/bench-widgets.js`);
      // Timed untraced; then the same inputs again, fewer of them, under the trace for the longest task.
      const sweep = async (samples, warmup, record) => {
        for (const w of out.widgets) {
          const inputs = await page.evaluate((i) => {
            const el = [...document.querySelectorAll('*')].filter(
              (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value',
            )[i];
            el.scrollIntoView({ block: 'center' });
            return (window.__hlScenarios.SCENARIOS[el.localName] ?? []).map((s) => s.input);
          }, w.index);
          if (!inputs.length) continue;
          // Widgets that show a trained model wait for their training (replay) or their source's (interventions).
          await waitFor(
            page,
            (i) => {
              const el = [...document.querySelectorAll('*')].filter(
                (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value',
              )[i];
              if (el.localName === 'headlab-training-replay') return el.state.status === 'done';
              if (el.localName === 'headlab-interventions') return el.state.clean_mse !== null;
              return window.__hlScenarios.interactive(el);
            },
            w.index,
          );
          for (let s = 0; s < inputs.length; s++) {
            const measure = () =>
              page.evaluate(
                async ({ i, s, samples, warmup, mark }) => {
                  const m = window.__hlScenarios;
                  const el = [...document.querySelectorAll('*')].filter(
                    (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value',
                  )[i];
                  try {
                    const { script, layout, settled } = await m.measureScenario(el, m.SCENARIOS[el.localName][s], {
                      samples,
                      warmup,
                      mark,
                    });
                    return { script: m.summarize(script), layout: m.summarize(layout), settled: m.summarize(settled) };
                  } catch (err) {
                    return { error: err.message };
                  }
                },
                { i: w.index, s, samples, warmup, mark: record },
              );
            const r = record ? await withCpu(session.browser, page, measure) : await measure();
            if (record) out.updates.push({ tag: w.tag, id: w.id, input: inputs[s], ...r });
          }
        }
      };
      await sweep(SAMPLES, WARMUP, true);
      out.longTasks['sweeping the controls'] = await traced(page, () => sweep(SWEEP_SAMPLES, 0, false));
    }

    // ---- retraining and stopping ----
    const trainers = await page.evaluate(() => {
      const label = {
        'headlab-feature-recovery': 'Train|Restart',
        'headlab-max-digit-model': 'Train a new model',
        'headlab-seed-grid': 'Train these seeds here',
        'headlab-transformer-training': 'Train|Train again',
      };
      return [...document.querySelectorAll('*')]
        .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')
        .map((e, index) => ({ index, tag: e.localName, id: e.id, button: label[e.localName] }))
        .filter((t) => t.button);
    });
    const press = (i, text) =>
      page.evaluate(
        ({ i, text }) => {
          const el = [...document.querySelectorAll('*')].filter(
            (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value',
          )[i];
          el.scrollIntoView({ block: 'center' });
          const b = [...el.shadowRoot.querySelectorAll('button')].find((x) => text.split('|').includes(x.textContent.trim()));
          if (!b) throw new Error(`${el.localName}#${el.id} has no "${text}" button`);
          b.click();
        },
        { i, text },
      );
    const status = (i) =>
      page.evaluate(
        (i) =>
          [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')[i].state
            .status,
        i,
      );
    // Waits until element i (as press and status count them) is no longer training.
    const trainingEnded = (i, timeout) =>
      waitFor(
        page,
        (i) =>
          [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')[i].state
            .status !== 'training',
        i,
        timeout,
      );
    for (const t of trainers) {
      // The seed grid trains ten models and the induction run 1,800 steps (long runs): their stop
      // (with the hand-over of the stopped model to every figure) is measured, their full run is not.
      if (t.tag !== 'headlab-seed-grid' && t.tag !== 'headlab-transformer-training') {
        await trainingEnded(t.index);
        const began = Date.now();
        out.longTasks[`retraining ${t.tag}#${t.id}`] = await traced(page, async () => {
          await press(t.index, t.button);
          await trainingEnded(t.index, 180000);
        });
        out.longTasks[`retraining ${t.tag}#${t.id}`].wallMs = Date.now() - began;
        out.longTasks[`retraining ${t.tag}#${t.id}`].status = await status(t.index);
      }
      out.longTasks[`stopping ${t.tag}#${t.id}`] = await traced(page, async () => {
        await press(t.index, t.button);
        await page.waitForTimeout(400);
        await press(t.index, 'Stop');
        await trainingEnded(t.index, 60000);
        await page.waitForTimeout(200);
      });
      out.longTasks[`stopping ${t.tag}#${t.id}`].status = await status(t.index);
    }
    out.problems = page.problems;
    await page.close();
  }
} finally {
  await session.close();
}

// ---- author sizes at their limits ----
// Every widget whose size an author sets (docs/limits.md: basis rotation MAX_ROTATION_SIDE rows
// and columns, value swap MAX_GRID_SIDE records and values), at the limit and at half of it, driven through its control
// as above. Entries of magnitude up to 1e6 (the entry limit) so every cell shows long numbers.
if (LIMITS) {
  const grid = (n, m, seed) =>
    JSON.stringify(
      Array.from({ length: n }, (_, i) =>
        Array.from({ length: m }, (_, j) => {
          const u = Math.sin(seed * 97 + i * 13.1 + j * 7.7) * 43758.5453;
          return Number(((u - Math.floor(u)) * 4 - 2).toFixed(6)) * (i === 0 && j === 0 ? 1e5 : 1);
        }),
      ),
    );
  const rotation = (id, n) =>
    `<headlab-basis-rotation id="${id}" x='${grid(n, n, 1)}' w-q='${grid(n, n, 2)}' w-k='${grid(n, n, 3)}'></headlab-basis-rotation>`;
  const swap = (id, n) =>
    `<headlab-value-swap id="${id}" weights="${Array(n)
      .fill(1 / n)
      .join(
        ' ',
      )}" values='${JSON.stringify(Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => ((i + j) % 2 ? -1e6 : 1e6) / (1 + i + j))))}'></headlab-value-swap>`;
  const dir = bundleDir({
    'limits.html': { body: [rotation('rotation-8', 8), rotation('rotation-4', 4), swap('swap-16', 16), swap('swap-8', 8)].join('\n') },
  });
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.copyFileSync(path.join(root, 'site/assets/bench-widgets.js'), path.join(dir, 'assets/bench-widgets.js'));
  const s = await startSession({ dir, csp: true });
  const out = { page: 'limits', widgets: [], updates: [], longTasks: {} };
  try {
    const page = await s.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${s.url}limits.html`);
    await page.evaluate(
      async (url) => {
        window.__hlScenarios = await import(url);
      },
      `${new URL(s.url).origin}/assets/bench-widgets.js`,
    );
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('headlab-basis-rotation, headlab-value-swap')].every(
          (e) => window.__hlScenarios.interactive(e) || !e.shadowRoot.querySelector('.alert')?.hidden,
        ),
      null,
      { timeout: 60000 },
    );
    const ids = await page.evaluate(() =>
      [...document.querySelectorAll('headlab-basis-rotation, headlab-value-swap')].map((e) => ({ tag: e.localName, id: e.id })),
    );
    for (const w of ids) {
      const measure = (samples, warmup, mark = false) =>
        page.evaluate(
          async ({ id, samples, warmup, mark }) => {
            const m = window.__hlScenarios;
            const el = document.getElementById(id);
            el.scrollIntoView({ block: 'center' });
            try {
              const { script, layout } = await m.measureScenario(el, m.SCENARIOS[el.localName][0], { samples, warmup, mark });
              return { input: m.SCENARIOS[el.localName][0].input, script: m.summarize(script), layout: m.summarize(layout) };
            } catch (err) {
              return { input: m.SCENARIOS[el.localName][0].input, error: err.message };
            }
          },
          { id: w.id, samples, warmup, mark },
        );
      out.updates.push({ ...w, ...(await withCpu(s.browser, page, () => measure(SAMPLES, WARMUP, true))) });
      out.longTasks[`sweeping ${w.id}`] = await tracedTask(s.browser, page, () => measure(SWEEP_SAMPLES, 0));
    }
    out.problems = page.problems;
  } finally {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  results.limits = out;
}

// ---- print ----
function table(rows) {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]);
  const width = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  console.log(columns.map((c, i) => c.padEnd(width[i])).join('  '));
  for (const r of rows) console.log(columns.map((c, i) => String(r[c]).padEnd(width[i])).join('  '));
}
const f2 = (x) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(2));
/** An update's verdict figure: the larger CPU p95 of its input frame and of the renders of its worker's answer (wall when the trace found none). */
const updateP95 = (u) => Math.max(u.cpu.p95, u.cpuSettled?.p95 ?? (u.settled?.samples ? u.settled.p95 : 0));
console.log(
  `Chromium ${results.chromium}, ${results.cores} cores, load average ${results.load.map((x) => x.toFixed(1)).join(' / ')} at the start (a busy machine inflates every figure), ${SAMPLES} samples per input, one per frame`,
);
console.log(
  `\nwidget updates: main-thread script time per input (site/assets/bench-widgets.js), ms, target p95 < ${UPDATE_TARGET_MS} ms; CPU = the thread's CPU time in each sample's frame (Chromium trace; the verdict, with the answer's render), wall = performance.now() in the page (includes descheduling on a loaded machine); answer = the render drawing a worker's answer, at a later frame (CPU from the trace, the verdict's other half; wall beside it)`,
);
const withLimits = [...results.pages, ...(results.limits ? [results.limits] : [])];
table(
  withLimits.flatMap((p) =>
    p.updates.map((u) =>
      u.error
        ? {
            page: p.page.replace(/^articles\//, '').replace(/\.html$/, ''),
            widget: `${u.tag}#${u.id}`,
            input: u.input,
            samples: 0,
            'CPU p50': '–',
            'CPU p95': '–',
            'CPU max': '–',
            'CPU p95 +layout': '–',
            'wall p50': '–',
            'wall p95': '–',
            'wall p95 +layout': '–',
            'answer renders': '–',
            'answer CPU p50': '–',
            'answer CPU p95': '–',
            'answer wall p95': '–',
            'p95 / 4 ms': '–',
            verdict: `ERROR ${u.error}`,
          }
        : {
            page: p.page.replace(/^articles\//, '').replace(/\.html$/, ''),
            widget: `${u.tag}#${u.id}`,
            input: u.input,
            samples: u.cpu.samples,
            'CPU p50': f2(u.cpu.p50),
            'CPU p95': f2(u.cpu.p95),
            'CPU max': f2(u.cpu.max),
            'CPU p95 +layout': f2(u.cpuLayout.p95),
            'wall p50': f2(u.script.p50),
            'wall p95': f2(u.script.p95),
            'wall p95 +layout': f2(u.layout.p95),
            // The render drawing a worker's answer, at a later frame (bench-widgets.js measureScenario: `settled`).
            'answer renders': u.settled?.samples ?? 0,
            'answer CPU p50': f2(u.cpuSettled?.p50),
            'answer CPU p95': f2(u.cpuSettled?.p95),
            'answer wall p95': f2(u.settled?.p95),
            'p95 / 4 ms': f2(updateP95(u) / UPDATE_TARGET_MS),
            verdict: updateP95(u) < UPDATE_TARGET_MS ? 'pass' : 'FAIL',
          },
    ),
  ),
);
console.log('\nstart-up: navigation → every widget interactive (first live render with its core and model), target ≤ 1000 ms');
table(
  results.pages.map((p) => ({
    page: p.page,
    widgets: p.widgets.length,
    'eager interactive ms': p.widgets.length ? f2(p.eagerInteractiveMs) : '–',
    'eager / 1000 ms': p.widgets.length ? f2(p.eagerInteractiveMs / 1000) : '–',
    'on approach (+ms after scroll)':
      p.widgets
        .filter((w) => w.when === 'on approach')
        .map((w) => `${w.tag}#${w.id} +${f2(w.afterScroll)}`)
        .join(', ') || '–',
    '.wasm requests':
      Object.entries(p.wasmRequests)
        .map(([k, v]) => `${k.replace(/^headlab_|\.wasm$/g, '')}×${v}`)
        .join(' ') || '0',
    'WebAssembly calls (page)':
      Object.entries(p.wasmCalls)
        .map(([k, v]) => `${k}×${v}`)
        .join(' ') || '0',
    workers: p.workersAtStartUp.length ? p.workersAtStartUp.map((w) => `at ${w.at.toFixed(0)} ms`).join(', ') : 'none',
    'DOMContentLoaded ms': f2(p.domContentLoadedMs),
    'wasm compiled (start → end ms)':
      p.compiled.map((c) => `${c.file.replace(/^headlab_|\.wasm$/g, '')} ${c.start.toFixed(0)} → ${c.end.toFixed(0)}`).join(', ') || '–',
  })),
);
for (const p of results.pages) {
  if (!p.widgets.length) continue;
  console.log(
    `  ${p.page}: ${p.widgets.map((w) => `${w.tag.replace('headlab-', '')}#${w.id} ${w.when === 'at load' ? f2(w.ms) : `+${f2(w.afterScroll)} after scroll`}`).join(' · ')}`,
  );
}
// Assertions on the loading path, printed (a benchmark, not a test: it reports rather than fails).
console.log('\nloading path checks');
for (const p of results.pages) {
  const checks = [];
  for (const [file, n] of Object.entries(p.wasmRequests)) checks.push([`${file} requested once`, n === 1, `${n} requests`]);
  const compiles =
    (p.wasmCalls.compileStreaming ?? 0) +
    (p.wasmCalls.compile ?? 0) +
    (p.wasmCalls['instantiate(bytes)'] ?? 0) +
    (p.wasmCalls.instantiateStreaming ?? 0);
  const modules = Object.keys(p.wasmRequests).length;
  if (modules) {
    checks.push(['each module compiled once on the page', compiles === modules, `${compiles} compiles for ${modules} modules`]);
    checks.push([
      'streaming compilation',
      (p.wasmCalls.compileStreaming ?? 0) === modules,
      `compileStreaming×${p.wasmCalls.compileStreaming ?? 0}`,
    ]);
  }
  // The worker started only when needed: a page none of whose widgets computes its first render in a
  // worker starts none; on the others every worker started during start-up was given, during it, a
  // job of a task that a widget on the page computes its first render with (WORKER_FIRST_RENDER);
  // a worker left idle, or given another task (a training nobody asked for), is NOT OK.
  const allowed = new Set(p.widgets.flatMap((w) => workerTasksOf(w.tag)));
  if (p.page === 'core-check.html') allowed.add('version'); // the page exists to show the worker
  const jobs = p.workersAtStartUp.flatMap((w) => w.jobs.map((j) => j.kind));
  const count = (kinds) =>
    Object.entries(kinds.reduce((m, k) => ({ ...m, [k]: (m[k] ?? 0) + 1 }), {}))
      .map(([k, n]) => `${k}×${n}`)
      .join(' ');
  if (!allowed.size) {
    checks.push([
      'no worker started at start-up (no widget here renders first in one)',
      p.workersAtStartUp.length === 0,
      `${p.workersAtStartUp.length} started`,
    ]);
  } else {
    const idle = p.workersAtStartUp.filter((w) => !w.jobs.length).length;
    const other = jobs.filter((k) => !allowed.has(k));
    checks.push([
      'workers only for first renders that need one (each given such a job at start-up)',
      idle === 0 && other.length === 0,
      `${p.workersAtStartUp.length} started${jobs.length ? `: ${count(jobs)}` : ''}${idle ? `; ${idle} given no job` : ''}${other.length ? `; not a first render here: ${count(other)}` : ''}`,
    ]);
  }
  console.log(`  ${p.page}: ${checks.map(([what, ok, detail]) => `${ok ? 'ok' : 'NOT OK'} ${what} (${detail})`).join('; ')}`);
}
console.log(`\nlongest main-thread task per phase (Chromium trace, thread CPU time), target < ${LONG_TASK_TARGET_MS} ms`);
table(
  withLimits.flatMap((p) =>
    Object.entries(p.longTasks).map(([phase, t]) => ({
      page: p.page,
      phase,
      'computation ms (CPU)': f2(t.ms),
      '/ 50 ms': f2(t.ms / LONG_TASK_TARGET_MS),
      verdict: t.ms < LONG_TASK_TARGET_MS ? 'pass' : 'FAIL',
      'whole task ms (CPU)': f2(t.taskMs),
      'wall ms': f2(t.wallMs),
      'longest part': t.what,
    })),
  ),
);
const problems = withLimits.flatMap((p) => (p.problems ?? []).map((x) => `${p.page}: ${x}`));
if (problems.length) console.log(`\npage problems:\n  ${problems.join('\n  ')}`);
// The run before is kept as widgets-previous.json: bench/targets.mjs prints this run / that one
// (after / before a change), figure by figure.
const outFile = path.join(root, 'build/bench/widgets.json');
fs.mkdirSync(path.dirname(outFile), { recursive: true });
if (fs.existsSync(outFile) && !process.env.HEADLAB_BENCH_PAGES)
  fs.renameSync(outFile, path.join(root, 'build/bench/widgets-previous.json'));
fs.writeFileSync(outFile, JSON.stringify(results, null, 1));
console.log('\nwritten: build/bench/widgets.json (the run before: build/bench/widgets-previous.json)');
