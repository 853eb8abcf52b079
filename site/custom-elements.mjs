// custom-elements.json (the Custom Elements Manifest, schema 1.0.0) for the package, written
// by the site build into the bundle folder (dist/custom-elements.json in the npm package).
// Two sources, cross-checked by tests/wasm/package-node.test.mjs:
//   - the code: the built element classes, imported in Node (which the package allows), give
//     each tag's attributes from its attribute table (widgets/base/attributes.ts): name, type,
//     default, documentation, whether it is shared and the property it gives;
//   - types/headlab.d.ts: each element's interface gives its description, the members no
//     attribute gives (with their doc comments and types) and its state type, carried by `change`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { attributesOf } from './element-tables.mjs';
import { attributeDoc } from './package-types.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Base-level ::part() names every element exposes (widgets/base/headlab-element.ts). */
export const BASE_PARTS = [
  { name: 'body', description: "The widget's content, once the core is ready." },
  { name: 'placeholder', description: 'The "Loading the interactive figure…" box shown before the content.' },
  { name: 'alert', description: 'The message box shown for a bad attribute or a failed load.' },
  { name: 'title', description: "The widget's heading." },
  { name: 'caption', description: 'Explanatory notes and captions inside the widget.' },
  { name: 'chart', description: 'Each SVG figure.' },
  { name: 'table', description: 'Each table of numbers.' },
  { name: 'controls', description: 'Rows and groups of inputs.' },
  { name: 'button', description: 'Every button.' },
  { name: 'exports', description: 'The download controls.' },
];

/** CSS custom properties an author may set on the element (or any ancestor). */
export const CSS_PROPERTIES = [
  {
    name: '--headlab-font-family',
    description: "Font of the widget (default: the page's); chart text too unless --headlab-chart-font-family is set.",
  },
  { name: '--headlab-font-size', description: "Base font size of the widget (default: the page's)." },
  {
    name: '--headlab-line-height',
    description: "Line height of the widget's text (not inherited from the page, so the space headlab.css reserves fits).",
    default: '1.6',
  },
  {
    name: '--headlab-chart-font-family',
    description: 'Font of the text inside charts.',
    default: 'var(--headlab-font-family, system-ui, sans-serif)',
  },
  { name: '--headlab-chart-font-size', description: 'Size of the text inside charts.', default: '12px' },
  ...[
    ['fg', 'text'],
    ['muted', 'secondary text'],
    ['panel', 'widget background'],
    ['control', 'button and input background'],
    ['rule', 'borders and rules'],
    ['focus', 'focus ring and active controls'],
    ['negative', 'negative values (blue)'],
    ['positive', 'positive values (orange)'],
    ['changed', 'a changed value'],
    ['good', 'a correct answer'],
    ['bad', 'an error or wrong answer'],
  ].map(([name, what]) => ({ name: `--headlab-${name}`, description: `Colour of ${what} (light and dark defaults).` })),
];

/** { interfaceName: { description, members: [{ name, type, description, readonly, method }], stateType } } from the .d.ts. */
export function declaredElements(dts = path.join(root, 'types/headlab.d.ts')) {
  const source = ts.createSourceFile(dts, fs.readFileSync(dts, 'utf8'), ts.ScriptTarget.ES2022, true);
  const docOf = (node) =>
    (node.jsDoc ?? [])
      .map((d) => (typeof d.comment === 'string' ? d.comment : (ts.getTextOfJSDocComment(d.comment) ?? '')))
      .join('\n')
      .trim();
  const out = {};
  const visit = (node) => {
    if (
      (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) &&
      /^(Headlab[A-Z]\w+|MaxDigitElementBase|TransformerElementBase)$/.test(node.name.text)
    ) {
      let stateType = null;
      const heritage = ts.isInterfaceDeclaration(node) ? node.heritageClauses?.[0]?.types[0] : node.type;
      if ((heritage && ts.isExpressionWithTypeArguments(heritage)) || (heritage && ts.isTypeReferenceNode(heritage))) {
        stateType = heritage.typeArguments?.[0]?.getText(source) ?? null;
      }
      const members = [];
      if (ts.isInterfaceDeclaration(node)) {
        for (const m of node.members) {
          if (!m.name || !ts.isIdentifier(m.name)) continue;
          members.push({
            name: m.name.text,
            method: ts.isMethodSignature(m),
            type: ts.isMethodSignature(m)
              ? m.getText(source).replace(/^\w+/, '').replace(/;$/, '')
              : (m.type?.getText(source) ?? 'unknown'),
            readonly: Boolean(m.modifiers?.some((x) => x.kind === ts.SyntaxKind.ReadonlyKeyword)),
            description: docOf(m),
          });
        }
      }
      out[node.name.text] = { description: docOf(node), members, stateType };
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The manifest, from the element classes of `bundleDir`/elements.js and the declarations. */
export async function customElementsManifest(bundleDir) {
  const elements = await import(pathToFileURL(path.join(bundleDir, 'elements.js')).href);
  const declared = declaredElements();
  const modules = [];
  for (const [className, cls] of Object.entries(elements).sort(([a], [b]) => a.localeCompare(b))) {
    const tag = `headlab${className.slice('Headlab'.length).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    const name = tag.slice('headlab-'.length);
    const d = declared[className];
    if (!d) throw new Error(`types/headlab.d.ts declares no interface ${className} for <${tag}>`);
    // <headlab-value> is a number inline in the prose, not a widget: no share-state, change event or parts.
    const widget = typeof cls.prototype.figures === 'function';
    const table = attributesOf(cls);
    const attributes = [
      ...table.map((a) => ({
        name: a.name,
        description: `${a.doc}${a.shared ? ' Part of the shareable state (share-state).' : ''}`,
        type: { text: a.property ? a.type : a.markup.replace(/^Num$/, 'number') },
        ...(a.fallback !== undefined ? { default: a.fallback } : {}),
        ...(a.property ? { fieldName: a.property } : {}),
      })),
      ...(widget
        ? [
            {
              name: 'share-state',
              description: "Write the reader's state to the URL hash and restore it from there.",
              type: { text: 'boolean' },
            },
          ]
        : []),
    ];
    // The properties the table gives, as the generated HeadlabXProperties declares them.
    const fromTable = table
      .filter((a) => a.property)
      .map((a) => ({ name: a.property, method: false, type: a.type, readonly: a.readonly, description: attributeDoc(a) }));
    // A widget has, besides its own members, those every element has (HeadlabElementBase: state,
    // error, updateComplete…), with its state type in place of the base's `State`.
    const own = new Set([...fromTable, ...d.members].map((m) => m.name));
    const base = widget
      ? declared.HeadlabElementBase.members
          .filter((m) => m.name !== 'addEventListener' && !own.has(m.name))
          .map((m) => ({ ...m, type: m.type.replace(/\bState\b/g, d.stateType ?? 'unknown') }))
      : [];
    const members = [...fromTable, ...d.members, ...base].map((m) => ({
      kind: m.method ? 'method' : 'field',
      name: m.name,
      ...(m.method ? { signature: m.type } : { type: { text: m.type } }),
      ...(m.readonly ? { readonly: true } : {}),
      ...(m.description ? { description: m.description } : {}),
    }));
    modules.push({
      kind: 'javascript-module',
      path: `dist/${name}.js`,
      declarations: [
        {
          kind: 'class',
          name: className,
          tagName: tag,
          customElement: true,
          description: d.description,
          superclass: { name: 'HTMLElement' },
          attributes,
          members,
          events: widget
            ? [
                {
                  name: 'change',
                  type: { text: `CustomEvent<${d.stateType ?? 'unknown'}>` },
                  description: "Bubbling and composed; detail is the element's state.",
                },
              ]
            : [],
          cssParts: widget ? BASE_PARTS : [],
          cssProperties: widget ? CSS_PROPERTIES : [],
        },
      ],
      exports: [
        { kind: 'js', name: className, declaration: { name: className, module: `dist/${name}.js` } },
        { kind: 'custom-element-definition', name: tag, declaration: { name: className, module: `dist/${name}.js` } },
      ],
    });
  }
  return { schemaVersion: '1.0.0', readme: 'dist/docs/embedding.md', modules };
}

/** Writes `bundleDir`/custom-elements.json; returns its path. */
export async function writeCustomElements(bundleDir) {
  const file = path.join(bundleDir, 'custom-elements.json');
  fs.writeFileSync(file, `${JSON.stringify(await customElementsManifest(bundleDir), null, 2)}\n`);
  return file;
}
