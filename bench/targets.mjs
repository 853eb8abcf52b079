// Every speed figure with its target, as ratios: measured / target, after / before (the figures
// measured at f69daa3, before the batched training kernels, on a quiet 2-core machine; read from
// bench/results/, bench/results.mjs), and native / WASM. Native figures come from the bench executables in build/native/bench (median of 7
// runs each), WASM ones from the modules in build/wasm/web under Node (median of 7 runs, after one
// warm-up). Prints figures; not a test. On a shared or busy machine every absolute figure grows, so
// compare ratios, and repeat on a quiet machine before quoting one.
// Then the browser figures of bench/widgets.bench.mjs (which bench/run runs before this file and
// which leaves build/bench/widgets.json): widget updates (p95 script time) against 4 ms, each
// page's start-up against 1 s, and the longest main-thread task per phase against 50 ms.
// The targets come from site/assets/bench-reference.js, which the benchmark page shares.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadFeatureRecoveryCore, loadMaxDigitCore } from '../web/headlab-core.js';
import { TARGETS } from '../site/assets/bench-reference.js';
import { medianCpuMs, medianMs } from './median.mjs';
import { targetVerdict, transformerFigures } from './transformer.bench.mjs';
import { latest, record, thisMachine } from './results.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = path.join(root, 'build/wasm/web');
const RUNS = Number(process.env.HEADLAB_BENCH_RUNS) || 7; // HEADLAB_BENCH_RUNS=1 for a smoke run
const timeMs = (f) => medianMs(RUNS, f, { warmup: true });
const cpuMs = (f) => medianCpuMs(RUNS, f); // CPU time: waits for a core on a shared machine do not count

// The figures of record (bench/results/*.json, bench/results.mjs): "before" (f69daa3 on a quiet
// machine, before the batched training kernels: the measurements the targets were set against) and
// "last stop" (the previous stop's code, measured with this file's method at the next stop). The host's
// speed drifts by up to 1.4x between sessions, so compare those columns only with figures measured
// in the same session; the native-against-WASM table below is measured together, in one run.
const beforeRecord = latest('before');
const lastStopRecord = latest('last stop');
const BEFORE = { ...beforeRecord.figures_ms, ...beforeRecord.extra_ms };
BEFORE['transformer analysis, WASM'] ??= NaN;
const TARGET = Object.fromEntries(Object.keys(BEFORE).map((name) => [name, TARGETS[name]]));
const LAST_STOP = lastStopRecord.figures_ms;

// Each bench executable runs once; its tagged lines ("TAG value") are read from that run's output.
const nativeOutput = new Map();
function nativeFigure(exe, tag, { optional = false } = {}) {
  if (!nativeOutput.has(exe)) {
    nativeOutput.set(exe, execFileSync(path.join(root, 'build/native/bench', exe), { encoding: 'utf8' }));
  }
  const line = nativeOutput
    .get(exe)
    .split('\n')
    .find((l) => l.startsWith(tag + ' '));
  if (!line) {
    if (optional) return NaN;
    throw new Error(`${exe} printed no ${tag} line`);
  }
  return Number(line.split(' ')[1]);
}

const load = async (name, loader) => {
  const { default: factory } = await import(path.join(wasmDir, `${name}.mjs`));
  return loader(factory, { wasmBinary: fs.readFileSync(path.join(wasmDir, `${name}.wasm`)) });
};

const measured = {};
measured['max-digit recipe, native'] = nativeFigure('max_digit_bench', 'NATIVE_MAX_DIGIT_TRAIN_MS');
measured['feature recovery, native'] = nativeFigure('feature_recovery_bench', 'NATIVE_TRAIN_MS');
// Each module's CPU runs follow its own wall-time runs, before the next module is loaded: process CPU
// time counts every thread, and V8 compiles a freshly run module's hot functions on background
// threads (measured: the max-digit recipe read 509 ms of CPU against 384 ms of wall time when its CPU
// runs came after the feature-recovery module's first runs, 330 ms against 330 ms alone).
const cpu = {};
const maxDigit = await load('headlab_max_digit', loadMaxDigitCore);
const trainMaxDigit = () => maxDigit.maxDigitTrain({ seed: 0 });
measured['max-digit recipe, WASM'] = timeMs(trainMaxDigit);
cpu['max-digit recipe, WASM'] = cpuMs(trainMaxDigit);
const featureRecovery = await load('headlab_feature_recovery', loadFeatureRecoveryCore);
const trainFeatureRecovery = () => {
  const t = featureRecovery.createFeatureRecoveryTrainer({ seed: 0 });
  t.step(1200);
  t.dispose();
};
measured['feature recovery, WASM'] = timeMs(trainFeatureRecovery);
cpu['feature recovery, WASM'] = cpuMs(trainFeatureRecovery);

measured['transformer analysis, native'] = nativeFigure('transformer_bench', 'NATIVE_TRANSFORMER_ANALYZE_MS');
const transformer = await transformerFigures();
measured['transformer analysis, WASM'] = transformer.analyze.wall; // a new prompt's analysis (bench/transformer.bench.mjs)
cpu['transformer analysis, WASM'] = transformer.analyze.cpu;

const rows = Object.keys(TARGET).map((name) => {
  const m = measured[name],
    t = TARGET[name],
    b = BEFORE[name];
  const pair = name.replace(/WASM|native/, (k) => (k === 'WASM' ? 'native' : 'WASM'));
  return {
    figure: name,
    'median ms': m.toFixed(1),
    'CPU ms': name in cpu ? cpu[name].toFixed(1) : '',
    'target ms': `≤ ${t}`,
    'measured / target': (m / t).toFixed(2),
    'before ms': Number.isFinite(b) ? b : '–',
    'after / before': Number.isFinite(b) ? (m / b).toFixed(2) : '–',
    'this / last stop': name in LAST_STOP ? (m / LAST_STOP[name]).toFixed(2) : '–',
    'native / WASM': name.endsWith('native') ? (m / measured[pair]).toFixed(2) : '',
  };
});
function table(rows) {
  const columns = Object.keys(rows[0]);
  const width = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells) => cells.map((x, i) => String(x).padEnd(width[i])).join('  ');
  console.log(line(columns));
  for (const r of rows) console.log(line(columns.map((c) => r[c])));
}
const os = await import('node:os');
console.log(
  `speed targets (median of ${RUNS} runs; ${process.version}; ${os.cpus().length} cores; load average ${os.loadavg()[0].toFixed(1)}; before = ${beforeRecord.commit} (bench/results/${beforeRecord.file}); last stop = ${lastStopRecord.commit} (bench/results/${lastStopRecord.file}); CPU ms: this process's CPU time, which waits for a core do not inflate)`,
);
table(rows);
console.log(
  `transformer analysis, WASM: a new prompt's forward + every analysis (model.analyze in Node, model and its cache kept as the page's worker keeps them, figures as typed arrays; bench/transformer.bench.mjs) against < ${TARGETS['transformer analysis, WASM']} ms: ${targetVerdict(transformer.analyze, os.loadavg()[0].toFixed(1), TARGETS['transformer analysis, WASM'])}`,
);
console.log(
  `induction default training: ${transformer.trainStepsPerSecond.wall.toFixed(1)} steps/s in WASM, ${nativeFigure('transformer_bench', 'NATIVE_TRANSFORMER_TRAIN_STEPS_PER_S').toFixed(1)} steps/s native`,
);

// Native against WASM in CPU time, which waits for a core on a shared machine do not inflate
// (medians: the bench executables' 7 runs, 5 for the transformer; WASM's RUNS after one warm-up),
// for the four benchmarks, each native figure on the vector instructions its dispatch chose (the
// "native path" column), then every path each native benchmark can be forced onto (a path this CPU
// lacks reads "skipped"; every path gives the same bits, tests/core *[bits]*). The induction training
// as the CPU time of its 100 default steps. native / WASM at most 1: native at least as fast.
const inductionCpuMs = (stepsPerSecond) => (1000 * 100) / stepsPerSecond;
const nativeText = (exe, tag) =>
  nativeOutput
    .get(exe)
    ?.split('\n')
    .find((l) => l.startsWith(tag + ' '))
    ?.split(' ')[1] ?? '?';
const maxDigitWidths = [
  ['SSE2', 'sse2'],
  ['AVX2', 'avx2'],
  ['AVX512', 'avx512'],
];
const widest = (exe, prefix) =>
  maxDigitWidths.filter(([tag]) => Number.isFinite(nativeFigure(exe, `${prefix}_${tag}`, { optional: true }))).at(-1)?.[1] ?? '?';
const versus = [
  [
    'max-digit recipe',
    nativeFigure('max_digit_bench', 'NATIVE_MAX_DIGIT_TRAIN_CPU_MS'),
    cpu['max-digit recipe, WASM'],
    `${widest('max_digit_bench', 'NATIVE_MAX_DIGIT_TRAIN_CPU_MS')} (widest)`,
  ],
  [
    'feature recovery (1,200 steps)',
    nativeFigure('feature_recovery_bench', 'NATIVE_TRAIN_CPU_MS'),
    cpu['feature recovery, WASM'],
    `${nativeText('feature_recovery_bench', 'NATIVE_TRAIN_PATH')} exp`,
  ],
  [
    'transformer analysis (a new prompt)',
    nativeFigure('transformer_bench', 'NATIVE_TRANSFORMER_ANALYZE_CPU_MS'),
    cpu['transformer analysis, WASM'],
    nativeText('transformer_bench', 'NATIVE_TRANSFORMER_VECTORS'),
  ],
  [
    'induction training (100 default steps)',
    inductionCpuMs(nativeFigure('transformer_bench', 'NATIVE_TRANSFORMER_TRAIN_CPU_STEPS_PER_S')),
    inductionCpuMs(transformer.trainStepsPerSecond.cpu),
    nativeText('transformer_bench', 'NATIVE_TRANSFORMER_VECTORS'),
  ],
];
const paths = [
  ...maxDigitWidths.map(([tag, name]) => [
    `max-digit recipe, ${name} vectors`,
    nativeFigure('max_digit_bench', `NATIVE_MAX_DIGIT_TRAIN_CPU_MS_${tag}`, { optional: true }),
    cpu['max-digit recipe, WASM'],
    name,
  ]),
  ...[
    ['PORTABLE', 'portable'],
    ['AVX2_FMA', 'avx2_fma'],
  ].map(([tag, name]) => [
    `feature recovery, ${name} exp`,
    nativeFigure('feature_recovery_bench', `NATIVE_TRAIN_CPU_MS_${tag}`, { optional: true }),
    cpu['feature recovery, WASM'],
    `${name} exp`,
  ]),
  ...maxDigitWidths.map(([tag, name]) => [
    `transformer analysis, ${name} vectors`,
    nativeFigure('transformer_bench', `NATIVE_TRANSFORMER_ANALYZE_CPU_MS_${tag}`, { optional: true }),
    cpu['transformer analysis, WASM'],
    name,
  ]),
  ...maxDigitWidths.map(([tag, name]) => [
    `induction training, ${name} vectors`,
    nativeFigure('transformer_bench', `NATIVE_TRANSFORMER_TRAIN_CPU_MS_${tag}`, { optional: true }),
    inductionCpuMs(transformer.trainStepsPerSecond.cpu),
    name,
  ]),
];
const versusRow = ([figure, native, wasm, nativePath]) => ({
  figure,
  'native CPU ms': Number.isFinite(native) ? native.toFixed(1) : 'skipped (this CPU lacks it)',
  'WASM CPU ms': wasm.toFixed(1),
  'native / WASM': Number.isFinite(native) ? (native / wasm).toFixed(2) : '–',
  'native path': nativePath,
  'native ≤ WASM': Number.isFinite(native) ? (native <= wasm ? 'yes' : 'NO') : '–',
});
console.log(
  `\nnative against WASM on this machine (${thisMachine().cpu}; ${thisMachine().flags.join(' ')}), CPU time (median of ${RUNS}; load average ${os.loadavg()[0].toFixed(1)}): native / WASM at most 1 means native is at least as fast`,
);
table(versus.map(versusRow));
console.log('\neach native path forced (the same bits on every path), against the same WASM figure');
table(paths.map(versusRow));

// --record: this run's figures as a new bench/results/<date>-<commit>.json (role "native vs WASM").
if (process.argv.includes('--record')) {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const file = record({
    date: new Date().toISOString().slice(0, 10),
    recorded_at: new Date().toISOString(),
    commit,
    machine: thisMachine(),
    method: `bench/targets.mjs --record: CPU time, native bench executables (median of 7, 5 for the transformer) and WASM under Node (median of ${RUNS} after one warm-up), load average ${os.loadavg()[0].toFixed(1)}`,
    role: 'native vs WASM',
    figures_ms: Object.fromEntries(
      versus.flatMap(([figure, native, wasm]) => [
        [`${figure}, native`, +native.toFixed(3)],
        [`${figure}, WASM`, +wasm.toFixed(3)],
      ]),
    ),
    native_paths: Object.fromEntries(versus.map(([figure, , , p]) => [figure, p])),
    paths_cpu_ms: Object.fromEntries(paths.filter(([, n]) => Number.isFinite(n)).map(([figure, native]) => [figure, +native.toFixed(3)])),
  });
  console.log(`recorded: ${path.relative(root, file)}`);
}

// The browser figures, from the last run of bench/widgets.bench.mjs.
const browserFile = path.join(root, 'build/bench/widgets.json');
if (!fs.existsSync(browserFile)) {
  console.log('\nbrowser figures: none yet (bench/widgets.bench.mjs writes build/bench/widgets.json)');
} else {
  const b = JSON.parse(fs.readFileSync(browserFile, 'utf8'));
  // The run before (if any), for "this run / previous run": after / before a change.
  const previousFile = path.join(root, 'build/bench/widgets-previous.json');
  const prev = fs.existsSync(previousFile) ? JSON.parse(fs.readFileSync(previousFile, 'utf8')) : null;
  const before = new Map();
  for (const p of prev?.pages ?? []) {
    for (const u of p.updates) if (!u.error) before.set(`update ${p.page} ${u.tag}#${u.id} ${u.input}`, (u.cpu ?? u.script).p95);
    if (p.widgets.length) before.set(`start-up ${p.page}`, p.eagerInteractiveMs);
    for (const [phase, t] of Object.entries(p.longTasks)) before.set(`task ${p.page} ${phase}`, t.ms);
  }
  const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');
  const vsBefore = (key, v) => (before.has(key) ? f2(v / before.get(key)) : '–');
  const short = (page) => page.replace(/^articles\//, '').replace(/\.html$/, '');
  const rowsB = [];
  for (const p of b.pages) {
    for (const u of p.updates) {
      // Main-thread CPU per sample (bench/widgets.bench.mjs), wall time from runs that have none.
      // The input's frame and the render of its worker's answer (CPU; wall from runs without a trace of it).
      const v = u.error ? NaN : Math.max((u.cpu ?? u.script).p95, u.cpuSettled?.p95 ?? (u.settled?.samples ? u.settled.p95 : 0));
      const t = TARGETS['widget update p95'];
      rowsB.push({
        figure: `update ${short(p.page)}: ${u.tag.replace('headlab-', '')}#${u.id}, ${u.input}`,
        'p50 ms': u.error ? '–' : f2((u.cpu ?? u.script).p50),
        'p95 ms': f2(v),
        'target ms': `< ${t}`,
        'measured / target': f2(v / t),
        'this / previous run': vsBefore(`update ${p.page} ${u.tag}#${u.id} ${u.input}`, v),
        verdict: u.error ? `ERROR ${u.error}` : v < t ? 'pass' : 'FAIL',
      });
    }
  }
  for (const p of b.pages) {
    if (!p.widgets.length) continue;
    const t = TARGETS['start-up, navigation to interactive'];
    const v = p.eagerInteractiveMs;
    const lazy = p.widgets.filter((w) => w.when === 'on approach');
    rowsB.push({
      figure: `start-up ${short(p.page)}: ${p.widgets.length - lazy.length} widgets interactive${lazy.length ? ` (+${lazy.length} on approach, slowest +${f2(Math.max(...lazy.map((w) => w.afterScroll ?? NaN)))} ms after scroll)` : ''}`,
      'p50 ms': '',
      'p95 ms': f2(v),
      'target ms': `≤ ${t}`,
      'measured / target': f2(v / t),
      'this / previous run': vsBefore(`start-up ${p.page}`, v),
      verdict: v <= t ? 'pass' : 'FAIL',
    });
  }
  for (const p of b.pages) {
    for (const [phase, task] of Object.entries(p.longTasks)) {
      const t = TARGETS['longest main-thread task'];
      rowsB.push({
        figure: `longest task ${short(p.page)}: ${phase}`,
        'p50 ms': '',
        'p95 ms': f2(task.ms),
        'target ms': `< ${t}`,
        'measured / target': f2(task.ms / t),
        'this / previous run': vsBefore(`task ${p.page} ${phase}`, task.ms),
        verdict: task.ms < t ? 'pass' : 'FAIL',
      });
    }
  }
  console.log(
    `\nbrowser figures (${b.when}, Chromium ${b.chromium}, load average ${b.load?.[0]?.toFixed(1) ?? '?'} at the start, ${b.samples} samples per input; start-up and longest task: the value in the p95 column; previous run: ${prev ? prev.when : 'none'})`,
  );
  table(rowsB);
}
