// The npm package as an author gets it: `npm pack` of this repository, installed (offline,
// from the tarball) into a copy of examples/plain-html and of examples/vite; the Vite app
// is built with the root's Vite 7. Each is served under the strict CSP and loaded in
// Chromium: the ablation widget computes, the trainer trains in its worker, nothing is
// requested from another origin. Also: the tarball holds what package.json promises.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, screenshot, startSession } from './helpers.mjs';

const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

let tmp, tarball;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-pack-'));
  const out = npm(['pack', '--pack-destination', tmp], root).trim().split('\n');
  tarball = path.join(tmp, out.at(-1));
});
after(() => { if (tmp) fs.rmSync(tmp, { recursive: true, force: true }); });

/** Copies examples/<name> into the temp folder and installs the tarball there. */
function example(name) {
  const dir = path.join(tmp, name);
  fs.cpSync(path.join(root, 'examples', name), dir, { recursive: true });
  npm(['install', '--offline', '--ignore-scripts', tarball], dir);
  return dir;
}

/** Loads `url` under the strict CSP and checks that both widgets compute. */
async function check(session, url, shot) {
  const page = await session.newPage();
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('#ablation')?.renderCount > 0);
  // W_Q with swapped coordinates: query x₁ = [1, 0] gives q = [0, 1], so it matches x₂:
  // weights softmax([0, 1]/√2) = [1/(1+e^{1/√2}), e^{1/√2}/(1+e^{1/√2})].
  const weights = await page.evaluate(() => document.querySelector('#ablation').state.weights);
  const e = Math.exp(1 / Math.SQRT2);
  // A 2-term softmax in double precision: a few ulps.
  assert.ok(Math.abs(weights[0] - 1 / (1 + e)) <= 1e-15 && Math.abs(weights[1] - e / (1 + e)) <= 1e-15, String(weights));
  await page.evaluate(() => document.querySelector('#trainer').train());
  await page.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('#trainer').trainingStatus));
  const r = await page.evaluate(() => ({ status: document.querySelector('#trainer').trainingStatus, steps: document.querySelector('#trainer').results?.steps_done }));
  assert.deepEqual(r, { status: 'done', steps: 60 });
  await screenshot(page, shot);
  assert.deepEqual(page.problems, []);
  await page.close();
}

test('npm pack: the tarball holds the bundle, its chunk, worker and .wasm, the types and the embedding guide, and nothing else', () => {
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').map((f) => f.replace(/^package\//, '')).sort();
  for (const f of ['package.json', 'dist/headlab.js', 'dist/elements.js', 'dist/value-swap.js', 'dist/headlab-worker.js', 'dist/headlab_core.wasm',
    'dist/headlab_max_digit.wasm', 'dist/data/max-digit-seed0.json', 'dist/custom-elements.json', 'types/headlab.d.ts', 'docs/embedding.md']) {
    assert.ok(files.includes(f), `${f} missing from ${files.join(', ')}`);
  }
  assert.ok(files.some((f) => /^dist\/chunk-[A-Z0-9]+\.js$/.test(f)), 'the shared chunk');
  const allowed = /^(package\.json|README\.md|dist\/[^/]+|dist\/data\/max-digit-[\w-]+\.json|types\/[^/]+\.d\.ts|docs\/embedding\.md)$/;
  assert.deepEqual(files.filter((f) => !allowed.test(f)), []);
  // Every path package.json exports exists in the tarball.
  for (const [key, target] of Object.entries(pkg.exports)) {
    const t = typeof target === 'string' ? target : target.default;
    if (t.includes('*')) {
      const prefix = t.replace(/^\.\//, '').replace(/\*.*$/, '');
      assert.ok(files.some((f) => f.startsWith(prefix)), `exports["${key}"] → ${t}`);
      continue;
    }
    assert.ok(files.includes(t.replace(/^\.\//, '')), `exports["${key}"] → ${t}`);
  }
});

test('examples/plain-html with the installed tarball: widgets compute under the strict CSP', async () => {
  const dir = example('plain-html');
  const session = await startSession({ dir, csp: true });
  try {
    await check(session, `${session.url}index.html`, 'package-plain-html');
  } finally {
    await session.close();
  }
});

test('examples/vite with the installed tarball, built by Vite 7: .wasm and worker emitted, widgets compute under the strict CSP', async () => {
  const dir = example('vite');
  execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const assets = fs.readdirSync(path.join(dir, 'dist/assets'));
  assert.ok(assets.some((f) => /^headlab_core-.*\.wasm$/.test(f)), assets.join(', '));
  assert.ok(assets.some((f) => /^headlab-worker-.*\.js$/.test(f)), assets.join(', '));
  const session = await startSession({ dir: path.join(dir, 'dist'), csp: true });
  try {
    await check(session, `${session.url}index.html`, 'package-vite');
  } finally {
    await session.close();
  }
});
