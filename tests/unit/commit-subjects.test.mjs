// Commit subjects stay short and honest to read in `git log --oneline`: at most 72 characters
// (the width git's own tools and most review pages show), a blank line before any body. Held
// for every commit after FROM, the last one before this rule was tested (earlier history keeps
// seven longer subjects; history is not rewritten).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FROM = 'e483e67';
const MAX_SUBJECT = 72;
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
      const [subject, second = ''] = message.split('\n');
      const known = [...LANDED_LONGER].find(([h]) => hash.startsWith(h) || h.startsWith(hash))?.[1];
      if (known !== undefined) assert.equal([...subject].length, known, `${hash}: the subject known as ${known} characters`);
      else assert.ok([...subject].length <= MAX_SUBJECT, `${hash}: subject is ${[...subject].length} characters: ${subject}`);
      assert.equal(second, '', `${hash}: no blank line after the subject`);
      checked++;
    }
    assert.ok(checked >= 1, 'no commit checked');
  },
);
