// Short functions in core/: no function body in core/*.cpp or core/*.hpp runs over
// MAX_FUNCTION_LINES lines, counted from the first line of its declaration (template line and
// return type included, comments before it not) to its closing brace. A longer one is cut into
// named parts, each a concept with a docblock stating shapes. Run as a script
// (`node tests/unit/function-length.test.mjs --list`) it prints the longest functions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// About one screen: a reader holds the whole function in view, and its parts have names.
export const MAX_FUNCTION_LINES = 60;

/**
 * The text with comments, string and character literals and preprocessor lines replaced by
 * spaces (newlines kept, so offsets still map to the same lines). Digit separators (1'000)
 * are not character literals.
 */
export function codeOnly(text) {
  const out = text.split('');
  const blank = (from, to) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  let lineStart = true;
  while (i < text.length) {
    const c = text[i];
    if (lineStart && /\s/.test(c) && c !== '\n') {
      i++;
      continue;
    }
    if (lineStart && c === '#') {
      // A preprocessor line, with its backslash continuations.
      let j = i;
      while (j < text.length && !(text[j] === '\n' && text[j - 1] !== '\\')) j++;
      blank(i, j);
      i = j;
      continue;
    }
    lineStart = c === '\n';
    if (c === '/' && text[i + 1] === '/') {
      const j = text.indexOf('\n', i);
      const end = j < 0 ? text.length : j;
      blank(i, end);
      i = end;
    } else if (c === '/' && text[i + 1] === '*') {
      const j = text.indexOf('*/', i + 2);
      const end = j < 0 ? text.length : j + 2;
      blank(i, end);
      i = end;
    } else if (c === 'R' && text[i + 1] === '"' && !/\w/.test(text[i - 1] ?? '')) {
      const open = text.indexOf('(', i);
      const delimiter = ')' + text.slice(i + 2, open) + '"';
      const j = text.indexOf(delimiter, open);
      const end = j < 0 ? text.length : j + delimiter.length;
      blank(i + 1, end);
      i = end;
    } else if (c === '"' || (c === "'" && !(/[0-9a-fA-F]/.test(text[i - 1] ?? '') && /[0-9a-fA-F]/.test(text[i + 1] ?? '')))) {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
    } else {
      i++;
    }
  }
  return out.join('');
}

/** `s` with every balanced (…) group emptied to (), so only its top level is left. */
function topLevel(s) {
  let depth = 0;
  let out = '';
  for (const c of s) {
    if (c === ')') depth--;
    if (depth === 0) out += c;
    if (c === '(') depth++;
  }
  return out;
}

/**
 * The function definitions of one C++ source: { name, line, lines } for each, where `line` is
 * the first line of the declaration (1-based) and `lines` its length to the closing brace.
 * Namespace, class and struct bodies are looked into; function bodies (their lambdas and local
 * classes included) count as one; brace initialisers and enum bodies are not functions.
 */
export function cppFunctions(text) {
  const code = codeOnly(text);
  const lineOf = (offset) => code.slice(0, offset).split('\n').length;
  const functions = [];
  // Each open brace: 'scope' (namespace, class: look inside), 'function', 'init' (a member's
  // brace initialiser in a constructor's list or a default argument: the header goes on) or
  // 'block' (anything else).
  const stack = [];
  let headerStart = 0;
  let parens = 0; // open parentheses of the declaration being read
  const inScope = () => stack.every((s) => s.kind === 'scope');
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if ((c === '(' || c === ')') && inScope()) {
      parens += c === '(' ? 1 : -1;
    } else if (c === ';' && inScope()) {
      headerStart = i + 1;
    } else if (c === '{') {
      if (!inScope() || parens > 0) {
        // Inside a body, or a default argument's braces (`Options options = {}`).
        stack.push({ kind: inScope() ? 'init' : 'block' });
        continue;
      }
      const raw = code.slice(headerStart, i);
      const lead = raw.match(/^\s*((public|private|protected)\s*:(?!:)\s*)*/)[0].length;
      const header = raw.slice(lead).trim();
      const top = topLevel(header.replace(/\boperator\s*(\(\)|[^\s(]+)/g, 'operator'));
      let kind = 'block';
      if (/^(namespace\b|extern\s*$|(template\s*<[^{]*?>\s*)?(class|struct|union)\b)/.test(header)) kind = 'scope';
      else if (/^(enum\b)/.test(header) || /=/.test(top)) kind = 'block';
      else if (/\)[^:]*:[^:]/.test(top) && /[\w>]$/.test(header)) kind = 'init';
      else if (header.includes('(')) kind = 'function';
      const start = headerStart + lead + (raw.slice(lead).length - raw.slice(lead).trimStart().length);
      const name = (top.match(/([\w:~]+|operator)\s*\(\)[^()]*$/) ?? [null, header.split('(')[0]])[1];
      stack.push({ kind, start, name });
      if (kind === 'scope') headerStart = i + 1;
    } else if (c === '}') {
      const open = stack.pop();
      if (!open) continue;
      if (open.kind === 'function' && inScope()) {
        const line = lineOf(open.start);
        functions.push({ name: open.name, line, lines: lineOf(i) - line + 1 });
      }
      if (open.kind !== 'init' && inScope()) headerStart = i + 1;
    }
  }
  return functions;
}

/** Every function of core/ over MAX_FUNCTION_LINES, longest first, as "file:line name (N lines)". */
export function longFunctions(limit = MAX_FUNCTION_LINES) {
  const all = [];
  for (const file of fs.readdirSync(path.join(root, 'core')).sort()) {
    if (!/\.(cpp|hpp|inc)$/.test(file)) continue;
    for (const f of cppFunctions(fs.readFileSync(path.join(root, 'core', file), 'utf8'))) {
      all.push({ ...f, file: `core/${file}` });
    }
  }
  return all.filter((f) => f.lines > limit).sort((a, b) => b.lines - a.lines);
}

const label = (f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;

test('the scanner finds functions, their first line and their length', () => {
  const source = [
    '#include <x>',
    'namespace a {',
    '// a comment { with braces',
    'template <typename T>',
    'int f(int x = 3) {',
    '  auto g = [](int y) { return y; };',
    '  return g(x) + "}"[0];',
    '}',
    'struct alignas(8) S {',
    '  S() : c{} {',
    '    c[0] = 1;',
    '  }',
    ' public:',
    '  bool operator==(const S&) const { return true; }',
    '  int c[2];',
    '  void g(int x, S s = {});',
    '};',
    "const int table[] = {1'000, 2};",
    'enum class E { x, y };',
    '}  // namespace a',
  ].join('\n');
  assert.deepEqual(
    cppFunctions(source).map((f) => [f.name, f.line, f.lines]),
    [
      ['f', 4, 5],
      ['S', 10, 3],
      ['operator', 14, 1],
    ],
  );
});

test(`no function in core/ runs over ${MAX_FUNCTION_LINES} lines`, () => {
  assert.deepEqual(longFunctions().map(label), []);
});

if (process.argv.includes('--list')) {
  for (const f of longFunctions(Number(process.argv[process.argv.indexOf('--list') + 1]) || 40)) console.log(label(f));
}
