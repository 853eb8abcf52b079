// The guides the package ships (site/package-docs.mjs): a link keeps its target when the package
// holds it and is written out as a repository path otherwise, so node_modules/headlab/dist/docs/
// has no dead link. tests/browser/package.test.mjs checks the same in the packed tarball.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { SHIPPED_DOCS, packagedGuide } from '../../site/package-docs.mjs';

const root = path.resolve(import.meta.dirname, '../..');

test('a link to a shipped guide, a section or the web stays; one to the repository is written out; code spans and images are untouched', () => {
  assert.equal(
    packagedGuide('[limits](limits.md#a) [w](https://example.org/x) [s](#here) `[n](m)` ![i](p.png)'),
    '[limits](limits.md#a) [w](https://example.org/x) [s](#here) `[n](m)` ![i](p.png)',
  );
  assert.equal(
    packagedGuide('see [examples/plain-html](../examples/plain-html/) and [the test](../tests/unit/a.test.mjs#L3)'),
    'see examples/plain-html (in the headlab repository) and the test (`tests/unit/a.test.mjs#L3` in the headlab repository)',
  );
  assert.equal(packagedGuide('[`core/x.hpp`](../core/x.hpp)'), '`core/x.hpp` (in the headlab repository)');
});

test('every shipped guide, as the package holds it, links only to shipped guides, sections and the web', () => {
  const shipped = new Set(SHIPPED_DOCS.map((d) => `${d}.md`));
  for (const d of SHIPPED_DOCS) {
    const text = packagedGuide(fs.readFileSync(path.join(root, 'docs', `${d}.md`), 'utf8'));
    const dead = [...text.replace(/`[^`\n]*`/g, '').matchAll(/(?<!!)\[[^\]\n]+\]\(([^)\s]+)\)/g)]
      .map((m) => m[1])
      .filter((t) => !/^([a-z]+:|#)/i.test(t) && !shipped.has(t.split('#')[0]));
    assert.deepEqual(dead, [], `docs/${d}.md`);
  }
});
