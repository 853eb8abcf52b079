// headlab.css as an author's page uses it (docs/embedding.md, "No layout shift"): a blog column
// (at most 640 px of text, 16 px margins) holding every element, linked before the script. At a
// phone's 360 px and a desktop's 1280 px each element's reserved min-height is the height it
// draws its default state at (measured here with the reserve lifted once it is complete), the
// page's layout shift while the elements start stays ≤ CLS_BUDGET, and a <headlab-value> bound in
// a sentence stays inside the line (inline, not a block).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, screenshot, startSession } from './helpers.mjs';
import { layoutShiftProbe } from './layout-shift.mjs';
import { bundleDir } from './widget-fixtures.mjs';

/** The budget for layout shift while the widgets start (as tests/browser/package.test.mjs). */
const CLS_BUDGET = 0.01;
/** Reserved vs drawn height: the build rounds heights up to whole pixels; text lays out at subpixels. */
const RESERVE_TOLERANCE_PX = 2;

const TAGS = fs
  .readdirSync(path.join(root, 'widgets'))
  .filter((f) => /^headlab-.+-define\.ts$/.test(f))
  .map((f) => f.replace(/-define\.ts$/, ''))
  .filter((t) => t !== 'headlab-choice-quiz' && t !== 'headlab-value') // the quiz is the author's content; the value is inline
  .sort();
/** The transformer figures (classes extending TransformerWidget): they read a model element. */
const readsModel = (t) => fs.readFileSync(path.join(root, 'widgets', `${t}.ts`), 'utf8').includes(' extends TransformerWidget<');
const ATTRIBUTES = {
  'headlab-transformer-model': 'id="m" src="data/induction-seed0.safetensors" config="data/induction-seed0.json"',
  'headlab-seed-grid': 'src="data/max-digit-seeds-0-9.json"',
  'headlab-max-digit-model': 'id="digits"',
};

let dir, session;
before(async () => {
  const figures = TAGS.map(
    (t) => `<${t} ${ATTRIBUTES[t] ?? (readsModel(t) ? 'model="m"' : '')}></${t}>\n<p>Text under the figure.</p>`,
  ).join('\n');
  dir = bundleDir(
    {
      'post.html': {
        head: '<link rel="stylesheet" href="headlab/headlab.css"><link rel="stylesheet" href="blog.css">',
        body: `<main>
<p id="sentence">The model answers <headlab-value id="value" source="digits" name="accuracy" format="count">all 111,110</headlab-value> lists correctly.</p>
${figures}
</main>`,
      },
    },
    { shippedData: 'data' },
  );
  fs.writeFileSync(path.join(dir, 'blog.css'), 'main { max-width: 640px; margin: 0 auto; padding: 0 16px; }\nbody { margin: 0; }\n');
  session = await startSession({ dir, csp: true });
});
after(async () => {
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

for (const width of [360, 1280]) {
  test(`headlab.css at ${width} px: every element's reserved height is its drawn default height (±${RESERVE_TOLERANCE_PX} px), layout shift ≤ ${CLS_BUDGET}, <headlab-value> inline`, async () => {
    const page = await session.newPage({ viewport: { width, height: 800 } });
    await page.addInitScript(layoutShiftProbe);
    await page.goto(`${session.url}post.html`);
    // Before the script has defined anything: the value sits in its sentence's one line.
    const line = await page.evaluate(() => {
      const p = document.querySelector('#sentence');
      const lineHeight = parseFloat(getComputedStyle(p).lineHeight) || 1.2 * parseFloat(getComputedStyle(p).fontSize);
      const v = document.querySelector('#value');
      return {
        display: getComputedStyle(v).display,
        lines: Math.round(p.getBoundingClientRect().height / lineHeight),
        rects: v.getClientRects().length,
      };
    });
    assert.deepEqual(line, { display: 'inline', lines: 1, rects: 1 });
    await page.waitForFunction((tags) => tags.every((t) => customElements.get(t)), TAGS);
    const ok = await page.evaluate((tags) => Promise.all(tags.map((t) => document.querySelector(t).updateComplete)), TAGS);
    assert.deepEqual(
      TAGS.filter((_, i) => !ok[i]),
      [],
      'every element draws its figure',
    );
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.evaluate(() => window.__takeShifts());
    const shift = await page.evaluate(() => ({ cls: window.__cls, shifts: window.__shifts }));
    const sizes = await page.evaluate((tags) => {
      const out = {};
      for (const t of tags) {
        const e = document.querySelector(t);
        const reserved = parseFloat(getComputedStyle(e).minHeight);
        e.style.minHeight = '0px'; // the CSSOM, which the strict CSP allows: the height drawn
        out[t] = { reserved, drawn: Math.round(e.getBoundingClientRect().height * 10) / 10 };
      }
      return out;
    }, TAGS);
    const off = Object.entries(sizes).filter(([, s]) => !(Math.abs(s.drawn - s.reserved) <= RESERVE_TOLERANCE_PX));
    console.log(
      `# ${width} px: layout shift ${shift.cls.toFixed(4)}; ${Object.entries(sizes)
        .map(([t, s]) => `${t.slice(8)} ${s.reserved}/${s.drawn}`)
        .join(', ')}`,
    );
    // headlab.css is a source file (site/headlab.css), measured in a browser by site/reserve-sizes.mjs.
    assert.deepEqual(off, [], 'reserved/drawn heights: a figure changed its height; run `node site/reserve-sizes.mjs` after a build');
    assert.ok(shift.cls <= CLS_BUDGET, `layout shift ${shift.cls}: ${shift.shifts.join('; ')}`);
    // The value, bound once the model is in, still in its one line.
    await page.waitForFunction(() => document.querySelector('#value').getAttribute('data-state') === 'bound');
    assert.equal(await page.evaluate(() => document.querySelector('#sentence').getClientRects().length), 1);
    await screenshot(page.locator('#sentence'), `reserved-sizes-sentence-${width}`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
}
