// The rule for a commit message's first lines, shared by the commit-msg hook (this folder) and
// tests/unit/commit-subjects.test.mjs: a subject of at most MAX_SUBJECT characters (the width
// `git log --oneline` and most review pages show), and a blank line before any body.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MAX_SUBJECT = 72;

/** What is wrong with `message`'s first two lines, or null. Lines git drops (# comments) are not read. */
export function subjectProblem(message) {
  const lines = message.split('\n').filter((line) => !line.startsWith('#'));
  const [subject = '', second = ''] = lines;
  const length = [...subject].length;
  if (length > MAX_SUBJECT) return `the subject is ${length} characters, over ${MAX_SUBJECT}: ${subject}`;
  if (second !== '') return `no blank line after the subject: ${second}`;
  return null;
}

// As the hook: `node .githooks/commit-subject.mjs <message file>` refuses the commit on a problem.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problem = subjectProblem(fs.readFileSync(process.argv[2], 'utf8'));
  if (problem) {
    process.stderr.write(`commit refused (.githooks/commit-msg): ${problem}\n`);
    process.exit(1);
  }
}
