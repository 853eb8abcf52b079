// The element classes of widgets/elements.ts, imported in Node (the classes load there: they
// extend a bare class without a DOM), for what is generated from their attribute tables:
// custom-elements.json's attributes (site/custom-elements.mjs), the element properties, tag map
// and JSX typings of types/headlab.d.ts (site/package-types.mjs), and the tests that read them.
// esbuild bundles the TypeScript in memory; the WASM modules' glue is replaced by a stub (loaded
// only when an element starts, which nothing here does).
import * as esbuild from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

let loaded = null;

/** { className: class } for every element class of widgets/elements.ts, sorted by class name. */
export async function elementClasses() {
  loaded ??= (async () => {
    const out = await esbuild.build({
      entryPoints: [path.join(root, 'widgets/elements.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      target: ['es2022'],
      platform: 'neutral',
      // The WASM modules' glue: a stub (nothing here starts an element).
      plugins: [
        {
          name: 'no-wasm',
          setup(build) {
            build.onResolve({ filter: /^headlab-[a-z-]+-module$/ }, (args) => ({ path: args.path, namespace: 'no-wasm' }));
            build.onLoad({ filter: /.*/, namespace: 'no-wasm' }, () => ({
              contents: 'export default function () { throw new Error("no WASM module in Node"); }',
            }));
          },
        },
      ],
      logLevel: 'error',
    });
    const code = out.outputFiles[0].text;
    const mod = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
    return Object.fromEntries(Object.entries(mod).sort(([a], [b]) => a.localeCompare(b)));
  })();
  return loaded;
}

/** `HeadlabAngleDot` → `headlab-angle-dot`. */
export const tagOf = (className) => `headlab${className.slice('Headlab'.length).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** `learning-rate` → `learningRate`. */
export const camel = (attr) => attr.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

/**
 * Each element's attributes from its table (its bases' included, theirs first): [{ name, property
 * (the camelCase name, or null for an attribute only), type, markup, doc, shared, readonly, fallback }].
 */
export function attributesOf(cls) {
  const chain = [];
  for (let c = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c))
    if (Object.prototype.hasOwnProperty.call(c, 'attributes')) chain.unshift(c.attributes);
  const table = Object.assign({}, ...chain);
  return Object.entries(table).map(([name, s]) => ({
    name,
    property: s.property ? camel(name) : null,
    type: s.type,
    markup: s.markup,
    doc: s.doc,
    shared: s.shared,
    readonly: s.readonly,
    fallback: s.fallback,
  }));
}
