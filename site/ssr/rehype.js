// headlab/rehype: a rehype plugin for markdown and MDX pipelines (unified, Astro's `markdown` and
// `mdx()` options, Next's @next/mdx, Docusaurus…). Every <headlab-*> element of each document's
// tree gets the markup headlab/ssr's renderPage draws for it (site/ssr/render.js, the one
// renderer): a declarative shadow root and a light-DOM figure with its summary, so the page shows
// each figure without JavaScript and the live widget replaces it without moving the page.
//
// A headlab element reaches the plugin in one of three forms, each handled:
//   element             rehype-parse, rehype-raw (HTML parsed into the tree)
//   mdxJsxFlowElement   MDX (`<headlab-x a="1" />` is JSX there; only literal attribute values
//   mdxJsxTextElement   can be rendered: an element with an {expression} attribute is left live)
//   raw                 remark-rehype with allowDangerousHtml and no rehype-raw: the HTML as text
// The elements of one document are rendered together, as one page (a figure names its model
// element by id): each is written out as HTML, in document order, renderPage draws them, and what
// it inserted after each open tag comes back into the tree (as hast nodes, or as raw text for a
// raw node). The snapshot sheets (one per element tag, shared by every document) are written to
// `stylesheetDir` and linked from each shadow root as `stylesheetHref(tag)`; a canvas figure's
// picture (a PNG named by its content) goes beside them, as `imageHref(name)`.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A headlab element's tag: `headlab-` and lowercase letters and dashes. */
const isTag = (name) => typeof name === 'string' && /^headlab-[a-z-]+$/.test(name);
/** The form of a tree node that is a headlab element (null: any other node). */
const kindOf = (node) =>
  node.type === 'element' && isTag(node.tagName)
    ? 'element'
    : (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') && isTag(node.name)
      ? 'mdx'
      : null;

/** HTML's boolean attributes: present (true) or absent in hast, `attr=""` in the DOM. */
const BOOLEAN = new Set(
  'allowfullscreen async autofocus autoplay checked controls default defer disabled formnovalidate hidden inert ismap itemscope loop multiple muted nomodule novalidate open playsinline readonly required reversed selected shadowrootclonable shadowrootdelegatesfocus shadowrootserializable'.split(
    ' ',
  ),
);
/** hast property names whose attribute is not the lowercased name. */
const ATTRIBUTE = { className: 'class', htmlFor: 'for', httpEquiv: 'http-equiv', acceptCharset: 'accept-charset' };

const escapeText = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const kebab = (s) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const camel = (s) => s.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

/** A hast property as its HTML attribute name (`dataFooBar` → `data-foo-bar`, `tabIndex` → `tabindex`). */
function attributeName(property) {
  if (ATTRIBUTE[property]) return ATTRIBUTE[property];
  if (/^(data|aria)[A-Z]/.test(property)) return kebab(property);
  return property.toLowerCase();
}

/** ` name="value"…` of a hast element's properties (false, null and undefined: absent). */
function hastAttributes(properties = {}) {
  let out = '';
  for (const [key, value] of Object.entries(properties)) {
    if (value === false || value === null || value === undefined) continue;
    const name = attributeName(key);
    if (value === true) out += ` ${name}`;
    else out += ` ${name}="${escapeAttribute(Array.isArray(value) ? value.join(' ') : value)}"`;
  }
  return out;
}

/**
 * ` name="value"…` of an MDX JSX element's attributes, or null when one is an expression
 * (`w-q={matrix}`, `{...props}`: known only when the page runs).
 */
function jsxAttributes(attributes = []) {
  let out = '';
  for (const a of attributes) {
    if (a.type !== 'mdxJsxAttribute' || (a.value !== null && a.value !== undefined && typeof a.value !== 'string')) return null;
    out += a.value === null || a.value === undefined ? ` ${a.name}` : ` ${a.name}="${escapeAttribute(a.value)}"`;
  }
  return out;
}

/** HTML's void elements (no closing tag). */
const VOID = new Set('area base br col embed hr img input link meta source track wbr'.split(' '));

/** The HTML of a tree node (hast and MDX JSX; MDX expressions and ESM carry no markup here). */
function toHtml(node) {
  if (node.type === 'text') return escapeText(node.value);
  if (node.type === 'raw') return node.value;
  if (node.type === 'root') return (node.children ?? []).map(toHtml).join('');
  let name;
  let attrs;
  let children = node.children ?? [];
  if (node.type === 'element') {
    name = node.tagName;
    attrs = hastAttributes(node.properties);
    if (name === 'template' && node.content) children = node.content.children;
  } else if (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') {
    if (!node.name) return children.map(toHtml).join('');
    name = node.name;
    attrs = jsxAttributes(node.attributes) ?? '';
  } else return '';
  if (VOID.has(name)) return `<${name}${attrs}>`;
  return `<${name}${attrs}>${children.map(toHtml).join('')}</${name}>`;
}

/** A DOM attribute as a hast property: `class` → className (a list), `data-x`/`aria-x` camel-cased, booleans true. */
function hastProperty(name, value, svg) {
  if (name === 'class') return ['className', value.split(/\s+/).filter(Boolean)];
  if (/^(data|aria)-/.test(name)) return [camel(name), value];
  if (!svg && value === '' && BOOLEAN.has(name)) return [name, true];
  return [name, value];
}

/**
 * A DOM node (happy-dom's, from renderPage's output) as a hast node. A <template>'s content is
 * its `content` (hast's form, which hast-util-to-html writes) and also its children (which
 * hast-util-to-estree, MDX's compiler, writes): the same nodes.
 */
function fromDom(node, svg = false) {
  if (node.nodeType === 3) return { type: 'text', value: node.data };
  if (node.nodeType === 8) return { type: 'comment', value: node.data };
  if (node.nodeType !== 1) return null;
  const inSvg = svg || node.localName === 'svg';
  const properties = {};
  for (const a of node.attributes) {
    const [key, value] = hastProperty(a.name, a.value, inSvg);
    properties[key] = value;
  }
  const source = node.localName === 'template' && node.content ? node.content.childNodes : node.childNodes;
  const children = [...source].map((c) => fromDom(c, inSvg && node.localName !== 'foreignObject')).filter(Boolean);
  const out = { type: 'element', tagName: node.localName, properties, children };
  if (node.localName === 'template' && !inSvg) out.content = { type: 'root', children };
  return out;
}

/** The headlab elements of `tree` in document order, outermost first (a nested one after its parent). */
function headlabNodes(tree) {
  const out = [];
  const walk = (node) => {
    if (kindOf(node)) out.push(node);
    for (const c of node.children ?? []) walk(c);
  };
  walk(tree);
  return out;
}

/** Does this element carry a snapshot already (its first child a declarative shadow root)? */
function rendered(node) {
  const first = (node.children ?? []).find((c) => c.type !== 'text' || c.value.trim());
  return (
    first?.type === 'element' &&
    first.tagName === 'template' &&
    Boolean(first.properties?.shadowRootMode ?? first.properties?.shadowrootmode)
  );
}

/**
 * The closing tags of the headlab elements `html` opens and does not close (markdown's inline
 * HTML is one raw node per tag: `<headlab-x id="a">` and `</headlab-x>` apart), so that each
 * piece is whole in the page rendered; they are taken off again after.
 */
function closers(html) {
  const open = [];
  for (const m of html.matchAll(/<(\/?)(headlab-[a-z-]+)\b[^>]*>/g)) {
    if (!m[1]) open.push(m[2]);
    else if (open.at(-1) === m[2]) open.pop();
  }
  return open
    .reverse()
    .map((t) => `</${t}>`)
    .join('');
}

/** A raw node that only closes headlab elements (`</headlab-x>`), or whitespace text. */
const filler = (node) =>
  (node.type === 'text' && !node.value.trim()) || (node.type === 'raw' && /^\s*(<\/headlab-[a-z-]+>\s*)+$/.test(node.value));

/**
 * Takes each paragraph that holds only prerendered figures out of its <p>. Markdown writes an
 * element whose tag it does not know as a block (`<headlab-x …></headlab-x>` on its own line) in
 * a paragraph, and an HTML parser closes a <p> at the first <div> after it: the figure's
 * light-DOM copy (`<div class="hl-snapshot">`) would end up beside the element, not in it.
 */
function unwrapParagraphs(tree, drawn) {
  const walk = (node) => {
    if (!node.children) return;
    node.children = node.children.flatMap((c) => {
      if (
        c.type === 'element' &&
        c.tagName === 'p' &&
        c.children.some((k) => drawn.has(k)) &&
        c.children.every((k) => drawn.has(k) || filler(k))
      )
        return c.children.filter((k) => !(k.type === 'text' && !k.value.trim()));
      walk(c);
      return [c];
    });
  };
  walk(tree);
}

/** Separates the document's pieces in the page handed to renderPage (a comment: no element, no layout). */
const SEPARATOR = '\n<!--headlab-rehype-piece-->\n';

/**
 * The plugin. options:
 *  - url: the page's file path or file: URL against which the elements' data files (src, config…)
 *    resolve, or a function of the vfile giving it (default: the document's own path, else
 *    index.html in the working folder);
 *  - root: the folder the site serves at its root, where a URL from the root (`/data/m.json`)
 *    names a file (default `public` in the working folder, if there is one; false: none);
 *  - maxWidth, margin: the figures' column in px, as headlab/astro's (default: no maximum, 8);
 *  - stylesheetDir: where each tag's snapshot sheet is written (default `public/headlab-snapshot`
 *    in the working folder, which Vite, Astro and Next serve at /headlab-snapshot/); false: not
 *    written (read them from the transformer's `data.headlabStylesheets` instead);
 *  - stylesheetHref(tag): the sheet's URL in the page (default `/headlab-snapshot/<tag>.css`);
 *  - imageHref(name): the URL of a canvas figure's picture, written beside the sheets (default
 *    `/headlab-snapshot/<name>`; with stylesheetDir false, `data.headlabImages`: name → PNG bytes).
 */
export default function rehypeHeadlab(options = {}) {
  const {
    maxWidth = Infinity,
    margin = 8,
    stylesheetDir = path.resolve('public/headlab-snapshot'),
    stylesheetHref = (tag) => `/headlab-snapshot/${tag}.css`,
    imageHref = (name) => `/headlab-snapshot/${name}`,
  } = options;
  const publicDir = path.resolve('public');
  const siteRoot = options.root === false ? null : (options.root ?? (fs.existsSync(publicDir) ? publicDir : null));
  // One sheet per tag for every document this plugin instance renders (render.js's perTag).
  const perTag = new Map();
  const written = new Map();
  return async function transformer(tree, file) {
    const nodes = headlabNodes(tree);
    const raws = [];
    const findRaws = (node) => {
      if (node.type === 'raw' && /<headlab-[a-z-]+/.test(node.value)) raws.push(node);
      for (const c of node.children ?? []) findRaws(c);
    };
    findRaws(tree);
    if (!nodes.length && !raws.length) return;
    // The pieces in document order: each outermost headlab element (its nested ones inside it)
    // and each raw node holding one. An element with an expression attribute stays live only.
    const pieces = [];
    const order = (node) => {
      if (node.type === 'raw' && raws.includes(node)) pieces.push({ node, html: node.value, closers: closers(node.value) });
      else if (kindOf(node)) {
        if (kindOf(node) === 'mdx' && jsxAttributes(node.attributes) === null) {
          file.message?.(`<${node.name}> has an {expression} attribute: not prerendered (the live widget will show it)`, node);
          return;
        }
        pieces.push({ node, html: toHtml(node) });
        return;
      }
      for (const c of node.children ?? []) order(c);
    };
    order(tree);
    if (!pieces.length) return;
    const pageUrl =
      typeof options.url === 'function'
        ? options.url(file)
        : (options.url ?? (file?.path ? path.resolve(file.cwd ?? process.cwd(), file.path) : path.resolve('index.html')));
    const { renderPage } = await import('./render.js');
    const out = await renderPage(pieces.map((p) => p.html + (p.closers ?? '')).join(SEPARATOR), {
      url: /^file:/.test(pageUrl) ? pageUrl : pathToFileURL(pageUrl).href,
      root: siteRoot ?? undefined,
      columnWidth: (w) => Math.min(maxWidth, w - 2 * margin),
      stylesheetHref,
      imageHref,
      perTag,
    });
    for (const e of out.errors ?? [])
      file.message?.(`<${e.tag}>${e.id ? ` id="${e.id}"` : ''}: not prerendered (the live widget will show it): ${e.message}`);
    const parts = out.html.split(SEPARATOR);
    if (parts.length !== pieces.length) throw new Error(`headlab/rehype: ${file?.path ?? 'document'}: the rendered page lost its pieces`);
    const template = globalThis.document.createElement('template');
    const drawnNodes = new Set();
    for (const [i, piece] of pieces.entries()) {
      if (piece.node.type === 'raw') {
        const part = piece.closers && parts[i].endsWith(piece.closers) ? parts[i].slice(0, -piece.closers.length) : parts[i];
        if (part !== piece.node.value) drawnNodes.add(piece.node);
        piece.node.value = part;
        continue;
      }
      // The piece as the renderer wrote it, parsed: its headlab elements in document order are
      // the tree's, and what follows an element's open tag now and did not before is its snapshot.
      template.innerHTML = parts[i];
      const drawn = [...template.content.querySelectorAll('*')].filter((e) => isTag(e.localName));
      const mine = [piece.node, ...headlabNodes({ children: piece.node.children ?? [] })];
      if (drawn.length !== mine.length) {
        file.message?.(
          `<${mine[0].tagName ?? mine[0].name}>: its HTML holds other headlab elements than its tree: not prerendered`,
          piece.node,
        );
        continue;
      }
      for (const [k, node] of mine.entries()) {
        if (rendered(node)) continue;
        const first = drawn[k].firstElementChild;
        if (first?.localName !== 'template' || !first.hasAttribute('shadowrootmode')) continue;
        const added = [fromDom(first)];
        const next = first.nextElementSibling;
        if (next?.localName === 'div' && next.getAttribute('slot') === 'hl-snapshot') added.push(fromDom(next));
        node.children = [...added, ...(node.children ?? [])];
        drawnNodes.add(node);
      }
    }
    template.innerHTML = '';
    unwrapParagraphs(tree, drawnNodes);
    // Each tag's sheet, rewritten when it grew (a later document's hoisted styles are added to it).
    if (file?.data) {
      file.data.headlabStylesheets = out.stylesheets;
      file.data.headlabImages = out.images ?? new Map();
    }
    if (stylesheetDir === false) return;
    // A canvas's picture (named by its content: written once).
    for (const [name, bytes] of out.images ?? []) {
      if (written.has(name)) continue;
      fs.mkdirSync(stylesheetDir, { recursive: true });
      fs.writeFileSync(path.join(stylesheetDir, name), bytes);
      written.set(name, true);
    }
    for (const [tag, css] of out.stylesheets) {
      if (written.get(tag) === css) continue;
      fs.mkdirSync(stylesheetDir, { recursive: true });
      fs.writeFileSync(path.join(stylesheetDir, `${tag}.css`), css);
      written.set(tag, css);
    }
  };
}
