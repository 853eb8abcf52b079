// types/headlab.d.ts, the package's types, written whole from the code: it ships alone (the
// package's `files` are dist/ and types/), so it cannot import from widgets/, web/ or formats/, and
// nothing in it is written by hand. What it holds:
//   - every name the bundle's entry (widgets/headlab.ts, and widgets/elements.ts it re-exports)
//     exports: functions and classes of web/ copied from their declarations (web/*.d.ts), types
//     copied as the code writes them, and each element class as an interface of its public API;
//   - each element's interface: the class's doc comment, its family's base (HeadlabElementBase<State>
//     and the others of BASES, themselves the public API of those base classes), the properties its
//     attribute table gives (HeadlabXProperties, below) and every public instance member the class
//     declares itself with its doc comment and declared type — not the custom-element callbacks,
//     not a member marked @internal, not one its base already declares;
//   - every declaration those refer to, once, before the first that needs it (a type the package does
//     not describe, OPAQUE, reads `unknown`);
//   - from the elements' attribute tables (widgets/base/attributes.ts): each element's properties,
//     the tag map, the exported classes and the JSX typings.
// The TypeScript checker resolves each name, so two declarations of one name cannot be confused.
//
//   node site/package-types.mjs          rewrites types/headlab.d.ts and types/autoload.d.ts
//   node site/package-types.mjs --check  exits 1 when one is not current
//
// tests/unit/package-types.test.mjs holds the file current and compiles it alone; tsc checks each
// element class against it (tests/types/package-types.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';
import { attributesOf, elementClasses, tagOf } from './element-tables.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PACKAGE_TYPES = path.join(root, 'types/headlab.d.ts');
/** The bundle's entry (dist/headlab.js): what it exports is what the package declares. */
const ENTRY = 'widgets/headlab.ts';

/** The base classes of the elements and the interface each is to an author (generic in the element's State only). */
const BASES = {
  HeadlabElement: 'HeadlabElementBase',
  ModelFigure: 'ModelFigureBase',
  MaxDigitWidget: 'MaxDigitElementBase',
  TransformerWidget: 'TransformerElementBase',
};
/** The bare base of every element outside a browser (widgets/base/headlab-element.ts): HTMLElement to an author. */
const ELEMENT_BASE = 'ElementBase';
/** Types internal to the widgets that the package does not describe: `unknown` to an author (a figure's Scene). */
const OPAQUE = new Set(['Scene']);
/** The custom-element callbacks the browser calls: not an author's API. */
const LIFECYCLE = new Set(['connectedCallback', 'disconnectedCallback', 'attributeChangedCallback', 'adoptedCallback']);

export const GENERATED_START =
  "// ---------- generated from the elements' attribute tables by node site/package-types.mjs: edit the tables ----------";
export const GENERATED_END = '// ---------- end of the generated declarations ----------';

const HEADER = `// Public API of the \`headlab\` package (dist/headlab.js), written whole from the code by
// \`node site/package-types.mjs\`: edit the code, then run it (tests/unit/package-types.test.mjs fails
// until the file is current). Importing the package registers every headlab-* custom element; these
// declarations describe the elements (attributes, properties, events, state shapes) and the few
// functions the bundle exports. Field names are the articles' terms; indices are 1-based where a
// reader sees them (query 1, column 2) and say so.
// Embedding guide: docs/embedding.md (dist/docs/embedding.md in the package).
`;

const GLOBALS = `declare global {
  interface HTMLElementTagNameMap extends HeadlabElementTagNameMap {}
  // React 17+ / Preact (classic and automatic runtimes) and Astro's JSX read JSX.IntrinsicElements.
  namespace JSX {
    interface IntrinsicElements extends HeadlabJSXElements {}
  }
  // Astro components type their markup through astroHTML.JSX.
  namespace astroHTML.JSX {
    interface IntrinsicElements extends HeadlabJSXElements {}
  }
}
`;

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

/** The attributes every element takes in markup beside its own: the HTML ones a JSX author writes, and share-state (the base class's). */
const BASE_ATTRIBUTES = `/** Attributes every element takes in markup, beside the usual HTML ones. */
export interface HeadlabBaseAttributes {
  id?: string;
  class?: string;
  className?: string;
  slot?: string;
  hidden?: boolean;
  'share-state'?: boolean | '';
  children?: unknown;
  [data: \`data-\${string}\`]: string | number | boolean | undefined;
  [aria: \`aria-\${string}\`]: string | number | boolean | undefined;
}`;

/** The region from the attribute tables for `classes` ({ className: class }): properties, tag map, classes, JSX. */
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
  out.push('', BASE_ATTRIBUTES, '');
  out.push('/** A number in markup: written as a number or as its text. */', 'type Num = number | string;');
  out.push('/** Per tag, the attributes it reads (values are strings in markup; numbers are accepted and stringified). */');
  out.push('export interface HeadlabJSXElements {');
  for (const name of names) {
    const attrs = attributesOf(classes[name]).map((a) => `    ${`'${a.name}'?: ${a.markup}`.replace(/^'([a-z]+)'/, '$1')};`);
    out.push(`  '${tagOf(name)}': HeadlabBaseAttributes${attrs.length ? ` & {\n${attrs.join('\n')}\n  }` : ''};`);
  }
  out.push('}');
  return out.join('\n');
}

// ---------- the code, read by the checker ----------

/** The program of the entry under tsconfig.json; `overlay` ({ 'widgets/x.ts': text }) stands in for files (the tests' edits). */
function program(overlay = {}) {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic() {} },
  );
  const host = ts.createCompilerHost(config.options);
  const texts = new Map(Object.entries(overlay).map(([f, t]) => [path.join(root, f), t]));
  const { getSourceFile, readFile } = host;
  host.readFile = (f) => texts.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, ...rest) =>
    texts.has(f) ? ts.createSourceFile(f, texts.get(f), ts.ScriptTarget.Latest, true) : getSourceFile.call(host, f, ...rest);
  return ts.createProgram(
    [ENTRY, 'widgets/autoload.ts'].map((f) => path.join(root, f)),
    config.options,
    host,
  );
}

const flagsOf = (n) => ts.getCombinedModifierFlags(n);
const tagged = (n, tag) => ts.getJSDocTags(n).some((t) => t.tagName.text === tag);
const inCode = (decl) =>
  !path.relative(root, decl.getSourceFile().fileName).startsWith('..') && !decl.getSourceFile().fileName.includes('/node_modules/');

/** A declaration's doc comment as written (the last one before it), or ''. */
function docOf(node) {
  const docs = node.jsDoc;
  if (!docs?.length) return '';
  const d = docs[docs.length - 1];
  return node.getSourceFile().text.slice(d.getStart(), d.end);
}

class Writer {
  constructor(checker, classes) {
    this.checker = checker;
    this.classes = classes;
    /** symbol → the name it is written under */
    this.written = new Map();
    /** name → symbol, to refuse two declarations of one name */
    this.names = new Map();
    this.out = [];
    /** What each copied declaration came from: [{ name, file }] */
    this.copied = [];
    /** The declarations being written, outermost first (named in a refusal). */
    this.path = [];
  }

  /** The declared symbol behind `symbol` (through imports and re-exports). */
  target(symbol) {
    return symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
  }

  claim(name, symbol) {
    const other = this.names.get(name);
    if (other && other !== symbol) throw new Error(`two declarations are named ${name}: the package can hold one (rename one in the code)`);
    this.names.set(name, symbol);
  }

  /**
   * `node`'s text (from `start`, default its doc comment) with each reference to an OPAQUE type
   * written `unknown` and each type parameter of `substitute` (name → text) replaced; its
   * references to declarations of the code are written first (deps).
   */
  text(node, substitute = new Map(), start = node.getStart(node.getSourceFile(), true), end = node.end) {
    const sf = node.getSourceFile();
    const edits = [];
    const visit = (n) => {
      if (ts.isBlock(n)) return; // a body: values, not the declaration's types
      let id = null;
      if (ts.isTypeReferenceNode(n)) id = ts.isIdentifier(n.typeName) ? n.typeName : leftmost(n.typeName);
      else if (ts.isExpressionWithTypeArguments(n) && ts.isIdentifier(n.expression)) id = n.expression;
      else if (ts.isTypeQueryNode(n)) id = ts.isIdentifier(n.exprName) ? n.exprName : leftmost(n.exprName);
      if (id) {
        if (ts.isTypeReferenceNode(n) && OPAQUE.has(id.text)) {
          edits.push([n.getStart(sf), n.end, 'unknown']);
          return;
        }
        if (ts.isTypeReferenceNode(n) && substitute.has(id.text)) {
          edits.push([n.getStart(sf), n.end, substitute.get(id.text)]);
          return;
        }
        this.dependency(id);
      }
      n.forEachChild(visit);
    };
    visit(node);
    let text = sf.text.slice(start, end);
    for (const [s, e, r] of edits.filter(([s, e]) => s >= start && e <= end).sort((a, b) => b[0] - a[0]))
      text = text.slice(0, s - start) + r + text.slice(e - start);
    return text;
  }

  /** Writes the declaration `id` refers to, unless it is a global, a type parameter or written already. */
  dependency(id) {
    const found = this.checker.getSymbolAtLocation(id);
    if (!found) return;
    const symbol = this.target(found);
    if (symbol.flags & ts.SymbolFlags.TypeParameter) return;
    const decls = (symbol.declarations ?? []).filter(inCode);
    if (!decls.length) return; // a global (Record, Float64Array, HTMLElement…)
    this.write(symbol);
  }

  /** Writes `symbol`'s declaration(s) as the package declares it. */
  write(symbol, name = symbol.name) {
    if (this.written.has(symbol)) return;
    this.claim(name, symbol);
    this.written.set(symbol, name);
    this.path.push(name);
    try {
      this.writeDeclarations(symbol, name);
    } finally {
      this.path.pop();
    }
  }

  writeDeclarations(symbol, name) {
    const decls = symbol.declarations.filter(inCode);
    const cls = decls.find(ts.isClassDeclaration);
    if (cls && this.classes[symbol.name]) return this.out.push(this.elementInterface(cls, name));
    if (cls && BASES[symbol.name]) return this.out.push(this.elementInterface(cls, BASES[symbol.name]));
    for (const d of decls) {
      const file = path.relative(root, d.getSourceFile().fileName);
      this.copied.push({ name, file });
      if (ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d) || (ts.isClassDeclaration(d) && d.getSourceFile().isDeclarationFile))
        this.out.push(this.text(d));
      else if (ts.isFunctionDeclaration(d)) this.out.push(this.signature(d));
      else
        throw new Error(
          `${file}: ${name} is a ${ts.SyntaxKind[d.kind]}, which the package's types cannot copy (needed by ${this.path.join(' → ')})`,
        );
    }
  }

  /** A function's declaration without its body (a .d.ts one as written). */
  signature(fn) {
    if (!fn.body) return this.text(fn);
    const text = this.text(fn, new Map(), fn.getStart(fn.getSourceFile(), true), fn.body.getStart());
    return `${text.trimEnd()};`.replace(/^(\s*(?:\/\*\*[\s\S]*?\*\/\s*)?)export (?!declare)/, '$1export ');
  }

  /** The type text of a member's declared type, or a refusal naming it (the package's types are declared types). */
  typeText(node, member, substitute) {
    if (!node) throw new Error(`${this.where(member)}: declare its type (the package's types are the code's declared types)`);
    return this.text(node, substitute, node.getStart(node.getSourceFile()), node.end);
  }

  where(member) {
    const cls = member.parent;
    return `${path.relative(root, member.getSourceFile().fileName)}: ${cls.name?.text ?? ''}.${member.name?.getText() ?? ''}`;
  }

  /** Parameters as an interface writes them: a default becomes optional. */
  params(fn, substitute) {
    return fn.parameters
      .map((p) => {
        const optional = p.questionToken || p.initializer ? '?' : '';
        return `${p.dotDotDotToken ? '...' : ''}${p.name.getText()}${optional}: ${this.typeText(p.type, fn, substitute)}`;
      })
      .join(', ');
  }

  /** The interface of element (or base) class `cls`, named `name`: its public instance members and its base. */
  elementInterface(cls, name) {
    const checker = this.checker;
    const className = cls.name.text;
    // Generic in State only: a base's other type parameters become their constraints.
    const keep = BASES[className] ? ['State'] : [];
    const substitute = new Map();
    for (const p of cls.typeParameters ?? []) {
      if (keep.includes(p.name.text)) continue;
      substitute.set(p.name.text, p.constraint ? this.text(p.constraint, new Map(), p.constraint.getStart(), p.constraint.end) : 'unknown');
    }
    const heritage = [];
    const ext = cls.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
    let baseType = null;
    if (ext) {
      const baseName = ext.expression.getText();
      if (baseName === ELEMENT_BASE) heritage.push('HTMLElement');
      else {
        const base = this.target(checker.getSymbolAtLocation(ext.expression));
        const baseDecl = base.declarations.find(ts.isClassDeclaration);
        if (!BASES[base.name]) throw new Error(`${className} extends ${base.name}: name its interface in BASES (site/package-types.mjs)`);
        this.write(base);
        const at = (baseDecl.typeParameters ?? []).findIndex((p) => p.name.text === 'State');
        const arg = ext.typeArguments?.[at];
        heritage.push(`${BASES[base.name]}<${arg ? this.text(arg, substitute, arg.getStart(), arg.end) : 'unknown'}>`);
        baseType = checker.getTypeAtLocation(ext);
      }
    }
    const element = this.classes[className];
    const properties = new Set(element ? attributesOf(element).flatMap((a) => (a.property ? [a.property] : [])) : []);
    if (properties.size) heritage.push(`${className}Properties`);

    // The members: the class's own and those of an interface merged with it (event overloads).
    const merged = (this.target(checker.getSymbolAtLocation(cls.name)).declarations ?? []).filter(ts.isInterfaceDeclaration);
    const members = [...cls.members, ...merged.flatMap((i) => i.members)];
    const lines = [];
    const seen = new Set();
    for (const m of members) {
      if (!m.name || ts.isPrivateIdentifier(m.name) || ts.isConstructorDeclaration(m) || ts.isClassStaticBlockDeclaration(m)) continue;
      const flags = ts.canHaveModifiers(m) ? flagsOf(m) : 0;
      if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected | ts.ModifierFlags.Static)) continue;
      const member = m.name.getText();
      if (LIFECYCLE.has(member) || tagged(m, 'internal') || properties.has(member)) continue;
      // A member the base declares is in the base's interface (an override keeps its type).
      const fromInterface = ts.isInterfaceDeclaration(m.parent);
      if (!fromInterface && baseType && checker.getPropertyOfType(baseType, member)) continue;
      const doc = docOf(m);
      const lead = doc ? `  ${doc}\n` : '';
      if (ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m)) {
        if (seen.has(member)) continue;
        seen.add(member);
        const getter = members.find((o) => ts.isGetAccessorDeclaration(o) && o.name.getText() === member);
        const setter = members.find((o) => ts.isSetAccessorDeclaration(o) && o.name.getText() === member);
        const type = getter ? this.typeText(getter.type, getter, substitute) : this.typeText(setter.parameters[0].type, setter, substitute);
        const d = docOf(getter ?? setter) || docOf(setter ?? getter);
        lines.push(`${d ? `  ${d}\n` : ''}  ${setter ? '' : 'readonly '}${member}: ${type};`);
      } else if (ts.isMethodDeclaration(m) || ts.isMethodSignature(m)) {
        // Overloads: their signatures, not the implementation's.
        const overloads = members.filter((o) => (ts.isMethodDeclaration(o) || ts.isMethodSignature(o)) && o.name.getText() === member);
        if (overloads.length > 1 && ts.isMethodDeclaration(m) && m.body) continue;
        const tps = m.typeParameters ? `<${m.typeParameters.map((p) => this.text(p, substitute, p.getStart(), p.end)).join(', ')}>` : '';
        lines.push(
          `${lead}  ${member}${m.questionToken ? '?' : ''}${tps}(${this.params(m, substitute)}): ${this.typeText(m.type, m, substitute)};`,
        );
      } else if (ts.isPropertyDeclaration(m) || ts.isPropertySignature(m)) {
        const readonly = flags & ts.ModifierFlags.Readonly ? 'readonly ' : '';
        lines.push(`${lead}  ${readonly}${member}${m.questionToken ? '?' : ''}: ${this.typeText(m.type, m, substitute)};`);
      } else if (!ts.isIndexSignatureDeclaration(m))
        throw new Error(`${this.where(m)}: a ${ts.SyntaxKind[m.kind]} the package's types cannot write`);
    }
    const typeParams = keep.length ? `<${keep.join(', ')}>` : '';
    const doc = docOf(cls);
    const head = `export interface ${name}${typeParams}${heritage.length ? ` extends ${heritage.join(', ')}` : ''}`;
    return `${doc ? `${doc}\n` : ''}${head} {${lines.length ? `\n${lines.join('\n')}\n` : ''}}`;
  }
}

/** The leftmost identifier of `a.b.c`. */
function leftmost(name) {
  while (!ts.isIdentifier(name)) name = ts.isQualifiedName(name) ? name.left : name.expression;
  return name;
}

/**
 * types/headlab.d.ts as the code gives it; `classes` ({ className: class }, the element classes
 * imported) default to elementClasses(); `overlay` replaces files' text (see program()). After a
 * call, packageTypes.copied lists each declaration copied and its file.
 */
/** The declarations of every name `entryFile` exports, in the order it exports them (a re-exported module's in its order). */
function entryDeclarations(prog, entryFile, classes) {
  const checker = prog.getTypeChecker();
  const writer = new Writer(checker, classes);
  const exports = [];
  const walk = (sf) => {
    for (const st of sf.statements) {
      if (ts.isExportDeclaration(st)) {
        if (!st.exportClause) walk(prog.getSourceFile(checker.getSymbolAtLocation(st.moduleSpecifier).valueDeclaration.fileName));
        else if (ts.isNamedExports(st.exportClause))
          for (const e of st.exportClause.elements) exports.push(checker.getSymbolAtLocation(e.name));
      } else if (st.name && ts.canHaveModifiers(st) && ts.getCombinedModifierFlags(st) & ts.ModifierFlags.Export)
        exports.push(checker.getSymbolAtLocation(st.name));
    }
  };
  walk(prog.getSourceFile(path.join(root, entryFile)));
  for (const symbol of exports) writer.write(writer.target(symbol), symbol.name);
  return writer;
}

/** `text` laid out as ./dev format lays out the repository's TypeScript (.prettierrc.json). */
async function formatted(text, file) {
  const options = await prettier.resolveConfig(file);
  return prettier.format(text, { ...options, filepath: file });
}

export async function packageTypes(classes = null, overlay = {}) {
  classes ??= await elementClasses();
  const writer = entryDeclarations(program(overlay), ENTRY, classes);
  const text = [HEADER, writer.out.join('\n\n'), '', GENERATED_START, generatedDeclarations(classes), GENERATED_END, '', GLOBALS].join(
    '\n',
  );
  packageTypes.copied = writer.copied;
  return formatted(text, PACKAGE_TYPES);
}

export const AUTOLOAD_TYPES = path.join(root, 'types/autoload.d.ts');
const AUTOLOAD_HEADER = `// headlab/autoload: importing it (or loading dist/autoload.js with a script tag) registers just the
// headlab-* elements the page uses, found in the document and watched for as they are added.
// Written from widgets/autoload.ts by \`node site/package-types.mjs\`.
`;

/** types/autoload.d.ts as the code gives it: what widgets/autoload.ts exports. */
export async function autoloadTypes() {
  const writer = entryDeclarations(program(), 'widgets/autoload.ts', {});
  return formatted([AUTOLOAD_HEADER, writer.out.join('\n\n')].join('\n'), AUTOLOAD_TYPES);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let stale = false;
  for (const [file, next] of [
    [PACKAGE_TYPES, await packageTypes()],
    [AUTOLOAD_TYPES, await autoloadTypes()],
  ]) {
    const name = path.relative(root, file);
    if (next === fs.readFileSync(file, 'utf8')) continue;
    if (process.argv.includes('--check')) {
      console.error(`${name} is not current: run node site/package-types.mjs`);
      stale = true;
    } else {
      fs.writeFileSync(file, next);
      console.log(`${name} written`);
    }
  }
  if (stale) process.exit(1);
  console.log(`types/headlab.d.ts: ${packageTypes.copied.length} declarations copied from the code`);
}
