// docs/limits.md's table stays true: every row that names a constant gives the constant's value
// in the code. The constant is read from the named file (C++ constexpr or struct default, or a
// TypeScript const) and its expression evaluated (digits, exponents, * and <<, size suffixes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The table rows of docs/limits.md's first table: [input, value, constant cell, beyond]. */
function limitRows() {
  const text = fs.readFileSync(path.join(root, 'docs/limits.md'), 'utf8');
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| input | value | constant |'));
  assert.ok(start >= 0, 'docs/limits.md has its table');
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** The numeric value of `name` as defined in `file`. */
function constantValue(file, name) {
  const source = fs.readFileSync(path.join(root, file), 'utf8');
  const m = source.match(new RegExp(`\\b${name}\\b(?:\\s*:\\s*[\\w<>]+)?\\s*=\\s*([^;,\\n]+)`));
  assert.ok(m, `${file} defines ${name}`);
  const expression = m[1]
    .replace(/std::size_t\{([^}]*)\}/g, '$1')
    .replace(/(\d)(?:ull|ll|u|l)\b/gi, '$1')
    .replace(/(\d)_(\d)/g, '$1$2')
    .trim();
  assert.match(expression, /^[\d.eE+\-*/<>() ]+$/, `${name} = ${m[1]} is a plain numeric expression`);
  return Function(`"use strict"; return (${expression});`)();
}

test('docs/limits.md: every limit in the table is the value of the constant it names', () => {
  const rows = limitRows();
  assert.ok(rows.length >= 20, `${rows.length} rows`);
  let checked = 0;
  for (const [input, value, constant] of rows) {
    if (constant === '—') continue;
    const m = constant.match(/^`([^`]+)` `([A-Za-z_]\w*)`$/);
    assert.ok(m, `row "${input}": constant cell "${constant}" is \`file\` \`NAME\``);
    const [, file, name] = m;
    assert.equal(constantValue(file, name), Number(value), `row "${input}": ${file} ${name}`);
    checked++;
  }
  assert.ok(checked >= 18, `${checked} constants checked`);
});

test('docs/limits.md: the exit codes of the command line are those of cli/flags.hpp', () => {
  const text = fs.readFileSync(path.join(root, 'docs/limits.md'), 'utf8');
  const documented = [...text.matchAll(/^\| (\d+) \| /gm)].map((m) => Number(m[1]));
  const code = ['kExitOk', 'kExitRefused', 'kExitUsage', 'kExitInterrupted'].map((n) => constantValue('cli/flags.hpp', n));
  assert.deepEqual(documented, code);
});
