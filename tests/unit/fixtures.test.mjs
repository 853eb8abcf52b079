// Fixtures written by a script of the repository's own (not by an independent reference) must be
// that script's current output: the example exporter's files under tests/data/export record the
// exporter's SHA-256, so changing examples/own-model/export_model.py without rerunning
// tests/data/export/make_fixtures.py fails here rather than testing an old exporter.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('tests/data/export was written by the current examples/own-model/export_model.py', () => {
  const script = fs.readFileSync(path.join(root, 'examples/own-model/export_model.py'));
  const reference = JSON.parse(fs.readFileSync(path.join(root, 'tests/data/export/reference.json'), 'utf8'));
  assert.equal(
    reference.script_sha256,
    crypto.createHash('sha256').update(script).digest('hex'),
    'rerun /usr/bin/python3 tests/data/export/make_fixtures.py',
  );
});
