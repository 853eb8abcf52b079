// headlab/ssr: every <headlab-*> element of an HTML page rendered in Node, in its default state,
// into the markup the live element draws first — a declarative shadow root (its shadow DOM, the
// controls disabled copies) and a light-DOM copy of its figure (SVG and text summary) — with the
// WASM core and the worker's tasks run in this process (no browser).
//
//   <headlab-x …>
//     <template shadowrootmode="open">
//       <link rel="stylesheet" href="…/headlab-x.css">   the element's own sheets, and one class per
//       …the shadow DOM as drawn…                        hoisted inline style (strict CSP)
//     </template>
//     <div class="hl-snapshot" slot="hl-snapshot"><svg role="img">…</svg><p>summary</p></div>
//   </headlab-x>
//
// The page is rendered as a whole (a figure names its model element by id, a <headlab-value> its
// source). A widget drawn for the width of its box is drawn at each of `widths` (the element as
// wide as its column in such a window, columnWidth); copies alike at neighbouring widths are
// written once, each shown from its window width up to the next.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installEnvironment, layoutPending, setLayoutWidth, setSiteRoot, SITE_ORIGIN } from './environment.js';
import { collect, elementsOf, snapshotMarkup, snapshotStylesheet } from './snapshot-markup.js';

/**
 * Window widths at which each element is drawn (px): the narrowest supported window, a phone, a
 * tablet, a small laptop and a desktop; each drawing is shown from its width up to the next
 * (hl-w-<from>-<to> classes), the narrowest below it too.
 */
export const CAPTURE_WIDTHS = [320, 360, 720, 1000, 1280];

/**
 * The width of an element's column in a window `w` px wide, for a page whose content is at most
 * `maxWidth` px wide with `margin` px either side (default: a plain page, the body's 8 px margin,
 * no maximum).
 */
export function bodyColumn({ maxWidth = Infinity, margin = 8 } = {}) {
  return (w) => Math.min(maxWidth, w - 2 * margin);
}

let elements = null;
let windowObject = null;
/** The last render asked for (renderPage runs each after it). */
let queue = Promise.resolve();

/** The window with the widgets defined (once per process). */
async function environment() {
  if (!windowObject) {
    let tasks = null;
    windowObject = installEnvironment((message, port) => tasks.then((m) => m.runTask(message, port)));
    tasks = import('./elements.js');
    elements = await tasks;
  }
  await elements;
  return windowObject;
}

/** An open tag's attributes (a quoted value may hold `>`). */
const ATTRIBUTES = String.raw`(?:"[^"]*"|'[^']*'|[^'">])*`;
/** A figure (any headlab element but <headlab-value>, inline text) from its open tag to its close, holding no paragraph. */
const FIGURE = String.raw`<(?<tag>headlab-(?!value(?![a-z-]))[a-z-]+)\b${ATTRIBUTES}>(?:(?!<\/?p\b)[\s\S])*?<\/\k<tag>>`;
const ALONE_IN_PARAGRAPH = new RegExp(String.raw`<p>\s*((?:\s*${FIGURE})+)\s*<\/p>`, 'g');

/**
 * `html` with each paragraph that holds only figures (whitespace aside) replaced by the figures.
 * Markdown writes an element whose tag it does not know, on its own line
 * (`<headlab-x …></headlab-x>`), as a paragraph (CommonMark's raw HTML in a paragraph: markdown-it,
 * remark, Astro's .md pages). An HTML parser closes an open <p> at the first <div> and leaves the
 * figure with it, so the figure's light-DOM copy (`<div class="hl-snapshot">`) would land beside the
 * element, shown as a second picture, and the paragraph's end tag would open an empty <p>. A
 * <headlab-value> is a number in a sentence: its paragraph stays.
 */
export function unwrapFigures(html) {
  return html.replace(ALONE_IN_PARAGRAPH, '$1');
}

/** Resolves when every widget of the document shows its default state (or an error), and no work or size report is pending. */
async function settled(document) {
  const widgets = elementsOf(document).filter((e) => e.shadowRoot);
  for (const m of widgets) if (m.localName === 'headlab-max-digit-model') m.load?.();
  for (;;) {
    const ok = await Promise.all(widgets.map((e) => e.updateComplete));
    void ok;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    if (!layoutPending() && widgets.every((e) => !e.updatePending && !e.busy)) return;
  }
}

/**
 * Renders every headlab-* element of `html` (a whole page or a fragment).
 * options: url (the page's file: URL or path, against which data files resolve), root (the folder
 * served as the site's root, when the page is one of a site's: a URL from the root, `/data/m.json`,
 * names a file under it), widths
 * (CAPTURE_WIDTHS), columnWidth(windowWidth, element) (the element's width in such a window:
 * bodyColumn()), stylesheetHref(tag) (where the page links the
 * element's snapshot sheet; default `headlab-snapshot/<tag>.css` beside the page), imageHref(name)
 * (where it finds a canvas's picture; default `headlab-snapshot/<name>`), perTag (a Map
 * shared by the pages of one site, so that each tag has one sheet for all of them).
 * Returns { html, stylesheets: Map<tag, css> (every tag perTag holds), images: Map<name, PNG
 * bytes> (the page's canvases' pictures, for the caller to write), elements: number,
 * errors: [{ tag, id, message }] (elements that show a message instead of their figure: left
 * without a snapshot), items
 * (what was collected of each element: { tag, html, sheets, svg, summary }) }.
 */
export function renderPage(html, options = {}) {
  // One page at a time: the window, its body and the layout width are this process's one
  // browser, and a build tool (Eleventy, a bundler's plugin hooks) may render pages concurrently.
  const run = queue.then(() => renderOne(html, options));
  queue = run.catch(() => {});
  return run;
}

async function renderOne(html, options) {
  const window = await environment();
  const fileUrl = options.url ? (/^file:/.test(options.url) ? options.url : pathToFileURL(options.url).href) : null;
  // A page in a site folder (options.root) renders at its place in the site, so that a URL from the
  // site's root (`/data/m.json`) names a file of the folder, as the built site serves it.
  const root = options.root ? path.resolve(options.root) : null;
  const url = root
    ? `${SITE_ORIGIN}/${fileUrl ? path.relative(root, fileURLToPath(fileUrl)).split(path.sep).map(encodeURIComponent).join('/') : 'index.html'}`
    : (fileUrl ?? 'file:///index.html');
  const widths = options.widths ?? CAPTURE_WIDTHS;
  // Rows of drawings keep their drawn widths in wider windows (snapshot-markup.js, keepRowsAsDrawn);
  // off only to compare the markup with what a live element draws first.
  const keepRows = options.keepRows ?? true;
  const columnWidth = options.columnWidth ?? bodyColumn();
  const href = options.stylesheetHref ?? ((tag) => `headlab-snapshot/${tag}.css`);
  const imageHref = options.imageHref ?? ((name) => `headlab-snapshot/${name}`);
  if (!/<headlab-[a-z-]+/.test(html)) return { html, stylesheets: new Map(), images: new Map(), elements: 0, errors: [] };
  // A figure alone in a markdown paragraph is taken out of it (every caller: the CLI, headlab/astro,
  // headlab/vite, headlab/eleventy; headlab/rehype does the same in its tree).
  html = unwrapFigures(html);
  window.happyDOM.setURL(url);
  setSiteRoot(root);
  const document = window.document;
  const body = /<body\b[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  // Scripts do not run here (the page's own scripts are the browser's business).
  // Parsed inert first (a template), then inserted: each element is upgraded with its children in
  // place, as a browser's parser upgrades it after them (the quiz reads its slotted children when
  // connected; happy-dom's innerHTML connected it before they were parsed).
  const inert = document.createElement('template');
  inert.innerHTML = body.replace(/<script\b[\s\S]*?<\/script>/gi, '');
  document.body.replaceChildren(document.importNode(inert.content, true));
  // One drawing per window width, widest first: every element given the width of its column
  // there (environment.js measures the boxes inside it), the observers told, the widgets settled.
  const captures = [];
  const widest = Math.max(...widths);
  try {
    // Laid out before the first render, as a browser lays a page out before the widgets' first
    // frame: a widget that reads its width once, on its first render, reads the window's.
    setLayoutWidth((element) => columnWidth(widest, element));
    await settled(document);
    for (const width of [...widths].sort((a, b) => b - a)) {
      setLayoutWidth((element) => columnWidth(width, element));
      await settled(document);
      // The light-DOM figure (SVG and summary) from the widest drawing only (snapshotMarkup's).
      captures.push({ width, items: collect(document, width, { keepRows, figures: width === widest }) });
    }
  } finally {
    setLayoutWidth(null);
    setSiteRoot(null);
  }
  // An element showing a message instead of its figure (a bad attribute, a missing data file).
  // Such an element gets no snapshot (its page keeps the space reserved for it, and the live
  // widget shows the message); the caller is told.
  const errors = [];
  elementsOf(document).forEach((e, i) => {
    if (!e.shadowRoot || !e.error) return;
    errors.push({ tag: e.localName, id: e.id, message: e.error });
    for (const c of captures) c.items[i].html = '';
  });
  const perTag = options.perTag ?? new Map();
  const out = snapshotMarkup(html, captures, { perTag, href, imageHref, file: url });
  document.body.innerHTML = '';
  const stylesheets = new Map([...perTag].map(([tag, entry]) => [tag, snapshotStylesheet(entry)]));
  return {
    html: out.html,
    stylesheets,
    images: out.images,
    elements: out.elements,
    errors,
    items: captures.find((c) => c.width === Math.max(...widths)).items,
    captures,
  };
}

/** A stable short name for content (the snapshot's pictures, if any, are named by it). */
export const contentName = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);
