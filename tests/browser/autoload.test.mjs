// headlab/autoload (docs/embedding.md, "Only the elements on the page"): one script that finds the
// page's headlab-* tags and imports just their entry points. A page with one <headlab-value-swap>
// requests exactly what the per-element script (headlab/value-swap.js) requests, plus autoload.js
// itself — not the 70-odd files of the whole bundle — and an element added later by a script is
// loaded and drawn too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startSession } from './helpers.mjs';
import { bundleDir } from './widget-fixtures.mjs';

const page = (script, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>post</title><link rel="icon" href="favicon.svg" type="image/svg+xml">
<script type="module" src="headlab/${script}"></script></head>
<body><main>
${body}
</main></body></html>
`;

let dir, session;
before(async () => {
  dir = bundleDir({});
  fs.writeFileSync(path.join(dir, 'auto.html'), page('autoload.js', '<headlab-value-swap></headlab-value-swap>'));
  fs.writeFileSync(path.join(dir, 'one.html'), page('value-swap.js', '<headlab-value-swap></headlab-value-swap>'));
  fs.writeFileSync(path.join(dir, 'all.html'), page('headlab.js', '<headlab-value-swap></headlab-value-swap>'));
  session = await startSession({ dir, csp: true });
});
after(async () => {
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Loads `name`, waits for the value swap to be complete, returns the bundle files it requested (sorted). */
async function requests(name) {
  const p = await session.newPage();
  const files = [];
  p.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/headlab/')) files.push(u.pathname.slice('/headlab/'.length));
  });
  await p.goto(`${session.url}${name}`);
  await p.waitForFunction(() => customElements.get('headlab-value-swap'));
  assert.equal(await p.evaluate(() => document.querySelector('headlab-value-swap').updateComplete), true);
  return { page: p, files: files.sort() };
}

test('a page with one element: autoload requests that element’s files and its own script, nothing else', async () => {
  const auto = await requests('auto.html');
  const one = await requests('one.html');
  const all = await requests('all.html');
  console.log(
    `# requests to the bundle for one <headlab-value-swap>: autoload ${auto.files.length}, value-swap.js ${one.files.length}, headlab.js ${all.files.length}`,
  );
  assert.deepEqual(auto.files, [...one.files, 'autoload.js'].sort());
  assert.ok(auto.files.includes('headlab_core.wasm'));
  assert.ok(
    !auto.files.some((f) => /^(headlab|elements|angle-dot|transformer-.*)\.js$|_max_digit|_transformer|_feature_recovery/.test(f)),
    auto.files.join(' '),
  );
  assert.ok(all.files.length > auto.files.length);
  // What the element computes is the same.
  assert.deepEqual(
    await auto.page.evaluate(() =>
      document.querySelector('headlab-value-swap').state.swapped_reading.map((x) => Math.round(x * 1e12) / 1e12),
    ),
    [0.8, 0.5, 1.3],
  );
  for (const p of [auto.page, one.page, all.page]) {
    assert.deepEqual(p.problems, []);
    await p.close();
  }
});

test('an element added later is loaded when it appears; a misspelt tag is named in a warning', async () => {
  const p = await session.newPage();
  const warnings = [];
  p.on('console', (m) => {
    if (m.type() === 'warning') warnings.push(m.text());
  });
  await p.goto(`${session.url}auto.html`);
  await p.waitForFunction(() => customElements.get('headlab-value-swap'));
  assert.equal(await p.evaluate(() => customElements.get('headlab-basis-rotation')), undefined);
  const added = await p.evaluate(async () => {
    const box = document.createElement('section');
    box.innerHTML = '<headlab-basis-rotation angle="45"></headlab-basis-rotation><headlab-value-swp></headlab-value-swp>';
    document.querySelector('main').append(box);
    await customElements.whenDefined('headlab-basis-rotation');
    const e = document.querySelector('headlab-basis-rotation');
    return { ok: await e.updateComplete, angle: e.state.angle_degrees };
  });
  assert.deepEqual(added, { ok: true, angle: 45 });
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], /<headlab-value-swp> is not a headlab element/);
  assert.deepEqual(p.problems, []);
  await p.close();
});
