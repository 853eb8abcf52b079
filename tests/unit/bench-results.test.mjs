// bench/results/*.json, the benchmark figures of record that bench/targets.mjs and the benchmark
// page (through site/build.mjs) read: every file well formed, and each role those readers ask for present.
import assert from 'node:assert/strict';
import test from 'node:test';
import { history, latest } from '../../bench/results.mjs';

test('every bench/results file names its date, commit, machine, method, role and finite figures', () => {
  const all = history();
  assert.ok(all.length >= 4, `${all.length} files`);
  for (const r of all) {
    assert.match(r.date, /^\d{4}-\d{2}-\d{2}$/, r.file);
    if (r.recorded_at !== undefined) assert.ok(r.recorded_at.startsWith(r.date) && !Number.isNaN(Date.parse(r.recorded_at)), r.file);
    assert.match(r.commit, /^[0-9a-f]{7,40}$/, r.file);
    assert.equal(r.file, `${r.date}-${r.commit}.json`);
    assert.equal(typeof r.machine, 'object', r.file);
    assert.ok(Number.isInteger(r.machine.cores) && r.machine.cores > 0, r.file);
    assert.ok(typeof r.method === 'string' && r.method.length > 20, r.file);
    assert.ok(['before', 'last stop', 'page reference', 'native vs WASM'].includes(r.role), `${r.file}: role ${r.role}`);
    const figures = Object.entries(r.figures_ms);
    assert.ok(figures.length >= 4, r.file);
    for (const [name, ms] of figures) assert.ok(Number.isFinite(ms) && ms > 0, `${r.file}: ${name} = ${ms}`);
  }
});

test('the roles bench/targets.mjs and site/build.mjs read are recorded, native and WASM side by side', () => {
  for (const role of ['before', 'last stop', 'page reference']) {
    const r = latest(role);
    for (const name of ['max-digit recipe', 'feature recovery']) {
      assert.ok(Number.isFinite(r.figures_ms[`${name}, native`]), `${role}: ${name}, native`);
      assert.ok(Number.isFinite(r.figures_ms[`${name}, WASM`]), `${role}: ${name}, WASM`);
    }
  }
  const versus = latest('native vs WASM');
  for (const name of [
    'max-digit recipe',
    'feature recovery (1,200 steps)',
    'transformer analysis (a new prompt)',
    'induction training (100 default steps)',
  ]) {
    assert.ok(Number.isFinite(versus.figures_ms[`${name}, native`]) && Number.isFinite(versus.figures_ms[`${name}, WASM`]), name);
    assert.equal(typeof versus.native_paths[name], 'string', name);
  }
  assert.deepEqual(versus.machine.flags.includes('sse2'), true);
});
