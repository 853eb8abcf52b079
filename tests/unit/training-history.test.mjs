// The reader of a recorded training run (widgets/transformer/training-history.ts), which the
// induction article's Figure 1 draws on load: the shipped file reads whole, and every malformed
// file is refused with a message naming the file and the field.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { importTs, root } from './load-ts.mjs';

const { parseTrainingHistory } = await importTs('widgets/transformer/training-history.ts');
const shippedText = fs.readFileSync(path.join(root, 'site/pages/data/induction-seed0-training.json'), 'utf8');

test('the shipped history reads whole: every point, step 0 without a training loss', () => {
  const doc = JSON.parse(shippedText);
  const run = parseTrainingHistory(shippedText, 'h.json');
  assert.equal(run.seed, doc.seed);
  assert.equal(run.steps, doc.steps);
  assert.deepEqual(
    run.trace.map((p) => p.step),
    doc.points.map((p) => p.step),
  );
  assert.ok(Number.isNaN(run.trace[0].loss));
  assert.equal(run.trace.at(-1).loss, doc.points.at(-1).loss);
  assert.deepEqual(run.trace.at(-1).induction, doc.points.at(-1).induction);
});

test('a malformed history is refused naming the file and the field', () => {
  const doc = () => JSON.parse(shippedText);
  const cases = [
    ['{', /^history file h\.json: not JSON/],
    ['[]', /expected an object/],
    [JSON.stringify({ ...doc(), steps: -1 }), /"steps" must be an integer from 0 to 20000, got -1/],
    [JSON.stringify({ ...doc(), points: [] }), /"points" must be an array of 1 to 20,001 points/],
  ];
  const edit = (f) => {
    const d = doc();
    f(d);
    return JSON.stringify(d);
  };
  cases.push([edit((d) => (d.points[3].step = 100)), /points\[3\]\.step = 100 does not follow 100/]);
  cases.push([edit((d) => (d.points[2].induction[1][2] = 1.5)), /points\[2\]\.induction holds 1\.5, not an attention mass in \[0, 1\]/]);
  cases.push([edit((d) => d.points[4].previous_token[0].pop()), /points\[4\]\.previous_token is not 2 × 4 like the first point/]);
  cases.push([edit((d) => delete d.points[5].loss), /points\[5\]\.loss must be a finite loss ≥ 0, got undefined/]);
  cases.push([edit((d) => (d.points[0].step = 50)), /points\[1\]\.step = 50 does not follow 50|the first point, and only it, is step 0/]);
  for (const [text, message] of cases) {
    assert.throws(() => parseTrainingHistory(text, 'h.json'), (err) => {
      assert.match(err.message, /^history file h\.json: /);
      assert.match(err.message, message);
      return true;
    });
  }
});
