// Gzip sizes of what the widgets download: per file of the bundle folder, and per page
// of the built site (the page's module script and every chunk it imports statically, the
// worker entry with its static imports, and each .wasm module the page's headlab-* elements
// compute with, with its loader chunk: web/browser-core.js imports the feature-recovery,
// max-digit and transformer loaders dynamically, so a page counts them only when one of its
// elements uses that module). Other chunks reached only through a dynamic import("./…") are
// NOT counted for a page: that is how a heavy view (the 3-D head-contribution view) stays out
// of pages that do not open it. Run: node bench/sizes.mjs [site dir] (default build/site).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function gzipSize(file) {
  return zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
}

/** Relative specifiers a module imports statically ("./x.js"); dynamic import("./y.js") is excluded. */
export function staticImports(source) {
  const found = new Set();
  // import x from "./a.js" · import {a} from"./a.js" · import"./a.js" · export {a} from "./a.js"
  const re = /(?<![\w$.])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["'](\.{1,2}\/[^"']+)["']/g;
  for (const m of source.matchAll(re)) found.add(m[1]);
  return [...found];
}

/** The file and everything it imports statically, transitively (absolute paths). */
export function staticClosure(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file) || !fs.existsSync(file)) return;
    seen.add(file);
    for (const spec of staticImports(fs.readFileSync(file, 'utf8'))) visit(path.resolve(path.dirname(file), spec));
  };
  visit(entry);
  return [...seen];
}

/** The max-digit article's elements (they load headlab_max_digit.wasm, web/browser-core.js). */
export const MAX_DIGIT_ELEMENT =
  /<headlab-(?:max-digit[a-z-]*|attention-bars|attention-patch|head-ablation|subspace-accuracy|head-contributions|angle-dot|score-ramps)\b/;

/** The feature-recovery article's elements (they load headlab_feature_recovery.wasm, web/browser-core.js). */
export const FEATURE_RECOVERY_ELEMENT = /<headlab-(?:feature-recovery|interventions|training-replay)\b/;

/** Your own transformer's elements (they load headlab_transformer.wasm through their model source). */
export const TRANSFORMER_ELEMENT = /<headlab-transformer-[a-z-]+\b/;

/** Elements that load no WASM module on the page (prose values, the quiz, the seed grid's shipped table); not headlab-value-swap. */
export const NO_MODULE_ELEMENT = /<headlab-(?:value|choice-quiz|seed-grid)(?![\w-])/;

/** Chunks of the bundle folder that hold a module's loader (it names its .wasm). */
function loaderChunks(bundle, wasm) {
  return fs
    .readdirSync(bundle)
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(bundle, f))
    .filter((f) => fs.readFileSync(f, 'utf8').includes(wasm));
}

/** { files: [{ file, bytes, gzip }], pages: [{ page, js, wasm, wasmFiles, total, files }] } for a built site. */
export function siteSizes(siteDir = path.join(root, 'build/site')) {
  const bundle = path.join(siteDir, 'headlab');
  const files = fs
    .readdirSync(bundle)
    .sort()
    .filter((f) => fs.statSync(path.join(bundle, f)).isFile())
    .map((f) => {
      const p = path.join(bundle, f);
      return { file: `headlab/${f}`, bytes: fs.statSync(p).size, gzip: gzipSize(p) };
    });
  const pages = [];
  const walk = (dir) =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((d) =>
        d.isDirectory() ? (['headlab', 'assets'].includes(d.name) ? [] : walk(path.join(dir, d.name))) : [path.join(dir, d.name)],
      );
  for (const html of walk(siteDir)
    .filter((f) => f.endsWith('.html'))
    .sort()) {
    const text = fs.readFileSync(html, 'utf8');
    const scripts = [...text.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => path.resolve(path.dirname(html), m[1]));
    const hasWidgets = /<headlab-[a-z-]+/.test(text);
    const js = new Set(scripts.flatMap(staticClosure));
    const worker = path.join(bundle, 'headlab-worker.js');
    if (hasWidgets && fs.existsSync(worker)) for (const f of staticClosure(worker)) js.add(f);
    // Elements of the max-digit article run on headlab_max_digit.wasm, whose loader is a
    // dynamic import: count that loader's chunk and .wasm only for pages that use them.
    const usesMaxDigit = MAX_DIGIT_ELEMENT.test(text);
    const lazyModules = [
      [FEATURE_RECOVERY_ELEMENT, 'headlab_feature_recovery.wasm'],
      [TRANSFORMER_ELEMENT, 'headlab_transformer.wasm'],
    ]
      .filter(([re]) => re.test(text))
      .map(([, wasm]) => wasm);
    const usesCore = [...text.matchAll(/<(headlab-[a-z-]+)/g)].some(
      (m) => ![MAX_DIGIT_ELEMENT, FEATURE_RECOVERY_ELEMENT, TRANSFORMER_ELEMENT, NO_MODULE_ELEMENT].some((re) => re.test(`<${m[1]}`)),
    );
    // Behind prerendered snapshots the max-digit elements load their module (loader chunk and
    // .wasm) and weights on the reader's first interaction (widgets/max-digit/loading.ts): an
    // element followed by its declarative shadow root, unless its model element says
    // loading="eager". Those bytes are counted apart, as what the first interaction fetches.
    const eagerModels = new Set(
      [...text.matchAll(/<headlab-max-digit-model\b([^>]*)>/g)]
        .filter((m) => /\sloading="eager"/.test(m[1]))
        .map((m) => /\sid="([^"]+)"/.exec(m[1])?.[1]),
    );
    const maxDigitDeferred =
      usesMaxDigit &&
      [...text.matchAll(/<(headlab-[a-z-]+)\b([^>]*)>(<template shadowrootmode=)?/g)]
        .filter((m) => MAX_DIGIT_ELEMENT.test(`<${m[1]}`))
        .every((m) => {
          const own = m[1] === 'headlab-max-digit-model' ? /\sid="([^"]+)"/.exec(m[2])?.[1] : /\smodel="([^"]+)"/.exec(m[2])?.[1];
          return m[3] !== undefined && !eagerModels.has(own);
        });
    const later = new Set();
    for (const wasm of lazyModules) for (const f of loaderChunks(bundle, wasm)) for (const g of staticClosure(f)) js.add(g);
    if (usesMaxDigit)
      for (const f of loaderChunks(bundle, 'headlab_max_digit.wasm'))
        for (const g of staticClosure(f)) if (!js.has(g)) (maxDigitDeferred ? later : js).add(g);
    const jsGzip = [...js].reduce((s, f) => s + gzipSize(f), 0);
    const maxDigitWasm = usesMaxDigit ? gzipSize(path.join(bundle, 'headlab_max_digit.wasm')) : 0;
    const wasmFiles = [
      ...(usesCore ? ['headlab_core.wasm'] : []),
      ...lazyModules,
      ...(usesMaxDigit && !maxDigitDeferred ? ['headlab_max_digit.wasm'] : []),
    ];
    const wasm = wasmFiles.reduce((sum, f) => sum + gzipSize(path.join(bundle, f)), 0);
    // Weights the max-digit elements fetch: each model element's src, and the bundle's
    // default file when an element names no model.
    const weights = new Set();
    // A model element with loading="lazy" fetches when the reader nears it, after the first interaction.
    for (const m of text.matchAll(/<headlab-max-digit-model\b([^>]*)>/g)) {
      const src = /\ssrc="([^"]+)"/.exec(m[1]);
      if (src && !/\sloading="lazy"/.test(m[1])) weights.add(path.resolve(path.dirname(html), src[1]));
    }
    const implicit = [...text.matchAll(/<(headlab-[a-z-]+)\b([^>]*)>/g)].some(
      (m) => MAX_DIGIT_ELEMENT.test(`<${m[1]}`) && m[1] !== 'headlab-max-digit-model' && !/\smodel="/.test(m[2]),
    );
    if (implicit) weights.add(path.join(bundle, 'data/max-digit-seed0.json'));
    const weightsGzip = [...weights].filter((f) => fs.existsSync(f)).reduce((sum, f) => sum + gzipSize(f), 0);
    const data = maxDigitDeferred ? 0 : weightsGzip;
    const interaction = maxDigitDeferred
      ? {
          js: [...later].reduce((s, f) => s + gzipSize(f), 0),
          wasm: maxDigitWasm,
          data: weightsGzip,
          files: [...later, ...weights].map((f) => path.relative(siteDir, f)),
        }
      : { js: 0, wasm: 0, data: 0, files: [] };
    interaction.total = interaction.js + interaction.wasm + interaction.data;
    pages.push({
      page: path.relative(siteDir, html),
      js: jsGzip,
      wasm,
      wasmFiles,
      total: jsGzip + wasm,
      data,
      firstLoad: jsGzip + wasm + data,
      interaction,
      files: [...js].map((f) => path.relative(siteDir, f)),
      dataFiles: maxDigitDeferred ? [] : [...weights].map((f) => path.relative(siteDir, f)),
    });
  }
  return { files, pages };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { files, pages } = siteSizes(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log('bundle files (raw → gzip -9):');
  for (const f of files) console.log(`  ${f.file.padEnd(34)} ${kb(f.bytes).padStart(10)} → ${kb(f.gzip).padStart(9)}`);
  console.log("pages (gzip: JS reached statically + .wasm, then + the weights fetched on load = first load, before the reader's first");
  console.log(
    'interaction; then what that interaction fetches (max-digit module and weights behind prerendered snapshots); lazily imported chunks excluded):',
  );
  for (const p of pages) {
    console.log(
      `  ${p.page.padEnd(52)} JS ${kb(p.js).padStart(9)}  WASM ${kb(p.wasm).padStart(9)}  total ${kb(p.total).padStart(9)}  weights ${kb(p.data).padStart(9)}  first load ${kb(p.firstLoad).padStart(9)}` +
        `  (${p.wasmFiles.join(' + ') || 'no .wasm'})` +
        (p.interaction.total
          ? `  + on first interaction ${kb(p.interaction.total)} (JS ${kb(p.interaction.js)}, WASM ${kb(p.interaction.wasm)}, weights ${kb(p.interaction.data)})`
          : ''),
    );
  }
}
