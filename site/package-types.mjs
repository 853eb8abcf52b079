// types/headlab.d.ts ships alone in the package, so it cannot import from widgets/, web/ or
// formats/; the shapes it shares with them are copied from the code instead of restated by hand.
// Every exported interface or type alias of types/headlab.d.ts whose name the code also exports
// (widgets/**/*.ts, web/*.d.ts, formats/*.d.ts; the first file that declares it, in that order) is
// replaced by the code's declaration, doc comment included. The region between GENERATED_START
// and GENERATED_END is written from the elements' attribute tables (widgets/base/attributes.ts):
// each element's properties (HeadlabXProperties, which its interface extends), the tag map, the
// exported classes and the JSX typings. What remains by hand: each element interface's
// description, base and the members no attribute gives (methods, results).
//
//   node site/package-types.mjs          rewrites types/headlab.d.ts
//   node site/package-types.mjs --check  exits 1 when it is not current
//
// tests/unit/package-types.test.mjs holds the file current, and tsc checks it (tests/types/).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { attributesOf, elementClasses, tagOf } from './element-tables.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PACKAGE_TYPES = path.join(root, 'types/headlab.d.ts');

/** Files whose declarations the package's types copy, in the order a name is looked up. */
function codeFiles() {
  const walk = (dir) =>
    fs
      .readdirSync(path.join(root, dir), { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
  return [
    ...walk('widgets').filter((f) => f.endsWith('.ts')),
    ...walk('web').filter((f) => f.endsWith('.d.ts')),
    ...walk('formats').filter((f) => f.endsWith('.d.ts')),
  ];
}

/**
 * Declarations the package words otherwise on purpose: WidgetFigure's scene() is the chart's
 * internal Scene in the code and `unknown` to an author.
 */
const HAND_WRITTEN = new Set(['WidgetFigure']);

export const GENERATED_START =
  "// ---------- generated from the elements' attribute tables by node site/package-types.mjs: edit the tables ----------";
export const GENERATED_END = '// ---------- end of the generated declarations ----------';

/** A doc comment at `indent`, one line when it fits. */
function docComment(text, indent) {
  const one = `${indent}/** ${text} */`;
  if (one.length <= 130) return one;
  const words = text.split(' ');
  const lines = [];
  let line = '';
  for (const w of words) {
    if (line && `${indent} * ${line} ${w}`.length > 110) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return [`${indent}/**`, ...lines.map((l) => `${indent} * ${l}`), `${indent} */`].join('\n');
}

/** What the manifest and the declarations say about an attribute: its doc, default and whether it is shared. */
export function attributeDoc(a) {
  const extra = [];
  if (a.fallback !== undefined) extra.push(`default ${a.fallback}`);
  if (a.shared) extra.push('shared (share-state)');
  return extra.length ? `${a.doc} Attribute \`${a.name}\`; ${extra.join('; ')}.` : `${a.doc} Attribute \`${a.name}\`.`;
}

/** The generated region (without its markers) for `classes` ({ className: class }). */
export function generatedDeclarations(classes) {
  const names = Object.keys(classes).sort();
  const out = [];
  for (const name of names) {
    const props = attributesOf(classes[name]).filter((a) => a.property);
    if (!props.length) continue;
    out.push(
      `/** The properties the attributes of <${tagOf(name)}> give it: each parses its attribute (a malformed one throws, naming it) and its setter writes it. */`,
    );
    out.push(`export interface ${name}Properties {`);
    for (const a of props) {
      out.push(docComment(attributeDoc(a), '  '));
      out.push(`  ${a.readonly ? 'readonly ' : ''}${a.property}: ${a.type};`);
    }
    out.push('}', '');
  }
  out.push("/** Every element's tag and its interface. */", 'export interface HeadlabElementTagNameMap {');
  for (const name of names) out.push(`  '${tagOf(name)}': ${name};`);
  out.push('}', '');
  out.push(
    '/** An element class as exported (headlab, headlab/elements, headlab/<name>): subclass it to register another tag. */',
    'type ElementClass<T> = { new (): T; prototype: T; readonly observedAttributes: string[] };',
  );
  for (const name of names) out.push(`export const ${name}: ElementClass<${name}>;`);
  out.push('', '/** A number in markup: written as a number or as its text. */', 'type Num = number | string;');
  out.push('/** Per tag, the attributes it reads (values are strings in markup; numbers are accepted and stringified). */');
  out.push('export interface HeadlabJSXElements {');
  for (const name of names) {
    const attrs = attributesOf(classes[name]).map((a) => `    ${`'${a.name}'?: ${a.markup}`.replace(/^'([a-z]+)'/, '$1')};`);
    out.push(`  '${tagOf(name)}': HeadlabBaseAttributes${attrs.length ? ` & {\n${attrs.join('\n')}\n  }` : ''};`);
  }
  out.push('}');
  return out.join('\n');
}

const exported = (n) => n.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const declaration = (n) => ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n);

/** The type names a declaration refers to (type references and `extends` clauses). */
function referencedNames(node) {
  const names = new Set();
  const visit = (n) => {
    if (ts.isTypeReferenceNode(n) && ts.isIdentifier(n.typeName)) names.add(n.typeName.text);
    if (ts.isExpressionWithTypeArguments(n) && ts.isIdentifier(n.expression)) names.add(n.expression.text);
    n.forEachChild(visit);
  };
  node.forEachChild(visit);
  return names;
}

/**
 * Each top-level interface and type alias of a file: { name, exported, start, end, text,
 * uses }, start at its doc comment, `uses` the type names it refers to.
 */
export function declarationsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  source.forEachChild((n) => {
    if (!declaration(n) || !n.name) return;
    const start = n.getStart(source, true);
    out.push({ name: n.name.text, exported: exported(n), start, end: n.end, text: text.slice(start, n.end), uses: referencedNames(n) });
  });
  return out;
}

/** Every declaration of the code by name: the exported one of the first file (codeFiles order), and each file's own. */
function codeDeclarations() {
  const exportedByName = new Map();
  const byFile = new Map();
  for (const f of codeFiles()) {
    const own = new Map();
    for (const d of declarationsOf(f, fs.readFileSync(path.join(root, f), 'utf8'))) {
      own.set(d.name, { ...d, file: f });
      if (d.exported && !exportedByName.has(d.name)) exportedByName.set(d.name, { ...d, file: f });
    }
    byFile.set(f, own);
  }
  return { exportedByName, byFile };
}

/**
 * types/headlab.d.ts as it should read: `text` with every declaration the code also exports copied
 * from the code, and before each copy the code's declarations it refers to that the file lacks
 * (exported, and copied as the code writes them). Throws for a referred name the code declares
 * only without `export` in another file.
 */
export function packageTypes(text, classes = null) {
  if (classes) {
    const start = text.indexOf(GENERATED_START);
    const end = text.indexOf(GENERATED_END);
    if (start < 0 || end < start) throw new Error('types/headlab.d.ts lacks the generated region markers');
    text = `${text.slice(0, start)}${GENERATED_START}\n${generatedDeclarations(classes)}\n${text.slice(end)}`;
  }
  const code = codeDeclarations();
  const own = declarationsOf('types/headlab.d.ts', text);
  const declared = new Set(own.map((d) => d.name));
  // An element's class is merged with an interface naming its attribute properties: not a shape to copy.
  const shared = own.filter(
    (d) =>
      d.exported &&
      !HAND_WRITTEN.has(d.name) &&
      code.exportedByName.has(d.name) &&
      !/AttributeProperties</.test(code.exportedByName.get(d.name).text),
  );
  const copied = [];
  // The code's declarations `c` needs that the file lacks, each before the first that needs it.
  const withDependencies = (c, out) => {
    for (const name of c.uses) {
      if (declared.has(name)) continue;
      const dep = code.byFile.get(c.file).get(name) ?? code.exportedByName.get(name);
      if (!dep) continue; // a global (Record, Float64Array, HTMLElement…) or a type parameter
      if (!dep.exported) throw new Error(`${c.file}: ${c.name} refers to ${name}, which the code does not export`);
      declared.add(name);
      copied.push({ name, file: dep.file });
      withDependencies(dep, out);
      out.push(dep.text);
    }
    return out;
  };
  let out = '';
  let at = 0;
  for (const d of shared) {
    const c = code.exportedByName.get(d.name);
    copied.push({ name: d.name, file: c.file });
    const before = withDependencies(c, []);
    out += text.slice(at, d.start) + before.map((t) => `${t}\n`).join('') + c.text;
    at = d.end;
  }
  packageTypes.copied = copied;
  return out + text.slice(at);
}

/** The names types/headlab.d.ts copies from the code, with the file each comes from. */
export function sharedNames(text) {
  packageTypes(text);
  return packageTypes.copied;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = fs.readFileSync(PACKAGE_TYPES, 'utf8');
  const next = packageTypes(text, await elementClasses());
  if (process.argv.includes('--check')) {
    if (next !== text) {
      console.error('types/headlab.d.ts is not current: run node site/package-types.mjs');
      process.exit(1);
    }
  } else if (next !== text) {
    fs.writeFileSync(PACKAGE_TYPES, next);
  }
  console.log(`types/headlab.d.ts: ${sharedNames(next).length} declarations copied from the code`);
}
