// What readers of an author's own model read: no file name the author did not choose (a build tool
// hashes them: induction-seed0-B3x9q1.safetensors), the model named by the element's `label`; a
// warning in the model panel for token names a prompt cannot name unambiguously; and in the ablation
// figure's logit chart no value label over a token label, negative logits included (bounding boxes
// of the drawn text measured at 360 and 1280 px).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, screenshot, startSession } from './helpers.mjs';
import { bundleDir } from './widget-fixtures.mjs';

const FIGURES = fs
  .readdirSync(path.join(root, 'widgets'))
  .filter((f) => /^headlab-.+-define\.ts$/.test(f))
  .map((f) => f.replace(/-define\.ts$/, ''))
  .filter((t) => fs.readFileSync(path.join(root, 'widgets', `${t}.ts`), 'utf8').includes(' extends TransformerWidget<'))
  .sort();
const HASHED = 'induction-seed0-B3x9q1';
/** The fixture model (two layers × three heads, 17 tokens) with token names a prompt cannot all tell apart. */
const FIXTURE = path.join(root, 'tests/data/transformer/two_layer_ln_pos');
const AMBIGUOUS = ['a', 'b', 'the cat', 'a', '7', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p'];
const CLEAR = AMBIGUOUS.map((n, i) => (['a', 'the cat', '7'].includes(n) ? `t${i}` : n));

let dir, session;
before(async () => {
  const figures = FIGURES.map((t) => `<${t}></${t}>`).join('\n');
  dir = bundleDir({
    'hashed.html': { body: `<headlab-transformer-model id="m" src="${HASHED}.safetensors">\n${figures}\n</headlab-transformer-model>` },
    'labelled.html': {
      body: `<headlab-transformer-model id="m" src="${HASHED}.safetensors" label="the post's induction model">\n<headlab-transformer-attention></headlab-transformer-attention>\n</headlab-transformer-model>`,
    },
    'names.html': {
      body: `<headlab-transformer-model id="bad" src="fixture.safetensors" config="ambiguous.json"></headlab-transformer-model>
<headlab-transformer-model id="good" src="fixture.safetensors" config="clear.json"></headlab-transformer-model>`,
    },
    'ablation.html': {
      body: `<headlab-transformer-model id="m" src="fixture.safetensors" config="clear.json">
<headlab-transformer-ablation heads="0.0 0.1 0.2 1.0 1.1 1.2" mode="zero" prompt="t0 b t3 e f"></headlab-transformer-ablation>
</headlab-transformer-model>`,
    },
  });
  fs.copyFileSync(path.join(root, 'site/pages/data/induction-seed0.safetensors'), path.join(dir, `${HASHED}.safetensors`));
  fs.copyFileSync(path.join(root, 'site/pages/data/induction-seed0.json'), path.join(dir, `${HASHED}.json`));
  fs.copyFileSync(`${FIXTURE}.safetensors`, path.join(dir, 'fixture.safetensors'));
  const config = JSON.parse(fs.readFileSync(`${FIXTURE}.json`, 'utf8'));
  fs.writeFileSync(path.join(dir, 'ambiguous.json'), JSON.stringify({ ...config, token_names: AMBIGUOUS }));
  fs.writeFileSync(path.join(dir, 'clear.json'), JSON.stringify({ ...config, token_names: CLEAR }));
  session = await startSession({ dir, csp: true });
});
after(async () => {
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The text of every element of the page (shadow roots, summaries, exported SVGs) once each is complete. */
async function shownText(page) {
  return page.evaluate(async () => {
    const out = [];
    for (const e of document.querySelectorAll('*')) {
      if (!e.localName.startsWith('headlab-')) continue;
      await e.updateComplete;
      out.push(e.shadowRoot.textContent, e.summary, ...e.figures().map((f) => e.exportSvg(f.name)));
    }
    return out.join('\n');
  });
}

test('no file name reaches readers: the model and its figures name it by the label attribute, or not at all', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}hashed.html`);
  await page.waitForFunction((tags) => tags.every((t) => customElements.get(t)), FIGURES);
  const text = await shownText(page);
  assert.doesNotMatch(text, /B3x9q1|induction-seed0/, text.slice(0, 400));
  assert.match(text, /Model — 2 attention layers × 4 heads/);
  // The author's file stays in the state (for the page's script), not in the prose.
  assert.equal(await page.evaluate(() => document.getElementById('m').state.label), `${HASHED}.safetensors`);
  await page.goto(`${session.url}labelled.html`);
  const labelled = await shownText(page);
  assert.match(labelled, /Model: the post's induction model — 2 attention layers/);
  assert.match(labelled, /Model: the post's induction model \(2 layers × 4 heads/);
  assert.doesNotMatch(labelled, /B3x9q1/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('ambiguous token names in an author config: a warning in the panel names each; clear names none', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}names.html`);
  const r = await page.evaluate(async () => {
    const bad = document.getElementById('bad'),
      good = document.getElementById('good');
    await Promise.all([bad.updateComplete, good.updateComplete]);
    const line = bad.shadowRoot.querySelector('.names-warning');
    return { bad: bad.tokenNamesWarning, good: good.tokenNamesWarning, shown: line.checkVisibility(), role: line.getAttribute('role') };
  });
  assert.equal(r.good, '');
  assert.equal(r.shown, true);
  assert.equal(r.role, 'note');
  assert.match(r.bad, /^Ambiguous token names in the config's token_names: /);
  assert.match(r.bad, /"a" names tokens 0 and 3: a prompt's "a" reads token 0/);
  assert.match(r.bad, /"the cat" \(token 2\) holds a space or comma, which splits a prompt: no prompt can type it \(use its id 2\)/);
  assert.match(r.bad, /"7" \(token 4\) reads as the id 7 in a prompt \(type 4 for this token\)/);
  for (const width of [360, 1280])
    for (const colorScheme of ['light', 'dark']) {
      await page.setViewportSize({ width, height: 700 });
      await page.emulateMedia({ colorScheme });
      await screenshot(page.locator('#bad'), `own-model-names-warning-${width}-${colorScheme}`);
    }
  assert.deepEqual(page.problems, []);
  await page.close();
});

for (const width of [360, 1280]) {
  for (const colorScheme of ['light', 'dark']) {
    test(`ablation logits at ${width} px (${colorScheme}): negative value labels never overprint the token labels`, async () => {
      const page = await session.newPage({ viewport: { width, height: 900 }, colorScheme });
      await page.goto(`${session.url}ablation.html`);
      const boxes = await page.evaluate(async () => {
        const e = document.querySelector('headlab-transformer-ablation');
        await e.updateComplete;
        const svg = e.shadowRoot.querySelector('svg');
        const box = (t) => {
          const r = t.getBoundingClientRect();
          return { text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
        };
        return {
          values: [...svg.querySelectorAll('text[data-role="value"]')].map(box),
          tokens: [...svg.querySelectorAll('text[data-role="token"]')].map(box),
          after: e.figureData.logits_after,
        };
      });
      await screenshot(await page.locator('headlab-transformer-ablation'), `own-model-ablation-${width}-${colorScheme}`);
      assert.equal(boxes.tokens.length, 6);
      assert.equal(boxes.values.length, 12);
      // The state is one where labels could collide: some shown logits are negative.
      assert.ok(
        boxes.values.some((v) => v.text.startsWith('−') || v.text.startsWith('-')),
        boxes.values.map((v) => v.text).join(' '),
      );
      const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      // A value label against every token label: their boxes (the font's whole line box) are disjoint.
      for (const v of boxes.values)
        for (const t of boxes.tokens) assert.ok(!overlap(v, t), `"${v.text}" overprints token "${t.text}": ${JSON.stringify([v, t])}`);
      // Two value labels: on lines of their own (a row's two bars are 12 units apart, the 9-unit text's
      // line box a little taller, so boxes of adjacent lines touch) or side by side.
      for (let i = 0; i < boxes.values.length; i++)
        for (let j = i + 1; j < boxes.values.length; j++) {
          const a = boxes.values[i],
            b = boxes.values[j];
          const apart = Math.abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2) >= 0.75 * (a.bottom - a.top);
          assert.ok(apart || !overlap(a, b), `"${a.text}" overprints "${b.text}": ${JSON.stringify([a, b])}`);
        }
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  }
}
