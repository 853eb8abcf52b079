// Reading an element before it is ready, and awaiting readiness (docs/embedding.md, "Reading an
// element"): every headlab-* element, created by a script and read before it is connected and
// again before its first render, answers `state`, `error`, `summary`, `busy`, `renderCount` and
// `updateComplete` without throwing or logging; `updateComplete` then resolves (true) once the
// element shows its figure, after which `state` is its default state, and false for an element
// that shows an error instead.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, startSession } from './helpers.mjs';
import { bundleDir } from './widget-fixtures.mjs';

/**
 * Every element the package declares: the tags of custom-elements.json (what an author's editor and
 * tooling list), checked below to be every widgets/headlab-<name>-define.ts.
 */
const TAGS = JSON.parse(fs.readFileSync(path.join(root, 'build/site/headlab/custom-elements.json'), 'utf8'))
  .modules.flatMap((m) => m.declarations.filter((d) => d.customElement).map((d) => d.tagName))
  .sort();
const DEFINED = fs
  .readdirSync(path.join(root, 'widgets'))
  .filter((f) => /^headlab-.+-define\.ts$/.test(f))
  .map((f) => f.replace(/-define\.ts$/, ''))
  .sort();
/** The transformer figures (classes extending TransformerWidget): they read a model element. */
const TRANSFORMER_FIGURES = TAGS.filter((t) =>
  fs.readFileSync(path.join(root, 'widgets', `${t}.ts`), 'utf8').includes(' extends TransformerWidget<'),
);

let dir, session;
before(async () => {
  // The transformer figures read a model: the shipped induction model, in a model element.
  // The seed grid reads the seeds file the CLI wrote (it has no default).
  dir = bundleDir({ 'empty.html': { body: '<main></main>' } }, { shippedData: '.' });
  session = await startSession({ dir, csp: true });
});
after(async () => {
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('custom-elements.json declares every element the package defines', () => {
  assert.deepEqual(TAGS, DEFINED);
});

test(`all ${TAGS.length} elements: read before connection and before the first render without a throw or a log; updateComplete resolves to the default state`, async () => {
  const page = await session.newPage({ viewport: { width: 1000, height: 800 } });
  await page.goto(`${session.url}empty.html`);
  await page.waitForFunction((tags) => tags.every((t) => customElements.get(t)), TAGS);
  const early = await page.evaluate(
    ([tags, figures]) => {
      const out = {};
      const read = (e) => {
        const r = {};
        for (const k of ['state', 'error', 'summary', 'busy', 'renderCount', 'updateComplete', 'value']) {
          try {
            const v = e[k];
            r[k] = v instanceof Promise ? 'promise' : v === null ? null : k === 'error' ? v : typeof v;
          } catch (err) {
            r[k] = `throws ${err.name}: ${err.message}`;
          }
        }
        return r;
      };
      // Created first (and read like the others): the transformer figures are put inside it.
      const model = document.createElement('headlab-transformer-model');
      model.setAttribute('src', 'induction-seed0.safetensors');
      for (const tag of ['headlab-transformer-model', ...tags.filter((t) => t !== 'headlab-transformer-model')]) {
        const e = tag === 'headlab-transformer-model' ? model : document.createElement(tag);
        e.id = tag;
        // The quiz's question and choices are the author's markup (light DOM).
        if (tag === 'headlab-seed-grid') e.setAttribute('src', 'max-digit-seeds-0-9.json');
        if (tag === 'headlab-choice-quiz')
          e.innerHTML = '<p slot="question">Which?</p><div slot="choice">W_Q</div><div slot="choice" data-correct>W_V</div>';
        const detached = read(e);
        (figures.includes(tag) ? model : document.querySelector('main')).append(e);
        out[tag] = { detached, connected: read(e) };
      }
      return out;
    },
    [TAGS, TRANSFORMER_FIGURES],
  );
  for (const tag of TAGS) {
    for (const when of ['detached', 'connected']) {
      const r = early[tag][when];
      for (const [k, v] of Object.entries(r)) assert.doesNotMatch(String(v), /^throws/, `${tag} ${when}: ${k} ${v}`);
      assert.equal(r.updateComplete, 'promise', `${tag} ${when}`);
      if (tag === 'headlab-value') continue;
      assert.equal(r.error, null, `${tag} ${when}: error`);
      assert.equal(r.renderCount, 'number', `${tag} ${when}`);
      assert.equal(r.busy, 'boolean', `${tag} ${when}`);
    }
  }
  // Nothing logged by the reads (a TypeError from a state computed before the core had loaded).
  assert.deepEqual(page.problems, []);
  const done = await page.evaluate(
    (tags) =>
      Promise.all(
        tags.map(async (tag) => {
          const e = document.getElementById(tag);
          const ok = await e.updateComplete;
          return {
            tag,
            ok,
            rendered: e.renderCount > 0,
            pending: e.updatePending === true,
            busy: e.busy === true,
            state: e.state === null ? null : typeof e.state,
            error: e.error ?? null,
            // A second read once complete is an already resolved promise with the same answer.
            again: await e.updateComplete,
          };
        }),
      ),
    TAGS,
  );
  for (const d of done) {
    if (d.tag === 'headlab-value') {
      // Its source (source="") is missing: the fallback text stays, and updateComplete says so.
      assert.deepEqual({ ok: d.ok, again: d.again }, { ok: false, again: false }, JSON.stringify(d));
      continue;
    }
    assert.deepEqual(
      { ok: d.ok, again: d.again, rendered: d.rendered, pending: d.pending, busy: d.busy, state: d.state, error: d.error },
      { ok: true, again: true, rendered: true, pending: false, busy: false, state: 'object', error: null },
      d.tag,
    );
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

// The timeout turns a promise that never resolves (the model element waited for a model that had failed) into a failure.
test(
  'a model that cannot be loaded: updateComplete resolves to false on the model element and its figure, error names the file',
  { timeout: 120_000 },
  async () => {
    const page = await session.newPage();
    await page.goto(`${session.url}empty.html`);
    const r = await page.evaluate(async () => {
      await customElements.whenDefined('headlab-transformer-model');
      document.querySelector('main').innerHTML =
        '<headlab-transformer-model id="gone" src="missing.safetensors"></headlab-transformer-model><headlab-transformer-attention model="gone"></headlab-transformer-attention>';
      const [model, figure] = document.querySelector('main').children;
      await customElements.whenDefined('headlab-transformer-attention');
      return { model: await model.updateComplete, figure: await figure.updateComplete, modelError: model.error, figureError: figure.error };
    });
    assert.equal(r.model, false);
    assert.equal(r.figure, false);
    // Both files are missing and are fetched side by side: the first 404 to arrive is the one named
    // (the other download is then cancelled), so either file may be; the figure names the same one.
    const named =
      /could not be loaded: the (config file \/missing\.json|weights file \/missing\.safetensors) could not be fetched \(HTTP 404/.exec(
        r.modelError,
      );
    assert.ok(named, r.modelError);
    assert.ok(r.figureError.includes(`could not be loaded: the ${named[1]}`), r.figureError);
    await page.close();
  },
);
