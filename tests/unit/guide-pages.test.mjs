// The guides as site pages (site/guides.mjs): every link between them lands on a heading that
// exists, raw HTML in a guide is text, and the page's title is the guide's first heading.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { guideHtml, headingAnchor } from '../../site/guides.mjs';
import { packagedGuide, SHIPPED_DOCS } from '../../site/package-docs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pages = new Map(SHIPPED_DOCS.map((d) => [d, guideHtml(packagedGuide(fs.readFileSync(path.join(root, 'docs', `${d}.md`), 'utf8')))]));
const ids = (html) => new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));

test('heading anchors follow GitHub: lower case, punctuation dropped, repeats numbered', () => {
  const seen = new Map();
  assert.equal(headingAnchor('QK attribution: why a head attends where it does', seen), 'qk-attribution-why-a-head-attends-where-it-does');
  assert.equal(
    headingAnchor('Export: TransformerLens 4, TransformerLens 3 or plain PyTorch', seen),
    'export-transformerlens-4-transformerlens-3-or-plain-pytorch',
  );
  assert.equal(headingAnchor('Limits', seen), 'limits');
  assert.equal(headingAnchor('Limits', seen), 'limits-1');
});

test('every link between the guide pages lands on a heading of its target', () => {
  let checked = 0;
  for (const [name, { body }] of pages) {
    for (const [, href] of body.matchAll(/<a href="([^"]+)"/g)) {
      if (/^[a-z]+:/i.test(href)) continue;
      const [file, anchor] = href.split('#');
      assert.ok(!file.endsWith('.md'), `${name}.html links to Markdown: ${href}`);
      const target = file === '' ? name : /^([a-z-]+)\.html$/.exec(file)?.[1];
      assert.ok(target && pages.has(target), `${name}.html links to ${href}, which is not a guide page`);
      if (anchor) assert.ok(ids(pages.get(target).body).has(anchor), `${name}.html links to ${href}: no heading with that anchor`);
      checked++;
    }
  }
  assert.ok(checked >= 20, `only ${checked} links checked`);
});

test('raw HTML in a guide is shown as text, so no element starts on a guide page', () => {
  const { body } = guideHtml('Before <headlab-attention-bars></headlab-attention-bars> after.\n\n<script>alert(1)</script>\n');
  assert.ok(!/<headlab-|<script/.test(body), body);
  assert.match(body, /&lt;headlab-attention-bars&gt;/);
  for (const [name, page] of pages) assert.ok(!/<(headlab-|script)/.test(page.body), `${name}.html has live markup`);
});

test("a guide page's title is its first heading", () => {
  assert.equal(pages.get('limits').title, 'Limits: every input the suite accepts');
});
