// Captions and chart text of the own-model figures name colours by role, never by hue: an author
// may re-theme --headlab-negative / --headlab-positive (docs/embedding.md, "Theme"), and a figure
// that said "blue" for a bar drawn in the author's green misled the reader. Every transformer
// figure (a class extending TransformerWidget) on the shipped induction model, with heads ablated
// where the figure ablates, in its shadow DOM text and in its exported SVGs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, startSession } from './helpers.mjs';
import { bundleDir } from './widget-fixtures.mjs';

const FIGURES = fs
  .readdirSync(path.join(root, 'widgets'))
  .filter((f) => /^headlab-.+-define\.ts$/.test(f))
  .map((f) => f.replace(/-define\.ts$/, ''))
  .filter((t) => fs.readFileSync(path.join(root, 'widgets', `${t}.ts`), 'utf8').includes(' extends TransformerWidget<'))
  .sort();
const HUES = /\b(blue|orange|red|green|purple|yellow)\b/i;

let dir, session;
before(async () => {
  const figures = FIGURES.map((t) => `<${t}${t === 'headlab-transformer-ablation' ? ' heads="0.0 1.1"' : ''}></${t}>`).join('\n');
  dir = bundleDir({
    'own.html': {
      body: `<headlab-transformer-model id="m" src="induction-seed0.safetensors">\n${figures}\n</headlab-transformer-model>`,
    },
  });
  for (const f of ['induction-seed0.safetensors', 'induction-seed0.json'])
    fs.copyFileSync(path.join(root, 'site/pages/data', f), path.join(dir, f));
  session = await startSession({ dir, csp: true });
});
after(async () => {
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('own-model figures name no hue in their text or exported SVGs', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}own.html`);
  await page.waitForFunction((tags) => tags.every((t) => customElements.get(t)), FIGURES);
  const texts = await page.evaluate(async (tags) => {
    const out = {};
    for (const t of tags) {
      const e = document.querySelector(t);
      const ok = await e.updateComplete;
      const svgs = e.figures().map((f) => e.exportSvg(f.name));
      out[t] = { ok, text: [e.shadowRoot.textContent, ...svgs].join('\n') };
    }
    return out;
  }, FIGURES);
  for (const t of FIGURES) {
    assert.equal(texts[t].ok, true, t);
    const hit = HUES.exec(texts[t].text);
    assert.equal(hit, null, `${t}: "…${hit ? texts[t].text.slice(Math.max(0, hit.index - 60), hit.index + 20) : ''}…"`);
  }
  assert.ok(
    /before \(upper bar\), after \(lower bar\)/.test(texts['headlab-transformer-ablation'].text),
    'the ablation figure draws its heads ablated',
  );
  assert.deepEqual(page.problems, []);
  await page.close();
});
