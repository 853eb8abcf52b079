// Commit subjects stay short and honest to read in `git log --oneline`: at most 72 characters
// (the width git's own tools and most review pages show), a blank line before any body. Held
// for every commit after FROM, the last one before this rule was tested (earlier history keeps
// seven longer subjects; history is not rewritten).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { MAX_SUBJECT, subjectProblem } from '../../.githooks/commit-subject.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FROM = 'e483e67';
/** Landed with a longer subject since (history is not rewritten): the commit, its subject's length. */
const LANDED_LONGER = new Map([
  ['5b1cb05', 74],
  ['23caf03', 73],
]);

const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
let history = null;
try {
  git('merge-base', '--is-ancestor', FROM, 'HEAD');
  history = git('log', '--no-merges', '-z', '--format=%h%x00%B', `${FROM}..HEAD`);
} catch {
  history = null; // not a git checkout with this history (an unpacked tarball): nothing to hold
}

test(
  `commit subjects after ${FROM}: at most ${MAX_SUBJECT} characters, a blank line before the body`,
  { skip: history === null && 'no git history here' },
  () => {
    const fields = history.split('\0');
    let checked = 0;
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [hash, message] = [fields[i].trim(), fields[i + 1]];
      const [subject] = message.split('\n');
      const known = [...LANDED_LONGER].find(([h]) => hash.startsWith(h) || h.startsWith(hash))?.[1];
      if (known !== undefined) assert.equal([...subject].length, known, `${hash}: the subject known as ${known} characters`);
      else assert.equal(subjectProblem(message), null, `${hash}`);
      checked++;
    }
    assert.ok(checked >= 1, 'no commit checked');
  },
);

test('the commit-msg hook refuses a subject over the limit or a body without a blank line, and takes the rest', () => {
  const hook = path.join(root, '.githooks/commit-msg');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-commit-msg-'));
  const run = (message) => {
    const file = path.join(dir, 'COMMIT_EDITMSG');
    fs.writeFileSync(file, message);
    return spawnSync(hook, [file], { encoding: 'utf8' });
  };
  try {
    const longest = 'x'.repeat(MAX_SUBJECT);
    assert.equal(run(`${longest}\n\nbody\n# a comment line git drops\n`).status, 0);
    assert.equal(run(`Widgets: ${'é'.repeat(MAX_SUBJECT - 9)}\n`).status, 0, 'characters, not bytes');
    const over = run(`${longest}y\n\nbody\n`);
    assert.equal(over.status, 1);
    assert.match(over.stderr, new RegExp(`${MAX_SUBJECT + 1} characters, over ${MAX_SUBJECT}`));
    const glued = run('Subject\nbody on the second line\n');
    assert.equal(glued.status, 1);
    assert.match(glued.stderr, /no blank line after the subject/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
