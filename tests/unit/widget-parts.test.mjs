// Widgets hold the DOM they build as one typed view: build() returns the element's parts, the
// base keeps them (HeadlabElement's `parts`, typed non-null, an internal error if read before the
// first build), so no element declares a `| null` DOM field filled in build() nor reads one back
// with a non-null assertion. Parsed with the TypeScript compiler (comments and strings never
// match). Run as a script (`node tests/unit/widget-parts.test.mjs --list`) it prints the
// figures per file: nullable DOM fields, non-null assertions (all, and on `this.` members), lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A type naming a DOM node: HTMLElement, HTMLTableElement, SVGSVGElement, Element, Text, … */
const DOM_TYPE = /^(HTML\w*Element|SVG\w*Element|Element|Text|Node|DocumentFragment)$/;

/** Elements whose conversion to the parts view is still to come (none once it is finished). */
export const NOT_YET_CONVERTED = new Set([]);

/**
 * Nullable DOM fields that are not parts: another element of the page the element is bound to,
 * found at render time and dropped on disconnect (build() makes none of them).
 */
const BINDINGS = new Map([['headlab-interventions', new Set(['source'])]]);

function walk(node, visit) {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

function namesDomType(typeNode) {
  let found = false;
  walk(typeNode, (n) => {
    if (ts.isTypeReferenceNode(n) && DOM_TYPE.test(n.typeName.getText())) found = true;
  });
  return found;
}

function includesNull(typeNode) {
  return (
    ts.isUnionTypeNode(typeNode) && typeNode.types.some((t) => ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword)
  );
}

/** The members only a build() or buildContent() method assigns (`this.X = …`): what build makes. */
function madeInBuild(source) {
  const inBuild = new Set();
  const elsewhere = new Set();
  const visit = (n, building) => {
    if (ts.isMethodDeclaration(n) && /^build(Content)?$/.test(n.name.getText(source))) building = true;
    else if (ts.isMethodDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n) || ts.isConstructorDeclaration(n)) building = false;
    if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(n.left) &&
      n.left.expression.kind === ts.SyntaxKind.ThisKeyword
    )
      (building ? inBuild : elsewhere).add(n.left.name.text);
    ts.forEachChild(n, (c) => visit(c, building));
  };
  visit(source, false);
  return new Set([...inBuild].filter((name) => !elsewhere.has(name)));
}

/**
 * The figures of one file: nullable DOM fields (name, line); non-null assertions, all and those on
 * `this.` members; those on a DOM field or on a member build() makes (`parts`); lines.
 */
export function figuresOf(file) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const nullableDom = [];
  const assertions = [];
  const onThis = [];
  const onParts = [];
  const made = madeInBuild(source);
  const domFields = new Set();
  walk(source, (n) => {
    if (ts.isPropertyDeclaration(n) && n.type && namesDomType(n.type)) domFields.add(n.name.getText(source));
  });
  const lineOf = (n) => source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;
  walk(source, (n) => {
    if (ts.isPropertyDeclaration(n) && n.type && includesNull(n.type) && namesDomType(n.type))
      nullableDom.push(`${n.name.getText(source)} (line ${lineOf(n)})`);
    if (ts.isNonNullExpression(n)) {
      assertions.push(lineOf(n));
      const e = n.expression;
      if (ts.isPropertyAccessExpression(e) && e.expression.kind === ts.SyntaxKind.ThisKeyword) {
        const name = e.name.getText(source);
        onThis.push(`this.${name}! (line ${lineOf(n)})`);
        if (made.has(name) || domFields.has(name)) onParts.push(`this.${name}! (line ${lineOf(n)})`);
      }
    }
  });
  return { file, nullableDom, assertions: assertions.length, onThis, onParts, made, lines: text.split('\n').length - 1 };
}

/** The element files (widgets/headlab-*.ts but the one-line define modules). */
export function elementFiles() {
  return fs
    .readdirSync(path.join(root, 'widgets'))
    .filter((f) => /^headlab-.*\.ts$/.test(f) && !f.endsWith('-define.ts'))
    .map((f) => `widgets/${f}`)
    .sort();
}

/** Every TypeScript file under widgets/. */
export function widgetFiles() {
  return fs
    .readdirSync(path.join(root, 'widgets'), { recursive: true })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `widgets/${f}`)
    .sort();
}

test('no element declares a nullable DOM field or asserts what build() makes non-null', () => {
  const problems = [];
  for (const file of elementFiles()) {
    const name = path.basename(file, '.ts');
    if (NOT_YET_CONVERTED.has(name)) continue;
    const f = figuresOf(file);
    for (const d of f.nullableDom)
      if (!BINDINGS.get(name)?.has(d.split(' ')[0])) problems.push(`${file}: nullable DOM field ${d}; return it from build() as a part`);
    for (const a of f.onParts) problems.push(`${file}: non-null assertion ${a}; read it from this.parts`);
  }
  assert.deepEqual(problems, []);
});

// The helpers' optional DOM (the base's status region and download status, which a widget may
// not ask for; the model element a transformer figure is bound to) is not made by build().
test('the helpers under widgets/ declare no nullable DOM field that build() fills', () => {
  const problems = [];
  for (const file of widgetFiles().filter((f) => !/^widgets\/headlab-/.test(f))) {
    const f = figuresOf(file);
    for (const d of f.nullableDom) if (f.made.has(d.split(' ')[0])) problems.push(`${file}: nullable DOM field ${d}`);
    for (const a of f.onParts) problems.push(`${file}: non-null assertion ${a}`);
  }
  assert.deepEqual(problems, []);
});

test('the list of elements still to convert names only elements that are not converted', () => {
  for (const name of NOT_YET_CONVERTED) {
    const f = figuresOf(`widgets/${name}.ts`);
    assert.ok(f.nullableDom.length + f.onParts.length > 0, `${name} is converted: take it off NOT_YET_CONVERTED`);
  }
});

if (process.argv.includes('--list')) {
  let fields = 0;
  let asserts = 0;
  let onThis = 0;
  let onParts = 0;
  let lines = 0;
  const elements = new Set(elementFiles());
  let elementLines = 0;
  for (const file of widgetFiles()) {
    const f = figuresOf(file);
    fields += f.nullableDom.length;
    asserts += f.assertions;
    onThis += f.onThis.length;
    onParts += f.onParts.length;
    lines += f.lines;
    if (elements.has(file)) elementLines += f.lines;
    if (f.nullableDom.length || f.assertions)
      console.log(
        `${file}: ${f.nullableDom.length} nullable DOM fields, ${f.assertions} non-null assertions (${f.onThis.length} on this., ${f.onParts.length} on parts), ${f.lines} lines`,
      );
  }
  console.log(
    `widgets/: ${fields} nullable DOM fields, ${asserts} non-null assertions (${onThis} on this. members, ${onParts} on DOM fields or what build() makes), ${lines} lines; ` +
      `${elements.size} elements, ${elementLines} lines, ${(elementLines / elements.size).toFixed(1)} per element`,
  );
}
