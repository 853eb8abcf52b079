// The benchmark page (bench.html): the training benchmarks in a Web Worker and the widget-update
// benchmark (assets/bench-widgets.js) in the reader's browser, a table against the project
// machine's figures (assets/bench-reference-data.js, written by site/build.mjs from bench/results/) and the targets (assets/bench-reference.js), copy and JSON download.
// No inline script or style (strict CSP); the layout has already loaded headlab/headlab.js,
// which registers every element.
import { WorkerClient } from '../headlab/headlab.js';
import { SCENARIOS, UPDATE_TARGET_MS, interactive, measureScenario, summarize } from './bench-widgets.js';
import { TARGETS } from './bench-reference.js';
import { WIDGETS } from './bench-stage.js';
import { REFERENCE } from './bench-reference-data.js';

const $ = (id) => document.getElementById(id);
const runButton = $('bench-run');
const stopButton = $('bench-stop');
const quickBox = $('bench-quick');
const progress = $('bench-progress');
const status = $('bench-status');
const rows = $('bench-rows');
const stage = $('bench-stage');
const jsonText = $('bench-json-text');
const copyButton = $('bench-copy');
const jsonButton = $('bench-json');
const copied = $('bench-copied');

function device() {
  const ua = navigator.userAgentData;
  return {
    user_agent: navigator.userAgent,
    browser:
      ua?.brands
        ?.filter((b) => !/not.a.brand/i.test(b.brand))
        .map((b) => `${b.brand} ${b.version}`)
        .join(', ') || null,
    platform: ua?.platform ?? navigator.platform ?? null,
    mobile: ua?.mobile ?? null,
    cores: navigator.hardwareConcurrency ?? null,
    memory_gb: navigator.deviceMemory ?? null,
    device_pixel_ratio: devicePixelRatio,
    screen: `${screen.width} × ${screen.height}`,
  };
}
$('bench-device').textContent = (() => {
  const d = device();
  return `${d.browser ?? d.user_agent}${d.cores ? `, ${d.cores} cores` : ''}`;
})();

// Tasks that blocked the main thread for 50 ms or more (the Long Tasks API; Chromium only).
const longTasks = [];
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longTasks.push({ at: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
} catch {
  /* not supported: reported as null */
}
const longTasksSupported = PerformanceObserver.supportedEntryTypes?.includes('longtask') ?? false;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const fmt = (x) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);

let stopped = false;
let client = null;
/** Rejects the training job in flight (a terminated worker never answers). */
let abortTraining = () => {};

class Stopped extends Error {}
const checkStop = () => {
  if (stopped) throw new Stopped('stopped');
};

/**
 * Times one training job in the worker: from posting it to its first progress report, with the
 * whole run in one chunk (the report comes right after the last step; the analysis that follows
 * is not timed). One message each way (well under a millisecond) is included.
 */
function timeTraining(kind, params) {
  return new Promise((resolve, reject) => {
    abortTraining = () => reject(new Stopped('stopped'));
    let t0 = 0;
    let t1 = null;
    const run = client.run(kind, params, () => {
      if (t1 === null) t1 = performance.now();
    });
    t0 = performance.now();
    run.promise.then(() => (t1 === null ? reject(new Error(`${kind} reported no progress`)) : resolve(t1 - t0)), reject);
  });
}

/** The training benchmarks, first run not counted (download, compile, first-call costs). */
const TRAINING = [
  {
    figure: 'max-digit recipe',
    target: 'max-digit recipe, WASM',
    native: 'max-digit recipe, native',
    kind: 'max-digit-train',
    params: { settings: { seed: 0 }, chunk: 4000 },
    runs: 5,
  },
  {
    figure: 'feature recovery',
    target: 'feature recovery, WASM',
    native: 'feature recovery, native',
    kind: 'feature-recovery-train',
    params: { settings: { seed: 0 }, chunk: 1200 },
    runs: 7,
  },
];

let results = null;

function render() {
  const lines = [];
  const row = (figure, mine, reference, native, target) => {
    const tr = document.createElement('tr');
    const cells = [
      figure,
      fmt(mine),
      fmt(reference),
      fmt(native),
      target === null ? '–' : `≤ ${target}`,
      mine !== null && target ? (mine / target).toFixed(2) : '–',
    ];
    cells.forEach((text, i) => {
      const cell = document.createElement(i === 0 ? 'th' : 'td');
      if (i === 0) cell.scope = 'row';
      cell.textContent = text;
      tr.append(cell);
    });
    lines.push(cells.join('\t'));
    return tr;
  };
  const out = [];
  for (const t of results.training)
    out.push(row(`${t.figure}: training, median of ${t.runs_ms.length}`, t.median_ms, t.reference_ms, t.native_reference_ms, t.target_ms));
  for (const u of results.updates) {
    const key = `${u.element} — ${u.input}`;
    out.push(
      row(
        `${u.element.replace(/^headlab-/, '')}: ${u.input}, p95 of ${u.samples}${u.error ? ` (${u.error})` : ''}`,
        u.error ? null : u.p95_ms,
        REFERENCE.updates[key] ?? null,
        null,
        UPDATE_TARGET_MS,
      ),
    );
  }
  for (const [phase, t] of Object.entries(results.long_tasks ?? {})) {
    out.push(row(`longest task ${phase} (${t.count} of 50 ms or more)`, t.longest_ms, null, null, TARGETS['longest main-thread task']));
  }
  rows.replaceChildren(...out);
  results.table_text = ['Figure\tThis browser\tProject machine\tNative, project machine\tTarget\tThis browser / target', ...lines].join(
    '\n',
  );
  jsonText.value = JSON.stringify(results, (k, v) => (k === 'table_text' ? undefined : v), 1);
  // The table may now overflow on a phone: let the site script mark its scroll box.
  dispatchEvent(new Event('resize'));
}

const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
async function until(test, what, timeoutMs = 120000) {
  const start = performance.now();
  while (!test()) {
    checkStop();
    if (performance.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function run() {
  stopped = false;
  runButton.disabled = true;
  stopButton.disabled = false;
  copyButton.disabled = true;
  jsonButton.disabled = true;
  const quick = quickBox.checked || new URLSearchParams(location.search).has('quick');
  const samples = quick ? 5 : 100;
  const warmup = quick ? 1 : 10;
  const started = performance.now();
  results = {
    when: new Date().toISOString(),
    page: location.href,
    quick,
    device: device(),
    reference_machine: REFERENCE.machine,
    targets_ms: TARGETS,
    training: [],
    updates: [],
    long_tasks: longTasksSupported ? {} : null,
  };
  // Long tasks per phase: while the worker trains, while the widgets start, while they are driven.
  let phaseStart = longTasks.length;
  const endPhase = (name) => {
    const mine = longTasks.slice(phaseStart);
    phaseStart = longTasks.length;
    if (results.long_tasks) results.long_tasks[name] = { count: mine.length, longest_ms: mine.reduce((m, t) => Math.max(m, t.ms), 0) };
  };
  const scenarioCount = WIDGETS.reduce((n, w) => n + (SCENARIOS[w.tag]?.length ?? 0), 0);
  const trainingUnits = TRAINING.reduce((n, t) => n + (quick ? 1 : t.runs) + 1, 0);
  const total = trainingUnits + 1 + scenarioCount;
  let done = 0;
  const advance = (text) => {
    done++;
    progress.value = done / total;
    progress.textContent = `${Math.round((100 * done) / total)}%`;
    if (text) status.textContent = text;
  };
  try {
    client = new WorkerClient();
    for (const t of TRAINING) {
      const runs = quick ? 1 : t.runs;
      // A quick run skips the uncounted first run: its one figure includes the module's compile.
      if (!quick) {
        status.textContent = `Training: ${t.figure}, first run (not counted)…`;
        await timeTraining(t.kind, t.params);
        checkStop();
      }
      advance();
      const times = [];
      for (let r = 0; r < runs; r++) {
        status.textContent = `Training: ${t.figure}, run ${r + 1} of ${runs}…`;
        times.push(await timeTraining(t.kind, t.params));
        checkStop();
        advance();
      }
      results.training.push({
        figure: t.figure,
        runs_ms: times,
        median_ms: median(times),
        target_ms: TARGETS[t.target],
        native_reference_ms: REFERENCE.training[t.native],
        reference_ms: REFERENCE.training[t.target],
      });
      render();
    }
    client.terminate();
    client = null;
    endPhase('while training');

    status.textContent = 'Building the widgets…';
    stage.hidden = false;
    const built = WIDGETS.map((w) => {
      const el = document.createElement(w.tag);
      for (const [k, v] of Object.entries(w.attrs ?? {})) el.setAttribute(k, v);
      for (const [slot, text, correct] of w.content ?? []) {
        const part = document.createElement(slot === 'title' || slot === 'question' ? 'p' : 'div');
        part.slot = slot;
        part.textContent = text;
        if (correct) part.dataset.correct = '';
        el.append(part);
      }
      stage.append(el);
      return { ...w, el };
    });
    await until(() => built.every((b) => interactive(b.el) || !b.el.shadowRoot?.querySelector('.alert')?.hidden), 'the widgets to start');
    // A widget that trains on approach (the replay) starts when it is near the viewport.
    for (const b of built.filter((x) => x.ready)) {
      b.el.scrollIntoView({ block: 'center' });
      await until(() => b.ready(b.el), `${b.tag} to finish training`);
    }
    advance();
    endPhase('while the widgets start');
    for (const b of built) {
      for (const scenario of SCENARIOS[b.tag] ?? []) {
        checkStop();
        status.textContent = `Widget updates: ${b.tag}, ${scenario.input}…`;
        b.el.scrollIntoView({ block: 'center' });
        await frame();
        const entry = { element: b.tag, input: scenario.input, samples };
        try {
          const { script, layout, settled } = await measureScenario(b.el, scenario, { samples, warmup });
          const s = summarize(script);
          // A worker's answer drawn at a later frame is an update too (measureScenario: `settled`).
          const a = settled.length ? summarize(settled) : null;
          Object.assign(entry, {
            p50_ms: s.p50,
            p95_ms: s.p95,
            max_ms: s.max,
            p95_with_layout_ms: summarize(layout).p95,
            answer_p95_ms: a?.p95 ?? null,
            pass: Math.max(s.p95, a?.p95 ?? 0) < UPDATE_TARGET_MS,
          });
        } catch (err) {
          if (err instanceof Stopped) throw err;
          entry.error = err.message;
        }
        results.updates.push(entry);
        advance();
        render();
      }
    }
    endPhase('while driving the widgets');
    status.textContent = `Done in ${((performance.now() - started) / 1000).toFixed(0)} s.`;
  } catch (err) {
    status.textContent =
      err instanceof Stopped ? 'Stopped; the table shows what was measured before.' : `The benchmark failed: ${err.message}`;
  } finally {
    client?.terminate();
    client = null;
    stage.replaceChildren();
    stage.hidden = true;
    results.seconds = (performance.now() - started) / 1000;
    render();
    runButton.disabled = false;
    stopButton.disabled = true;
    copyButton.disabled = false;
    jsonButton.disabled = false;
    document.body.dataset.benchDone = '';
  }
}

runButton.addEventListener('click', () => {
  void run();
});
stopButton.addEventListener('click', () => {
  stopped = true;
  client?.terminate();
  client = null;
  abortTraining();
  status.textContent = 'Stopping…';
});
copyButton.addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(results.table_text);
    copied.textContent = 'The table is on the clipboard (tab-separated).';
  } catch {
    jsonText.closest('details').open = true;
    jsonText.select();
    copied.textContent = 'Copying was refused here: the results are selected in the JSON box below; copy them from there.';
  }
});
jsonButton.addEventListener('click', () => {
  const blob = new Blob([jsonText.value], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `headlab-bench-${results.when.slice(0, 19).replace(/:/g, '-')}.json`;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
});
