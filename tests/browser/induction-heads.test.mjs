// The article "Induction heads, trained in your browser" under the strict CSP: the shipped model's
// numbers in the prose (<headlab-value source="induction">) equal those of the native CLI's
// `headlab model analyze` on the same model, a short training in the page's worker writes the same
// safetensors bytes as `headlab model train`, and the trained model replaces the shipped one for every
// figure. One page load per width/scheme; the full-page screenshots at 360/768/1280 px in both schemes
// are the layout test's (tests/browser/layout.test.mjs), which also opens this page.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import esbuild from 'esbuild';
import { root, screenshot, startSession } from './helpers.mjs';
import { frames, rendered } from './widget-fixtures.mjs';
import { cliRun } from '../wasm/helpers.mjs';

const ARTICLE = 'articles/induction-heads.html';
const MODEL = '#induction';
const TRAINING = 'headlab-transformer-training';
const SHIPPED = {
  config: path.join(root, 'site/pages/data/induction-seed0.json'),
  weights: path.join(root, 'site/pages/data/induction-seed0.safetensors'),
  // The run that made the model, as `headlab model train --history-out` recorded it (cli.model.train_regenerates_shipped_induction_acceptance).
  history: path.join(root, 'site/pages/data/induction-seed0-training.json'),
};

/** The polylines drawn in each chart of the training figure, as point counts (the live body's charts). */
function chartLines(page) {
  return page.evaluate((s) => {
    const body = [...document.querySelector(s).shadowRoot.children].find((n) => n.classList.contains('body') && !n.hidden);
    return [...body.querySelectorAll('.chart svg')].map((svg) =>
      [...svg.querySelectorAll('polyline')].map((l) => l.getAttribute('points').trim().split(/\s+/).length),
    );
  }, TRAINING);
}
// The bound between the page (WASM) and the native CLI; the analyses agree far closer
// (tests/wasm/transformer.test.mjs), but sums of exponentials in musl and glibc may differ in the last bits.
const NATIVE_BROWSER_TOLERANCE = 1e-9;
// A short run: three progress messages (steps 0, 50, 100) — enough to compare every byte with the CLI.
const SHORT_STEPS = 100;

/** transformerBoundValue from widgets/transformer/bound-values.ts (the page's own code), compiled for Node. */
async function boundValueFunction() {
  const source = fs.readFileSync(path.join(root, 'widgets/transformer/bound-values.ts'), 'utf8');
  const { code } = esbuild.transformSync(source, { loader: 'ts', format: 'esm' });
  const mod = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  return mod.transformerBoundValue;
}

function tmp(name) {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-induction-')), name);
}

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

async function openArticle(options = {}) {
  const page = await session.newPage(options);
  await page.goto(`${session.url}${ARTICLE}`);
  await rendered(page, MODEL);
  await page.waitForFunction((s) => document.querySelector(s)?.analysis != null, MODEL);
  return page;
}

test("the shipped model: every number bound in the prose equals the CLI's `model analyze`; a short training in the worker equals `model train` bit for bit", async (t) => {
  const page = await openArticle({ viewport: { width: 1280, height: 900 } });

  // 1. The analysis behind the prose, against the CLI on the same prompt.
  const analysis = await page.evaluate((s) => document.querySelector(s).analysis, MODEL);
  const out = tmp('analysis.json');
  const r = cliRun([
    'model',
    'analyze',
    '--config',
    SHIPPED.config,
    '--weights',
    SHIPPED.weights,
    '--prompt',
    analysis.tokens.join(' '),
    '--out',
    out,
  ]);
  assert.equal(r.status, 0, r.stderr);
  const cli = JSON.parse(fs.readFileSync(out, 'utf8'));
  const worst = (a, b) => a.flat(3).reduce((m, x, i) => Math.max(m, Math.abs(x - b.flat(3)[i])), 0);
  const diffs = {
    induction: worst(analysis.induction.induction, cli.induction.induction),
    previous_token: worst(analysis.induction.previous_token, cli.induction.previous_token),
    ablation: worst(analysis.ablation.loss, cli.ablation.loss),
    clean_loss: Math.abs(analysis.ablation.clean_loss - cli.ablation.clean_loss),
    in_context_loss: Math.abs(analysis.induction.in_context_loss - cli.induction.in_context_loss),
  };
  t.diagnostic(`page vs CLI: ${JSON.stringify(diffs)}`);
  for (const [what, d] of Object.entries(diffs)) assert.ok(d <= NATIVE_BROWSER_TOLERANCE, `${what} differs from the CLI by ${d}`);

  // 2. Every <headlab-value source="induction"> shows a number, equal to the one computed from the CLI's document.
  const boundValue = await boundValueFunction();
  const shown = await page.evaluate(
    (s) =>
      [...document.querySelectorAll(`headlab-value[source="${s.slice(1)}"]`)].map((v) => ({
        name: v.getAttribute('name'),
        state: v.dataset.state,
        text: v.textContent,
        value: document.querySelector(s).boundValue(v.getAttribute('name'))?.value,
      })),
    MODEL,
  );
  assert.ok(shown.length >= 15, `bound values in the prose: ${shown.length}`);
  for (const v of shown) {
    const expected =
      v.name === 'layers'
        ? cli.induction.induction.length
        : v.name === 'heads'
          ? cli.induction.induction[0].length
          : boundValue(cli, v.name)?.value;
    assert.notEqual(expected, undefined, `${v.name} is a known bound value`);
    assert.notEqual(v.state, 'pending', `${v.name} is filled in`);
    assert.notEqual(v.state, 'computing', `${v.name} is computed`);
    assert.notEqual(v.state, 'missing', `${v.name} has its source`);
    assert.ok(Math.abs(v.value - expected) <= NATIVE_BROWSER_TOLERANCE, `${v.name}: page ${v.value}, CLI ${expected}`);
  }
  // What the prose says of seed 0 (tests/core/induction_seeds_test.cpp checks it for seeds 0–9).
  const byName = Object.fromEntries(shown.map((v) => [v.name, v.value]));
  assert.equal(byName['induction.layer'], 1, 'the best induction head is in layer 1');
  assert.equal(byName['ablation.max.layer'], 0, 'the costliest ablation is a layer-0 head');
  assert.ok(byName['ablation.max.ratio'] > 2.5);

  // 3. A short training in the worker: the same bytes as the CLI, then every figure reads the new model.
  await page.evaluate(
    ([s, steps]) => {
      const el = document.querySelector(s);
      el.seed = 0;
      el.steps = steps;
    },
    [TRAINING, SHORT_STEPS],
  );
  await page.locator(TRAINING).scrollIntoViewIfNeeded();
  await page.locator(TRAINING).getByRole('button', { name: 'Train', exact: true }).click();
  await page.waitForFunction((s) => document.querySelector(s).trainingStatus === 'done', TRAINING, { timeout: 120000 });
  const run = await page.evaluate((s) => {
    const el = document.querySelector(s);
    return {
      bytes: Array.from(el.result.safetensors),
      config: el.result.config,
      trace: el.trainingTrace,
      state: el.state,
      summary: el.summary,
    };
  }, TRAINING);
  const trained = tmp('trained.safetensors');
  const c = cliRun([
    'model',
    'train',
    '--task',
    'induction',
    '--seed',
    '0',
    '--steps',
    String(SHORT_STEPS),
    '--out',
    trained,
    '--config-out',
    tmp('trained.json'),
  ]);
  assert.equal(c.status, 0, c.stderr);
  const native = fs.readFileSync(trained);
  assert.equal(run.bytes.length, native.length, 'safetensors sizes');
  assert.ok(Buffer.from(run.bytes).equals(native), "the page's safetensors bytes equal `headlab model train`'s");
  assert.deepEqual(
    run.trace.map((p) => p.step),
    [0, 50, 100],
  );
  for (const p of run.trace) {
    assert.equal(p.induction.length, 2);
    assert.equal(p.induction[0].length, 4);
    assert.ok(p.in_context_loss > 0 && Number.isFinite(p.in_context_loss));
  }
  assert.equal(run.state.phase_change_step, null, 'no phase change within 100 steps');
  assert.match(run.summary, /Step 100 of 100 \(seed 0\)/);
  // The model panel shows the trained model, and the prose follows it.
  await page.waitForFunction((s) => document.querySelector(s).state.trained === true && document.querySelector(s).analysis != null, MODEL);
  const after = await page.evaluate(
    (s) => ({ label: document.querySelector(s).state.label, loss: document.querySelector(s).boundValue('in_context_loss').value }),
    MODEL,
  );
  assert.match(after.label, /trained in this page/);
  assert.ok(after.loss > analysis.induction.in_context_loss + 1, `100 steps leave the in-context loss high: ${after.loss}`);
  // The recorded run stays behind the reader's, one faint line per chart (51 points), then the run's own
  // (3 points): the loss chart's training and in-context loss, each score chart's 8 heads.
  await frames(page);
  const lines = await chartLines(page);
  const recordedPoints = JSON.parse(fs.readFileSync(SHIPPED.history, 'utf8')).points.length;
  assert.deepEqual(
    lines.map((chart) => chart.length),
    [3, 9, 9],
  );
  for (const chart of lines) assert.equal(chart[0], recordedPoints, 'the recorded run is drawn first, whole');
  await screenshot(page.locator(TRAINING), 'induction-training-1280-light');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the training figure at 360 px in dark mode, before any action, draws the shipped model's recorded run; a bad seed typed", async () => {
  const page = await openArticle({ viewport: { width: 360, height: 780 }, colorScheme: 'dark', hasTouch: true, isMobile: true });
  const el = page.locator(TRAINING);
  await el.scrollIntoViewIfNeeded();
  await rendered(page, TRAINING);
  await page.waitForFunction((s) => document.querySelector(s).recordedRun !== null, TRAINING);
  await frames(page);
  // Not empty: every chart holds the recorded run's lines, one point per recorded step (the loss chart
  // its training and in-context loss, each score chart one line per head), before any click.
  const recorded = JSON.parse(fs.readFileSync(SHIPPED.history, 'utf8'));
  const n = recorded.points.length;
  assert.equal(n, recorded.steps / recorded.every + 1);
  assert.deepEqual(await chartLines(page), [
    [n - 1, n], // the training loss has no point at step 0
    Array(8).fill(n),
    Array(8).fill(n),
  ]);
  // The prose's numbers are the recorded run's: the first step whose best induction score passes 0.4,
  // the in-context loss at step 0 and at the end.
  const phase = recorded.points.find((p) => Math.max(...p.induction.flat()) > 0.4).step;
  const bound = await page.evaluate((s) => {
    const t = document.querySelector(s);
    return {
      status: t.trainingStatus,
      phase: t.boundValue('phase_change_step').value,
      start: t.boundValue('loss_start').value,
      end: t.boundValue('loss_end').value,
      text: document.querySelector('headlab-value[source="training"][name="phase_change_step"]').textContent.trim(),
    };
  }, TRAINING);
  assert.equal(bound.status, 'idle');
  assert.equal(bound.phase, phase);
  assert.equal(bound.start, recorded.points[0].in_context_loss);
  assert.equal(bound.end, recorded.points[n - 1].in_context_loss);
  assert.equal(bound.text, phase.toLocaleString('en-US'));
  await screenshot(el, 'induction-training-360-dark');
  const seed = el.locator('input[name="seed"]');
  await seed.fill('-3');
  await seed.press('Enter');
  await page.waitForFunction(
    (s) => /the seed must be an integer/.test(document.querySelector(s).shadowRoot.querySelector('.input-problem').textContent),
    TRAINING,
  );
  assert.equal(await page.evaluate((s) => document.querySelector(s).seed, TRAINING), 0, 'the last valid seed is kept');
  assert.deepEqual(page.problems, []);
  await page.close();
});

// The max-digit model converted (headlab model convert-max-digit) and opened in the generic widgets on
// the appendix page agrees with the max-digit widgets' own numbers: the attention rows at ANS and the
// logits at ANS (the per-token-table forward of the max-digit module), the QK circuit's ANS row against the
// score table, and the prose's reading of the figures.
const APPENDIX = 'articles/max-digit-heads-appendix.html';
// Two forward paths through the same float64 weights (tests/core/transformer_test.cpp: within 1e-12).
const FORWARD_PATHS_TOLERANCE = 1e-12;

test('appendix: the max-digit model in the generic widgets agrees with the max-digit widgets (attention, logits, score ramp, QK attribution)', async (t) => {
  const { wasmMaxDigitCore } = await import('../wasm/helpers.mjs');
  const md = await wasmMaxDigitCore();
  const weights = md.maxDigitWeightsFromJson(fs.readFileSync(path.join(root, 'site/pages/data/max-digit-seed0.json'), 'utf8'));
  const digits = [7, 1, 3];
  const attention = md.maxDigitAnsAttention(weights, digits); // 4 × 9
  const { logits } = md.maxDigitLogits(weights, digits);
  const scores = md.maxDigitScoreTable(weights); // 4 × 14

  const page = await session.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${session.url}${APPENDIX}`);
  for (const s of ['#generic', '#generic-attention', '#generic-attribution', '#generic-circuits', '#bars', '#generic-qk'])
    await rendered(page, s);
  await page.waitForFunction(
    () =>
      document.querySelector('#generic').modelSource?.status === 'ready' &&
      /mass on the maximum/.test(document.querySelector('#bars').summary),
  );
  const generic = await page.evaluate(async () => {
    // The page holds no model: the analysis is asked of the source's worker, which keeps it.
    const source = document.querySelector('#generic').modelSource;
    const request = { prompt: 'BOS 7 1 3 PAD PAD PAD SEP ANS', token: '7', circuits: true };
    const a = (await source.compute('transformer-analyze', { request })).analysis;
    // Matrix values { rows, cols, data } as nested rows, the document's form.
    const rows = (m) => Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
    return {
      patterns: a.patterns.map((l) => l.map(rows)),
      logits: rows(a.logits),
      dla: a.direct_logit_attribution,
      qk: a.circuits.qk.map((l) => l.map(rows)),
      tokens: a.tokens,
      shownPrompt: document.querySelector('#generic-attention').state.prompt,
      barsSummary: document.querySelector('#bars').summary,
    };
  });
  assert.deepEqual(generic.tokens, [11, 7, 1, 3, 10, 10, 10, 12, 13]);
  assert.deepEqual(generic.shownPrompt, generic.tokens, 'the attention figure shows the same prompt');
  let worstAttention = 0,
    worstLogit = 0,
    worstScore = 0;
  for (let h = 0; h < 4; h++) {
    for (let p = 0; p < 9; p++)
      worstAttention = Math.max(worstAttention, Math.abs(generic.patterns[0][h][8][p] - attention.data[h * 9 + p]));
    // The prose: in every head most of the ANS row lands on the 7 (position 1).
    assert.ok(generic.patterns[0][h][8][1] > 0.5, `head ${h} puts ${generic.patterns[0][h][8][1]} on the 7`);
    // The QK circuit's ANS row is 4 × the score table (1/√d_head = 1/4 left out).
    for (let tok = 0; tok < 14; tok++)
      worstScore = Math.max(worstScore, Math.abs(generic.qk[0][h][13][tok] / 4 - scores.data[h * 14 + tok]));
  }
  for (let v = 0; v < 14; v++) worstLogit = Math.max(worstLogit, Math.abs(generic.logits[8][v] - logits[v]));
  t.diagnostic(`generic vs max-digit: attention ${worstAttention}, logits ${worstLogit}, QK/4 vs scores ${worstScore}`);
  assert.ok(worstAttention <= FORWARD_PATHS_TOLERANCE, `attention differs by ${worstAttention}`);
  assert.ok(worstLogit <= FORWARD_PATHS_TOLERANCE, `logits differ by ${worstLogit}`);
  assert.ok(worstScore <= FORWARD_PATHS_TOLERANCE, `scores differ by ${worstScore}`);
  // The max-digit bars figure says the same masses on the maximum (its summary, three decimals).
  for (let h = 0; h < 4; h++)
    assert.match(generic.barsSummary, new RegExp(`head ${h} ${String(Math.round(generic.patterns[0][h][8][1] * 1000) / 1000)}\\b`));
  // The prose: the answer is written by the heads, not the embedding.
  assert.ok(generic.dla.heads[0].reduce((x, y) => x + y, 0) > generic.dla.embed);
  await screenshot(page.locator('#fig-generic-attention'), 'max-digit-appendix-attention-1280-light');

  // QK attribution of the max-digit heads: one layer, no positions, no biases, so at ANS every score
  // is one part, embed × embed, equal to the score table (the article's ramp); the bias parts are 0.
  await rendered(page, '#generic-qk');
  await page.waitForFunction(() => document.querySelector('#generic-qk').boundValue('score') !== undefined);
  const qk = await page.evaluate(async () => {
    const source = document.querySelector('#generic').modelSource;
    const prompt = 'BOS 7 1 3 PAD PAD PAD SEP ANS';
    const tables = [];
    for (const h of [0, 1, 2, 3]) {
      const t = await source.compute('transformer-qk-attribution', { prompt, layer: 0, head: h });
      // parts [T][T] S × S and scores T × T, flattened row-major: T × T × S × S and T × T numbers.
      tables.push({ sources: t.sources, parts: t.parts.flat().flatMap((m) => Array.from(m.data)), scores: Array.from(t.scores.data) });
    }
    const q = document.querySelector('#generic-qk');
    const bound = [...document.querySelectorAll('headlab-value[source="generic-qk"]')].map((v) => ({
      name: v.getAttribute('name'),
      state: v.dataset.state,
      value: q.boundValue(v.getAttribute('name'))?.value,
    }));
    return { tables, bound, summary: q.summary };
  });
  let worstRamp = 0;
  for (let h = 0; h < 4; h++) {
    const { sources, parts, scores: s } = qk.tables[h];
    assert.deepEqual(sources, ['embed', 'bias']);
    for (let j = 0; j <= 8; j++) {
      const cell = parts.slice((8 * 9 + j) * 4, (8 * 9 + j) * 4 + 4); // [embed·embed, embed·bias, bias·embed, bias·bias]
      assert.deepEqual(cell.slice(1), [0, 0, 0], `head ${h} key ${j}: the bias parts are zero`);
      assert.ok(Object.is(cell[0], s[8 * 9 + j]), `head ${h} key ${j}: the one part is the score`);
      worstRamp = Math.max(worstRamp, Math.abs(cell[0] - scores.data[h * 14 + generic.tokens[j]]));
    }
  }
  t.diagnostic(`QK attribution at ANS vs the score table: ${worstRamp}`);
  assert.ok(worstRamp <= FORWARD_PATHS_TOLERANCE, `the embed × embed part differs from the ramp by ${worstRamp}`);
  // The prose: head 0's part for the 7 is its ramp value, all of the score.
  const prose = Object.fromEntries(qk.bound.map((v) => [v.name, v]));
  assert.ok(Object.values(prose).every((v) => v.state === 'bound'));
  assert.ok(Math.abs(prose['part.embed.embed'].value - scores.data[0 * 14 + 7]) <= FORWARD_PATHS_TOLERANCE);
  assert.equal(prose['share.embed.embed'].value, 1);
  await screenshot(page.locator('#fig-generic-qk'), 'max-digit-appendix-qk-1280-light');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the prose link 'Ablate all four layer-1 heads' keeps the article's prompt, where the logit of 8 falls", async () => {
  const page = await openArticle();
  const fig = '#ablation';
  await rendered(page, fig);
  const authored = await page.$eval(fig, (e) => e.getAttribute('prompt'));
  await page.locator('a.state-link', { hasText: 'Ablate all four layer-1 heads' }).click();
  await page.waitForFunction((s) => {
    const e = document.querySelector(s);
    const d = e.figureData;
    return !e.busy && !e.updatePending && d?.heads.length === 4 && d.logits_after != null;
  }, fig);
  const d = await page.$eval(fig, (e) => {
    const { prompt, heads, logits_before, logits_after } = e.figureData;
    return { prompt, heads, logits_before: Array.from(logits_before), logits_after: Array.from(logits_after) };
  });
  assert.equal(d.prompt.join(' '), authored, 'the prompt the prose talks about');
  assert.deepEqual(
    d.heads,
    [0, 1, 2, 3].map((h) => [1, h]),
  );
  // The next token after "… 11 26" is the copy of what followed 26 before: 8.
  assert.equal(d.prompt[d.prompt.indexOf(26) + 1], 8);
  const top = (logits) => logits.indexOf(Math.max(...logits));
  assert.equal(top(d.logits_before), 8, 'the clean model predicts 8');
  assert.ok(
    d.logits_after[8] < d.logits_before[8] - 1,
    `ablating layer 1 lowers the logit of 8: ${d.logits_before[8]} → ${d.logits_after[8]}`,
  );
  assert.deepEqual(page.problems, []);
});

test('the attention patterns fill the box at 360, 700 and 1280 px: each head at least 110 CSS px wide, drawn unscaled', async () => {
  const sizes = {};
  for (const width of [360, 700, 1280]) {
    const page = await openArticle({ viewport: { width, height: 900 } });
    await rendered(page, '#attention');
    // The patterns come from the model source's worker: until the first run is shown.
    await page.waitForFunction(() => document.querySelector('#attention').shown !== null);
    sizes[width] = await page.$eval('#attention', (e) => {
      const layout = e.layout(e.currentModel, e.shown.run);
      const canvas = e.shadowRoot.querySelector('canvas').getBoundingClientRect();
      const box = e.shadowRoot.querySelector('.figure').getBoundingClientRect();
      const scale = canvas.width / layout.width;
      return { cols: layout.cols, head: layout.size * scale, scale, filled: canvas.width / box.width };
    });
    await page.close();
  }
  for (const [width, s] of Object.entries(sizes)) {
    assert.ok(s.head >= 110, `${width} px: a head's pattern is ${s.head.toFixed(0)} px wide`);
    assert.ok(Math.abs(s.scale - 1) < 0.02, `${width} px: drawn at its own size (scale ${s.scale})`);
    assert.ok(s.filled > 0.85, `${width} px: the patterns fill ${(100 * s.filled).toFixed(0)}% of the box`);
  }
  assert.equal(sizes[360].cols, 2);
  assert.equal(sizes[1280].cols, 4);
});

test("appendix: the QK circuit labels every one of the max-digit model's 14 tokens on both axes, ANS included, none overprinted", async () => {
  for (const width of [360, 1280]) {
    const page = await session.newPage({ viewport: { width, height: 900 } });
    await page.goto(`${session.url}articles/max-digit-heads-appendix.html`);
    const fig = '#generic-circuits';
    await page.locator(fig).scrollIntoViewIfNeeded();
    await page.waitForFunction((s) => {
      const e = document.querySelector(s);
      return e?.renderCount > 0 && !e.busy && !e.updatePending && [...e.shadowRoot.querySelectorAll('svg text')].length > 1;
    }, fig);
    const labels = await page.$eval(fig, (e) => {
      const names = new Set(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'PAD', 'BOS', 'SEP', 'ANS']);
      const texts = [...e.shadowRoot.querySelectorAll('svg text')].filter((t) => names.has(t.textContent));
      return texts.map((t) => {
        const r = t.getBoundingClientRect();
        return { text: t.textContent, turned: t.hasAttribute('transform'), x: r.x, y: r.y, w: r.width, h: r.height };
      });
    });
    assert.equal(new Set(labels.map((l) => l.text)).size, 14, `${width} px: every token named (${labels.map((l) => l.text).join(' ')})`);
    assert.equal(labels.length, 28, `${width} px: each token on both axes`);
    // No two labels' boxes overlap (turned labels: their boxes' overlap is their ink's, conservatively).
    const overlaps = [];
    for (let i = 0; i < labels.length; i++)
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i],
          b = labels[j];
        if (a.turned !== b.turned) continue;
        const ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x),
          oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
        if (!a.turned && ox > 0.5 && oy > 0.5) overlaps.push(`${a.text}/${b.text}`);
        if (a.turned && ox > a.w / 2 && oy > a.h / 2) overlaps.push(`${a.text}/${b.text} (turned)`);
      }
    assert.deepEqual(overlaps, [], `${width} px`);
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});

test('the ablation figure at 360 and 1280 px, four heads ablated: no two texts of its charts overlap', async () => {
  for (const width of [360, 1280]) {
    const page = await session.newPage({ viewport: { width, height: 900 } });
    await page.goto(
      `${session.url}${ARTICLE}#ablation.heads=1.0+1.1+1.2+1.3&ablation.prompt=5+9+14+3+22+7+30+1+17+11+26+8+5+9+14+3+22+7+30+1+17+11+26`,
    );
    await page.waitForFunction(() => {
      const e = document.querySelector('#ablation');
      return e?.figureData?.logits_after != null && e.figureData.head_losses != null && !e.busy && !e.updatePending;
    });
    const overlaps = await page.$eval('#ablation', (e) => {
      const out = [];
      for (const svg of e.shadowRoot.querySelectorAll('svg')) {
        const boxes = [...svg.querySelectorAll('text')].map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() }));
        for (let i = 0; i < boxes.length; i++)
          for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i].r,
              b = boxes[j].r;
            const ox = Math.min(a.right, b.right) - Math.max(a.left, b.left),
              oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            // A glyph box (ascent + descent, 1.2 em) is taller than its ink: rows whose boxes share
            // under a quarter of their height are lines that touch, not text printed over text.
            if (ox > 0.5 && oy > 0.25 * Math.min(a.height, b.height)) out.push(`"${boxes[i].text}" / "${boxes[j].text}"`);
          }
      }
      return out;
    });
    assert.deepEqual(overlaps, [], `${width} px`);
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});
