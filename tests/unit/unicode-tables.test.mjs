// core/unicode_classes.hpp is what tests/support/unicode-tables.mjs writes from this Node's
// Unicode tables, so the tokenizer's split and JavaScript's /\p{L}/u agree on every code point.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { unicodeTables } from '../support/unicode-tables.mjs';

test("core/unicode_classes.hpp is the generator's output for this Node's Unicode version", () => {
  const header = fs.readFileSync(new URL('../../core/unicode_classes.hpp', import.meta.url), 'utf8');
  assert.equal(header, unicodeTables());
});
