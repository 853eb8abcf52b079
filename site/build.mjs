// Builds the static site into build/site:
//   headlab/headlab.js + headlab_core.wasm   the widget bundle (what an author copies)
//   assets/                                  site CSS, KaTeX CSS and fonts (no CDN)
//   *.html, articles/*.html                  pages, math typeset here with KaTeX
// Pages are HTML fragments in site/pages with a first-line comment
// <!-- title: ... --> and math in $$…$$ (display) or \(…\) (inline).
import * as esbuild from 'esbuild';
import katex from 'katex';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = path.join(root, 'build/wasm/web');
export const outDir = path.join(root, 'build/site');

export function renderMath(html, file) {
  const render = (tex, displayMode) => {
    try {
      return katex.renderToString(tex.trim(), { displayMode, throwOnError: true, output: 'htmlAndMathml' });
    } catch (err) {
      throw new Error(`${file}: bad math ${JSON.stringify(tex)}: ${err.message}`);
    }
  };
  return html
    .replace(/\$\$([\s\S]+?)\$\$/g, (_, tex) => render(tex, true))
    .replace(/\\\(([\s\S]+?)\\\)/g, (_, tex) => render(tex, false));
}

/**
 * KaTeX writes inline style="…" attributes (struts, vertical offsets), which a strict
 * `style-src 'self'` CSP blocks. Moves each distinct declaration list into a class
 * `ks-N` of a generated stylesheet; `!important` keeps the precedence inline styles had.
 * `styles` (Map declaration list → class) is shared by all pages of one build.
 */
export function extractInlineStyles(html, styles) {
  return html.replace(/<([a-zA-Z][\w-]*)(\s[^>]*?)?\sstyle="([^"]*)"([^>]*)>/g, (tag, name, before = '', css, after) => {
    if (!styles.has(css)) styles.set(css, `ks-${styles.size}`);
    const cls = styles.get(css);
    let attrs = `${before}${after}`;
    if (/\sclass="/.test(attrs)) attrs = attrs.replace(/\sclass="([^"]*)"/, (_, c) => ` class="${c} ${cls}"`);
    else attrs = ` class="${cls}"${attrs}`;
    return `<${name}${attrs}>`;
  });
}

function inlineStyleSheet(styles) {
  const important = (css) => css.split(';').map((d) => d.trim()).filter(Boolean).map((d) => `${d} !important`).join('; ');
  return [...styles].map(([css, cls]) => `.${cls} { ${important(css)}; }`).join('\n') + '\n';
}

function page(body, title, depth) {
  const up = '../'.repeat(depth);
  const layout = fs.readFileSync(path.join(root, 'site/layout.html'), 'utf8');
  return layout.replaceAll('{{title}}', title).replaceAll('{{root}}', up).replace('{{content}}', body);
}

export async function buildSite({ quiet = false } = {}) {
  for (const f of ['headlab_core.mjs', 'headlab_core.wasm']) {
    if (!fs.existsSync(path.join(wasmDir, f))) throw new Error(`missing ${f}: build the WASM module first (./dev build)`);
  }
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(outDir, 'headlab'), { recursive: true });

  const entries = { headlab: path.join(root, 'widgets/headlab.ts') };
  const workerEntry = path.join(root, 'web/worker.js');
  if (fs.existsSync(workerEntry)) entries['headlab-worker'] = workerEntry;
  await esbuild.build({
    entryPoints: entries,
    outdir: path.join(outDir, 'headlab'),
    bundle: true,
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    minify: true,
    sourcemap: false,
    target: ['es2022'],
    alias: { 'headlab-wasm-module': path.join(wasmDir, 'headlab_core.mjs') },
    logLevel: quiet ? 'error' : 'warning',
  });
  fs.copyFileSync(path.join(wasmDir, 'headlab_core.wasm'), path.join(outDir, 'headlab/headlab_core.wasm'));

  const assets = path.join(outDir, 'assets');
  fs.cpSync(path.join(root, 'site/assets'), assets, { recursive: true });
  const katexDist = path.join(root, 'node_modules/katex/dist');
  fs.mkdirSync(path.join(assets, 'katex/fonts'), { recursive: true });
  fs.copyFileSync(path.join(katexDist, 'katex.min.css'), path.join(assets, 'katex/katex.min.css'));
  for (const f of fs.readdirSync(path.join(katexDist, 'fonts'))) {
    if (f.endsWith('.woff2')) fs.copyFileSync(path.join(katexDist, 'fonts', f), path.join(assets, 'katex/fonts', f));
  }

  const styles = new Map();
  const pagesDir = path.join(root, 'site/pages');
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)]);
  for (const file of walk(pagesDir)) {
    const rel = path.relative(pagesDir, file);
    const target = path.join(outDir, rel);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (!file.endsWith('.html')) {
      fs.copyFileSync(file, target);
      continue;
    }
    const source = fs.readFileSync(file, 'utf8');
    const title = /<!--\s*title:\s*(.+?)\s*-->/.exec(source)?.[1] ?? 'headlab';
    const depth = rel.split(path.sep).length - 1;
    fs.writeFileSync(target, page(extractInlineStyles(renderMath(source, rel), styles), title, depth));
  }
  fs.writeFileSync(path.join(assets, 'math-styles.css'), inlineStyleSheet(styles));
  if (!quiet) console.log(`site built in ${path.relative(root, outDir)}`);
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildSite().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
