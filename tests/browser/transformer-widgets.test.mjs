// The transformer widgets (docs/own-model-widgets.md) under the strict CSP, on the page that shows
// them (own-model.html): every number each figure computes against the native CLI's
// `headlab model run / analyze` on the shipped induction model and on a fixture model shown on no
// page (tests/data/transformer/two_layer_ln_pos, served to the page by the test), bad files giving
// the core's message in the model element and in every figure, keyboard use, screenshots at 360 and
// 1280 px in light and dark. One page load for the numbers and the bad files; one per screenshot
// width and scheme.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, screenshot, startSession, trackWorkers, workersEnded } from './helpers.mjs';
import { frames } from './widget-fixtures.mjs';
import { cliRun, randomModelFile, wasmTransformerCore } from '../wasm/helpers.mjs';

const PAGE = 'own-model.html';
const DATA = path.join(root, 'site/pages/data');
const SHIPPED = { config: path.join(DATA, 'induction-seed0.json'), weights: path.join(DATA, 'induction-seed0.safetensors') };
const FIXTURE_DIR = path.join(root, 'tests/data/transformer');
const FIXTURE = {
  config: path.join(FIXTURE_DIR, 'two_layer_ln_pos.json'),
  weights: path.join(FIXTURE_DIR, 'two_layer_ln_pos.safetensors'),
};

// The bound between the page (WASM) and the native CLI: the same reader and the same
// float64 code, summed in other orders (Eigen SSE2 natively, scalar in WASM) and with exp/log from
// another libm: ~1e-15 relative on logits of size ~10, far inside 1e-9.
const NATIVE_TOLERANCE = 1e-9;
const TAGS = [
  'headlab-transformer-attention',
  'headlab-transformer-attribution',
  'headlab-transformer-patching',
  'headlab-transformer-ablation',
  'headlab-transformer-circuits',
];

let session;
let page;
before(async () => {
  session = await startSession({ csp: true });
  page = await session.newPage();
  await trackWorkers(page);
  // The fixture model and the bad files, served at /test-models/ (the site has no such folder).
  await page.route('**/test-models/**', (route) => {
    const name = decodeURIComponent(new URL(route.request().url()).pathname.split('/').pop());
    const body = served.get(name);
    if (!body) return route.fulfill({ status: 404, body: 'no such test model' });
    return route.fulfill({ status: 200, body, contentType: name.endsWith('.json') ? 'application/json' : 'application/octet-stream' });
  });
  await page.goto(`${session.url}${PAGE}`);
  await ready(page);
});
/** Directories of files the tests hand the page: removed at the end (a File the page holds reads from its file). */
const tempDirs = [];
after(async () => {
  await session?.close();
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Files the route above serves, by name. */
const served = new Map([
  ['fixture.safetensors', fs.readFileSync(FIXTURE.weights)],
  ['fixture.json', fs.readFileSync(FIXTURE.config)],
]);

/** Waits until every transformer figure has its model and has rendered it. */
async function ready(p, label = null) {
  await p.waitForFunction(
    (want) => {
      const figures = [
        ...document.querySelectorAll(
          'headlab-transformer-attention, headlab-transformer-attribution, headlab-transformer-patching, headlab-transformer-ablation, headlab-transformer-circuits',
        ),
      ];
      return (
        figures.length === 5 &&
        figures.every((w) => w.currentModel && w.renderCount > 0 && !w.busy && (!want || w.currentModel.label === want))
      );
    },
    label,
    { timeout: 120_000 },
  );
  await frames(p);
}

function cli(args) {
  const r = cliRun(['model', ...args]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** Largest |a − b| over two equally shaped nested arrays of numbers (shapes checked). */
function maxDiff(a, b, where = '') {
  if (Array.isArray(a)) {
    assert.ok(Array.isArray(b) && a.length === b.length, `${where}: length ${a.length} vs ${b?.length}`);
    return a.reduce((m, x, i) => Math.max(m, maxDiff(x, b[i], `${where}[${i}]`)), 0);
  }
  assert.equal(typeof a, 'number', where);
  assert.equal(typeof b, 'number', where);
  return Math.abs(a - b);
}

function within(a, b, what) {
  const d = maxDiff(a, b, what);
  assert.ok(d <= NATIVE_TOLERANCE, `${what}: page and CLI differ by ${d}`);
  return d;
}

/** What each figure shows now (its figureData: the state and the core's numbers), keyed by tag. */
async function exports(p) {
  // As JSON text (typed-array rows as arrays of their numbers, as the JSON export writes them).
  return JSON.parse(
    await p.evaluate(
      (tags) =>
        JSON.stringify(Object.fromEntries(tags.map((t) => [t, document.querySelector(t).figureData])), (_k, v) =>
          ArrayBuffer.isView(v) ? Array.from(v) : v,
        ),
      TAGS,
    ),
  );
}

/** Sets attributes on the figures and waits for their renders (of the elements of `tags`, or of every element). */
async function setAll(p, tags, attrs = undefined) {
  if (attrs === undefined) [tags, attrs] = [null, tags];
  await p.evaluate((a) => {
    for (const [tag, values] of Object.entries(a)) {
      const el = document.querySelector(tag);
      for (const [k, v] of Object.entries(values)) el.setAttribute(k, v);
      el.renderNow();
    }
  }, attrs);
  // The patching runs are computed in the worker: until every figure has its analysis back.
  await p.waitForFunction((t) => [...document.querySelectorAll(t ? t.join(',') : '*')].every((e) => !e.busy), tags, { timeout: 60_000 });
  if (!tags) await frames(p);
}

/** Every figure's numbers on `model` against the CLI for the figures' current states. */
async function checkAgainstCli(p, model) {
  // The ablation figure's per-head losses on its prompt come from the worker.
  await p.waitForFunction(() => document.querySelector('headlab-transformer-ablation').figureData?.head_losses != null, null, {
    timeout: 60_000,
  });
  const shown = await exports(p);
  const files = ['--config', model.config, '--weights', model.weights];
  const worst = {};
  const att = shown['headlab-transformer-attention'];
  const run = cli(['run', ...files, '--prompt', att.prompt.join(' ')]);
  worst.patterns = within(att.run.patterns, run.patterns, 'attention patterns');
  // The figure's run holds the last position's logits only (it draws none; logits_from says which rows).
  assert.equal(att.run.logits_from, att.prompt.length - 1, 'the attention run forms the last row of logits only');
  worst.logits = within(att.run.logits, run.logits.slice(att.run.logits_from), 'attention logits');

  const dla = shown['headlab-transformer-attribution'];
  const a1 = cli([
    'analyze',
    ...files,
    '--prompt',
    dla.prompt.join(' '),
    '--position',
    String(dla.position),
    '--token',
    String(dla.token),
    '--sequences',
    '0',
  ]);
  const d = dla.direct_logit_attribution,
    e = a1.direct_logit_attribution;
  worst.attribution = within(
    [d.embed, d.pos_embed, d.heads, d.attention_bias, d.constant, d.logit],
    [e.embed, e.pos_embed, e.heads, e.attention_bias, e.constant, e.logit],
    'attribution',
  );
  // The bars add up to the logit (the identity the figure's caption states).
  const sum = d.embed + d.pos_embed + d.heads.flat().reduce((x, y) => x + y, 0) + d.attention_bias.reduce((x, y) => x + y, 0) + d.constant;
  assert.ok(Math.abs(sum - d.logit) <= 1e-12 * Math.max(1, Math.abs(d.logit)), `attribution sums to ${sum}, logit ${d.logit}`);

  const pat = shown['headlab-transformer-patching'];
  const a2 = cli([
    'analyze',
    ...files,
    '--prompt',
    pat.prompt.join(' '),
    '--corrupted',
    pat.corrupted.join(' '),
    '--answer',
    String(pat.answer),
    '--wrong',
    String(pat.wrong),
    '--sequences',
    '0',
  ]);
  worst.patching = within(
    [pat.patching.normalised, pat.patching.clean_logit_difference, pat.patching.corrupted_logit_difference],
    [a2.patching.normalised, a2.patching.clean_logit_difference, a2.patching.corrupted_logit_difference],
    'patching',
  );

  const abl = shown['headlab-transformer-ablation'];
  assert.ok(abl.heads.length > 0, 'the ablation figure ablates heads');
  // Mean ablation over the figure's reference sequences when it has them, else 32 repeated random ones.
  const means = abl.reference?.length
    ? ['--reference', abl.reference.map((r) => r.join(' ')).join('; ')]
    : ['--sequences', '32', '--seed', '0'];
  const ablated = cli([
    'run',
    ...files,
    '--prompt',
    abl.prompt.join(' '),
    '--ablate',
    abl.heads.map(([l, h]) => `${l}.${h}`).join(' '),
    '--ablation',
    abl.mode,
    ...means,
    '--head-losses',
  ]);
  const last = abl.prompt.length - 1;
  worst.ablated_logits = within(abl.logits_after, ablated.logits[last], 'ablated logits');
  within(
    abl.logits_before,
    run.logits.length === abl.prompt.length && att.prompt.join() === abl.prompt.join()
      ? run.logits[last]
      : cli(['run', ...files, '--prompt', abl.prompt.join(' ')]).logits[last],
    'logits before ablation',
  );
  // The chart's losses: the prompt's own next-token loss with each head ablated (run --head-losses).
  assert.equal(abl.head_losses.means, abl.reference?.length ? 'reference' : 'repeated random sequences');
  worst.ablation_loss = within(
    [abl.head_losses.loss, abl.head_losses.clean_loss],
    [ablated.head_losses.loss, ablated.head_losses.clean_loss],
    'prompt losses per ablated head',
  );
  assert.equal(abl.clean_loss, abl.head_losses.clean_loss);

  const circ = shown['headlab-transformer-circuits'];
  // Token-space circuits exist up to 512 tokens (the core's kMaxCircuitVocab); beyond, the figure has no matrix.
  if (circ.matrix === null) {
    assert.ok(JSON.parse(fs.readFileSync(model.config, 'utf8')).d_vocab > 512, 'a circuit matrix is missing');
    return worst;
  }
  const a4 = cli(['analyze', ...files, '--prompt', '0', '--circuits', '--sequences', '1']);
  worst.circuit = within(circ.matrix, a4.circuits[circ.circuit][circ.layer][circ.head], 'circuit');
  return worst;
}

/**
 * Sets the figures' attributes (setAll, on `tags` or on every element when null), checks every
 * figure on `model` against the CLI (checkAgainstCli) and logs the largest differences, named `what`.
 */
async function setAndCheck(p, what, model, tags, attrs) {
  await setAll(p, tags, attrs);
  const worst = await checkAgainstCli(p, model);
  console.log(`${what}, largest |page − CLI|:`, JSON.stringify(worst));
}

// A patching choice in both the fixture's vocabulary (17 tokens) and the wide model's: the answer 9
// at position 2, replaced by 8 in the corrupted prompt.
const PATCHING_9_BY_8 = { prompt: '2 7 9 2 7', corrupted: '2 8 9 2 7', answer: '9', wrong: '5' };

test('shipped induction model: every figure equals the native CLI within 1e-9', async () => {
  // States away from the defaults: a pinned token, another logit, two heads mean-ablated, a QK circuit.
  await setAndCheck(page, 'shipped model', SHIPPED, null, {
    'headlab-transformer-attention': { prompt: '5 9 1 22 5 9 1', position: '4' },
    'headlab-transformer-attribution': { prompt: '5 9 1 22 5 9 1', position: '6', token: '22' },
    'headlab-transformer-ablation': { prompt: '5 9 1 22 5 9 1', heads: '1.1 1.3', mode: 'mean' },
    'headlab-transformer-circuits': { layer: '1', head: '2', circuit: 'qk' },
  });
  // The default patching choice on the shipped model (a repeated block, every copy of the answer
  // replaced by a token not in the prompt): copying favours the answer on the clean prompt and the
  // wrong token on the corrupted one; a patch before the first replaced position changes nothing
  // (causal attention: those head outputs are the same in both runs).
  const pat = (await exports(page))['headlab-transformer-patching'];
  assert.ok(
    pat.clean_logit_difference > 0 && pat.corrupted_logit_difference < 0,
    `clean ${pat.clean_logit_difference}, corrupted ${pat.corrupted_logit_difference}`,
  );
  const first = pat.prompt.findIndex((t, i) => t !== pat.corrupted[i]);
  assert.ok(first > 0, 'the corruption leaves a prefix');
  for (const row of pat.patching.normalised.flat())
    for (let p = 0; p < first; p++) assert.ok(Math.abs(row[p] - 1) <= 1e-12, `position ${p}: ${row[p]}`);
  assert.ok(Math.min(...pat.patching.normalised.flat().flat()) < 0.95, 'some head at some position carries the answer');
  // The downloaded patching figure holds the grid: one cell per head and position.
  const svg = await page.evaluate(() => document.querySelector('headlab-transformer-patching').exportSvg('patching'));
  const heads = pat.patching.normalised.flat().length;
  assert.ok((svg.match(/<rect/g) ?? []).length >= heads * pat.prompt.length, `the export draws ${heads} × ${pat.prompt.length} cells`);
  // The page teaches an author: a markup snippet naming the model element, and the guides as links
  // to pages of the site (each answers with the guide under its heading), not repository paths.
  const author = await page.evaluate(async () => {
    const snippet = [...document.querySelectorAll('pre code')]
      .map((c) => c.textContent)
      .find((t) => t.includes('<headlab-transformer-model'));
    const links = [...document.querySelectorAll('main a[href$=".md"], a[href^="docs/"]')].map((a) => a.href);
    const answers = await Promise.all(
      links.map(async (u) => {
        const r = await fetch(u);
        return [u, r.status, /<h1 id="[^"]+">/.test(await r.text())];
      }),
    );
    return {
      snippet: snippet ?? null,
      answers,
      paths: [...document.querySelectorAll('code')].filter((c) => /^docs\//.test(c.textContent)).length,
    };
  });
  assert.match(author.snippet ?? '', /model="mine"/);
  assert.ok(author.answers.length >= 3, `links to the guides: ${JSON.stringify(author.answers)}`);
  for (const [u, status, heading] of author.answers) assert.deepEqual([u, status, heading], [u, 200, true]);
  assert.equal(author.paths, 0, 'no guide named by its repository path');
  assert.deepEqual(page.problems, []);
});

test('a fixture model shown on no page: every figure equals the native CLI within 1e-9', async () => {
  await page.evaluate(() => {
    const m = document.getElementById('induction');
    m.setAttribute('config', 'test-models/fixture.json');
    m.setAttribute('src', 'test-models/fixture.safetensors');
  });
  await ready(page, 'fixture.safetensors');
  // Every number of a new model comes from the source's worker: the page's model holds no handle and no weights.
  const held = await page.evaluate(() => {
    const model = document.getElementById('induction').modelSource.model;
    return {
      handle: 'handle' in model,
      arrays: Object.values(model).filter((v) => ArrayBuffer.isView(v)).length,
      blob: model.weights instanceof Blob,
    };
  });
  assert.deepEqual(held, { handle: false, arrays: 0, blob: true }, 'the page holds no model');
  // The fixture's vocabulary has 17 tokens and its context 10.
  await setAndCheck(page, 'fixture model', FIXTURE, null, {
    'headlab-transformer-attention': { prompt: '1 16 3 4 1 16', position: '2' },
    'headlab-transformer-attribution': { prompt: '1 16 3 4 1 16', position: '5', token: '3' },
    'headlab-transformer-patching': PATCHING_9_BY_8,
    // Mean ablation over an author's reference sequences (of unequal lengths).
    'headlab-transformer-ablation': {
      prompt: '1 16 3 4 1',
      heads: '0.0 1.1',
      mode: 'mean',
      reference: '["1 2 3 4 5 6 7", "16 15 14 13 12", [3, 3, 3]]',
    },
    'headlab-transformer-circuits': { layer: '0', head: '1', circuit: 'ov' },
  });
  // The reference sequences are the fixture model's: the tests after this one read other models.
  await page.evaluate(() => document.querySelector('headlab-transformer-ablation').removeAttribute('reference'));
  assert.deepEqual(page.problems, []);
});

test('a tokenizer: every prompt is text, encoded as the CLI encodes it, its tokens shown as chips; a bad tokenizer file is named and the model stays', async () => {
  // The fixture model (d_vocab 17) with the WordLevel fixture (ids 0–7), as tests/cli/model_tokenizer.cmake runs them.
  const TOKENIZER = path.join(root, 'tests/data/tokenizer/word_level.json');
  served.set('word_level.json', fs.readFileSync(TOKENIZER));
  const UNIGRAM = '{"model":{"type":"Unigram","vocab":[]}}';
  served.set('unigram.json', Buffer.from(UNIGRAM));
  const kept = await page.evaluate((tags) => tags.map((t) => [t, document.querySelector(t).sharedState]), TAGS);
  const tokenizerShown = (name) =>
    page.waitForFunction(
      (n) => {
        const e = document.getElementById('induction');
        return e.state.status === 'ready' && e.state.tokenizer === n;
      },
      name,
      { timeout: 60_000 },
    );
  await page.evaluate(() => document.getElementById('induction').setAttribute('tokenizer', 'test-models/word_level.json'));
  await tokenizerShown('word_level.json');
  await ready(page, 'fixture.safetensors');
  const texts = {
    'headlab-transformer-attention': { prompt: 'the cat sat on the mat.', position: '2' },
    'headlab-transformer-attribution': { prompt: 'the naïve cat sat on', token: 'mat' },
    'headlab-transformer-patching': { prompt: 'the cat sat on the', corrupted: 'the mat sat on the', answer: 'mat', wrong: 'cat' },
    'headlab-transformer-ablation': { prompt: 'the dog sat', heads: '0.0' },
  };
  await setAll(page, texts);
  const shown = await exports(page);
  const tokenizerFiles = ['--config', FIXTURE.config, '--weights', FIXTURE.weights, '--tokenizer', TOKENIZER];
  const encoded = (text) => cli(['run', ...tokenizerFiles, '--prompt', text]);
  // The ids each figure uses are the CLI's encoding of the same text, and the numbers on them the CLI's.
  const att = encoded(texts['headlab-transformer-attention'].prompt);
  assert.deepEqual(att.tokens, [1, 2, 3, 5, 1, 6, 4]);
  assert.deepEqual(shown['headlab-transformer-attention'].prompt, att.tokens);
  within(shown['headlab-transformer-attention'].run.patterns, att.patterns, 'attention patterns of a text prompt');
  const dla = shown['headlab-transformer-attribution'];
  assert.deepEqual(dla.prompt, encoded(texts['headlab-transformer-attribution'].prompt).tokens);
  assert.equal(dla.token, encoded('mat').tokens[0]);
  const pat = shown['headlab-transformer-patching'];
  assert.deepEqual(pat.prompt, encoded(texts['headlab-transformer-patching'].prompt).tokens);
  assert.deepEqual(pat.corrupted, encoded(texts['headlab-transformer-patching'].corrupted).tokens);
  assert.deepEqual([pat.answer, pat.wrong], [encoded('mat').tokens[0], encoded('cat').tokens[0]]);
  assert.deepEqual(shown['headlab-transformer-ablation'].prompt, encoded('the dog sat').tokens); // "dog": [UNK]
  // The boundaries: one chip per token, its text and id as the CLI names them, announced by the count line.
  const chips = (tag) =>
    page.evaluate((t) => {
      const r = document.querySelector(t).shadowRoot;
      const items = [...r.querySelectorAll('.prompt-row .token-chips li')];
      const boxes = items.map((li) => li.getBoundingClientRect());
      return {
        texts: items.map((li) => li.querySelector('.text').textContent),
        ids: items.map((li) => Number(li.querySelector('.id').textContent.replace(/^, id /, ''))),
        spoken: items.map((li) => li.textContent),
        count: r.querySelector('.prompt-row .token-count').textContent,
        role: r.querySelector('.prompt-row .token-count').getAttribute('role'),
        // Chips side by side or wrapped, never overlapping: each starts after the one before on its line.
        separate: boxes.every((b, i) => i === 0 || b.left >= boxes[i - 1].right || b.top >= boxes[i - 1].bottom),
        field: r.querySelector('textarea[name="prompt"]').value,
      };
    }, tag);
  const a = await chips('headlab-transformer-attention');
  assert.deepEqual(a.texts, att.token_names);
  assert.deepEqual(a.ids, att.tokens);
  assert.equal(a.count, '7 tokens, as word_level.json cuts the prompt:');
  assert.equal(a.role, 'status');
  assert.equal(a.spoken[1], 'token 2: cat, id 2');
  assert.ok(a.separate, 'the chips overlap');
  assert.equal(a.field, 'the cat sat on the mat.');
  assert.deepEqual((await chips('headlab-transformer-ablation')).texts, ['the', '[UNK]', 'sat']);

  // Keyboard: the field takes typed text; Enter encodes it, the chips and the figure follow.
  const field = page.locator('headlab-transformer-attention textarea[name="prompt"]');
  await field.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('the mat sat on the cat');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.querySelector('headlab-transformer-attention').busy);
  await frames(page);
  const typed = await chips('headlab-transformer-attention');
  assert.equal(
    await page.evaluate(() => document.querySelector('headlab-transformer-attention').getAttribute('prompt')),
    'the mat sat on the cat',
  );
  assert.deepEqual(typed.ids, encoded('the mat sat on the cat').tokens);
  assert.equal(typed.count, '6 tokens, as word_level.json cuts the prompt:');
  // Leaving the field (a field being edited is not rewritten by the figure).
  await page.keyboard.press('Tab');

  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [360, 700, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await frames(page);
      await screenshot(page.locator('headlab-transformer-attention .prompt-row').first(), `transformer-tokens-${scheme}-${width}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${scheme} ${width}: the page scrolls sideways by ${overflow} px`);
    }
  }

  // A tokenizer file the reader refuses: its message, naming the file, in the model element; the model stays as it was.
  const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-bad-tokenizer-')), 'unigram.json');
  fs.writeFileSync(bad, UNIGRAM);
  const r = cliRun(['model', 'run', '--config', FIXTURE.config, '--weights', FIXTURE.weights, '--tokenizer', bad, '--prompt', 'the']);
  fs.rmSync(path.dirname(bad), { recursive: true });
  assert.equal(r.status, 1);
  const message = r.stderr
    .trim()
    .split('\n')
    .pop()
    .replace(/^.*?--tokenizer [^:]+: /, '');
  assert.equal(message, 'tokenizer: model type "Unigram" is not implemented (headlab reads BPE or WordLevel)');
  const version = await page.evaluate(() => document.getElementById('induction').modelSource.model.version);
  await page.evaluate(() => document.getElementById('induction').setAttribute('tokenizer', 'test-models/unigram.json'));
  await page.waitForFunction(() => document.getElementById('induction').modelSource.problem !== '', null, { timeout: 60_000 });
  await ready(page, 'fixture.safetensors');
  const after = await page.evaluate(() => {
    const e = document.getElementById('induction');
    return {
      failure: e.shadowRoot.querySelector('.failure').textContent,
      hidden: e.shadowRoot.querySelector('.failure').hidden,
      state: e.state,
      version: e.modelSource.model.version,
      alerts: [...document.querySelectorAll('headlab-transformer-attention, headlab-transformer-ablation')].map(
        (f) => f.shadowRoot.querySelector('.alert')?.textContent ?? '',
      ),
    };
  });
  assert.equal(after.failure, `the tokenizer file /test-models/unigram.json: ${message}; the model shown is unchanged.`);
  assert.equal(after.hidden, false);
  assert.deepEqual([after.state.status, after.state.tokenizer, after.version], ['ready', 'word_level.json', version]);
  assert.deepEqual(after.alerts, ['', '']);
  assert.deepEqual((await chips('headlab-transformer-attention')).ids, typed.ids);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await frames(page);
      await screenshot(page.locator('#induction'), `transformer-model-bad-tokenizer-${scheme}-${width}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1000, height: 800 });
  // A tokenizer file that is not there: named, and the model stays too.
  await page.evaluate(() => document.getElementById('induction').setAttribute('tokenizer', 'test-models/missing.json'));
  await page.waitForFunction(() => /missing\.json/.test(document.getElementById('induction').modelSource.problem), null, {
    timeout: 60_000,
  });
  await ready(page, 'fixture.safetensors');
  const missing = await page.evaluate(() => {
    const e = document.getElementById('induction');
    return [e.shadowRoot.querySelector('.failure').textContent, e.state.status, e.modelSource.model.version];
  });
  assert.match(
    missing[0],
    /^the tokenizer file \/test-models\/missing\.json could not be fetched \(.*404.*\); the model shown is unchanged\.$/,
  );
  assert.deepEqual(missing.slice(1), ['ready', version]);
  // The 404 asked for here is the only problem the page logged.
  assert.ok(page.problems.length > 0 && page.problems.every((p) => /missing\.json|404/.test(p)), page.problems.join('\n'));
  page.problems.length = 0;

  // A byte-level tokenizer whose ids pass the model's vocabulary: the figure refuses the prompt in the CLI's words.
  const BPE = path.join(root, 'tests/data/tokenizer/tiny_bpe.json');
  served.set('tiny_bpe.json', fs.readFileSync(BPE));
  await page.evaluate(() => document.getElementById('induction').setAttribute('tokenizer', 'test-models/tiny_bpe.json'));
  await tokenizerShown('tiny_bpe.json');
  await frames(page);
  const beyond = cliRun([
    'model',
    'run',
    '--config',
    FIXTURE.config,
    '--weights',
    FIXTURE.weights,
    '--tokenizer',
    BPE,
    '--prompt',
    'the mat sat on the cat',
  ]);
  assert.equal(beyond.status, 1);
  const beyondMessage = beyond.stderr
    .trim()
    .split('\n')
    .pop()
    .replace(/^.*?--prompt: /, '');
  assert.equal(beyondMessage, 'token 0 "t" has id 116; the model\'s d_vocab is 17');
  await page.waitForFunction(
    () => document.querySelector('headlab-transformer-attention').shadowRoot.querySelector('.alert')?.textContent,
    null,
    { timeout: 60_000 },
  );
  const alert = await page.evaluate(
    () => document.querySelector('headlab-transformer-attention').shadowRoot.querySelector('.alert').textContent,
  );
  assert.ok(alert.includes(`attribute prompt "the mat sat on the cat": ${beyondMessage}`), alert);

  // Without the tokenizer: ids again, as before (the kept states are valid text for the WordLevel tokenizer too).
  await page.evaluate(() => document.getElementById('induction').setAttribute('tokenizer', 'test-models/word_level.json'));
  await tokenizerShown('word_level.json');
  await setAll(page, Object.fromEntries(kept));
  await page.evaluate(() => document.getElementById('induction').removeAttribute('tokenizer'));
  await page.waitForFunction(
    () => document.getElementById('induction').state.tokenizer === null && document.getElementById('induction').state.status === 'ready',
    null,
    { timeout: 60_000 },
  );
  await ready(page, 'fixture.safetensors');
  assert.equal(await page.evaluate(() => document.getElementById('induction').shadowRoot.querySelector('.failure').hidden), true);
  assert.equal((await chips('headlab-transformer-attention')).texts.length, 0);
  assert.deepEqual(page.problems, []);
});

test("a reader's own model: picked with the file button from the keyboard, every figure switches; dropped bad files are named and the model stays", async () => {
  const FIXTURE_B = {
    config: path.join(FIXTURE_DIR, 'two_layer_lnpre_pos.json'),
    weights: path.join(FIXTURE_DIR, 'two_layer_lnpre_pos.safetensors'),
  };
  const TOKENIZER = path.join(root, 'tests/data/tokenizer/word_level.json');
  const before = await page.evaluate(() => document.getElementById('induction').modelSource.model.version);
  const kept = await page.evaluate((tags) => tags.map((t) => [t, document.querySelector(t).sharedState]), TAGS);
  // Keyboard: Enter on the focused button opens the file input's chooser (its click; headless
  // Chromium does not always show the dialog itself, so the files are then set on the input).
  const button = page.locator('#induction button', { hasText: 'Open a model…' });
  assert.equal(await button.getAttribute('aria-describedby'), 'open-hint');
  await button.focus();
  await page.evaluate(() => {
    const input = document.getElementById('induction').shadowRoot.querySelector('input[type=file]');
    window.__chooserAsked = 0;
    input.addEventListener('click', (e) => {
      window.__chooserAsked++;
      e.preventDefault();
    });
  });
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => window.__chooserAsked), 1, 'Enter on the button opens the chooser');
  const input = page.locator('#induction input[type=file]');
  assert.equal(await input.getAttribute('multiple'), '');
  await input.setInputFiles([FIXTURE_B.weights, FIXTURE_B.config, TOKENIZER]);
  await page.waitForFunction(() => document.getElementById('induction').state.label === 'two_layer_lnpre_pos.safetensors', null, {
    timeout: 60_000,
  });
  await ready(page, 'two_layer_lnpre_pos.safetensors');
  const opened = await page.evaluate(() => {
    const e = document.getElementById('induction');
    return { state: e.state, now: e.shadowRoot.querySelector('.now').textContent, version: e.modelSource.model.version };
  });
  assert.equal(opened.state.tokenizer, 'word_level.json');
  assert.equal(opened.state.d_vocab, 13);
  // The reader's files: where they come from is known, whether they were trained is not (not in this page).
  assert.deepEqual([opened.state.origin, opened.state.trained], ['reader', false]);
  assert.match(
    opened.now,
    /^Model: two_layer_lnpre_pos\.safetensors — 2 attention layers .* tokenized by word_level\.json \(WordLevel\)\.$/,
  );
  // Every figure computes with it: the attention figure's patterns are the CLI's on the same text.
  await setAll(page, { 'headlab-transformer-attention': { prompt: 'the cat sat on the mat', position: '1' } });
  const att = (await exports(page))['headlab-transformer-attention'];
  const cliRun1 = cli([
    'run',
    '--config',
    FIXTURE_B.config,
    '--weights',
    FIXTURE_B.weights,
    '--tokenizer',
    TOKENIZER,
    '--prompt',
    'the cat sat on the mat',
  ]);
  assert.deepEqual(att.prompt, cliRun1.tokens);
  within(att.run.patterns, cliRun1.patterns, "patterns of the reader's model");

  // A synthetic drop of a truncated weights file with its config: the reader's message naming the files; the model stays.
  const good = fs.readFileSync(FIXTURE_B.weights);
  const truncated = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-drop-')), 'cut.safetensors');
  fs.writeFileSync(truncated, good.subarray(0, good.length - 50));
  const r = cliRun(['model', 'inspect', '--config', FIXTURE_B.config, '--weights', truncated]);
  fs.rmSync(path.dirname(truncated), { recursive: true });
  assert.equal(r.status, 1);
  const message = r.stderr
    .trim()
    .split('\n')
    .pop()
    .replace(/^.*?--weights [^:]+: /, '');
  const drop = (files) =>
    page.evaluate(async (files) => {
      const e = document.getElementById('induction');
      const data = new DataTransfer();
      for (const [name, base64] of files) data.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
      e.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true, composed: true }));
      const highlighted = e.shadowRoot.querySelector('.body').hasAttribute('data-dropping');
      const accepted = !e.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true, composed: true }));
      return { highlighted, accepted };
    }, files);
  const b64 = (buffer) => Buffer.from(buffer).toString('base64');
  const problem = async (pattern) => {
    await page.waitForFunction((p) => new RegExp(p).test(document.getElementById('induction').modelSource.problem), pattern, {
      timeout: 60_000,
    });
    await ready(page, 'two_layer_lnpre_pos.safetensors');
    return page.evaluate(() => {
      const e = document.getElementById('induction');
      return { text: e.shadowRoot.querySelector('.failure').textContent, status: e.state.status, version: e.modelSource.model.version };
    });
  };
  const dropped = await drop([
    ['cut.safetensors', b64(good.subarray(0, good.length - 50))],
    ['model.json', b64(fs.readFileSync(FIXTURE_B.config))],
  ]);
  assert.deepEqual(dropped, { highlighted: true, accepted: true });
  const cut = await problem('cut\\.safetensors');
  assert.equal(cut.text, `cut.safetensors with model.json: ${message}; the model shown is unchanged.`);
  assert.deepEqual([cut.status, cut.version], ['ready', opened.version]);
  // Weights without a config, and a bad tokenizer beside good files: named, the model stays.
  await drop([['w.pt', b64(good)]]);
  assert.match(
    (await problem('w\\.pt')).text,
    /^w\.pt: its config \(\.json\) is missing; open the weights with their config; the model shown is unchanged\.$/,
  );
  await drop([
    ['w.safetensors', b64(good)],
    ['model.json', b64(fs.readFileSync(FIXTURE_B.config))],
    ['tok.json', b64(Buffer.from('{"model":{"type":"Unigram","vocab":[]}}'))],
  ]);
  const tok = await problem('tok\\.json');
  assert.equal(
    tok.text,
    'the tokenizer file tok.json: tokenizer: model type "Unigram" is not implemented (headlab reads BPE or WordLevel); the model shown is unchanged.',
  );
  assert.equal(tok.version, opened.version);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [360, 700, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await frames(page);
      await screenshot(page.locator('#induction'), `transformer-model-opened-${scheme}-${width}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1000, height: 800 });

  // Back to the page's model, with the figures' states as they were (valid text for the tokenizer too).
  await setAll(page, Object.fromEntries(kept));
  await page.locator('#induction button', { hasText: 'Back to the loaded model' }).click();
  await ready(page, 'fixture.safetensors');
  assert.notEqual(await page.evaluate(() => document.getElementById('induction').modelSource.model.version), before);
  assert.deepEqual(
    await page.evaluate(() => {
      const s = document.getElementById('induction').state;
      return [s.tokenizer, s.origin, s.trained];
    }),
    [null, 'files', false],
  );
  assert.deepEqual(page.problems, []);
});

test("bad files: the model element and every figure show the core's message", async () => {
  const good = fs.readFileSync(SHIPPED.weights);
  const nan = Buffer.from(good);
  // The first tensor's first float64 (after the 8-byte length and the header) set to NaN.
  const headerLength = Number(good.readBigUInt64LE(0));
  nan.writeDoubleLE(NaN, 8 + headerLength);
  const cases = [
    ['truncated.safetensors', good.subarray(0, good.length - 100), 'induction-seed0.json'],
    ['nan.safetensors', nan, 'induction-seed0.json'],
    ['wrong-config.safetensors', good, 'fixture.json'],
  ];
  served.set('induction-seed0.json', fs.readFileSync(SHIPPED.config));
  for (const [name, bytes, config] of cases) {
    served.set(name, bytes);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-bad-model-')), name);
    fs.writeFileSync(file, bytes);
    const r = cliRun(['model', 'inspect', '--config', config === 'fixture.json' ? FIXTURE.config : SHIPPED.config, '--weights', file]);
    assert.equal(r.status, 1, `${name}: the CLI refuses it`);
    // "--weights <path>: <the core's message>" on one line.
    const message = r.stderr
      .trim()
      .split('\n')
      .pop()
      .replace(/^.*?--weights [^:]+: /, '');
    fs.rmSync(path.dirname(file), { recursive: true });
    await page.evaluate(
      ([src, cfg]) => {
        const m = document.getElementById('induction');
        m.setAttribute('config', `test-models/${cfg}`);
        m.setAttribute('src', `test-models/${src}`);
      },
      [name, config],
    );
    // Until this file's failure is shown: right after the attributes change the element may still
    // be in the previous case's 'failed' state (it starts loading at its next render).
    await page.waitForFunction(
      (m) => {
        const e = document.getElementById('induction');
        return e.state.status === 'failed' && e.shadowRoot.querySelector('.failure')?.textContent.includes(m);
      },
      message,
      { timeout: 60_000 },
    );
    await frames(page);
    const shown = await page.evaluate(
      (tags) => ({
        model: document.getElementById('induction').shadowRoot.querySelector('.failure').textContent,
        figures: tags.map((t) => document.querySelector(t).shadowRoot.querySelector('.alert').textContent),
      }),
      TAGS,
    );
    assert.ok(message.length > 10, `${name}: CLI message "${message}"`);
    assert.ok(shown.model.includes(message), `${name}: the model element says "${shown.model}", the CLI "${message}"`);
    for (const f of shown.figures) assert.ok(f.includes(message), `${name}: a figure says "${f}", the CLI "${message}"`);
  }
  // Back to the shipped model: every figure recovers.
  await page.evaluate(() => {
    const m = document.getElementById('induction');
    m.setAttribute('config', 'data/induction-seed0.json');
    m.setAttribute('src', 'data/induction-seed0.safetensors');
  });
  await ready(page, 'induction-seed0.safetensors');
  assert.deepEqual(page.problems, []);
});

test("a pasted prompt of 100,000 characters or 10,000 tokens is quoted by an excerpt in the field's message, as every message is", async () => {
  const field = page.locator('headlab-transformer-attention textarea[name="prompt"]');
  const kept = await field.inputValue();
  // Types `text` and waits until the field is marked aria-invalid = `invalid`: the prompt is read by
  // the model in the source's worker, and the field is marked once it has answered.
  const enter = async (text, invalid) => {
    await field.fill(text);
    await field.press('Enter');
    await page.waitForFunction(
      (want) =>
        document
          .querySelector('headlab-transformer-attention')
          .shadowRoot.querySelector('textarea[name="prompt"]')
          .getAttribute('aria-invalid') === want,
      invalid,
    );
  };
  for (const [what, text] of [
    ['100,000 characters', 'x'.repeat(100000)],
    ['10,000 tokens', Array(10000).fill('5').join(' ')],
  ]) {
    await enter(text, 'true');
    const shown = await page.evaluate(() => {
      const e = document.querySelector('headlab-transformer-attention');
      return {
        message: e.shadowRoot.querySelector('.prompt-row .input-problem').textContent,
        invalid: e.shadowRoot.querySelector('textarea[name="prompt"]').getAttribute('aria-invalid'),
      };
    });
    assert.equal(shown.invalid, 'true', what);
    assert.ok(
      shown.message.startsWith(`the prompt "${text.slice(0, 40)}…" (${text.length.toLocaleString('en-US')} characters)`),
      `${what}: ${shown.message.slice(0, 120)}`,
    );
    // The excerpt, the core's reason (itself excerpted) and the kept prompt: a few hundred characters.
    assert.ok(shown.message.length < 400 + kept.length + 60, `${what}: a message of ${shown.message.length} characters`);
  }
  await enter(kept, 'false');
  assert.deepEqual(page.problems, []);
});

test('keyboard: arrow keys move along the tokens and through the patching cells, and the readouts follow', async () => {
  await setAll(page, { 'headlab-transformer-attention': { prompt: '3 10 17 3 10', position: '0' } });
  const readout = (tag) => page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('.readout').textContent, tag);
  await page.evaluate(() => document.querySelector('headlab-transformer-attention').shadowRoot.querySelector('.tokens button').focus());
  await frames(page);
  assert.match(await readout('headlab-transformer-attention'), /position 0/);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await frames(page);
  assert.match(await readout('headlab-transformer-attention'), /17 \(position 2\)/);
  await page.keyboard.press('Enter');
  await frames(page);
  assert.equal(await page.evaluate(() => document.querySelector('headlab-transformer-attention').getAttribute('position')), '2');
  await page.evaluate(() => document.querySelector('headlab-transformer-patching').shadowRoot.querySelector('.layered[tabindex]').focus());
  const before = await readout('headlab-transformer-patching');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await frames(page);
  const after = await readout('headlab-transformer-patching');
  assert.notEqual(after, before);
  assert.match(after, /^L0 H1, position 1/);
});

test('screenshots at 360 and 1280 px, light and dark', async () => {
  // One more page load: the scheme and the width change in place (the widgets follow both).
  const p = await session.newPage({ viewport: { width: 360, height: 900 } });
  await p.goto(`${session.url}${PAGE}`);
  await ready(p);
  for (const scheme of ['light', 'dark']) {
    for (const width of [360, 1280]) {
      await p.emulateMedia({ colorScheme: scheme });
      await p.setViewportSize({ width, height: 900 });
      await frames(p);
      for (const tag of ['headlab-transformer-model', ...TAGS])
        await screenshot(p.locator(tag).first(), `transformer-${tag.replace('headlab-transformer-', '')}-${scheme}-${width}`);
      // Nothing wider than the screen: every figure scales down with its box.
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${scheme} ${width}: the page scrolls sideways by ${overflow} px`);
    }
  }
  assert.deepEqual(p.problems, []);
  await p.close();
});

test('a model beyond the old page limits (n_ctx 512, d_vocab 8,192, 1.1 M parameters) picked with the file button: every figure switches to it and equals the CLI', async () => {
  // Generated here (tests/wasm/helpers.mjs randomModelFile): the page once refused it by n_ctx
  // (128), d_vocab (4,096) and parameters (262,144); now only the core's limits hold.
  const shape = { n_layers: 2, n_heads: 4, d_model: 64, d_head: 16, n_ctx: 512, d_vocab: 8192 };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-wide-'));
  tempDirs.push(dir);
  const model = { config: path.join(dir, 'wide.json'), weights: path.join(dir, 'wide.safetensors') };
  fs.writeFileSync(model.config, JSON.stringify({ ...shape, normalization: 'none' }));
  fs.writeFileSync(model.weights, randomModelFile(await wasmTransformerCore(), shape, 7));
  // The attention figure shows its default prompt. The page's batch figures (pairs attribution-
  // patched, path-patched, a circuit's faithfulness: about 56, 24 and more seconds for this
  // vocabulary) leave the page meanwhile and come back after, so the test stays short.
  await page.evaluate(() => {
    document.querySelector('headlab-transformer-attention').removeAttribute('prompt');
    const batch = 'headlab-attribution-patching, headlab-path-patching, headlab-circuit-faithfulness';
    window.__batchFigures = [...document.querySelectorAll(batch)].map((e) => [e, e.parentNode, e.nextSibling]);
    for (const [e] of window.__batchFigures) e.remove();
  });
  await page.locator('#induction input[type=file]').setInputFiles([model.weights, model.config]);
  // Every figure has drawn the new model (a figure renders in a task of its own after the switch).
  await page.waitForFunction(
    (tags) =>
      tags.every((t) => {
        const e = document.querySelector(t);
        return e.currentModel?.label === 'wide.safetensors' && !e.busy && !e.updatePending && e.figureData != null;
      }),
    TAGS,
    { timeout: 120_000 },
  );
  const opened = await page.evaluate(() => {
    const e = document.getElementById('induction');
    const held = Object.entries(e.modelSource.model).filter(([k, v]) => k === 'handle' || ArrayBuffer.isView(v)).length;
    return { state: e.state, held, prompt: document.querySelector('headlab-transformer-attention').figureData.prompt.length };
  });
  assert.deepEqual([opened.state.status, opened.state.n_ctx, opened.state.d_vocab, opened.state.origin], ['ready', 512, 8192, 'reader']);
  assert.ok(opened.state.parameters > 1_000_000, `${opened.state.parameters} parameters`);
  assert.equal(opened.held, 0, 'the page holds no model');
  // The default prompt: min(n_ctx − 1, 64) tokens.
  assert.equal(opened.prompt, 64);
  // The five figures only: the batch figures of the page (pairs patched, path-patched, faithfulness)
  // work on in the background, behind every figure's run.
  await setAndCheck(page, 'model beyond the old page limits', model, TAGS, {
    'headlab-transformer-attribution': { prompt: '5 8000 1 22 5 8000 1', position: '6', token: '8000' },
    'headlab-transformer-patching': PATCHING_9_BY_8,
    'headlab-transformer-ablation': {
      prompt: '1 16 3 4 1',
      heads: '0.0 1.3',
      mode: 'mean',
      reference: '["1 2 3 4 5 6 7", "8191 15 14 13 12"]',
    },
    'headlab-transformer-circuits': { layer: '1', head: '2', circuit: 'qk' },
  });
  await page.evaluate(() => {
    document.querySelector('headlab-transformer-ablation').removeAttribute('reference');
    for (const [e, parent, next] of window.__batchFigures) parent.insertBefore(e, next);
  });
  assert.match(await page.evaluate(() => document.querySelector('headlab-transformer-circuits').summary), /8,192 tokens/);
  assert.deepEqual(page.problems, []);
});

test('removed, the model element and the figures end every worker they made and start none: the analysis read after removal, a trainer asked to train after removal', async () => {
  // The page's model element (whose one worker reads the model and answers every figure: six
  // headlab-transformer-*, the attribution-patching scatter, the path-patching grid, the circuit
  // faithfulness intervals, the logit lens and the head SVD) and a trainer, which makes a worker
  // of its own while on the page.
  const r = await page.evaluate(async (bundle) => {
    // The page loads only the elements it uses; the whole bundle defines the trainer too.
    await import(bundle);
    const trainer = document.createElement('headlab-transformer-training');
    trainer.setAttribute('steps', '50');
    document.body.append(trainer);
    const m = document.getElementById('induction');
    const figures = [...document.querySelectorAll('*')].filter(
      (e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value' && e !== m && e !== trainer,
    );
    const { configText, weights } = m.modelSource.model;
    const safetensors = new Uint8Array(await weights.arrayBuffer());
    // A model handed over while the element is on the page, read by the core after an await that
    // resolves once the element has been removed (with the figures and the trainer).
    const handed = m.useModel({ config: configText, safetensors }, 'handed over');
    for (const e of [m, ...figures, trainer]) e.remove();
    await handed;
    // Off the page: what starts a worker on the page (the analysis of the new model behind the
    // bound values; a training run) must start none, and the run ends as failed rather than waiting forever.
    const analysis = m.analysis;
    trainer.train();
    window.__removedTrainer = trainer;
    return { figures: figures.length, analysis, made: window.__workerLog.length };
  }, new URL('headlab/headlab.js', session.url).href);
  assert.equal(r.figures, 11);
  assert.equal(r.analysis, null);
  // The figures share their model source's worker: fewer workers than figures (each had its own).
  assert.ok(r.made >= 1 && r.made < r.figures, `${r.made} workers made on the page for ${r.figures} figures`);
  await workersEnded(page, PAGE);
  assert.equal(page.workers().length, 0);
  // The refused run ends as failed (its status does not stay 'training' with no worker behind it).
  await page.waitForFunction(() => window.__removedTrainer.trainingStatus === 'failed');
});
