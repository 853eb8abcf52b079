// types/headlab.d.ts ships alone in the package and is written whole from the code
// (site/package-types.mjs): each declaration is the code's, each element's interface the public API
// of its class, the properties, tag map and JSX typings its attribute table's. Held here: the file
// is current, it follows the code (an edited declaration, a new public member, an @internal one,
// an edited attribute table), and it compiles by itself under strict checks — its own declarations
// included, which the project's tsc run skips (skipLibCheck) — as an author's project reads it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { attributesOf, elementClasses, tagOf } from '../../site/element-tables.mjs';
import {
  AUTOLOAD_TYPES,
  GENERATED_END,
  GENERATED_START,
  PACKAGE_TYPES,
  autoloadTypes,
  generatedDeclarations,
  packageTypes,
} from '../../site/package-types.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const text = fs.readFileSync(PACKAGE_TYPES, 'utf8');
const classes = await elementClasses();
const generated = await packageTypes(classes);
const copied = packageTypes.copied;
const source = (f) => fs.readFileSync(path.join(root, f), 'utf8');

/** The top-level declarations of a declaration file's text: [{ name, kind, text }]. */
function declarations(t) {
  const sf = ts.createSourceFile('x.d.ts', t, ts.ScriptTarget.Latest, true);
  const out = [];
  sf.forEachChild((n) => {
    if (n.name && ts.isIdentifier(n.name)) out.push({ name: n.name.text, kind: ts.SyntaxKind[n.kind], text: n.getText(sf) });
    if (ts.isVariableStatement(n))
      for (const d of n.declarationList.declarations) out.push({ name: d.name.text, kind: 'const', text: d.getText(sf) });
  });
  return out;
}
const interfaceOf = (t, name) => declarations(t).find((d) => d.name === name)?.text ?? '';

test('types/headlab.d.ts is what node site/package-types.mjs writes from the code, byte for byte', () => {
  assert.equal(generated, text, 'types/headlab.d.ts is not current: run node site/package-types.mjs');
});

test('types/autoload.d.ts is what node site/package-types.mjs writes from widgets/autoload.ts', async () => {
  const autoload = await autoloadTypes();
  assert.equal(autoload, fs.readFileSync(AUTOLOAD_TYPES, 'utf8'), 'types/autoload.d.ts is not current: run node site/package-types.mjs');
  assert.match(autoload, /export function discover\(root: Document \| DocumentFragment \| Element\): void;/);
});

test('nothing in it is written by hand: every declaration comes from the code or the attribute tables', () => {
  const region = text.slice(text.indexOf(GENERATED_START), text.indexOf(GENERATED_END));
  const fromTables = new Set(declarations(region.slice(GENERATED_START.length)).map((d) => d.name));
  const fromCode = new Set(copied.map((c) => c.name));
  const elementNames = new Set(Object.keys(classes));
  const bases = ['HeadlabElementBase', 'ModelFigureBase', 'MaxDigitElementBase', 'TransformerElementBase'];
  const outside = declarations(text.slice(0, text.indexOf(GENERATED_START)));
  for (const d of outside) {
    const ok = fromCode.has(d.name) || (d.kind === 'InterfaceDeclaration' && (elementNames.has(d.name) || bases.includes(d.name)));
    assert.ok(ok, `${d.name} is neither copied from the code nor an element's interface`);
  }
  assert.ok(fromTables.has('HeadlabElementTagNameMap') && fromTables.has('HeadlabJSXElements'));
  // Each element's state, and the shapes of web/ and formats/ the elements use, come from where they are declared.
  for (const [name, file] of [
    ['QueryKeyCanvasState', 'widgets/headlab-query-key-canvas.ts'],
    ['TransformerModelState', 'widgets/headlab-transformer-model.ts'],
    ['FeatureRecoveryResults', 'formats/feature-recovery-results.d.ts'],
    ['Matrix', 'web/headlab-core.d.ts'],
    ['WorkerClient', 'web/worker-client.d.ts'],
  ])
    assert.deepEqual(
      copied.find((c) => c.name === name),
      { name, file },
    );
  const states = outside.filter((d) => /State$/.test(d.name)).map((d) => d.name);
  assert.ok(states.length >= 32, `${states.length} state shapes`);
  for (const s of states) assert.ok(fromCode.has(s), `${s} is restated`);
});

test('every element class is declared as the public API of its class, on its family’s base', () => {
  for (const name of Object.keys(classes)) {
    const decl = interfaceOf(text, name);
    assert.match(
      decl,
      new RegExp(
        `^export interface ${name}\\s+extends (HeadlabElementBase|MaxDigitElementBase|TransformerElementBase)<\\w+>|^export interface ${name} extends HTMLElement`,
      ),
      name,
    );
  }
  assert.match(interfaceOf(text, 'HeadlabTransformerModel'), /useModel\(files: TransformerModelFiles/);
  assert.match(
    interfaceOf(text, 'HeadlabElementBase'),
    /addEventListener\(type: 'change', listener: \(ev: CustomEvent<State>\) => unknown/,
  );
  // Not the custom-element callbacks, nor members marked @internal (diagnostics, what other widgets read).
  assert.doesNotMatch(text, /^ {2}(readonly )?(connectedCallback|lastRenderMs|updatePending|modelSource|promptFields)\b/m);
});

test('the file follows the code: an edited shape, a new public member, an @internal one', async () => {
  const svd = 'widgets/headlab-head-svd.ts';
  const edited = source(svd).replace(/export interface HeadSvdState \{\n/, '$&  /** Edited. */\n  edited_field: string;\n');
  assert.notEqual(edited, source(svd));
  assert.match(
    interfaceOf(await packageTypes(classes, { [svd]: edited }), 'HeadSvdState'),
    /\/\*\* Edited\. \*\/\n {2}edited_field: string;/,
  );

  const swap = 'widgets/headlab-value-swap.ts';
  const anchor = '  private readonly views = new Memo<ValueSwapView>();\n';
  assert.ok(source(swap).includes(anchor));
  const member = (doc) =>
    source(swap).replace(anchor, `${anchor}\n  /** ${doc} */\n  swapAgain(times: number): number[] {\n    return [times];\n  }\n`);
  assert.match(
    interfaceOf(await packageTypes(classes, { [swap]: member('Swaps again.') }), 'HeadlabValueSwap'),
    /\/\*\* Swaps again\. \*\/\n {2}swapAgain\(times: number\): number\[\];/,
  );
  assert.equal(await packageTypes(classes, { [swap]: member('Swaps again.\n   * @internal') }), text);
});

test('the element properties, tag map, classes and JSX typings are those the attribute tables give', () => {
  const region = generatedDeclarations(classes);
  assert.ok(text.includes(`${GENERATED_START}\n${region}\n${GENERATED_END}`));
  for (const [name, cls] of Object.entries(classes)) {
    const tag = tagOf(name);
    assert.match(region, new RegExp(`'${tag}': ${name};`), tag);
    const at = region.indexOf(`  '${tag}': HeadlabBaseAttributes`);
    const jsx = region.slice(at, region.indexOf(";\n  '", at + 1) >>> 0 || undefined);
    for (const a of attributesOf(cls)) {
      assert.ok(jsx.includes(`${a.name.includes('-') ? `'${a.name}'` : a.name}?: ${a.markup}`), `${tag} ${a.name}`);
      if (a.property) assert.match(region, new RegExp(`\\b${a.property}: ${a.type.replace(/[|()[\]{}]/g, '\\$&')};`), `${tag} ${a.name}`);
    }
  }
});

test('a changed attribute table changes the generated declarations (and so fails the check above)', () => {
  const angleDot = classes.HeadlabAngleDot;
  const table = angleDot.attributes;
  try {
    angleDot.attributes = { ...table, matrix: { ...table.matrix, type: "'cosine' | 'dot' | 'angle'", markup: "'cosine'" } };
    const edited = generatedDeclarations(classes);
    assert.match(edited, /matrix: 'cosine' \| 'dot' \| 'angle';/);
    assert.match(edited, /'headlab-angle-dot': HeadlabBaseAttributes & \{\n {4}model\?: string;\n {4}matrix\?: 'cosine';\n {2}\}/);
    angleDot.attributes = { ...table, extra: { ...table.matrix } };
    assert.match(generatedDeclarations(classes), /extra\?: 'cosine' \| 'dot'/);
  } finally {
    angleDot.attributes = table;
  }
  assert.ok(text.includes(generatedDeclarations(classes)));
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
