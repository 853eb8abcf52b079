// The front door stays true: every top-level folder has its guide (<folder>/README.md) saying
// what it may import and where its tests are; every path the README's map names exists; every
// relative link in the README and the guides resolves; and the layers' import rules the guides
// state hold in the code (core → formats → cli / web → widgets → site).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (rel) => fs.readFileSync(path.join(root, rel), 'utf8');

const FOLDERS = ['core', 'formats', 'cli', 'web', 'widgets', 'site', 'tests', 'bench', 'docs', 'examples', 'types'];
// Top-level folders that are not source: build outputs and installs (.gitignore).
const NOT_SOURCE = new Set(['build', 'dist', 'node_modules', 'test-results']);
// At most this many rows in the README's map: one per folder or key piece, found in one hop.
const MAX_MAP_ROWS = 15;

/** Every file under `dir` (relative to the root) whose name matches `pattern`, skipping installs. */
function files(dir, pattern) {
  const out = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'dist', '.astro'].includes(entry.name)) walk(child);
      } else if (pattern.test(entry.name)) {
        out.push(child);
      }
    }
  };
  walk(dir);
  return out;
}

/** The Markdown links [text](target) of a document whose target is a relative path, anchors dropped. */
function relativeLinks(text) {
  const links = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
    links.push(target.split('#')[0]);
  }
  return links;
}

/**
 * The top-level folders of the source: in a git checkout the ones git tracks a file in, so a
 * contributor's untracked scratch folder (a copy of test-results, say) is not taken for source;
 * elsewhere (an unpacked archive) the folders on disk, less dot-folders and NOT_SOURCE.
 */
function topLevelFolders() {
  let tracked;
  try {
    tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    tracked = null;
  }
  const names = tracked
    ? tracked
        .split('\0')
        .filter((f) => f.includes('/'))
        .map((f) => f.slice(0, f.indexOf('/')))
    : fs
        .readdirSync(root, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
  return [...new Set(names)].filter((n) => !n.startsWith('.') && !NOT_SOURCE.has(n)).sort();
}

test('every top-level source folder has a guide that states its imports and its tests', () => {
  const dirs = topLevelFolders();
  assert.deepEqual(dirs, [...FOLDERS].sort(), 'the top-level folders are the ones with guides');
  for (const folder of FOLDERS) {
    const guide = `${folder}/README.md`;
    assert.ok(fs.existsSync(path.join(root, guide)), `${guide} exists`);
    const text = read(guide);
    assert.match(text, new RegExp(`^# ${folder}/\\n`), `${guide} starts with its folder's name`);
    assert.match(text, /\*\*Imports\.\*\*/, `${guide} says what the folder may import`);
    assert.match(text, /\*\*Tests\.\*\*/, `${guide} says where its tests are`);
  }
});

test("the README map is short, names every folder's guide, and every path it names exists", () => {
  const readme = read('README.md');
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| piece | where |'));
  assert.ok(start >= 0, 'README.md has its map');
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  assert.ok(
    rows.length >= FOLDERS.length && rows.length <= MAX_MAP_ROWS,
    `the map has ${rows.length} rows, between ${FOLDERS.length} and ${MAX_MAP_ROWS}`,
  );
  const named = new Set();
  for (const row of rows) {
    const where = row.split('|').slice(2).join('|');
    const paths = [...relativeLinks(where), ...[...where.matchAll(/`([^`]+)`/g)].map((m) => m[1])];
    assert.ok(paths.length > 0, `map row names a path: ${row}`);
    for (const p of paths) {
      assert.ok(fs.existsSync(path.join(root, p)), `README map: ${p} exists`);
      named.add(p.replace(/\/$/, ''));
    }
  }
  for (const folder of FOLDERS) assert.ok(named.has(`${folder}/README.md`), `the map links ${folder}/README.md`);
});

test('the core and formats guides name every concept and format of their folder', () => {
  for (const folder of ['core', 'formats']) {
    const guide = read(`${folder}/README.md`);
    for (const header of files(folder, /\.hpp$/)) {
      const name = path.posix.basename(header, '.hpp');
      assert.ok(guide.includes(`\`${name}\``) || guide.includes(`\`${name}.hpp\``), `${folder}/README.md names ${name}`);
    }
  }
});

test('every relative link in the README and the folder guides resolves', () => {
  for (const doc of ['README.md', ...FOLDERS.map((f) => `${f}/README.md`)]) {
    for (const target of relativeLinks(read(doc))) {
      const resolved = path.join(root, path.dirname(doc), target);
      assert.ok(fs.existsSync(resolved), `${doc} links ${target}, which exists`);
    }
  }
});

/** The project folders a C++ file's quoted includes reach ("core/x.hpp" → core; "bindings/x.hpp" → web). */
function cppIncludes(rel) {
  const out = [];
  for (const m of read(rel).matchAll(/^\s*#\s*include\s*([<"])([^>"]+)[>"]/gm)) {
    out.push({ quoted: m[1] === '"', target: m[2] });
  }
  return out;
}

// C++: the folders each may include with "folder/…" (the guides' **Imports.**), and no Emscripten
// header outside web/bindings.
const CPP_RULES = [
  { dir: 'core', allowed: ['core'] },
  { dir: 'formats', allowed: ['core', 'formats'] },
  { dir: 'cli', allowed: ['core', 'formats', 'cli'] },
  { dir: 'web/bindings', allowed: ['core', 'formats', 'bindings'], emscripten: true },
];

test('C++ includes follow the layers: core includes only core, formats only core, cli and the bindings no further', () => {
  for (const rule of CPP_RULES) {
    const sources = files(rule.dir, /\.(cpp|hpp)$/);
    assert.ok(sources.length > 0, `${rule.dir} has C++ sources`);
    for (const file of sources) {
      for (const { quoted, target } of cppIncludes(file)) {
        if (quoted) {
          const top = target.split('/')[0];
          assert.ok(rule.allowed.includes(top), `${file} includes "${target}": ${rule.dir}/ may include only ${rule.allowed.join(', ')}`);
        } else if (!rule.emscripten) {
          assert.ok(!target.startsWith('emscripten'), `${file} includes <${target}>: only web/bindings sees Emscripten`);
        }
      }
    }
  }
});

/** The import specifiers of a JS/TS file with whether each is type-only. */
function jsImports(rel) {
  const text = read(rel);
  const out = [];
  const re = /(?:^|[\s;])(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    if (m[4]) out.push({ spec: m[4], typeOnly: false });
    else out.push({ spec: m[3], typeOnly: Boolean(m[2]) });
  }
  return out;
}

/** The top-level folder a relative import of `from` lands in, or null for a package import. */
function importedFolder(from, spec) {
  if (!spec.startsWith('.')) return null;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  assert.ok(!resolved.startsWith('..'), `${from} imports ${spec}, outside the repository`);
  return resolved.split('/')[0];
}

// JS/TS: the folders each may import by relative path; `typeOnly` folders only with `import type`.
const JS_RULES = [
  { dir: 'web', allowed: ['web'], typeOnly: ['formats'] },
  { dir: 'widgets', allowed: ['widgets', 'web'], typeOnly: ['formats'] },
  // The renderer without a browser runs the widgets in Node: it imports them, the build only bundles them.
  { dir: 'site/ssr', allowed: ['site', 'widgets', 'web'], typeOnly: ['formats'] },
  { dir: 'site', allowed: ['site'], typeOnly: [] }, // site/assets import the built bundle, ../headlab/
  { dir: 'types', allowed: [], typeOnly: [] },
];

test('JS and TS imports follow the layers: web below widgets, widgets below site, types self-contained', () => {
  for (const rule of JS_RULES) {
    // A folder with a rule of its own (site/ssr) is held to that rule, not its parent's.
    const own = (f) => !JS_RULES.some((r) => r.dir.startsWith(`${rule.dir}/`) && f.startsWith(`${r.dir}/`));
    const sources = files(rule.dir, /\.(js|mjs|ts)$/).filter(own);
    assert.ok(sources.length > 0, `${rule.dir} has JS or TS sources`);
    for (const file of sources) {
      for (const { spec, typeOnly } of jsImports(file)) {
        const folder = importedFolder(file, spec);
        if (folder === null) continue;
        const ok =
          rule.allowed.includes(folder) ||
          (typeOnly && rule.typeOnly.includes(folder)) ||
          (file.endsWith('.d.ts') && rule.typeOnly.includes(folder));
        assert.ok(
          ok,
          `${file} imports ${spec} (${folder}/): ${rule.dir}/ may import ${
            [...rule.allowed, ...rule.typeOnly.map((f) => `types of ${f}`)].join(', ') || 'nothing'
          }`,
        );
      }
    }
  }
  // The formats' types import nothing outside formats/.
  for (const file of files('formats', /\.d\.ts$/)) {
    for (const { spec } of jsImports(file)) {
      const folder = importedFolder(file, spec);
      assert.ok(folder === null || folder === 'formats', `${file} imports ${spec}`);
    }
  }
});

test("the examples import the installed package only, never the repository's sources", () => {
  for (const file of files('examples', /\.(js|mjs|ts|astro|mdx|html)$/)) {
    const text = read(file);
    for (const { spec } of jsImports(file)) {
      if (!spec.startsWith('.')) continue;
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      assert.ok(resolved.startsWith(file.split('/').slice(0, 2).join('/') + '/'), `${file} imports ${spec}, outside its example`);
    }
    for (const m of text.matchAll(/(?:src|href)="([^"]+)"/g)) {
      assert.ok(!m[1].startsWith('..'), `${file} loads ${m[1]}, outside its example`);
    }
  }
});
