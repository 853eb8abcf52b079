// types/headlab.d.ts ships alone in the package: the shapes it shares with the code are copied
// from the code (site/package-types.mjs), so they are written once. Held here: the copies are
// current, and the file compiles by itself under strict checks — its own declarations included,
// which the project's tsc run skips (skipLibCheck) — as an author's project reads it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import test from 'node:test';
import ts from 'typescript';
import { PACKAGE_TYPES, declarationsOf, packageTypes, sharedNames } from '../../site/package-types.mjs';

const text = fs.readFileSync(PACKAGE_TYPES, 'utf8');

test('types/headlab.d.ts: every declaration the code also exports is the code’s, byte for byte (node site/package-types.mjs)', () => {
  assert.equal(packageTypes(text), text, 'types/headlab.d.ts is not current: run node site/package-types.mjs');
  const shared = sharedNames(text);
  // Every element's state is among them (the element interfaces themselves are written by hand).
  const states = declarationsOf('types/headlab.d.ts', text)
    .filter((d) => /State$/.test(d.name))
    .map((d) => d.name);
  for (const name of states)
    assert.ok(
      shared.some((s) => s.name === name),
      `${name} is restated by hand`,
    );
  assert.ok(states.length >= 26, `${states.length} state shapes`);
});

test('the copy follows the code: a changed field in the code changes the package’s declaration', () => {
  const declared = declarationsOf('types/headlab.d.ts', text).find((d) => d.name === 'HeadSvdState');
  const edited = text.slice(0, declared.start) + 'export interface HeadSvdState { layer: string }' + text.slice(declared.end);
  assert.equal(packageTypes(edited), text);
});

test('types/headlab.d.ts compiles alone under strict checks, its own declarations included', () => {
  const program = ts.createProgram([PACKAGE_TYPES], {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
  });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? d.file.fileName.split('/').pop() : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  assert.deepEqual(problems, []);
});
