// The max-digit article and its widgets under the strict CSP: every number the widgets show for
// the shipped seed-0 weights against the native analysis.json shipped beside them (and, for the
// per-prompt figures, against the textbook formula evaluated here from the weights and that
// file), the article's claims, patching (2, 3, 4, 5, 6) by keyboard, the 3-D view's keyboard
// rotation, retraining in the page against the native CLI, bad author input, screenshots.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, screenshot, startSession } from './helpers.mjs';
import { bundleDir, drawn, elementsDefined, frames } from './widget-fixtures.mjs';
import { cliRun } from '../wasm/helpers.mjs';

const ARTICLE = 'articles/max-digit-heads.html';
const DATA = path.join(root, 'site/pages/data');
const shipped = JSON.parse(fs.readFileSync(path.join(DATA, 'max-digit-seed0-analysis.json'), 'utf8'));
const shippedUnit = JSON.parse(fs.readFileSync(path.join(DATA, 'max-digit-seed0-unit-norm-analysis.json'), 'utf8'));
const weights = JSON.parse(fs.readFileSync(path.join(DATA, 'max-digit-seed0.json'), 'utf8'));

// The bound between the page (WASM) and the native analysis (docs/model-pattern.md, "Tests a model brings"). The weights are the same
// bits; sums over 64 coordinates and 111,110 lists run in other orders (Eigen SSE2 natively,
// scalar in WASM) and exp differs in the last bit between glibc and musl: ~1e-15 relative.
const NATIVE_TOLERANCE = 1e-9;
// Accuracies are counts of lists over 111,110: equal counts give identical quotients, and one
// list more or less would be 9e-6, so anything under 1e-12 means the same count.
const COUNT_TOLERANCE = 1e-12;
const PAD = 10;
const BOS = 11;
const SEP = 12;
const ANS = 13;

let session;
let page;
before(async () => {
  session = await startSession({ csp: true });
  page = await session.newPage();
  await page.goto(`${session.url}${ARTICLE}`);
  await ready(page);
});
after(async () => {
  await session?.close();
});

/**
 * Waits until every max-digit widget has its model and has rendered it, and the 3-D views are
 * loaded. Behind the prerendered snapshots the module and weights load on the reader's first
 * interaction (widgets/max-digit/loading.ts): here, as a reader's, the pointer moving onto the
 * model panel.
 */
async function ready(p) {
  await p.locator('headlab-max-digit-model').first().hover();
  // The unit-norm model loads only when its section nears the viewport (loading="lazy").
  await p.evaluate(() => document.getElementById('unit')?.scrollIntoView());
  await p.waitForFunction(() => {
    const widgets = [
      ...document.querySelectorAll(
        'headlab-attention-bars, headlab-attention-patch, headlab-head-ablation, headlab-subspace-accuracy, headlab-head-contributions, headlab-angle-dot',
      ),
    ];
    return (
      widgets.length > 0 &&
      widgets.every((w) => w.currentModel && w.renderCount > 0) &&
      [...document.querySelectorAll('headlab-head-contributions')].every((w) => w.view3d && w.view3d.svg.isConnected) &&
      // and every prerendered snapshot swapped for the live widget (one per frame)
      ![...document.querySelectorAll('*')].some(
        (e) => e.localName.startsWith('headlab-') && e.shadowRoot?.querySelector('link[href*="headlab/snapshot/"]'),
      )
    );
  });
  await frames(p);
}

/** data-value of every cell matching `cell` in the shadow root of the `index`-th `host`, with its data attributes. */
async function cells(p, host, cell, index = 0) {
  return p.evaluate(
    ([h, c, i]) =>
      [...document.querySelectorAll(h)[i].shadowRoot.querySelectorAll(c)].map((e) => ({
        ...e.dataset,
        value: Number(e.dataset.value),
        text: e.textContent,
      })),
    [host, cell, index],
  );
}

async function setAttr(p, host, name, value, index = 0) {
  await p.evaluate(([h, n, v, i]) => document.querySelectorAll(h)[i].setAttribute(n, v), [host, name, value, index]);
  await frames(p);
}

function near(actual, expected, tol, what) {
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual}, expected ${expected} within ${tol}`);
}

function promptTokens(digits) {
  return [BOS, ...digits, ...Array(6 - digits.length).fill(PAD), SEP, ANS];
}

/** softmax over the prompt's positions of the shipped scores s_h(t): the ANS row of head h. */
function attentionRow(analysis, h, tokens) {
  const s = tokens.map((t) => analysis.scores[h][t]);
  const top = Math.max(...s);
  const e = s.map((x) => Math.exp(x - top));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
}

/** E[t] W_V^h W_O^h (64) from the weights file (arrays of rows). */
function valueOut(h, t) {
  const v = Array(16).fill(0);
  for (let i = 0; i < 64; i++) for (let j = 0; j < 16; j++) v[j] += weights.E[t][i] * weights.W_V[h][i][j];
  const o = Array(64).fill(0);
  for (let j = 0; j < 16; j++) for (let c = 0; c < 64; c++) o[c] += v[j] * weights.W_O[h][j][c];
  return o;
}

/** A 64-vector's coordinates on the top three W_O directions of the shipped analysis. */
function inTop3(x) {
  return [0, 1, 2].map((j) => x.reduce((s, xi, i) => s + xi * shipped.principal_directions.w_o[i][j], 0));
}

test('attention bars: scores, attention rows and the by-maximum table equal the native analysis; every head attends to the maximum', async () => {
  const host = 'headlab-attention-bars';
  const digits = [2, 3, 4, 5, 6];
  const tokens = promptTokens(digits);
  const scores = await cells(page, host, 'td[data-token]');
  assert.equal(scores.length, 4 * 9);
  scores.forEach((c, i) => near(c.value, shipped.scores[Math.floor(i / 9)][Number(c.token)], NATIVE_TOLERANCE, `score cell ${i}`));
  const gaps = await cells(page, host, 'td[data-gap]');
  gaps.forEach((c, h) => near(c.value, shipped.scores[h][6] - shipped.scores[h][ANS], NATIVE_TOLERANCE, `gap head ${h}`));
  // The drawn rows against softmax(scores) evaluated here.
  const shown = await page.evaluate((h) => {
    const w = document.querySelector(h);
    return w.currentModel ? null : 'no model';
  }, host);
  assert.equal(shown, null);
  // The page's max-digit module (the widget's own handle on it).
  const rows = await page.evaluate(
    ([d]) => {
      const w = document.querySelector('headlab-attention-bars');
      return Array.from(w.maxDigit.maxDigitAnsAttention(w.currentModel.weights, d).data);
    },
    [digits],
  );
  for (let h = 0; h < 4; h++) {
    const expected = attentionRow(shipped, h, tokens);
    for (let p = 0; p < 9; p++) near(rows[h * 9 + p], expected[p], NATIVE_TOLERANCE, `attention head ${h} position ${p}`);
  }
  const barLabels = await page.evaluate(
    (h) => [...document.querySelector(h).shadowRoot.querySelectorAll('svg text')].map((t) => t.textContent),
    host,
  );
  for (let h = 0; h < 4; h++) {
    const expected = attentionRow(shipped, h, tokens);
    assert.ok(barLabels.includes(String(Math.round(expected[7] * 100) / 100)), `bar label of head ${h} on the 6`);
  }
  const byMax = await cells(page, host, 'td[data-max]');
  assert.equal(byMax.length, 40);
  for (const c of byMax) {
    const [h, m] = [Number(c.head), Number(c.max)];
    near(c.value, shipped.attention_by_max[h][m][m], NATIVE_TOLERANCE, `mass on max ${m}, head ${h}`);
    near(Number(c.ans), shipped.attention_by_max[h][m][ANS], NATIVE_TOLERANCE, `mass on ANS, max ${m}, head ${h}`);
    // The article: every head puts more than half its attention on the maximum, for every maximum.
    assert.ok(c.value > 0.5, `head ${h} puts ${c.value} on maximum ${m}`);
  }
  // The article: scores rise from digit 0 to 9 in every head and every marker scores below digit 0.
  for (let h = 0; h < 4; h++) {
    const s = shipped.scores[h];
    for (let d = 1; d < 10; d++) assert.ok(s[d] > s[d - 1], `head ${h}: s(${d}) > s(${d - 1})`);
    for (const t of [PAD, BOS, SEP, ANS]) assert.ok(s[t] < s[0], `head ${h}: marker ${t} below digit 0`);
  }
});

test('patching (2, 3, 4, 5, 6): one head on the 4 keeps 6, all four give 4, as the native analysis says (keyboard)', async () => {
  const host = 'headlab-attention-patch';
  const p = shipped.patching;
  assert.deepEqual(p.digits, [2, 3, 4, 5, 6]);
  const clean = await cells(page, host, 'td[data-run="clean"]');
  clean.forEach((c, t) => near(c.value, p.original_logits[t], NATIVE_TOLERANCE, `clean logit ${t}`));
  for (const single of p.single_head) {
    await setAttr(page, host, 'patches', `${single.head}:${p.position}`);
    const logits = await cells(page, host, 'td[data-run="patched"]');
    logits.forEach((c, t) => near(c.value, single.logits[t], NATIVE_TOLERANCE, `head ${single.head} patched logit ${t}`));
    const answer = await page.evaluate((h) => document.querySelector(h).state.answer, host);
    assert.equal(answer, single.answer);
    assert.equal(answer, 6, 'the article: one head alone does not change the answer');
  }
  await setAttr(page, host, 'patches', [0, 1, 2, 3].map((h) => `${h}:${p.position}`).join(' '));
  const all = await cells(page, host, 'td[data-run="patched"]');
  all.forEach((c, t) => near(c.value, p.all_heads.logits[t], NATIVE_TOLERANCE, `all heads patched logit ${t}`));
  assert.equal(await page.evaluate((h) => document.querySelector(h).state.answer, host), 4);
  // Reset, then by keyboard: head 3's radio group, from "own" four steps right to position 3 (the 4).
  await page.evaluate((h) => document.querySelector(h).reset(), host);
  await frames(page);
  await page.evaluate((h) => document.querySelector(h).shadowRoot.querySelector('input[name="head-3"][value="-1"]').focus(), host);
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  await frames(page);
  assert.equal(await page.evaluate((h) => document.querySelector(h).getAttribute('patches'), host), '3:3');
  const text = await page.evaluate((h) => document.querySelector(h).shadowRoot.querySelector('[data-answer="patched"]').textContent, host);
  assert.equal(Number(text), p.single_head[3].answer);
  await page.evaluate((h) => document.querySelector(h).reset(), host);
});

test('head ablation: every set of heads, the residual-free and residual-only readouts equal the native analysis', async () => {
  const host = 'headlab-head-ablation';
  const lowest = (heads) => shipped.head_ablation.find((r) => r.heads.join() === heads.join()).accuracy;
  for (const row of shipped.head_ablation) {
    await setAttr(page, host, 'ablated', row.heads.join(' '));
    const [shown] = await cells(page, host, '[data-figure="accuracy"]');
    near(shown.value, row.accuracy, COUNT_TOLERANCE, `accuracy without ${row.heads}`);
    const byMax = await page.evaluate((h) => JSON.parse(document.querySelector(h).shadowRoot.querySelector('svg').dataset.byMax), host);
    byMax.forEach((x, m) => near(x, row.accuracy_by_max[m], COUNT_TOLERANCE, `accuracy without ${row.heads}, maximum ${m}`));
  }
  await setAttr(page, host, 'ablated', '');
  const table = await cells(page, host, 'td[data-heads]');
  assert.equal(table.length, 15);
  for (const c of table) near(c.value, lowest(c.heads.split(',').map(Number)), COUNT_TOLERANCE, `table row ${c.heads}`);
  const [rf] = await cells(page, host, '[data-figure="residual-free"]');
  const [ro] = await cells(page, host, '[data-figure="residual-only"]');
  near(rf.value, shipped.residual_free_accuracy, COUNT_TOLERANCE, 'residual-free');
  near(ro.value, shipped.residual_only_accuracy, COUNT_TOLERANCE, 'residual only');
  // The article's claims for the shipped weights.
  assert.equal(shipped.accuracy, 1);
  assert.equal(shipped.residual_free_accuracy, 1);
  for (const r of shipped.head_ablation) {
    if (r.heads.length === 1) assert.equal(r.accuracy, 1, `without head ${r.heads}`);
    if (r.heads.length === 2) assert.ok(r.accuracy >= 0.9999, `without heads ${r.heads}: ${r.accuracy}`);
    if (r.heads.length === 3) assert.ok(r.accuracy >= 0.98, `without heads ${r.heads}: ${r.accuracy}`);
  }
  assert.equal(
    shipped.head_ablation.filter((r) => r.heads.length === 3 && r.accuracy === 1).length >= 2,
    true,
    'most single surviving heads answer every list',
  );
  assert.equal(lowest([0, 1, 2, 3]), shipped.residual_only_accuracy);
});

async function checkSubspace(p, index, analysis, what) {
  const host = 'headlab-subspace-accuracy';
  for (const basis of ['w_o', 'w_u']) {
    for (let k = 1; k <= 8; k++) {
      await setAttr(p, host, 'basis', basis, index);
      await setAttr(p, host, 'k', String(k), index);
      const [acc] = await cells(p, host, '[data-figure="accuracy"]', index);
      near(acc.value, analysis.subspace_accuracy[basis][k - 1], COUNT_TOLERANCE, `${what} ${basis} k=${k}`);
      const [kept] = await cells(p, host, '[data-figure="kept-variance"]', index);
      near(
        kept.value,
        analysis.variance_explained[basis].slice(0, k).reduce((s, x) => s + x, 0),
        NATIVE_TOLERANCE,
        `${what} variance ${basis} k=${k}`,
      );
      // The live by-maximum accuracies (the core in the page) must weigh up to the overall figure.
      const byMax = await p.evaluate(
        ([h, i]) => JSON.parse(document.querySelectorAll(h)[i].shadowRoot.querySelector('.caption[data-value]').dataset.value),
        [host, index],
      );
      const weighted = byMax.reduce((s, x, m) => s + x * analysis.evaluation.lists_by_max[m], 0) / analysis.evaluation.lists;
      near(weighted, analysis.subspace_accuracy[basis][k - 1], 1e-12, `${what} by-max ${basis} k=${k}`);
    }
  }
  const table = await cells(p, host, 'td[data-k]', index);
  assert.equal(table.length, 6);
  for (const c of table) near(c.value, analysis.subspace_accuracy[c.basis][Number(c.k) - 1], COUNT_TOLERANCE, `${what} k table`);
  const cos = await cells(p, host, 'td[data-i]', index);
  assert.equal(cos.length, 9);
  for (const c of cos) near(c.value, analysis.cosine_top3[Number(c.i)][Number(c.j)], NATIVE_TOLERANCE, `${what} cosine ${c.i},${c.j}`);
}

test('subspace accuracy: every k and basis, the k table and the 3 × 3 cosines equal the native analysis (shipped and unit-norm)', async () => {
  await checkSubspace(page, 0, shipped, 'seed 0');
  await checkSubspace(page, 1, shippedUnit, 'unit-norm');
  const top3 = (a, b) => a.variance_explained[b].slice(0, 3).reduce((s, x) => s + x, 0);
  // The article's claims.
  for (const b of ['w_o', 'w_u']) {
    assert.equal(shipped.subspace_accuracy[b][2], 1, `seed 0 ${b} k=3`);
    assert.ok(shipped.subspace_accuracy[b][0] < 1 && shipped.subspace_accuracy[b][1] < 1, `seed 0 ${b} k=1,2 below 1`);
  }
  assert.ok(top3(shipped, 'w_o') > 0.95 && top3(shipped, 'w_u') > 0.5);
  assert.ok(shipped.cosine_top3[0][0] > 0.95);
  for (const [i, j] of [
    [1, 1],
    [2, 2],
  ]) {
    const inPlane = Math.hypot(shipped.cosine_top3[i][1], shipped.cosine_top3[i][2]);
    const inPlaneT = Math.hypot(shipped.cosine_top3[1][j], shipped.cosine_top3[2][j]);
    assert.ok(inPlane > 0.9 && inPlaneT > 0.9, 'second and third directions span nearly the same plane');
  }
  assert.equal(shippedUnit.accuracy, 1);
  assert.ok(shippedUnit.subspace_accuracy.w_u[2] < 1 && shippedUnit.subspace_accuracy.w_u[3] === 1, 'unit-norm W_U basis needs four');
  assert.ok(
    shippedUnit.subspace_accuracy.w_o[2] < 1 && shippedUnit.subspace_accuracy.w_o[2] > 0.999,
    'unit-norm W_O basis just short at three',
  );
  assert.ok(top3(shippedUnit, 'w_u') < top3(shipped, 'w_u'), 'unit-norm variance spread more evenly');
});

test('angle vs dot: every cell equals the native analysis; no disagreement for the shipped weights', async () => {
  const host = 'headlab-angle-dot';
  for (const [index, analysis] of [
    [0, shipped],
    [1, shippedUnit],
  ]) {
    const v = analysis.angle_vs_dot;
    for (const which of ['cosine', 'dot']) {
      await setAttr(page, host, 'matrix', which, index);
      const full = await cells(page, host, 'td[data-d]', index);
      assert.equal(full.length, 100);
      for (const c of full) near(c.value, v[which][Number(c.m)][Number(c.d)], NATIVE_TOLERANCE, `${which} ${c.m},${c.d}`);
    }
    const best = await cells(page, host, 'td[data-figure="best-cos"], td[data-figure="best-dot"]', index);
    for (const c of best) {
      const m = Number(c.m);
      const list = c.figure === 'best-cos' ? v.best_by_cosine : v.best_by_dot;
      assert.equal(Number(c.digit), list[m]);
    }
    const shown = await page.evaluate(([h, i]) => document.querySelectorAll(h)[i].state.disagreements, [host, index]);
    assert.deepEqual(
      shown,
      v.best_by_cosine.flatMap((d, m) => (d === v.best_by_dot[m] ? [] : [m])),
    );
  }
  assert.deepEqual(shipped.angle_vs_dot.best_by_cosine, shipped.angle_vs_dot.best_by_dot, 'the article: they agree for seed 0');
});

test('3-D contributions: coordinates equal head_h = Σ_p a_h(p) E[t_p] W_V^h W_O^h on the native top-3 W_O directions; the view turns by keyboard', async () => {
  const host = 'headlab-head-contributions';
  // Widget 0 (Figure "outputs"): outputs for 7 1 3; widget 1: corrections from the default for 2 3 4 5 6.
  for (const [index, digits, mode] of [
    [1, [2, 3, 4, 5, 6], 'corrections'],
    [0, [7, 1, 3], 'outputs'],
  ]) {
    const tokens = promptTokens(digits);
    const heads = [0, 1, 2, 3].map((h) => {
      const a = attentionRow(shipped, h, tokens);
      const out = Array(64).fill(0);
      tokens.forEach((t, p) =>
        valueOut(h, t).forEach((x, c) => {
          out[c] += a[p] * x;
        }),
      );
      return out;
    });
    const defaults = [0, 1, 2, 3].map((h) => valueOut(h, ANS));
    const sum = inTop3(heads.reduce((s, x) => s.map((v, c) => v + x[c])));
    const shown = await cells(page, host, 'td[data-vector]', index);
    const value = (id, j) => shown.find((c) => c.vector === id && Number(c.j) === j).value;
    for (let h = 0; h < 4; h++) {
      const expected = inTop3(mode === 'outputs' ? heads[h] : heads[h].map((x, c) => x - defaults[h][c]));
      // Products and sums over 64 × 16 entries from the JSON decimals: same doubles, another order.
      for (let j = 0; j < 3; j++) near(value(`head-${h}`, j), expected[j], NATIVE_TOLERANCE, `${mode} head ${h} PC${j + 1}`);
    }
    for (let j = 0; j < 3; j++) near(value('sum', j), sum[j], NATIVE_TOLERANCE, `sum PC${j + 1}`);
    const defaultSum = inTop3(defaults.reduce((s, x) => s.map((v, c) => v + x[c])));
    for (let j = 0; j < 3; j++) near(value('default', j), defaultSum[j], NATIVE_TOLERANCE, `default sum PC${j + 1}`);
    const pick = await page.evaluate(([h, i]) => document.querySelectorAll(h)[i].state, [host, index]);
    assert.equal(pick.answer, Math.max(...digits));
    assert.equal(pick.pick, Math.max(...digits), 'the 3-D readout picks the maximum');
  }
  // Keyboard: focus the view, ArrowRight turns it by 10°, a digit's drawn position moves; Home resets.
  const read = () =>
    page.evaluate((h) => {
      const w = document.querySelector(h);
      const svg = w.view3d.svg;
      const g = svg.querySelector('[data-id="digit-9"]');
      return {
        azimuth: Number(svg.dataset.azimuth),
        x: Number(g.dataset.x),
        status: w.shadowRoot.querySelector('.row .caption').textContent,
      };
    }, host);
  const before = await read();
  await page.evaluate((h) => document.querySelector(h).shadowRoot.querySelector('.stage').focus(), host);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await frames(page);
  const turned = await read();
  assert.equal(turned.azimuth, before.azimuth + 20);
  assert.notEqual(turned.x, before.x, 'digit 9 moved on screen');
  assert.notEqual(turned.status, before.status, 'the angles are announced');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Home');
  await frames(page);
  assert.deepEqual(await read(), before);
});

test('mechanism at a glance: scores, attention, what each head writes and the logits equal the native weights and analysis', async () => {
  const host = 'headlab-max-digit-mechanism';
  for (const digits of [[2, 3, 4, 5, 6], [0], [9, 1, 9, 4]]) {
    await setAttr(page, host, 'digits', digits.join(' '));
    const tokens = promptTokens(digits);
    const bars = await page.evaluate(
      (h) =>
        [...document.querySelector(h).shadowRoot.querySelectorAll('svg')].map((svg) =>
          [...svg.querySelectorAll('rect[data-value]')].map((r) => ({ ...r.dataset })),
        ),
      host,
    );
    assert.equal(bars.length, 4);
    const [scores, attention, writes, readout] = bars;
    assert.equal(scores.length, 4 * 9);
    for (const b of scores)
      near(
        Number(b.value),
        shipped.scores[Number(b.head)][tokens[Number(b.position)]],
        NATIVE_TOLERANCE,
        `score head ${b.head} position ${b.position}`,
      );
    for (const b of attention)
      near(
        Number(b.value),
        attentionRow(shipped, Number(b.head), tokens)[Number(b.position)],
        NATIVE_TOLERANCE,
        `attention head ${b.head} position ${b.position}`,
      );
    // head_h W_U for digit d, from the weights: Σ_p a_h(p) (E[t_p] W_V^h W_O^h) · W_U[:, d].
    const wu = (c, d) => weights.W_U[c][d];
    const headWrite = (h, d) => {
      const a = attentionRow(shipped, h, tokens);
      let total = 0;
      tokens.forEach((t, p) => {
        const o = valueOut(h, t);
        for (let c = 0; c < 64; c++) total += a[p] * o[c] * wu(c, d);
      });
      return total;
    };
    assert.equal(writes.length, 4 * 10);
    // 9 positions × 64 × 16 products from the same doubles in another order: far inside 1e-9.
    for (const b of writes)
      near(Number(b.value), headWrite(Number(b.head), Number(b.digit)), NATIVE_TOLERANCE, `write head ${b.head} digit ${b.digit}`);
    assert.equal(readout.length, 10);
    for (const b of readout) {
      let residual = 0;
      for (let c = 0; c < 64; c++) residual += weights.E[ANS][c] * wu(c, Number(b.digit));
      const expected = residual + [0, 1, 2, 3].reduce((s, h) => s + headWrite(h, Number(b.digit)), 0);
      near(Number(b.value), expected, NATIVE_TOLERANCE, `logit of ${b.digit}`);
    }
    const state = await page.evaluate((h) => document.querySelector(h).state, host);
    assert.equal(state.answer, Math.max(...digits));
  }
  await setAttr(page, host, 'digits', '2 3 4 5 6');
});

test('score ramps: every point is the native s_h(t); the runner-up split equals the softmax and σ(gap) from the native scores', async () => {
  const host = 'headlab-score-ramps';
  const points = await page.evaluate(
    (h) => [...document.querySelector(h).shadowRoot.querySelectorAll('rect[data-token]')].map((r) => ({ ...r.dataset })),
    host,
  );
  assert.equal(points.length, 4 * 14);
  for (const pt of points)
    near(Number(pt.value), shipped.scores[Number(pt.head)][Number(pt.token)], NATIVE_TOLERANCE, `score head ${pt.head} token ${pt.token}`);
  const slopes = await page.evaluate(
    (h) => [...document.querySelector(h).shadowRoot.querySelectorAll('.slopes li')].map((li) => li.textContent),
    host,
  );
  slopes.forEach((text, h) => assert.match(text, new RegExp(`head ${h}: \\+${shipped.mechanism.score_slope[h].toFixed(2)} per digit`)));
  for (const [m, r] of [
    [9, 8],
    [9, 2],
    [6, 5],
    [3, 0],
  ]) {
    await setAttr(page, host, 'maximum', String(m));
    await setAttr(page, host, 'runner-up', String(r));
    const state = await page.evaluate((h) => document.querySelector(h).state, host);
    assert.equal(state.maximum, m);
    assert.equal(state.runner_up, r);
    const tokens = promptTokens([r, m]);
    for (let h = 0; h < 4; h++) {
      const row = attentionRow(shipped, h, tokens);
      near(state.on_maximum[h], row[2], NATIVE_TOLERANCE, `m ${m} r ${r} head ${h} attention on the maximum`);
      const gap = shipped.scores[h][m] - shipped.scores[h][r];
      near(state.two_token_share[h], 1 / (1 + Math.exp(-gap)), NATIVE_TOLERANCE, `m ${m} r ${r} head ${h} σ(gap)`);
      assert.ok(state.on_maximum[h] <= state.two_token_share[h] + 1e-12, 'the markers only take attention away');
    }
  }
  // The range control moves the runner-up; the maximum select clamps it below the new maximum.
  await page.evaluate((h) => {
    const w = document.querySelector(h);
    w.setAttribute('maximum', '9');
    w.setAttribute('runner-up', '8');
  }, host);
  await frames(page);
  await page.evaluate((h) => {
    const s = document.querySelector(h).shadowRoot.querySelector('select');
    s.value = '4';
    s.dispatchEvent(new Event('change'));
  }, host);
  await frames(page);
  assert.deepEqual(
    await page.evaluate((h) => {
      const w = document.querySelector(h);
      return [w.maximum, w.runnerUp];
    }, host),
    [4, 3],
  );
  await setAttr(page, host, 'runner-up', '7');
  assert.match(
    await page.evaluate((h) => document.querySelector(h).shadowRoot.querySelector('[role="alert"], .error')?.textContent ?? '', host),
    /runner-up="7" must be a digit below the maximum 4/,
  );
  await page.evaluate((h) => {
    const w = document.querySelector(h);
    w.removeAttribute('runner-up');
    w.removeAttribute('maximum');
  }, host);
  await frames(page);
});

test('linked highlighting: a head or digit hovered in one figure lights in the others', async () => {
  await page.evaluate(() => document.querySelector('headlab-attention-bars').setAttribute('digits', '2 3 4 5 6'));
  await frames(page);
  const ramp = page.locator('headlab-score-ramps').locator('.slopes li[data-head="1"]');
  await ramp.hover();
  await frames(page);
  const lit = await page.evaluate(() => {
    const bars = document.querySelector('headlab-attention-bars').shadowRoot;
    const patch = document.querySelector('headlab-attention-patch').shadowRoot;
    return {
      dimBars: [...bars.querySelectorAll('rect[data-head]')].filter((r) => r.classList.contains('dim')).map((r) => r.dataset.head),
      litBars: [...bars.querySelectorAll('rect[data-head]')].filter((r) => r.classList.contains('lit')).map((r) => r.dataset.head),
      litFieldsets: [...patch.querySelectorAll('fieldset.lit')].map((f) => f.dataset.head),
    };
  });
  assert.ok(lit.litBars.length === 9 && lit.litBars.every((h) => h === '1'), 'head 1’s nine bars are lit');
  assert.ok(lit.dimBars.length === 27 && lit.dimBars.every((h) => h !== '1'), 'the other heads’ bars are dimmed');
  assert.deepEqual(lit.litFieldsets, ['1']);
  // A digit: the 3-D view lights the point of 5.
  await page.locator('headlab-attention-bars').locator('td[data-digit="5"]').first().hover();
  await frames(page);
  const digit = await page.evaluate(() => {
    const svg = document.querySelector('headlab-head-contributions').view3d.svg;
    return {
      lit: [...svg.querySelectorAll('g.lit[data-digit]')].map((g) => g.dataset.digit),
      dim: svg.querySelectorAll('g.dim[data-digit]').length,
    };
  });
  assert.deepEqual(digit.lit, ['5']);
  assert.equal(digit.dim, 9);
  await page.mouse.move(0, 0);
});

test('prose bound to the model: <headlab-value> shows the native analysis for the shipped weights', async () => {
  const values = await page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('headlab-value[source="digits"]')].map((v) => [
        v.getAttribute('name'),
        { text: v.textContent, value: v.value?.value, state: v.dataset.state },
      ]),
    ),
  );
  for (const [name, v] of Object.entries(values)) assert.equal(v.state, 'bound', `${name} is bound`);
  near(values['slope.min'].value, Math.min(...shipped.mechanism.score_slope), NATIVE_TOLERANCE, 'slope.min');
  near(values['marker_gap.min'].value, Math.min(...shipped.mechanism.marker_gap), NATIVE_TOLERANCE, 'marker_gap.min');
  assert.equal(values.default_answer.value, shipped.mechanism.default_answer);
  assert.equal(values.default_answer.text, String(shipped.mechanism.default_answer));
  assert.equal(values.pair_flips.value, shipped.claims.pair_flips.length);
  assert.equal(values.single_flips.value, shipped.claims.single_flips.length);
  assert.equal(Math.round(40 * values.recruited_pairs.value), shipped.claims.recruited_cells);
  assert.equal(values.recruited_pairs.text, 'all 40');
  assert.equal(values.one_hot_right.text, shipped.claims.one_hot_exceptions.length === 0 ? 'all 10' : undefined);
  assert.equal(values.ramp_heads.text, shipped.mechanism.score_monotone.every(Boolean) ? 'all 4' : undefined);
  assert.equal(values['directions.w_o'].value, shipped.claims.directions_w_o);
  near(values['single_head.min'].value, shipped.claims.min_single_head_accuracy, COUNT_TOLERANCE, 'single_head.min');
  assert.equal(values['single_head.min'].text, '98.7%');
  assert.equal(values.accuracy.text, 'all 111,110');
  // Never rounded up to 100%: two heads removed at worst leave 5 lists wrong.
  assert.equal(values['two_ablated.min'].text, '99.995%');
  // The unit-norm section's values bind once its model has loaded (lazily).
  const unit = await page.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll('headlab-value[source="unit"]')].map((v) => [v.getAttribute('name'), v.value?.value])),
  );
  assert.equal(unit['directions.w_u'], shippedUnit.claims.directions_w_u);
  near(unit['subspace.w_u.k3'], shippedUnit.subspace_accuracy.w_u[2], COUNT_TOLERANCE, 'unit subspace k = 3');
});

test('patching labels name position and token; the digit field reacts while typing, without Enter', async () => {
  const host = 'headlab-attention-patch';
  await setAttr(page, host, 'digits', '2 3 4 5 6');
  const labels = await page.evaluate(
    (h) =>
      [...document.querySelector(h).shadowRoot.querySelectorAll('fieldset[data-head="0"] label')].map((l) =>
        l.textContent.replace(/\s+/g, ' ').trim(),
      ),
    host,
  );
  assert.equal(labels[4], 'position 3digit 4', 'the two lines of the label: position, then token');
  const aria = await page.evaluate(
    (h) => document.querySelector(h).shadowRoot.querySelector('fieldset[data-head="0"] input[value="3"]').getAttribute('aria-label'),
    host,
  );
  assert.equal(aria, 'head 0: position 3 · digit 4');
  const field = page.locator(host).locator('input[name="digits"]');
  await field.fill('');
  await field.pressSequentially('1 9 4', { delay: 20 });
  await page.waitForFunction((h) => document.querySelector(h).getAttribute('digits') === '1 9 4', host);
  await field.fill('1 x');
  await page.waitForFunction(
    (h) => document.querySelector(h).shadowRoot.querySelector('input[name="digits"]').getAttribute('aria-invalid') === 'true',
    host,
  );
  const problem = await page.evaluate((h) => document.querySelector(h).shadowRoot.querySelector('.input-problem').textContent, host);
  assert.match(problem, /"x" is not a digit 0–9; the last valid value \(1 9 4\) is kept/);
  assert.equal(await page.evaluate((h) => document.querySelector(h).getAttribute('digits'), host), '1 9 4');
  await field.fill('2 3 4 5 6');
  await page.waitForFunction((h) => document.querySelector(h).getAttribute('digits') === '2 3 4 5 6', host);
});

test('cross-seed grid: the cells are the CLI file; seeds trained in the page equal the CLI, with progress and Stop', async () => {
  const file = JSON.parse(fs.readFileSync(path.join(DATA, 'max-digit-seeds-0-9.json'), 'utf8'));
  const host = 'headlab-seed-grid';
  await page.waitForFunction((h) => document.querySelector(h).shadowRoot.querySelectorAll('tr[data-claim]').length > 0, host);
  const defaults = await page.evaluate(
    (h) => [...document.querySelector(h).shadowRoot.querySelectorAll('tr[data-claim="default"] td')].map((td) => td.textContent),
    host,
  );
  assert.deepEqual(
    defaults,
    file.seeds.map((s) => String(s.claims.default_answer)),
  );
  const pairs = await page.evaluate(
    (h) => [...document.querySelector(h).shadowRoot.querySelectorAll('tr[data-claim="pair-flip"] td')].map((td) => td.textContent),
    host,
  );
  assert.deepEqual(
    pairs,
    file.seeds.map((s) => `${s.claims.pair_flips.length} of 6`),
  );
  // Train seeds 3 and 4 here (the two with the notes' one-hot exceptions): each column equals the CLI's.
  // The default number of seeds at once: every core up to 2, then cores − 1, at most 4.
  const [cores, workers] = await page.evaluate((h) => [navigator.hardwareConcurrency, document.querySelector(h).workers], host);
  assert.equal(workers, cores <= 2 ? cores : Math.min(4, cores - 1), `${cores} cores`);
  // Two workers: the two seeds train side by side, each column still the CLI's to the last bit.
  await page.evaluate((h) => {
    const g = document.querySelector(h);
    g.setAttribute('from', '3');
    g.setAttribute('to', '4');
    g.setAttribute('workers', '2');
  }, host);
  await frames(page);
  await page.evaluate((h) => document.querySelector(h).shadowRoot.querySelector('.train button').click(), host);
  await page.waitForFunction((h) => document.querySelector(h).shadowRoot.querySelector('progress').value > 0, host);
  await page.waitForFunction((h) => document.querySelector(h).state.status === 'done', host, { timeout: 120000 });
  const state = await page.evaluate((h) => document.querySelector(h).state, host);
  assert.deepEqual(state.trained, [3, 4]);
  assert.deepEqual(state.agree, [3, 4]);
  for (const seed of [3, 4]) {
    const here = await page.evaluate(([h, s]) => document.querySelector(h).claimsHere(s), [host, seed]);
    assert.deepEqual(here, file.seeds[seed].claims, `seed ${seed}: page = CLI`);
  }
  const check = await page.evaluate(
    (h) => [...document.querySelector(h).shadowRoot.querySelectorAll('tr.check td')].map((td) => td.dataset.agree),
    host,
  );
  assert.deepEqual(
    check,
    file.seeds.map((s) => (s.seed === 3 || s.seed === 4 ? 'true' : '')),
  );
  // Stop: a run stopped during its first seeds keeps nothing from them and says so. The seeds
  // train 100,000 steps (25 times the recipe's), so neither can finish between the progress
  // read below and the stop, however loaded the machine.
  await page.evaluate((h) => {
    const g = document.querySelector(h);
    g.setAttribute('from', '5');
    g.setAttribute('to', '9');
    g.setAttribute('steps', '100000');
    g.train();
  }, host);
  // The bar still holds the last run's value until this run reports: wait for this run's own text.
  await page.waitForFunction(
    (h) => /^seed 5: step [1-9]/.test(document.querySelector(h).shadowRoot.querySelector('.progress-text').textContent),
    host,
  );
  assert.match(
    await page.evaluate((h) => document.querySelector(h).shadowRoot.querySelector('.progress-text').textContent, host),
    /^seed 5: step \d+ · seed 6: step \d+ of 100000 · 0 of 5 seeds done$/,
  );
  await page.evaluate((h) => document.querySelector(h).stop(), host);
  await page.waitForFunction((h) => document.querySelector(h).state.status === 'stopped', host);
  assert.match(
    await page.evaluate((h) => document.querySelector(h).shadowRoot.querySelector('.note').textContent, host),
    /Stopped during seeds 5 and 6; no column was trained/,
  );
  assert.deepEqual(await page.evaluate((h) => document.querySelector(h).state.trained, host), []);
  await page.evaluate((h) => {
    const g = document.querySelector(h);
    g.removeAttribute('workers');
    g.removeAttribute('steps');
  }, host);
});

test('screenshots: light, dark and 360 px', async () => {
  const tags = [
    'headlab-max-digit-model',
    'headlab-max-digit-mechanism',
    'headlab-score-ramps',
    'headlab-attention-bars',
    'headlab-attention-patch',
    'headlab-head-ablation',
    'headlab-subspace-accuracy',
    'headlab-head-contributions',
    'headlab-angle-dot',
    'headlab-seed-grid',
  ];
  for (const [scheme, width] of [
    ['light', 1280],
    ['dark', 1280],
    ['light', 360],
    ['dark', 360],
  ]) {
    const p = await session.newPage({ colorScheme: scheme, viewport: { width, height: 900 } });
    await p.goto(`${session.url}${ARTICLE}`);
    await ready(p);
    assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), width, `no horizontal scroll at ${width} px`);
    for (const tag of tags) await screenshot(p.locator(tag).first(), `max-digit-${tag.replace('headlab-', '')}-${scheme}-${width}`);
    assert.deepEqual(p.problems, []);
    await p.close();
  }
});

test("retraining seed 2 in the page gives the native run's accuracy, subspace and angle figures, and every widget follows", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-md-browser-'));
  const w = path.join(dir, 'w.json');
  const a = path.join(dir, 'a.json');
  // The full recipe (4,000 steps): ≈ 1.1 s natively and ≈ 2 s in the page, and the article's
  // seed-2 claims are about this recipe.
  let r = cliRun(['max-digit', 'train', '--seed', '2', '--out', w]);
  assert.equal(r.status, 0, r.stderr);
  r = cliRun(['max-digit', 'analyze', '--weights', w, '--out', a]);
  assert.equal(r.status, 0, r.stderr);
  const native = JSON.parse(fs.readFileSync(a, 'utf8'));

  await page.evaluate(() => document.getElementById('digits').setAttribute('seed', '2'));
  await frames(page);
  await page.evaluate(() => document.getElementById('digits').shadowRoot.querySelector('.train button').click());
  await page.waitForFunction(() => document.getElementById('digits').trainingStatus === 'done');
  await drawn(page);
  const accuracy = await page.evaluate(() => Number(document.getElementById('digits').shadowRoot.querySelector('.now').dataset.accuracy));
  near(accuracy, native.accuracy, COUNT_TOLERANCE, 'seed 2 accuracy');
  // The prose follows the retrained model: each sentence's wording ("all 4", "3 of 4", "all but 1
  // of 40") is the count the native analysis gives for seed 2, where some marker outscores a digit
  // and one (head, maximum) pair keeps most of its attention elsewhere.
  const words = (right, of) =>
    right === of
      ? `all ${of}`
      : right === 0
        ? `none of ${of}`
        : of - right < right
          ? `all but ${of - right} of ${of}`
          : `${right} of ${of}`;
  const claims = {
    ramp_heads: words(native.mechanism.score_monotone.filter(Boolean).length, 4),
    marker_heads: words(native.mechanism.marker_gap.filter((g) => g > 0).length, 4),
    recruited_pairs: words(native.claims.recruited_cells, 40),
    one_hot_right: words(10 - native.claims.one_hot_exceptions.length, 10),
  };
  assert.notEqual(claims.marker_heads, 'all 4', 'seed 2: a marker outscores a digit in some head');
  assert.equal(claims.recruited_pairs, 'all but 1 of 40');
  const prose = await page.evaluate((names) => {
    const out = {};
    for (const n of names) out[n] = [...document.querySelectorAll(`headlab-value[source="digits"][name="${n}"]`)].map((v) => v.textContent);
    return out;
  }, Object.keys(claims));
  for (const [n, w] of Object.entries(claims)) {
    assert.ok(prose[n].length > 0, `the article binds ${n}`);
    for (const text of prose[n]) assert.equal(text, w, `${n} after retraining seed 2`);
  }
  // Subspace widget tied to the page's model (index 0), the k table and cosines.
  const table = await cells(page, 'headlab-subspace-accuracy', 'td[data-k]');
  for (const c of table) near(c.value, native.subspace_accuracy[c.basis][Number(c.k) - 1], COUNT_TOLERANCE, `seed 2 ${c.basis} k=${c.k}`);
  const top3 = await cells(page, 'headlab-subspace-accuracy', 'td[data-top3]');
  for (const c of top3)
    near(
      c.value,
      native.variance_explained[c.top3].slice(0, 3).reduce((s, x) => s + x, 0),
      NATIVE_TOLERANCE,
      `seed 2 variance ${c.top3}`,
    );
  const cos = await cells(page, 'headlab-subspace-accuracy', 'td[data-i]');
  for (const c of cos) near(c.value, native.cosine_top3[Number(c.i)][Number(c.j)], NATIVE_TOLERANCE, 'seed 2 cosine');
  const disagreements = await page.evaluate(() => document.querySelector('headlab-angle-dot').state.disagreements);
  assert.deepEqual(
    disagreements,
    native.angle_vs_dot.best_by_cosine.flatMap((d, m) => (d === native.angle_vs_dot.best_by_dot[m] ? [] : [m])),
  );
  // The article's seed-2 claims: two directions suffice; angle and dot disagree for several maxima
  // while the dot product is right for all; one head rests on ANS when the list is all zeros.
  assert.equal(native.subspace_accuracy.w_o[1], 1);
  assert.ok(disagreements.length >= 2);
  assert.deepEqual(native.angle_vs_dot.best_by_dot, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const byMax = await cells(page, 'headlab-attention-bars', 'td[data-max="0"]');
  assert.ok(
    byMax.some((c) => Number(c.ans) > 0.5),
    'a head keeps most of its attention on ANS for maximum 0',
  );
  // The unit-norm panel is another model: untouched.
  const unit = await cells(page, 'headlab-subspace-accuracy', 'td[data-k]', 1);
  for (const c of unit) near(c.value, shippedUnit.subspace_accuracy[c.basis][Number(c.k) - 1], COUNT_TOLERANCE, 'unit-norm unchanged');
  // Back to the shipped weights.
  await page.evaluate(() => document.getElementById('digits').useShipped());
  await drawn(page);
  const back = await cells(page, 'headlab-subspace-accuracy', 'td[data-k]');
  for (const c of back) near(c.value, shipped.subspace_accuracy[c.basis][Number(c.k) - 1], COUNT_TOLERANCE, 'shipped again');
  assert.deepEqual(page.problems, []);
});

test('bad author input and load failures show a message inside each widget; the default weights load beside the bundle', async () => {
  const dir = bundleDir({
    'default.html': { body: '<headlab-angle-dot></headlab-angle-dot>' },
    'bad-ref.html': { body: '<headlab-head-ablation model="nope"></headlab-head-ablation>' },
    'missing.html': {
      body: '<headlab-max-digit-model id="m" src="data/none.json"></headlab-max-digit-model><headlab-subspace-accuracy model="m"></headlab-subspace-accuracy>',
    },
    'bad-file.html': {
      body: '<headlab-max-digit-model id="m" src="data/bad.json"></headlab-max-digit-model><headlab-attention-bars model="m"></headlab-attention-bars>',
    },
    'truncated.html': {
      body: '<headlab-max-digit-model id="m" src="data/truncated.json"></headlab-max-digit-model><headlab-head-contributions model="m"></headlab-head-contributions>',
    },
    'tampered.html': {
      body: '<headlab-max-digit-model id="m" src="data/tampered.json"></headlab-max-digit-model><headlab-angle-dot model="m"></headlab-angle-dot>',
    },
    'huge.html': {
      body: '<headlab-max-digit-model id="m" src="data/huge.json"></headlab-max-digit-model><headlab-attention-bars model="m"></headlab-attention-bars>',
    },
    'stalled.html': {
      body: '<headlab-max-digit-model id="m" src="data/stalled.json" timeout="1" loading="eager"></headlab-max-digit-model><headlab-subspace-accuracy model="m"></headlab-subspace-accuracy>',
    },
    'bad-attr.html': {
      body: '<headlab-subspace-accuracy k="12"></headlab-subspace-accuracy><headlab-attention-patch patches="3:9"></headlab-attention-patch><headlab-head-contributions digits="1 2 x"></headlab-head-contributions>',
    },
  });
  fs.mkdirSync(path.join(dir, 'data'));
  fs.copyFileSync(path.join(DATA, 'max-digit-seed0.json'), path.join(dir, 'data/max-digit-seed0.json'));
  fs.writeFileSync(path.join(dir, 'data/bad.json'), JSON.stringify({ format_version: 1, unit_norm_unembedding: false }));
  const text = fs.readFileSync(path.join(DATA, 'max-digit-seed0.json'), 'utf8');
  fs.writeFileSync(path.join(dir, 'data/truncated.json'), text.slice(0, Math.floor(text.length / 2)));
  const tampered = JSON.parse(text);
  tampered.W_K[1] = tampered.W_K[1].map((row) => row.slice(0, 15));
  fs.writeFileSync(path.join(dir, 'data/tampered.json'), JSON.stringify(tampered));
  const huge = JSON.parse(text);
  huge.E[0][0] = 1e200; // finite but huge: once NaN attention mass and "accuracy 0.00%"
  fs.writeFileSync(path.join(dir, 'data/huge.json'), JSON.stringify(huge));
  const s = await startSession({ dir, csp: true });
  try {
    const alerts = async (p, tags) => {
      await p.waitForFunction((t) => t.every((tag) => !document.querySelector(tag)?.shadowRoot.querySelector('.alert').hidden), tags);
      return p.evaluate((t) => t.map((tag) => document.querySelector(tag).shadowRoot.querySelector('.alert').textContent), tags);
    };
    let p = await s.newPage();
    await p.goto(`${s.url}default.html`);
    await p.waitForFunction(
      () => document.querySelector('headlab-angle-dot')?.currentModel && document.querySelector('headlab-angle-dot').renderCount > 0,
    );
    const cell = await p.evaluate(() =>
      Number(document.querySelector('headlab-angle-dot').shadowRoot.querySelector('td[data-figure="dot-m"]').dataset.value),
    );
    near(cell, shipped.angle_vs_dot.dot[0][0], NATIVE_TOLERANCE, 'default weights');
    assert.deepEqual(p.problems, []);

    p = await s.newPage();
    await p.goto(`${s.url}bad-ref.html`);
    const [ref] = await alerts(p, ['headlab-head-ablation']);
    assert.match(ref, /model="nope" names no <headlab-max-digit-model id="nope">/);

    p = await s.newPage();
    await p.goto(`${s.url}missing.html`);
    const missing = await alerts(p, ['headlab-max-digit-model', 'headlab-subspace-accuracy']);
    for (const m of missing) assert.match(m, /could not be loaded: the weights file \/data\/none\.json could not be fetched \(HTTP 404/);

    p = await s.newPage();
    await p.goto(`${s.url}bad-file.html`);
    const bad = await alerts(p, ['headlab-max-digit-model', 'headlab-attention-bars']);
    for (const m of bad) assert.match(m, /is not a max-digit weights file: missing field "d_model"/);

    p = await s.newPage();
    await p.goto(`${s.url}truncated.html`);
    for (const m of await alerts(p, ['headlab-max-digit-model', 'headlab-head-contributions']))
      assert.match(m, /is not a max-digit weights file: the weights file is not valid JSON/);

    p = await s.newPage();
    await p.goto(`${s.url}tampered.html`);
    for (const m of await alerts(p, ['headlab-max-digit-model', 'headlab-angle-dot']))
      assert.match(m, /W_K\[1\] must be 64 × 16, got 64 × 15/);

    p = await s.newPage();
    await p.goto(`${s.url}huge.html`);
    for (const m of await alerts(p, ['headlab-max-digit-model', 'headlab-attention-bars'])) {
      assert.match(m, /E \(14 × 64\) has an entry 1e\+200 at row 0, column 0 beyond the magnitude limit ±1e\+06/);
    }

    // A weights URL that never answers: abandoned after timeout="1" second with a message, not "Loading…" for ever.
    p = await s.newPage();
    await p.route('**/data/stalled.json', () => {}); // never fulfilled
    await p.goto(`${s.url}stalled.html`);
    for (const m of await alerts(p, ['headlab-max-digit-model', 'headlab-subspace-accuracy'])) {
      assert.match(
        m,
        /the weights file \/data\/stalled\.json could not be fetched \(no complete answer within 1 s; the download was abandoned\)/,
      );
    }

    p = await s.newPage();
    await p.goto(`${s.url}bad-attr.html`);
    const attrs = await alerts(p, ['headlab-subspace-accuracy', 'headlab-attention-patch', 'headlab-head-contributions']);
    assert.match(attrs[0], /attribute k="12" must be between 1 and 8/);
    assert.match(attrs[1], /attribute patches: "3:9" must be head:position/);
    assert.match(attrs[2], /attribute digits "1 2 x": "x" is not a digit 0–9/);
  } finally {
    await s.close();
  }
});

test('a worker blocked at page load: the model fails with a clean message, and loads at the next click once the worker is reachable (no reload)', async () => {
  const p = await session.newPage();
  const blocked = '**/headlab/headlab-worker.js';
  await p.route(blocked, (route) => route.abort());
  await p.goto(`${session.url}${ARTICLE}`);
  await p.evaluate(() => document.querySelector('#digits').load());
  // The figure following the model shows the model's failure at its next render: wait for both.
  await p.waitForFunction(() => [...document.querySelectorAll('#digits, #attention')].every((e) => e.error !== null));
  const failed = await p.evaluate(() => [...document.querySelectorAll('#digits, #attention')].map((e) => e.error));
  for (const m of failed) {
    assert.match(
      m,
      /^The model could not be loaded: the background worker that reads the weights \(headlab-worker\.js\) could not be started( \([^)]*\))?; it is tried again at your next click or key press$/,
    );
  }
  // Still failed without an interaction; reachable again, the next click loads the model everywhere.
  await p.unroute(blocked);
  await frames(p);
  assert.notEqual(await p.evaluate(() => document.querySelector('#digits').error), null);
  await p.locator('h1').first().click();
  await p.waitForFunction(() => document.querySelector('#digits').modelSource?.status === 'ready');
  await frames(p);
  const after = await p.evaluate(() =>
    [...document.querySelectorAll('#digits, #attention')].map((e) => ({
      error: e.error,
      accuracy: e.localName === 'headlab-max-digit-model' ? e.state.accuracy : null,
    })),
  );
  for (const a of after) assert.equal(a.error, null);
  assert.equal(after[0].accuracy, shipped.accuracy);
  // The blocked request and the worker's failure are what this test causes; nothing else.
  assert.deepEqual(
    p.problems.filter((x) => !/headlab-worker\.js|net::ERR_FAILED/.test(x)),
    [],
  );
  await p.close();
});

test('seed grid at 360 px: scrolled to the last seed, every claim is still in view beside its value', async () => {
  const page = await session.newPage({ viewport: { width: 360, height: 900 } });
  await page.goto(`${session.url}${ARTICLE}`);
  const fig = page.locator('#seeds');
  await fig.scrollIntoViewIfNeeded();
  await fig.hover();
  await page.waitForFunction(() => document.querySelector('#seeds')?.shadowRoot.querySelector('table.grid td[data-seed="9"]'));
  const rows = await fig.evaluate((e) => {
    const box = e.shadowRoot.querySelector('table.grid').closest('.scroll');
    box.scrollLeft = box.scrollWidth;
    const b = box.getBoundingClientRect();
    const inside = (r) => r.left >= b.left - 1 && r.right <= b.right + 1;
    return [...e.shadowRoot.querySelectorAll('table.grid tbody tr')].map((tr) => ({
      claim: inside(tr.querySelector('th').getBoundingClientRect()),
      last: inside(tr.querySelector('td[data-seed="9"]').getBoundingClientRect()),
      scrolled: box.scrollLeft > 0,
    }));
  });
  assert.ok(rows.length >= 10, `${rows.length} claims`);
  for (const [i, r] of rows.entries()) assert.deepEqual(r, { claim: true, last: true, scrolled: true }, `claim row ${i}`);
  assert.deepEqual(page.problems, []);
});

test('at 360 × 640 px a prose link to the patching figure brings its drawing, where the effect shows, onto the screen', async () => {
  const page = await session.newPage({ viewport: { width: 360, height: 640 }, reducedMotion: 'reduce' });
  await page.goto(`${session.url}${ARTICLE}`, { waitUntil: 'networkidle' });
  // A reader follows the link once the page has laid out: every element defined.
  await elementsDefined(page);
  const link = page.locator('a.state-link[href^="#patch."]').first();
  await link.scrollIntoViewIfNeeded();
  await link.click();
  await page.waitForFunction(() => {
    const e = document.querySelector('#patch');
    return e.renderCount > 0 && !e.busy && !e.updatePending && e.getAttribute('patches') !== null;
  });
  // Revealed (ringed) after its render, then laid out with the live figure in place.
  await page.waitForFunction(() => document.querySelector('#patch').hasAttribute('data-hash-target'));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // The figure is taller than the screen; its drawing sits below its many controls.
  const shown = await page.$eval('#patch', (e) => {
    const drawing = [...e.shadowRoot.querySelectorAll('svg:not(svg svg), canvas')].find((d) => d.getBoundingClientRect().height > 0);
    const r = drawing.getBoundingClientRect();
    return {
      top: Math.round(r.top),
      bottom: Math.round(r.bottom),
      screen: innerHeight,
      figure: Math.round(e.getBoundingClientRect().height),
    };
  });
  assert.ok(shown.figure > shown.screen, JSON.stringify(shown));
  assert.ok(shown.top >= 0 && shown.top < shown.screen - 100, `the drawing starts on screen: ${JSON.stringify(shown)}`);
  assert.deepEqual(page.problems, []);
});
