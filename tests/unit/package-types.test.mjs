// types/headlab.d.ts ships alone in the package: the shapes it shares with the code are copied
// from the code (site/package-types.mjs), so they are written once. Held here: the copies are
// current, and the file compiles by itself under strict checks — its own declarations included,
// which the project's tsc run skips (skipLibCheck) — as an author's project reads it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import test from 'node:test';
import ts from 'typescript';
import { attributesOf, elementClasses, tagOf } from '../../site/element-tables.mjs';
import { PACKAGE_TYPES, declarationsOf, generatedDeclarations, packageTypes, sharedNames } from '../../site/package-types.mjs';

const text = fs.readFileSync(PACKAGE_TYPES, 'utf8');
const classes = await elementClasses();

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

test('types/headlab.d.ts: the element properties, tag map, classes and JSX typings are those the attribute tables give', () => {
  assert.equal(packageTypes(text, classes), text, 'types/headlab.d.ts is not current: run node site/package-types.mjs');
  // Every element is in the tag map and the JSX typings, with every attribute its table declares.
  const generated = generatedDeclarations(classes);
  for (const [name, cls] of Object.entries(classes)) {
    const tag = tagOf(name);
    assert.match(generated, new RegExp(`'${tag}': ${name};`), tag);
    const at = generated.indexOf(`  '${tag}': HeadlabBaseAttributes`);
    const jsx = generated.slice(at, generated.indexOf(";\n  '", at + 1) >>> 0 || undefined);
    for (const a of attributesOf(cls)) {
      assert.ok(jsx.includes(`${a.name.includes('-') ? `'${a.name}'` : a.name}?: ${a.markup}`), `${tag} ${a.name}`);
      if (a.property)
        assert.match(generated, new RegExp(`\\b${a.property}: ${a.type.replace(/[|()[\]{}]/g, '\\$&')};`), `${tag} ${a.name}`);
    }
  }
});

test('a changed attribute table changes the generated declarations (and so fails the check above)', () => {
  const angleDot = classes.HeadlabAngleDot;
  const table = angleDot.attributes;
  try {
    angleDot.attributes = { ...table, matrix: { ...table.matrix, type: "'cosine' | 'dot' | 'angle'", markup: "'cosine'" } };
    const edited = packageTypes(text, classes);
    assert.notEqual(edited, text);
    assert.match(edited, /matrix: 'cosine' \| 'dot' \| 'angle';/);
    assert.match(edited, /'headlab-angle-dot': HeadlabBaseAttributes & \{\n {4}model\?: string;\n {4}matrix\?: 'cosine';\n {2}\}/);
    angleDot.attributes = { ...table, extra: { ...table.matrix } };
    assert.match(packageTypes(text, classes), /extra\?: 'cosine' \| 'dot'/);
  } finally {
    angleDot.attributes = table;
  }
  assert.equal(packageTypes(text, classes), text);
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

test('every property the tables declare writable has a setter on its class', async () => {
  const classes = await elementClasses();
  const missing = [];
  let checked = 0;
  for (const [name, cls] of Object.entries(classes)) {
    // The accessors a table gives are installed as the browser registers the class (observedAttributes).
    void cls.observedAttributes;
    for (const a of attributesOf(cls)) {
      if (!a.property || a.readonly) continue;
      let descriptor;
      for (let p = cls.prototype; p && !descriptor; p = Object.getPrototypeOf(p))
        descriptor = Object.getOwnPropertyDescriptor(p, a.property);
      if (!descriptor?.set) missing.push(`${name}.${a.property} (attribute ${a.name})`);
      checked++;
    }
  }
  assert.ok(checked >= 60, `only ${checked} writable properties checked`);
  assert.deepEqual(missing, [], 'declared writable in types/headlab.d.ts, but assigning it would throw');
});
