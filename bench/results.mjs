// The benchmark figures of record: one JSON file per measurement in bench/results/
// (<date>-<commit>.json: date, recorded_at (ISO time, when known), commit, machine {description?, cpu, flags, cores, node}, method, role, figures_ms
// and, for the benchmark page, updates_p95_ms), read here by bench/targets.mjs and written into the
// site by site/build.mjs (assets/bench-reference-data.js for the benchmark page). A new measurement
// is a new file (`node bench/targets.mjs --record`), never an edit of an old one: the folder is the history.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

/** Every recorded measurement, oldest first (by recorded_at, an ISO time, or else its date; then file name). */
export function history(dir = resultsDir) {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ file: f, ...JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) }))
    .sort((a, b) => (a.recorded_at ?? a.date).localeCompare(b.recorded_at ?? b.date) || a.file.localeCompare(b.file));
}

/** The newest measurement with this role ('before', 'last stop', 'page reference', 'native vs WASM'). */
export function latest(role, dir = resultsDir) {
  const all = history(dir).filter((r) => r.role === role);
  if (!all.length) throw new Error(`bench/results has no measurement with role "${role}"`);
  return all[all.length - 1];
}

/** This machine as a results file names it: CPU model, its vector flags of interest, cores, Node. */
export function thisMachine() {
  const cpuinfo = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  const flags = (cpuinfo.match(/^flags\s*:\s*(.*)$/m)?.[1] ?? '').split(/\s+/);
  const vector = ['sse2', 'avx', 'avx2', 'fma', 'avx512f'].filter((f) => flags.includes(f));
  return { cpu: os.cpus()[0]?.model ?? 'unknown', flags: vector, cores: os.cpus().length, node: process.version };
}

/** Writes one measurement as bench/results/<date>-<commit>.json and returns its path. */
export function record(entry, dir = resultsDir) {
  const file = path.join(dir, `${entry.date}-${entry.commit}.json`);
  fs.writeFileSync(file, JSON.stringify(entry, null, 2) + '\n');
  return file;
}
