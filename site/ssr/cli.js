// `npx headlab render <folder> [--max-width PX] [--margin PX] [--force]`: every .html file under
// the folder has its <headlab-*> elements prerendered in place (site/ssr/render.js), drawn at each
// capture width for a column that wide less the margins, at most --max-width (the page's layout:
// a plain page has the body's 8 px margins and no maximum), and each element's snapshot sheet is
// written to <folder>/headlab-snapshot/<tag>.css (a canvas's picture beside it), linked from each page by a relative URL. Run it
// again after editing a page: an element that already carries a snapshot is left as it is, so
// a page is rendered once; --force renders every element again.
import fs from 'node:fs';
import path from 'node:path';
import { bodyColumn, renderPage } from './render.js';

const USAGE = 'usage: headlab render <folder> [--max-width PX] [--margin PX] [--force]';

/** Every .html file under `dir` (node_modules and dot-folders skipped), sorted. */
function htmlFiles(dir) {
  const out = [];
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    if (d.name.startsWith('.') || d.name === 'node_modules') continue;
    const p = path.join(dir, d.name);
    if (d.isDirectory()) out.push(...htmlFiles(p));
    else if (d.name.endsWith('.html')) out.push(p);
  }
  return out.sort();
}

/**
 * Removes the snapshots a page carries (for --force): the declarative shadow roots and light-DOM
 * figures, and the data-auto-scheme mark the renderer put on the element (snapshotMarkup).
 */
export function stripSnapshots(html) {
  return html.replace(
    /(<headlab-[a-z-]+\b[^>]*>)<template shadowrootmode="open">[\s\S]*?<\/template>(?:<div class="hl-snapshot" slot="hl-snapshot">[\s\S]*?<\/div>)?/g,
    (_, open) => open.replace(/ data-auto-scheme(?=[\s>])/, ''),
  );
}

/** Runs the command with `args` (after "render"); returns the exit code. Messages name the file. */
export async function main(args, { log = console.log, error = console.error } = {}) {
  let folder = null;
  let force = false;
  const column = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--force') force = true;
    else if (a === '--max-width' || a === '--margin') {
      const text = args[++i] ?? '';
      const n = Number(text);
      if (text === '' || !Number.isInteger(n) || n < 0 || n > 10000) {
        error(`headlab render: ${a} "${text}": must be a whole number of px from 0 to 10000`);
        return 2;
      }
      column[a === '--max-width' ? 'maxWidth' : 'margin'] = n;
    } else if (a.startsWith('-')) {
      error(`headlab render: unknown option ${a}\n${USAGE}`);
      return 2;
    } else if (folder === null) folder = a;
    else {
      error(`headlab render: one folder only (got "${folder}" and "${a}")\n${USAGE}`);
      return 2;
    }
  }
  if (folder === null) {
    error(USAGE);
    return 2;
  }
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) {
    error(`headlab render: ${folder}: not a folder`);
    return 2;
  }
  try {
    const r = await renderFolder(folder, { force, column });
    for (const line of r.skipped) error(`headlab render: not prerendered (the live widget will show it): ${line}`);
    log(`headlab render: ${r.elements} elements on ${r.pages} pages in ${r.seconds.toFixed(1)} s`);
    return 0;
  } catch (err) {
    error(`headlab render: ${err?.message ?? err}`);
    return 1;
  }
}

/**
 * Renders every .html file under `folder` in place (see above); throws naming the file when a
 * page cannot be rendered. An element that shows a message instead of its figure (a bad
 * attribute, a missing data file, a figure Node cannot draw yet) is left without a snapshot and
 * listed in `skipped` ("<file>: <tag> id: message").
 * options: force (render elements that carry a snapshot again), column ({ maxWidth, margin }).
 * Returns { pages, elements, skipped, seconds }.
 */
export async function renderFolder(folder, { force = false, column = {} } = {}) {
  const started = Date.now();
  const sheetDir = path.join(folder, 'headlab-snapshot');
  const perTag = new Map();
  let stylesheets = new Map();
  const images = new Map();
  let pages = 0;
  let elements = 0;
  const skipped = [];
  for (const file of htmlFiles(folder)) {
    const source = fs.readFileSync(file, 'utf8');
    if (!/<headlab-[a-z-]+/.test(source)) continue;
    const rel = path.relative(path.dirname(file), sheetDir).split(path.sep).join('/');
    let out;
    try {
      out = await renderPage(force ? stripSnapshots(source) : source, {
        url: path.resolve(file),
        // A URL from the site's root (`/data/m.json`) names a file of the folder.
        root: folder,
        stylesheetHref: (tag) => `${rel}/${tag}.css`,
        imageHref: (name) => `${rel}/${name}`,
        columnWidth: bodyColumn(column),
        perTag,
      });
    } catch (err) {
      throw new Error(`${file}: ${err?.message ?? err}`, { cause: err });
    }
    stylesheets = out.stylesheets;
    for (const [name, bytes] of out.images) images.set(name, bytes);
    for (const e of out.errors) skipped.push(`${file}: <${e.tag}>${e.id ? ` id="${e.id}"` : ''}: ${e.message}`);
    if (out.elements === 0) continue;
    fs.writeFileSync(file, out.html);
    pages++;
    elements += out.elements;
  }
  if (stylesheets.size || images.size) fs.mkdirSync(sheetDir, { recursive: true });
  for (const [name, bytes] of images) fs.writeFileSync(path.join(sheetDir, name), bytes);
  for (const [tag, css] of stylesheets) fs.writeFileSync(path.join(sheetDir, `${tag}.css`), css);
  return { pages, elements, skipped, seconds: (Date.now() - started) / 1000 };
}
