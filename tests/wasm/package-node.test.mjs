// The npm package in Node, as server rendering (Astro, an MDX post, a Vite SSR build) meets
// it: every JavaScript entry point of package.json "exports" imports with no DOM, throws
// nothing and defines nothing; with a stand-in custom-element registry each per-element
// entry registers exactly its element and `headlab` registers all of them; and
// dist/custom-elements.json agrees with the classes and with types/headlab.d.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { customElementsManifest } from '../../site/custom-elements.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const dist = path.join(root, 'dist');
const target = (t) => (typeof t === 'string' ? t : t.default);
/** [specifier, file] for every JavaScript module the package exports. */
const jsEntries = Object.entries(pkg.exports)
  .filter(([key, t]) => target(t).endsWith('.js') && key !== './headlab-worker.js')
  .map(([key, t]) => [key === '.' ? 'headlab' : `headlab${key.slice(1)}`, path.join(root, target(t))]);
/** The entries that are not one element's: every element, the classes, the autoloader, and the Node-only renderers. */
const NOT_ONE_ELEMENT = [
  'headlab',
  'headlab/headlab.js',
  'headlab/elements',
  'headlab/autoload',
  'headlab/ssr',
  'headlab/astro',
  'headlab/rehype',
  'headlab/vite',
  'headlab/eleventy',
];
const elementEntries = jsEntries.filter(([spec]) => !NOT_ONE_ELEMENT.includes(spec));

const TAGS = [
  'angle-dot',
  'attention-bars',
  'attention-patch',
  'attribution-patching',
  'basis-rotation',
  'choice-quiz',
  'circuit-faithfulness',
  'feature-recovery',
  'head-ablation',
  'head-contributions',
  'head-svd',
  'interventions',
  'logit-lens',
  'max-digit-mechanism',
  'max-digit-model',
  'path-patching',
  'projection-ablation',
  'qk-attribution',
  'query-key-canvas',
  'score-ramps',
  'seed-grid',
  'subspace-accuracy',
  'training-replay',
  'transformer-ablation',
  'transformer-attention',
  'transformer-attribution',
  'transformer-circuits',
  'transformer-composition',
  'transformer-model',
  'transformer-patching',
  'transformer-training',
  'value',
  'value-swap',
].map((n) => `headlab-${n}`);
const classOf = (tag) => tag.replace(/(^|-)([a-z])/g, (_, __, c) => c.toUpperCase());

/** Runs `code` (an ES module) in a fresh Node process and returns its JSON output. */
function runModule(code) {
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }));
}

test('every JavaScript entry point imports in Node with no DOM: nothing thrown, no global added, nothing defined', () => {
  assert.equal(elementEntries.length, TAGS.length, elementEntries.map(([s]) => s).join(' '));
  const out = runModule(`
    const before = new Set(Object.getOwnPropertyNames(globalThis));
    const results = {};
    for (const [spec, file] of ${JSON.stringify(jsEntries.map(([s, f]) => [s, pathToFileURL(f).href]))}) {
      try { results[spec] = Object.keys(await import(file)).sort(); } catch (err) { results[spec] = 'threw: ' + err.message; }
    }
    const added = Object.getOwnPropertyNames(globalThis).filter((k) => !before.has(k));
    console.log(JSON.stringify({ results, added, customElements: typeof customElements, HTMLElement: typeof HTMLElement }));
  `);
  assert.deepEqual(out.added, []);
  assert.equal(out.customElements, 'undefined');
  assert.equal(out.HTMLElement, 'undefined');
  for (const [spec, keys] of Object.entries(out.results)) assert.ok(Array.isArray(keys), `${spec}: ${keys}`);
  // headlab exports every class and the core helpers; headlab/elements the classes only; headlab/<name> its class.
  for (const spec of ['headlab', 'headlab/headlab.js']) {
    for (const name of [...TAGS.map(classOf), 'getCore', 'HeadlabError', 'WorkerClient', 'matrix'])
      assert.ok(out.results[spec].includes(name), `${spec} lacks ${name}`);
  }
  assert.deepEqual(out.results['headlab/elements'], TAGS.map(classOf).sort());
  assert.deepEqual(out.results['headlab/autoload'], ['discover']);
  // The renderers install their DOM only when asked to render (above: no global added on import).
  assert.ok(out.results['headlab/ssr'].includes('renderPage'), `headlab/ssr: ${out.results['headlab/ssr']}`);
  assert.deepEqual(out.results['headlab/astro'], ['default']);
  assert.deepEqual(out.results['headlab/rehype'], ['default']);
  assert.deepEqual(out.results['headlab/vite'], ['default']);
  assert.deepEqual(out.results['headlab/eleventy'], ['default', 'headlabTransform']);
  for (const [spec] of elementEntries) assert.deepEqual(out.results[spec], [classOf(`headlab-${spec.slice('headlab/'.length)}`)], spec);
});

test('in a browser-like realm each per-element entry registers exactly its element; headlab registers all, twice without error', () => {
  // A stand-in registry and HTMLElement (what a browser has) installed before the import.
  const registry = `
    const defined = new Map();
    globalThis.HTMLElement = class {};
    globalThis.customElements = {
      get: (tag) => defined.get(tag),
      define(tag, cls) { if (defined.has(tag)) throw new Error(tag + ' defined twice'); defined.set(tag, cls); },
    };`;
  for (const [spec, file] of elementEntries) {
    const tags = runModule(`${registry}
      await import(${JSON.stringify(pathToFileURL(file).href)});
      console.log(JSON.stringify([...defined.keys()]));`);
    assert.deepEqual(tags, [`headlab-${spec.slice('headlab/'.length)}`], spec);
  }
  const all = runModule(`${registry}
    const one = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'value-swap.js')).href)});
    const everything = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'headlab.js')).href)});
    const sameClass = one.HeadlabValueSwap === everything.HeadlabValueSwap && defined.get('headlab-value-swap') === one.HeadlabValueSwap;
    console.log(JSON.stringify({ tags: [...defined.keys()].sort(), sameClass }));`);
  assert.deepEqual(all, { tags: TAGS, sameClass: true });
  const none = runModule(`${registry}
    await import(${JSON.stringify(pathToFileURL(path.join(dist, 'elements.js')).href)});
    console.log(JSON.stringify([...defined.keys()]));`);
  assert.deepEqual(none, []);
});

test('custom-elements.json: current, every element and observed attribute, and agreeing with types/headlab.d.ts', async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(dist, 'custom-elements.json'), 'utf8'));
  assert.equal(pkg.customElements, 'dist/custom-elements.json');
  // Generated from the classes now in dist/ and the .d.ts now in types/: not stale.
  assert.deepEqual(manifest, await customElementsManifest(dist));
  const declarations = manifest.modules.flatMap((m) => m.declarations);
  assert.deepEqual(declarations.map((d) => d.tagName).sort(), TAGS);
  const classes = await import(pathToFileURL(path.join(dist, 'elements.js')).href);
  for (const d of declarations) {
    const cls = classes[d.name];
    const observed = cls.observedAttributes ?? [];
    const widget = d.tagName !== 'headlab-value'; // <headlab-value>: a number in the prose, not a widget
    // Every attribute the code observes is in the manifest, and named in the element's doc in the .d.ts.
    assert.deepEqual(
      d.attributes.map((a) => a.name),
      [...observed, ...(widget ? ['share-state'] : [])],
      d.tagName,
    );
    // Every attribute is documented (its table's doc).
    for (const a of d.attributes) assert.ok(a.description.length > 10, `attribute "${a.name}" of <${d.tagName}> has no description`);
    // Every writable property the .d.ts declares is an accessor of the class.
    const accessors = new Set();
    for (let p = cls.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p))
      for (const k of Object.getOwnPropertyNames(p)) accessors.add(k);
    for (const m of d.members) assert.ok(accessors.has(m.name), `<${d.tagName}> declares ${m.name}, which the class lacks`);
    // The readiness promise of every element (<headlab-value> included).
    const member = (name) => d.members.find((m) => m.name === name);
    assert.equal(member('updateComplete')?.type.text, 'Promise<boolean>', d.tagName);
    if (!widget) continue;
    // And what every widget has (types/headlab.d.ts, HeadlabElementBase), typed with its state.
    assert.match(member('state')?.type.text ?? '', /^\w+State \| null$/, d.tagName);
    assert.ok(
      d.events.some((e) => e.name === 'change' && /^CustomEvent<\w+State>$/.test(e.type.text)),
      d.tagName,
    );
    assert.ok(d.cssParts.some((p) => p.name === 'body'));
  }
});

test('headlab/autoload knows every element: each tag imports its own entry point', () => {
  const js = fs.readFileSync(path.join(dist, 'autoload.js'), 'utf8');
  const loaders = [...js.matchAll(/"(headlab-[a-z-]+)":\(\)=>import\("\.\/([a-z-]+)\.js"\)/g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(
    loaders.sort(([a], [b]) => a.localeCompare(b)),
    [...TAGS].sort().map((t) => [t, t.slice('headlab-'.length)]),
  );
});

test('the element reference (docs/elements.md), editor data and llms.txt: current with the manifest, every element and attribute', async () => {
  const { referenceMarkdown, vscodeCustomData, webTypes, llmsText, elementsOf } = await import('../../site/element-reference.mjs');
  const manifest = JSON.parse(fs.readFileSync(path.join(dist, 'custom-elements.json'), 'utf8'));
  // docs/elements.md is committed: regenerated (node site/element-reference.mjs) whenever an element changes.
  const md = fs.readFileSync(path.join(root, 'docs/elements.md'), 'utf8');
  assert.equal(md, referenceMarkdown(manifest), 'docs/elements.md is stale: node site/element-reference.mjs');
  const read = (f) => fs.readFileSync(path.join(dist, f), 'utf8');
  const data = JSON.parse(read('vscode.html-custom-data.json'));
  const llms = read('llms.txt');
  assert.deepEqual(data, JSON.parse(JSON.stringify(vscodeCustomData(manifest))));
  assert.deepEqual(JSON.parse(read('web-types.json')), JSON.parse(JSON.stringify(webTypes(manifest, pkg))));
  assert.equal(llms, llmsText(manifest, pkg));
  // A writing assistant learns how to prerender: every renderer entry the package exports is named.
  for (const spec of ['headlab/ssr', 'headlab/astro', 'headlab/vite', 'headlab/rehype', 'headlab/eleventy']) {
    assert.ok(pkg.exports[`./${spec.slice('headlab/'.length)}`], `package.json exports ${spec}`);
    assert.ok(llms.includes(`from ${spec}`), `llms.txt names ${spec}`);
  }
  assert.equal(pkg['web-types'], './dist/web-types.json');
  // The reference ships with the bundle (site/package-docs.mjs writes dist/docs/).
  assert.ok(pkg.files.includes('dist/'));
  assert.ok(fs.existsSync(path.join(root, 'dist/docs/elements.md')));
  const elements = elementsOf(manifest);
  assert.deepEqual(
    data.tags.map((t) => t.name),
    elements.map((d) => d.tagName),
  );
  for (const d of elements) {
    const tag = data.tags.find((t) => t.name === d.tagName);
    assert.deepEqual(
      tag.attributes.map((a) => a.name),
      d.attributes.map((a) => a.name),
      d.tagName,
    );
    assert.ok(llms.includes(`### <${d.tagName}>`), `llms.txt names <${d.tagName}>`);
    assert.ok(md.includes(`## ${d.tagName}`), `docs/elements.md has <${d.tagName}>`);
  }
  // An enumerated attribute offers its values to the editor.
  const matrix = data.tags.find((t) => t.name === 'headlab-angle-dot').attributes.find((a) => a.name === 'matrix');
  assert.deepEqual(
    matrix.values.map((v) => v.name),
    ['cosine', 'dot'],
  );
});
