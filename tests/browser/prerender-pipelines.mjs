// Run by tests/browser/package.test.mjs with node inside the installed copy of examples/astro, whose
// node_modules hold unified, remark, rehype and @mdx-js/mdx (Astro's own dependencies) and the
// packed headlab: one small post through each form a pipeline hands headlab/rehype its elements
// in, and pages through headlab/eleventy's transform as Eleventy hands them over.
//   node prerender-pipelines.mjs <out>
// writes <out>/md/index.html (markdown → remark-rehype → headlab/rehype → rehype-stringify, the
// elements as raw HTML text) with its sheets in <out>/md/headlab-snapshot/, and
// <out>/eleventy/posts/{first,second}/index.html (the transform on both pages at once, as Eleventy
// runs transforms; the working folder is Eleventy's output) with theirs in ./headlab-snapshot/; prints JSON: each variant's
// figures (raw text, after rehype-raw, MDX) as a parser reads them, and the warnings.
import fs from 'node:fs';
import path from 'node:path';
import { compile, evaluate } from '@mdx-js/mdx';
import { fromHtml } from 'hast-util-from-html';
import { toHtml } from 'hast-util-to-html';
import headlabEleventy from 'headlab/eleventy';
import rehypeHeadlab from 'headlab/rehype';
import rehypeRaw from 'rehype-raw';
import rehypeStringify from 'rehype-stringify';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

const out = path.resolve(process.argv[2]);

const FIGURES = `<headlab-projection-ablation id="ablation" w-q="[[0,1],[1,0]]"></headlab-projection-ablation>

The weights decide how much of each value is read; the values decide what:

<headlab-value-swap id="swap"></headlab-value-swap>
`;
const POST = `# Prerendered in the pipeline

An attention head compares a query with each key. Swap the query's coordinates and the head
attends to the other token:

${FIGURES}
The end of the post.
`;

/** The page `file` around `body`, loading the package from the copy's node_modules (the working folder, served as the site's root). */
const page = (body, file) => {
  const up = `${path.relative(path.dirname(file), process.cwd()).split(path.sep).join('/')}/`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Prerendered in the pipeline</title>
<link rel="stylesheet" href="${up}node_modules/headlab/dist/headlab.css">
<script type="module" src="${up}node_modules/headlab/dist/autoload.js"></script>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
};

/** The figures of an HTML text as a parser reads them (hast-util-from-html, then written back): one form for every serializer. */
const figures = (html) =>
  [...html.matchAll(/<(headlab-(?!value(?![a-z-]))[a-z-]+)\b[\s\S]*?<\/\1>/g)].map((m) => toHtml(fromHtml(m[0], { fragment: true })));

const warnings = [];
const markdown = async (raw, options) => {
  const p = unified().use(remarkParse).use(remarkRehype, { allowDangerousHtml: true });
  if (raw) p.use(rehypeRaw);
  const file = await p
    .use(rehypeHeadlab, options)
    .use(rehypeStringify, { allowDangerousHtml: true })
    .process({ value: POST, path: path.join(out, 'md/post.md') });
  warnings.push(...file.messages.map(String));
  return String(file);
};

// 1. The elements as raw HTML text (remark-rehype's allowDangerousHtml, no rehype-raw): the page served.
const sheets = path.join(out, 'md/headlab-snapshot');
const rawHtml = await markdown(false, { stylesheetDir: sheets, stylesheetHref: (tag) => `headlab-snapshot/${tag}.css` });
fs.writeFileSync(path.join(out, 'md/index.html'), page(rawHtml, path.join(out, 'md/index.html')));
// 2. Parsed into hast elements first (rehype-raw).
const parsedHtml = await markdown(true, { stylesheetDir: false, stylesheetHref: (tag) => `headlab-snapshot/${tag}.css` });
// 3. MDX: the elements are JSX; compiled and run with a JSX runtime that writes HTML.
const escape = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const text = (c) => (c == null || c === false ? '' : Array.isArray(c) ? c.map(text).join('') : typeof c === 'object' ? c.html : escape(c));
const Fragment = Symbol('Fragment');
const VOID = new Set(['link', 'br', 'img', 'input', 'meta', 'hr']);
function jsx(type, props) {
  const { children, ...attributes } = props;
  if (type === Fragment) return { html: text(children) };
  if (typeof type === 'function') return type(props);
  const attrs = Object.entries(attributes)
    .filter(([, v]) => v !== false && v != null)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`))
    .join('');
  return { html: VOID.has(type) ? `<${type}${attrs}>` : `<${type}${attrs}>${text(children)}</${type}>` };
}
const mdx = await evaluate(
  { value: POST, path: path.join(out, 'md/post.mdx') },
  {
    Fragment,
    jsx,
    jsxs: jsx,
    elementAttributeNameCase: 'html',
    rehypePlugins: [[rehypeHeadlab, { stylesheetDir: false, stylesheetHref: (tag) => `headlab-snapshot/${tag}.css` }]],
  },
);
const mdxHtml = mdx.default({}).html;
// An MDX attribute given as an {expression} is known only when the page runs: left live, with a warning.
const expression = await compile(
  { value: '<headlab-value-swap weights={"0.1 0.2 0.3 0.4"}></headlab-value-swap>\n', path: path.join(out, 'md/expression.mdx') },
  { rehypePlugins: [[rehypeHeadlab, { stylesheetDir: false }]] },
);

// 4. Eleventy: two pages as its markdown (markdown-it) writes them — each figure alone in a <p> —
// through the plugin's transform, both at once.
// Eleventy's output folder is the working folder, the served site's root (the sheets go to its
// headlab-snapshot/, and a URL from the root names a file of it, in Node as in the browser).
const transforms = [];
const output = process.cwd();
headlabEleventy({ directories: { output }, addTransform: (name, fn) => transforms.push({ name, fn }) });
const asMarkdownIt = (body) => body.replace(/^(<headlab-[\s\S]*?<\/headlab-[a-z-]+>)$/gm, '<p>$1</p>');
const posts = {
  first: `<h1>Prerendered in the pipeline</h1>\n${asMarkdownIt(FIGURES)}<p>The end of the post.</p>`,
  // A model's files beside the page (examples/own-model's, copied there by the test as Eleventy's
  // passthrough copy would), named from the site's root and from the page; and a figure drawn on
  // a canvas: its picture is a PNG beside the sheets.
  second: `<h1>A second post</h1>\n<p><headlab-value-swap id="swap" column-b="2"></headlab-value-swap></p>
<p><headlab-transformer-model id="mine" src="/pipelines/eleventy/posts/second/model.safetensors" config="model.json" label="my model"></headlab-transformer-model></p>
<p><headlab-transformer-attention id="attention" model="mine" prompt="3 10 17 24 31 6 3 10 17 24 31 6"></headlab-transformer-attention></p>`,
};

const written = await Promise.all(
  Object.entries(posts).map(([name, body]) => {
    const outputPath = path.join(out, 'eleventy/posts', name, 'index.html');
    return transforms[0].fn.call({ page: { outputPath } }, page(body, outputPath), outputPath).then((result) => [outputPath, result]);
  }),
);
for (const [file, html] of written) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, html);
}
// Not an HTML page: handed back as it is.
const feed = await transforms[0].fn.call({}, '<headlab-value-swap></headlab-value-swap>', path.join(out, 'eleventy/feed.xml'));

process.stdout.write(
  JSON.stringify({
    transforms: transforms.map((t) => t.name),
    raw: figures(rawHtml),
    parsed: figures(parsedHtml),
    mdx: figures(mdxHtml),
    paragraphs: [rawHtml, parsedHtml, mdxHtml].map((h) => [...h.matchAll(/<p>\s*<headlab-/g)].length),
    // Each page: its prerendered figures (a declarative shadow root after the open tag), and those left in a <p>.
    eleventy: written.map(([file, html]) => [
      path.relative(out, file),
      [...html.matchAll(/<headlab-[a-z-]+\b[^>]*><template shadowrootmode="open">/g)].length,
      [...html.matchAll(/<p>\s*<headlab-/g)].length,
    ]),
    feed,
    warnings,
    expression: { warnings: expression.messages.map((m) => m.reason), prerendered: /shadowrootmode/.test(String(expression)) },
  }),
);
