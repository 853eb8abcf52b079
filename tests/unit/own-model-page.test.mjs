// The own-model page teaches an author what to do: an export snippet, a way to try a file on the
// page, and an embedding snippet whose elements and attributes exist (types/headlab.d.ts holds
// every element's attributes) and whose guides ship in the package.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { root } from '../browser/helpers.mjs';

const page = fs.readFileSync(path.join(root, 'site/pages/own-model.html'), 'utf8');
const unescape = (s) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

test("the own-model page's snippets: the export, and an embedding whose elements and attributes exist", () => {
  const blocks = [...page.matchAll(/<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => unescape(m[1]));
  const python = blocks.find((b) => b.includes('torch.save('));
  assert.ok(python && /model\.cfg\.to_dict\(\)/.test(python), 'the export snippet');
  const html = blocks.find((b) => b.includes('<headlab-transformer-model'));
  assert.ok(html, 'the embedding snippet');
  const types = fs.readFileSync(path.join(root, 'types/headlab.d.ts'), 'utf8');
  for (const m of html.matchAll(/<(headlab-[a-z-]+)\s([^>]*)>/g)) {
    assert.ok(fs.existsSync(path.join(root, `widgets/${m[1]}.ts`)), `${m[1]} is an element`);
    // Its entry in the attribute map (HTMLElementTagNameMap lists it too, by class name).
    const declared = [...types.matchAll(new RegExp(`'${m[1]}': HeadlabBaseAttributes & \\{[^}]*`, 'g'))].map((d) => d[0]).join(' ');
    const transformer = /TransformerAttributes/.test(declared);
    for (const a of m[2].matchAll(/([a-z-]+)="/g))
      assert.ok(
        new RegExp(`[{;]\\s*'?${a[1]}'?\\??:`).test(declared) || ['id', 'class'].includes(a[1]) || (transformer && a[1] === 'model'),
        `${m[1]} declares ${a[1]}`,
      );
  }
  const script = /src="headlab\/([a-z-]+\.js)"/.exec(html);
  assert.ok(script && fs.existsSync(path.join(root, `widgets/${script[1].replace(/\.js$/, '.ts')}`)), 'the script it loads is an entry');
  // The guides it names ship in the package.
  const files = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).files;
  for (const doc of page.matchAll(/<code>(docs\/[\w-]+\.md)<\/code>/g)) assert.ok(files.includes(doc[1]), `${doc[1]} ships`);
});
