// What the Custom Elements Manifest (site/custom-elements.mjs) says, written for readers and tools:
//   - docs/elements.md: every element's attributes, properties, events, parts and CSS properties,
//     with an example each (committed; tests/unit/element-reference.test.mjs holds it to the
//     manifest, so it cannot fall behind the code);
//   - vscode.html-custom-data.json: VS Code's HTML custom data (settings: "html.customData");
//   - web-types.json: JetBrains' web-types (package.json "web-types");
//   - llms.txt: the elements in a few lines each, for a writing assistant producing markup.
// The last three are written into the bundle folder by the site build (dist/ in the package).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The element declarations of a manifest, by tag name. */
export function elementsOf(manifest) {
  return manifest.modules
    .flatMap((m) => (m.declarations ?? []).filter((d) => d.tagName).map((d) => ({ ...d, module: m.path })))
    .sort((a, b) => a.tagName.localeCompare(b.tagName));
}

/** One line of text (a description's line breaks joined). */
const line = (text = '') => text.replace(/\s*\n\s*/g, ' ').trim();
/** A Markdown table cell: one line, pipes escaped. */
const cell = (text = '') => line(text).replace(/\|/g, '\\|');

/** The quoted values of a union type ("'a' | 'b'"), or null. */
function enumValues(type) {
  const parts = (type ?? '').split('|').map((p) => p.trim());
  return parts.length > 1 && parts.every((p) => /^'[^']*'$/.test(p)) ? parts.map((p) => p.slice(1, -1)) : null;
}

/** Markup that shows the element: the model element it reads, when it reads one. */
export function exampleOf(d) {
  const names = d.attributes.map((a) => a.name);
  const entry = `<script type="module" src="headlab/${d.module.replace(/^dist\//, '')}"></script>`;
  const share = names.includes('share-state') ? ' share-state' : '';
  if (d.tagName === 'headlab-value')
    return `<p>The accuracy is <headlab-value source="digits" name="accuracy" format="percent">about 99%</headlab-value>.</p>`;
  if (names.includes('model') && d.tagName.startsWith('headlab-transformer-') && d.tagName !== 'headlab-transformer-model')
    return [
      entry,
      '<headlab-transformer-model id="m" src="model.pt" config="model.json"></headlab-transformer-model>',
      `<${d.tagName} model="m"${share}></${d.tagName}>`,
    ].join('\n');
  if (names.includes('model') && !names.includes('src'))
    return [
      entry,
      '<headlab-max-digit-model id="digits"></headlab-max-digit-model>',
      `<${d.tagName} model="digits"${share}></${d.tagName}>`,
    ].join('\n');
  return [entry, `<${d.tagName}${share}></${d.tagName}>`].join('\n');
}

/** The fields every widget element has (its base class's: state, error, busy, updateComplete, …), by name. */
function commonFields(elements) {
  const widgets = elements.filter((d) => d.attributes.some((a) => a.name === 'share-state'));
  const names = (d) => new Set((d.members ?? []).filter((m) => m.kind === 'field').map((m) => m.name));
  const first = widgets[0];
  return (first?.members ?? []).filter((m) => m.kind === 'field' && widgets.every((d) => names(d).has(m.name)));
}

/** What an attribute the manifest leaves undescribed means, where every element means the same. */
const GENERIC_ATTRIBUTES = {
  model: 'Id of the model element the figure reads (a transformer figure may sit inside its model element instead).',
  pairs:
    'Location of a prompt-pairs file (`headlab model analyze --pairs` reads the same JSON), resolved against the page: the batch instead of a generator. Never taken from the URL hash.',
};

/** docs/elements.md. */
export function referenceMarkdown(manifest) {
  const elements = elementsOf(manifest);
  const common = commonFields(elements);
  const commonNames = new Set(common.map((m) => m.name));
  const out = [
    '# The elements',
    '',
    `<!-- Written by site/element-reference.mjs from dist/custom-elements.json (node site/element-reference.mjs after ./dev build); do not edit. -->`,
    '',
    `${elements.length} elements. Each is imported alone (\`headlab/<name>\`, the module named below) or all at once (\`headlab\`, or \`headlab/autoload\`, which imports the ones a page uses). Embedding, theming and readiness: [embedding.md](embedding.md).`,
    '',
    ...elements.map((d) => `- [\`<${d.tagName}>\`](#${d.tagName})`),
  ];
  for (const d of elements) {
    out.push('', `## ${d.tagName}`, '', line(d.description), '', `Module: \`${d.module}\`.`, '', '```html', exampleOf(d), '```', '');
    out.push('| attribute | type | description |', '|---|---|---|');
    for (const a of d.attributes)
      out.push(`| \`${a.name}\` | ${a.type ? `\`${cell(a.type.text)}\`` : ''} | ${cell(a.description || GENERIC_ATTRIBUTES[a.name])} |`);
    // Its own fields; those of every widget are listed once, at the end.
    const shared = d.attributes.some((a) => a.name === 'share-state');
    const fields = (d.members ?? []).filter((m) => m.kind === 'field' && !(shared && commonNames.has(m.name) && m.name !== 'state'));
    if (fields.length) {
      out.push('', '| property | type | description |', '|---|---|---|');
      for (const m of fields)
        out.push(
          `| \`${m.name}\`${m.readonly ? ' (read-only)' : ''} | ${m.type ? `\`${cell(m.type.text)}\`` : ''} | ${cell(m.description)} |`,
        );
    }
    for (const e of d.events ?? []) out.push('', `Event \`${e.name}\` (\`${cell(e.type?.text)}\`): ${line(e.description)}`);
    if (d.cssParts?.length) out.push('', `Parts: ${d.cssParts.map((p) => `\`${p.name}\``).join(', ')}.`);
  }
  if (common.length) {
    out.push('', '## Properties of every widget element', '', '| property | description |', '|---|---|');
    for (const m of common)
      if (m.name !== 'state') out.push(`| \`${m.name}\`${m.readonly ? ' (read-only)' : ''} | ${cell(m.description)} |`);
  }
  const first = elements.find((d) => d.cssProperties?.length);
  if (first) {
    out.push('', '## CSS custom properties (every element)', '', '| property | description |', '|---|---|');
    for (const p of first.cssProperties)
      out.push(`| \`${p.name}\` | ${cell(p.description)}${p.default ? ` (default ${p.default})` : ''} |`);
    out.push('', '## Parts (every element)', '', '| part | description |', '|---|---|');
    for (const p of first.cssParts ?? []) out.push(`| \`${p.name}\` | ${cell(p.description)} |`);
  }
  return `${out.join('\n')}\n`;
}

/** What the editors are told of an attribute: its description, its allowed values, whether it is a switch. */
function attributeFacts(a) {
  return {
    name: a.name,
    description: line(a.description || GENERIC_ATTRIBUTES[a.name]) || undefined,
    values: enumValues(a.type?.text),
    boolean: a.type?.text === 'boolean',
  };
}

/** VS Code's HTML custom data (version 1.1). */
export function vscodeCustomData(manifest) {
  return {
    version: 1.1,
    tags: elementsOf(manifest).map((d) => ({
      name: d.tagName,
      description: line(d.description),
      attributes: d.attributes.map(attributeFacts).map(({ name, description, values, boolean }) => ({
        name,
        description,
        ...(values ? { values: values.map((v) => ({ name: v })) } : boolean ? { valueSet: 'v' } : {}),
      })),
    })),
  };
}

/** JetBrains' web-types (schema 2.0). */
export function webTypes(manifest, pkg) {
  return {
    $schema: 'https://json.schemastore.org/web-types',
    name: pkg.name,
    version: pkg.version,
    'description-markup': 'markdown',
    contributions: {
      html: {
        elements: elementsOf(manifest).map((d) => ({
          name: d.tagName,
          description: line(d.description),
          attributes: d.attributes.map(attributeFacts).map(({ name, description, values, boolean }) => ({
            name,
            description,
            value: values ? { type: 'enum', kind: 'plain' } : boolean ? { type: 'boolean', kind: 'no-value' } : { type: 'string' },
            ...(values ? { values: values.map((v) => ({ name: v })) } : {}),
          })),
          events: (d.events ?? []).map((e) => ({ name: e.name, description: line(e.description) })),
          css: { parts: (d.cssParts ?? []).map((p) => ({ name: p.name, description: p.description })) },
        })),
      },
    },
  };
}

/** llms.txt: the elements, their attributes and an example each, as plain text. */
export function llmsText(manifest, pkg) {
  const out = [
    `# ${pkg.name}`,
    '',
    `> ${pkg.description}`,
    '',
    'Custom elements: load one module per element (headlab/<name>.js) or headlab/autoload.js, then write the tags in HTML. Attributes are strings; every widget element takes `share-state` to keep its state in the URL hash. Transformer figures read a <headlab-transformer-model> by its id (`model`); max-digit figures read a <headlab-max-digit-model>. Numbers in prose: <headlab-value source="<element id>" name="<value>">fallback</headlab-value>.',
    '',
    'Prerendered at build time (each figure a picture and a summary without JavaScript, the live widget in its place once the script runs): Astro `integrations: [mdx(), headlab()]` from headlab/astro; Vite `plugins: [headlab()]` from headlab/vite; markdown and MDX `.use(rehypeHeadlab)` from headlab/rehype; Eleventy `eleventyConfig.addPlugin(headlab)` from headlab/eleventy; any folder `npx headlab render <folder>`; Node `renderPage(html)` from headlab/ssr.',
    '',
    '## Elements',
  ];
  for (const d of elementsOf(manifest)) {
    out.push('', `### <${d.tagName}>`, line(d.description));
    for (const a of d.attributes)
      out.push(`- ${a.name}${a.type ? ` (${line(a.type.text)})` : ''}${a.description ? `: ${line(a.description)}` : ''}`);
    out.push('Example:', exampleOf(d));
  }
  return `${out.join('\n')}\n`;
}

/** Writes the three tool files into the bundle folder. */
export function writeElementData(bundleDir, pkg) {
  const manifest = JSON.parse(fs.readFileSync(path.join(bundleDir, 'custom-elements.json'), 'utf8'));
  fs.writeFileSync(path.join(bundleDir, 'vscode.html-custom-data.json'), `${JSON.stringify(vscodeCustomData(manifest), null, 1)}\n`);
  fs.writeFileSync(path.join(bundleDir, 'web-types.json'), `${JSON.stringify(webTypes(manifest, pkg), null, 1)}\n`);
  fs.writeFileSync(path.join(bundleDir, 'llms.txt'), llmsText(manifest, pkg));
}

// node site/element-reference.mjs: docs/elements.md from the built manifest.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'build/site/headlab/custom-elements.json'), 'utf8'));
  fs.writeFileSync(path.join(root, 'docs/elements.md'), referenceMarkdown(manifest));
  console.log('wrote docs/elements.md');
}
