// Captions and chart text name colours by role or through the theme ("the positive colour"), never
// by hue: an author may re-theme --headlab-negative / --headlab-positive (docs/embedding.md,
// "Theme"), and a figure that said "blue" for a bar drawn in the author's green misled the reader.
// Every element the package declares (custom-elements.json), in its default state on the shipped
// data (the transformer figures on the induction model, the ablation figure with heads ablated), in
// its shadow DOM text and its exported SVGs; and the prose of every site page (its captions refer
// to the figures' colours too).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, startSession } from './helpers.mjs';
import { bundleDir } from './widget-fixtures.mjs';

const TAGS = JSON.parse(fs.readFileSync(path.join(root, 'build/site/headlab/custom-elements.json'), 'utf8'))
  .modules.flatMap((m) => m.declarations.filter((d) => d.customElement).map((d) => d.tagName))
  .sort();
/** The transformer figures (classes extending TransformerWidget): they read a model element. */
const FIGURES = TAGS.filter((t) => fs.readFileSync(path.join(root, 'widgets', `${t}.ts`), 'utf8').includes(' extends TransformerWidget<'));
const HUES = /\b(blue|orange|red|green|purple|yellow|pink|violet|cyan|magenta)\b/i;

let dir, session;
before(async () => {
  const figures = FIGURES.map((t) => `<${t}${t === 'headlab-transformer-ablation' ? ' heads="0.0 1.1"' : ''}></${t}>`).join('\n');
  const others = TAGS.filter((t) => !FIGURES.includes(t) && t !== 'headlab-transformer-model')
    .map((t) => {
      if (t === 'headlab-seed-grid') return `<${t} src="max-digit-seeds-0-9.json"></${t}>`;
      if (t === 'headlab-choice-quiz')
        return `<${t}><p slot="question">Which?</p><div slot="choice">W_Q</div><div slot="choice" data-correct>W_V</div></${t}>`;
      if (t === 'headlab-value') return `<p>Loss <${t} source="m" name="in_context_loss"></${t}> nats.</p>`;
      if (t === 'headlab-max-digit-model') return `<${t} id="digits"></${t}>`;
      return `<${t}></${t}>`;
    })
    .join('\n');
  dir = bundleDir(
    {
      'all.html': {
        body: `<headlab-transformer-model id="m" src="induction-seed0.safetensors">\n${figures}\n</headlab-transformer-model>\n${others}`,
      },
    },
    { shippedData: '.' },
  );
  session = await startSession({ dir, csp: true });
});
after(async () => {
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('every element names no hue in its text or exported SVGs', { timeout: 300_000 }, async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}all.html`);
  await page.waitForFunction((tags) => tags.every((t) => customElements.get(t)), TAGS);
  const texts = await page.evaluate(async (tags) => {
    const out = {};
    for (const t of tags) {
      const e = document.querySelector(t);
      const ok = await e.updateComplete;
      const svgs = typeof e.figures === 'function' ? e.figures().map((f) => e.exportSvg(f.name)) : [];
      out[t] = { ok, error: e.error, text: [e.shadowRoot?.textContent ?? e.textContent, ...svgs].join('\n') };
    }
    return out;
  }, TAGS);
  for (const t of TAGS) {
    assert.equal(texts[t].ok, true, `${t}: ${texts[t].error}`);
    const hit = HUES.exec(texts[t].text);
    assert.equal(hit, null, `${t}: "…${hit ? texts[t].text.slice(Math.max(0, hit.index - 60), hit.index + 20) : ''}…"`);
  }
  assert.ok(
    /before \(upper bar\), after \(lower bar\)/.test(texts['headlab-transformer-ablation'].text),
    'the ablation figure draws its heads ablated',
  );
  assert.ok(/positive colour/.test(texts['headlab-attention-bars'].text), 'the attention bars caption names the theme colours');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('no site page names a hue in its prose', () => {
  const pages = [];
  const walk = (d) => {
    for (const f of fs.readdirSync(d, { withFileTypes: true })) {
      if (f.isDirectory() && f.name !== 'data') walk(path.join(d, f.name));
      else if (f.name.endsWith('.html')) pages.push(path.join(d, f.name));
    }
  };
  walk(path.join(root, 'site/pages'));
  assert.ok(pages.length >= 5, pages.join());
  for (const p of pages) {
    // Prose only: tags, attributes and math are not read as text.
    const prose = fs
      .readFileSync(p, 'utf8')
      .replace(/<[^>]*>/g, ' ')
      .replace(/\$\$[\s\S]*?\$\$|\\\([\s\S]*?\\\)/g, ' ');
    const hit = HUES.exec(prose);
    assert.equal(hit, null, `${path.relative(root, p)}: "…${hit ? prose.slice(Math.max(0, hit.index - 60), hit.index + 20) : ''}…"`);
  }
});
