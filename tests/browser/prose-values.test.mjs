// The numbers in the prose (<headlab-value>) read the same before and after the model on the page
// answers: each value's fallback text (what a reader sees before the module runs, without
// JavaScript, or in a feed) is the value the shipped model gives, at the precision the sentence
// uses (the digits attribute), so the prose does not change under the reader's eyes on load.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSession } from './helpers.mjs';

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

const PAGES = [
  'articles/max-digit-heads.html',
  'articles/max-digit-heads-appendix.html',
  'articles/induction-heads.html',
  'articles/feature-recovery-two-projections.html',
];

for (const name of PAGES) {
  test(`${name}: every prose value, once bound to the shipped model, shows its fallback text`, async () => {
    const page = await session.newPage({ viewport: { width: 1280, height: 900 } });
    const html = await (await fetch(`${session.url}${name}`)).text();
    const fallbacks = [...html.matchAll(/<headlab-value([^>]*)>([^<]*)<\/headlab-value>/g)].map((m) => ({
      attrs: m[1].trim(),
      text: m[2],
    }));
    assert.ok(fallbacks.length > 0, `${name} has prose values`);
    await page.goto(`${session.url}${name}`);
    // Each source woken as a reader would: scrolled to and pointed at (the max-digit figures go
    // live on a first interaction).
    const sources = [...new Set(fallbacks.map((f) => /source="([^"]+)"/.exec(f.attrs)[1]))];
    for (const id of sources) {
      const source = page.locator(`#${id}`);
      await source.scrollIntoViewIfNeeded();
      await source.hover({ position: { x: 5, y: 5 } });
    }
    const shown = await page.evaluate(() =>
      Promise.all([...document.querySelectorAll('headlab-value')].map(async (v) => [await v.updateComplete, v.textContent])),
    );
    assert.equal(shown.length, fallbacks.length);
    const differ = fallbacks.flatMap((f, i) =>
      shown[i][0] && shown[i][1] === f.text
        ? []
        : [`<headlab-value ${f.attrs}>: fallback "${f.text}", shown "${shown[i][1]}" (${shown[i][0] ? 'bound' : 'missing'})`],
    );
    assert.deepEqual(differ, []);
    assert.deepEqual(page.problems, []);
  });
}
