// Builds the static site into build/site:
//   headlab/headlab.js + headlab_core.wasm (+ headlab_feature_recovery.wasm, headlab_max_digit.wasm, headlab_transformer.wasm, loaded on demand)   the widget bundle (what an author copies; also copied to dist/ for npm pack)
//   assets/                                  site CSS, KaTeX CSS and fonts (no CDN)
//   *.html, articles/*.html                  pages, math typeset here with KaTeX
// Pages are HTML fragments in site/pages with a first-line comment
// <!-- title: ... --> and math in $$…$$ (display) or \(…\) (inline).
// Figures <figure class="hl-figure" id="fig-…"> are numbered in document order here: the
// <figcaption> starts with "Figure N." and each <a class="figref" href="#fig-…"></a> reads
// "Figure N". Tables in the prose are wrapped in a sideways-scrolling box (.hl-scroll).
import * as esbuild from 'esbuild';
import katex from 'katex';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCustomElements } from './custom-elements.mjs';
import { writeGuidePages } from './guides.mjs';
import { writePackageDocs } from './package-docs.mjs';
import { writeElementData } from './element-reference.mjs';
import { elementNames } from './element-names.mjs';
import { prerenderSnapshots } from './snapshots.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = path.join(root, 'build/wasm/web');
export const outDir = path.join(root, 'build/site');
export const distDir = path.join(root, 'dist');

// KaTeX writes sizes as inline style="…" attributes, which the strict CSP
// (style-src 'self') blocks. Each distinct declaration list becomes a class in
// assets/math.css instead, so typeset math needs no inline style.
const mathStyleClasses = new Map();

function hoistInlineStyles(html) {
  return html.replace(/<(\w+)([^>]*?) style="([^"]*)"([^>]*)>/g, (_, tag, before, style, afterAttrs) => {
    let name = mathStyleClasses.get(style);
    if (!name) {
      name = `kx${mathStyleClasses.size.toString(36)}`;
      mathStyleClasses.set(style, name);
    }
    const attrs = `${before}${afterAttrs}`;
    if (/ class="/.test(attrs)) return `<${tag}${attrs.replace(/ class="([^"]*)"/, ` class="$1 ${name}"`)}>`;
    return `<${tag}${attrs} class="${name}">`;
  });
}

// !important gives each hoisted declaration the precedence the inline style had.
export function mathStylesheet() {
  const important = (style) =>
    style
      .split(';')
      .filter((d) => d.trim())
      .map((d) => `${d.trim()} !important`)
      .join(';');
  return [...mathStyleClasses].map(([style, name]) => `.katex .${name}{${important(style)}}`).join('\n') + '\n';
}

export function renderMath(html, file) {
  const render = (tex, displayMode) => {
    try {
      return hoistInlineStyles(katex.renderToString(tex.trim(), { displayMode, throwOnError: true, output: 'htmlAndMathml' }));
    } catch (err) {
      throw new Error(`${file}: bad math ${JSON.stringify(tex)}: ${err.message}`, { cause: err });
    }
  };
  // A display equation made of parts separated by \qquad at the top level is typeset part by
  // part in a wrapping row: one line where it fits, one part per line on a phone.
  const display = (tex) => {
    const parts = splitTopLevel(tex, '\\qquad');
    if (parts.length === 1) return render(tex, true);
    return `<span class="katex-wrap">${parts.map((part) => render(part, true)).join('')}</span>`;
  };
  return html.replace(/\$\$([\s\S]+?)\$\$/g, (_, tex) => display(tex)).replace(/\\\(([\s\S]+?)\\\)/g, (_, tex) => render(tex, false));
}

/**
 * Numbers the figures of one page: every <figure> whose class includes hl-figure, in document
 * order. Its <figcaption> gets the prefix "Figure N."; an empty <a class="figref" href="#id">
 * gets the text "Figure N". A reference to a missing figure, or two figures with one id, is a
 * build error naming the page.
 */
export function numberFigures(html, file) {
  const numbers = new Map();
  let n = 0;
  const out = html.replace(/<figure\b([^>]*)>([\s\S]*?)<\/figure>/g, (whole, attrs, inner) => {
    if (!/\bclass="[^"]*\bhl-figure\b/.test(attrs)) return whole;
    n++;
    const id = /\bid="([^"]+)"/.exec(attrs)?.[1];
    if (id) {
      if (numbers.has(id)) throw new Error(`${file}: two figures with id="${id}"`);
      numbers.set(id, n);
    }
    const captioned = inner.replace(/<figcaption\b([^>]*)>/, (_, a) => `<figcaption${a}><span class="fig-number">Figure ${n}.</span> `);
    return `<figure${attrs}>${captioned}</figure>`;
  });
  return out.replace(/<a\b([^>]*)>([\s\S]*?)<\/a>/g, (whole, attrs, text) => {
    if (!/\bclass="[^"]*\bfigref\b/.test(attrs)) return whole;
    const id = /\bhref="#([^"]+)"/.exec(attrs)?.[1];
    const k = numbers.get(id);
    if (k === undefined)
      throw new Error(`${file}: <a class="figref" href="#${id}"> refers to no numbered figure (<figure class="hl-figure" id="${id}">)`);
    return `<a${attrs}>${text.trim() ? text : `Figure ${k}`}</a>`;
  });
}

/** Wraps each prose <table> in a .hl-scroll box (unless it already is), so a wide one scrolls, with a cue, instead of widening the page. */
export function wrapTables(html) {
  return html.replace(/<table\b[\s\S]*?<\/table>/g, (table, offset) => {
    const before = html.slice(Math.max(0, offset - 80), offset);
    return /class="[^"]*\bhl-scroll\b[^"]*"[^>]*>\s*$/.test(before) ? table : `<div class="hl-scroll">${table}</div>`;
  });
}

/** `tex` split at each `separator` outside braces and \begin…\end environments (trimmed, empty parts dropped). */
export function splitTopLevel(tex, separator) {
  const parts = [];
  let depth = 0;
  let env = 0;
  let start = 0;
  for (let i = 0; i < tex.length; i++) {
    const c = tex[i];
    if (c === '\\' && tex.startsWith('\\begin', i)) env++;
    else if (c === '\\' && tex.startsWith('\\end', i)) env--;
    if (c === '\\' && (tex[i + 1] === '{' || tex[i + 1] === '}')) {
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (depth === 0 && env === 0 && tex.startsWith(separator, i) && !/[A-Za-z]/.test(tex[i + separator.length] ?? '')) {
      parts.push(tex.slice(start, i));
      start = i + separator.length;
      i = start - 1;
    }
  }
  parts.push(tex.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

// The elements with their own entry point (site/element-names.mjs), also for this file's importers.
export { elementNames };

/** Weights files shipped in the bundle's data/ folder (the default one and the unit-norm variant). */
export const BUNDLED_DATA = ['max-digit-seed0.json', 'max-digit-seed0-unit-norm.json'];

// A page with widgets opened from disk shows their prerendered snapshots (declarative shadow
// DOM needs no script) but cannot run them: Chromium refuses module scripts from file://.
// It says so at the top, readable without JavaScript; assets/served.js hides the notice
// before the first paint when the page is served over http(s).
const OFFLINE_NOTICE =
  '<p class="hl-offline-notice" role="note"><strong>These figures are still pictures.</strong> ' +
  'The live widgets need JavaScript and the page served over http: run <code>./dev serve</code> in the repository ' +
  '(or any static server pointed at this folder, e.g. <code>python3 -m http.server</code>) and open the page from there.</p>';

/** KaTeX font files (without extension) that the typeset math in `html` draws with. */
function katexFonts(html) {
  if (!html.includes('class="katex"')) return [];
  const fonts = ['Main-Regular', 'Math-Italic'];
  // Only fonts surely drawn with (a preloaded font left unused is a console warning): bold and
  // AMS symbols by their classes, the delimiter sizes by KaTeX's "delimsizing sizeN".
  const uses = [
    [/\bmathbf\b|\bboldsymbol\b/, 'Main-Bold'],
    [/\bamsrm\b|\bmathbb\b/, 'AMS-Regular'],
    ...[1, 2, 3, 4].map((n) => [new RegExp(`delimsizing size${n}\\b`), `Size${n}-Regular`]),
  ];
  for (const [pattern, font] of uses) if (pattern.test(html)) fonts.push(font);
  return fonts;
}

function page(body, title, depth) {
  const up = '../'.repeat(depth);
  const layout = fs.readFileSync(path.join(root, 'site/layout.html'), 'utf8');
  let html = layout.replaceAll('{{title}}', title).replaceAll('{{root}}', up).replace('{{content}}', body);
  // A page with widgets loads the entry point of each element it uses (headlab/<name>.js), not
  // headlab.js with every element: a reader pays only for the figures on the page, as an
  // author's post does (docs/embedding.md, per-element imports).
  const names = [...new Set([...body.matchAll(/<headlab-([a-z-]+)/g)].map((m) => m[1]))].filter((n) => elementNames().includes(n)).sort();
  if (names.length) {
    const entries = names.map((n) => `<script type="module" src="${up}headlab/${n}.js"></script>`).join('\n');
    html = html.replace(`<script type="module" src="${up}headlab/headlab.js"></script>`, entries);
  }
  // The KaTeX fonts the page's math uses, preloaded: arriving after the first paint they re-flow
  // every line with math (a layout shift a reader sees as the text jumping).
  const fonts = katexFonts(body);
  if (fonts.length) {
    const links = fonts
      .map((f) => `<link rel="preload" href="${up}assets/katex/fonts/KaTeX_${f}.woff2" as="font" type="font/woff2" crossorigin>`)
      .join('\n');
    html = html.replace('</head>', `${links}\n</head>`);
  }
  if (/<headlab-[a-z-]+/.test(body)) {
    html = html
      .replace('</head>', `<link rel="stylesheet" href="${up}assets/offline.css">\n<script src="${up}assets/served.js"></script>\n</head>`)
      .replace('<main>', `<main>\n${OFFLINE_NOTICE}`);
  }
  return html;
}

export async function buildSite({ quiet = false, snapshots = true } = {}) {
  for (const f of [
    'headlab_core.mjs',
    'headlab_core.wasm',
    'headlab_feature_recovery.mjs',
    'headlab_feature_recovery.wasm',
    'headlab_max_digit.mjs',
    'headlab_max_digit.wasm',
    'headlab_transformer.mjs',
    'headlab_transformer.wasm',
  ]) {
    if (!fs.existsSync(path.join(wasmDir, f))) throw new Error(`missing ${f}: build the WASM module first (./dev build)`);
  }
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(outDir, 'headlab'), { recursive: true });

  // Entries: headlab.js (every element), one per element (value-swap.js → `headlab/value-swap`,
  // registering that element alone), elements.js (the classes, registering nothing), autoload.js
  // (the elements a page uses, found as they appear) and the worker.
  // autoload.js imports each element's entry on demand (`headlab/autoload`).
  const entries = {
    headlab: path.join(root, 'widgets/headlab.ts'),
    elements: path.join(root, 'widgets/elements.ts'),
    autoload: path.join(root, 'widgets/autoload.ts'),
  };
  for (const name of elementNames()) entries[name] = path.join(root, `widgets/headlab-${name}-define.ts`);
  const workerEntry = path.join(root, 'web/worker.js');
  if (fs.existsSync(workerEntry)) entries['headlab-worker'] = workerEntry;
  await esbuild.build({
    entryPoints: entries,
    outdir: path.join(outDir, 'headlab'),
    bundle: true,
    format: 'esm',
    splitting: true,
    // Chunks sit beside the entries so import.meta.url resolves the .wasm and the worker
    // relative to the bundle folder from any chunk.
    chunkNames: '[name]-[hash]',
    minify: true,
    sourcemap: false,
    target: ['es2022'],
    alias: {
      'headlab-wasm-module': path.join(wasmDir, 'headlab_core.mjs'),
      'headlab-feature-recovery-module': path.join(wasmDir, 'headlab_feature_recovery.mjs'),
      'headlab-max-digit-module': path.join(wasmDir, 'headlab_max_digit.mjs'),
      'headlab-transformer-module': path.join(wasmDir, 'headlab_transformer.mjs'),
    },
    logLevel: quiet ? 'error' : 'warning',
  });
  for (const wasm of ['headlab_core.wasm', 'headlab_feature_recovery.wasm', 'headlab_max_digit.wasm', 'headlab_transformer.wasm']) {
    fs.copyFileSync(path.join(wasmDir, wasm), path.join(outDir, 'headlab', wasm));
  }
  // The shipped max-digit weights go in the bundle's data/ folder, where the widgets'
  // default URL (new URL('./data/max-digit-seed0.json', import.meta.url)) finds them.
  fs.mkdirSync(path.join(outDir, 'headlab/data'));
  for (const f of BUNDLED_DATA) fs.copyFileSync(path.join(root, 'site/pages/data', f), path.join(outDir, 'headlab/data', f));
  // The Custom Elements Manifest, from the built classes (imported in Node) and types/headlab.d.ts.
  await writeCustomElements(path.join(outDir, 'headlab'));
  // Editor data (VS Code, JetBrains) and llms.txt from the same manifest.
  writeElementData(path.join(outDir, 'headlab'), JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')));
  // dist/: the same bundle, where package.json's "files" and "exports" point (npm pack ships it).
  fs.rmSync(distDir, { recursive: true, force: true });
  fs.cpSync(path.join(outDir, 'headlab'), distDir, { recursive: true });
  // The command line for the package (package.json "bin": `npx headlab model inspect …`): the CLI
  // compiled for Node (web/CMakeLists.txt, headlab_cli_node) with a shebang, as .cjs because the
  // package is "type": "module" and Emscripten writes a CommonJS script; it reads headlab_cli.wasm
  // beside itself. In dist/ only: pages never load it.
  // `headlab render <folder>` is JavaScript (site/ssr/cli.js, an ES module): the bin hands it that
  // command and runs the compiled CLI (headlab_cli_node.cjs) for every other.
  fs.writeFileSync(path.join(distDir, 'headlab_cli_node.cjs'), fs.readFileSync(path.join(wasmDir, 'headlab_cli.js'), 'utf8'));
  fs.writeFileSync(
    path.join(distDir, 'headlab-cli.cjs'),
    `#!/usr/bin/env node
'use strict';
if (process.argv[2] === 'render') {
  import('./ssr-cli.js')
    .then((m) => m.main(process.argv.slice(3)))
    .then(
      (code) => process.exit(code),
      (err) => {
        console.error(\`headlab render: \${err?.stack ?? err}\`);
        process.exit(1);
      },
    );
} else {
  require('./headlab_cli_node.cjs');
}
`,
    { mode: 0o755 },
  );
  fs.copyFileSync(path.join(wasmDir, 'headlab_cli.wasm'), path.join(distDir, 'headlab_cli.wasm'));
  // headlab/ssr (site/ssr/render.js), `headlab render` (site/ssr/cli.js) and the integrations on it
  // (headlab/astro, /rehype, /vite, /eleventy: site/ssr/astro.js, …), one renderer in a shared chunk: the widgets and the worker's
  // tasks bundled for Node beside the browser bundle (they read the same .wasm files and data/
  // through import.meta.url); happy-dom, their DOM, is the package's one dependency.
  await esbuild.build({
    entryPoints: {
      ssr: path.join(root, 'site/ssr/render.js'),
      'ssr-cli': path.join(root, 'site/ssr/cli.js'),
      astro: path.join(root, 'site/ssr/astro.js'),
      rehype: path.join(root, 'site/ssr/rehype.js'),
      vite: path.join(root, 'site/ssr/vite.js'),
      eleventy: path.join(root, 'site/ssr/eleventy.js'),
    },
    outdir: distDir,
    bundle: true,
    format: 'esm',
    splitting: true,
    platform: 'node',
    chunkNames: 'ssr-[name]-[hash]',
    target: ['node20'],
    external: ['happy-dom'],
    alias: {
      'headlab-wasm-module': path.join(wasmDir, 'headlab_core.mjs'),
      'headlab-feature-recovery-module': path.join(wasmDir, 'headlab_feature_recovery.mjs'),
      'headlab-max-digit-module': path.join(wasmDir, 'headlab_max_digit.mjs'),
      'headlab-transformer-module': path.join(wasmDir, 'headlab_transformer.mjs'),
    },
    logLevel: quiet ? 'error' : 'warning',
  });
  // The guides the package ships, their links to repository files written out (site/package-docs.mjs).
  writePackageDocs(path.join(distDir, 'docs'));

  const assets = path.join(outDir, 'assets');
  fs.cpSync(path.join(root, 'site/assets'), assets, { recursive: true });
  // The benchmark page's reference figures: the newest "page reference" measurement of record
  // (bench/results/*.json), as a module beside assets/bench-reference.js (the targets).
  // Read as data (site/ imports no code of bench/): the newest file whose role is "page reference",
  // ordered as bench/results.mjs orders them (recorded_at or date, then file name).
  const resultsDir = path.join(root, 'bench/results');
  const reference = fs
    .readdirSync(resultsDir)
    .filter((f) => f.endsWith('.json'))
    .map((file) => ({ file, ...JSON.parse(fs.readFileSync(path.join(resultsDir, file), 'utf8')) }))
    .filter((r) => r.role === 'page reference')
    .sort((a, b) => (a.recorded_at ?? a.date).localeCompare(b.recorded_at ?? b.date) || a.file.localeCompare(b.file))
    .at(-1);
  if (!reference) throw new Error('bench/results/ has no "page reference" measurement for the benchmark page');
  const referenceModule = {
    machine: `${reference.machine.description ?? `${reference.machine.cpu}, ${reference.machine.cores} cores`}; measured ${reference.date} at ${reference.commit}`,
    training: reference.figures_ms,
    updates: reference.updates_p95_ms ?? {},
  };
  fs.writeFileSync(
    path.join(assets, 'bench-reference-data.js'),
    `// Generated by site/build.mjs from bench/results/${reference.file}: do not edit.\nexport const REFERENCE = ${JSON.stringify(referenceModule, null, 2)};\n`,
  );
  const katexDist = path.join(root, 'node_modules/katex/dist');
  fs.mkdirSync(path.join(assets, 'katex/fonts'), { recursive: true });
  fs.copyFileSync(path.join(katexDist, 'katex.min.css'), path.join(assets, 'katex/katex.min.css'));
  for (const f of fs.readdirSync(path.join(katexDist, 'fonts'))) {
    if (f.endsWith('.woff2')) fs.copyFileSync(path.join(katexDist, 'fonts', f), path.join(assets, 'katex/fonts', f));
  }

  const pagesDir = path.join(root, 'site/pages');
  const walk = (dir) =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((d) => (d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)]));
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
    fs.writeFileSync(target, page(numberFigures(wrapTables(renderMath(source, rel)), rel), title, depth));
  }
  // The same guides beside the pages: as pages with the site's layout, where the own-model page
  // links to them (site/guides.mjs), and as the Markdown the package ships.
  writePackageDocs(path.join(outDir, 'docs'));
  writeGuidePages(path.join(outDir, 'docs'), page, wrapTables);
  fs.writeFileSync(path.join(assets, 'math.css'), mathStylesheet());
  // headlab.css (the sizes reserved for pages without snapshots: measured in a browser by
  // site/reserve-sizes.mjs, a source file here) joins the bundle and dist/.
  const reserved = path.join(root, 'site/headlab.css');
  fs.copyFileSync(reserved, path.join(outDir, 'headlab/headlab.css'));
  fs.copyFileSync(reserved, path.join(distDir, 'headlab.css'));
  // Each widget's default state prerendered into its page in Node, by the renderer bundled above
  // (HEADLAB_SNAPSHOTS=0 skips it).
  if (snapshots && process.env.HEADLAB_SNAPSHOTS !== '0')
    await prerenderSnapshots(outDir, { ssrModule: path.join(distDir, 'ssr.js'), quiet });
  if (!quiet) console.log(`site built in ${path.relative(root, outDir)}`);
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildSite().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
