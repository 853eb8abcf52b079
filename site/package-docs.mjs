// The guides the npm package ships (dist/docs/), written from docs/ by the site build. In the
// repository the guides link to its code, tests and examples; the package holds none of those, so
// such a link would be dead in node_modules/headlab/. Each link is kept when its target ships (a
// shipped guide, a section of one, an address on the web) and otherwise written as its text and
// the repository path it named, e.g. "[the test](../tests/unit/limits.test.mjs)" →
// "the test (`tests/unit/limits.test.mjs` in the headlab repository)".
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The guides the package ships, as docs/<name>.md. */
export const SHIPPED_DOCS = ['embedding', 'elements', 'own-model', 'own-model-widgets', 'limits'];

/** A guide's text with every link to something the package does not ship written out as its repository path. */
export function packagedGuide(text) {
  const shipped = new Set(SHIPPED_DOCS.map((d) => `docs/${d}.md`));
  // [text](target) — not an image (![…]), the target without spaces; code spans are left alone.
  return text.replace(/(`[^`\n]*`)|(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)/g, (whole, code, label, target) => {
    if (code) return code;
    if (/^([a-z]+:|#)/i.test(target)) return whole;
    const [file, anchor] = target.split('#');
    const repoPath = path.posix.normalize(path.posix.join('docs', file));
    if (shipped.has(repoPath)) return whole;
    const shown = repoPath.replace(/\/$/, '') + (file.endsWith('/') ? '/' : '') + (anchor ? `#${anchor}` : '');
    const bare = (t) => t.replace(/`/g, '').replace(/\/$/, '');
    const named = bare(label) === bare(repoPath);
    return named ? `${label} (in the headlab repository)` : `${label} (\`${shown}\` in the headlab repository)`;
  });
}

/** Writes every shipped guide into `dir` (dist/docs/). */
export function writePackageDocs(dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const d of SHIPPED_DOCS)
    fs.writeFileSync(path.join(dir, `${d}.md`), packagedGuide(fs.readFileSync(path.join(root, 'docs', `${d}.md`), 'utf8')));
}
