// <headlab-value-swap>: the four-record example on the article page, and author
// data given as attributes or JSON content in a bundle-only folder.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { ARTICLE, bundleDir, changes, close, frames, recordChanges, rendered } from './widget-fixtures.mjs';

// Readings are sums of n ≤ 4 products of short decimals: a few ulps of rounding. 1e-12 is far above.
const TOL = 1e-12;
const WEIGHTS = [0.1, 0.2, 0.3, 0.4];
const VALUES = [
  [1, 0, 0],
  [0, 2, 0],
  [0, 0, 3],
  [1, 1, 1],
];

/** Σⱼ wⱼ vⱼ with output columns a and b (0-based) of every value exchanged — computed here, independently of the core. */
function expectedReading(weights, values, a, b) {
  const d = values[0].length;
  const out = new Array(d).fill(0);
  values.forEach((v, j) => {
    const s = v.slice();
    [s[a], s[b]] = [s[b], s[a]];
    s.forEach((x, c) => {
      out[c] += weights[j] * x;
    });
  });
  return out;
}

/** Asserts a widget's readings (read()) of `weights` and `values`: as given, and with output columns 1 and 2 swapped. */
function readingsClose(r, weights, values, what) {
  close(assert, r.reading, expectedReading(weights, values, 0, 0), TOL, `${what} reading`);
  close(assert, r.swapped, expectedReading(weights, values, 0, 1), TOL, `${what} swapped`);
}

/** { reading, swapped, weights, values, valuesSwapped, labels, alert } read from the widget's shadow root. */
async function read(page, selector = 'headlab-value-swap') {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel).shadowRoot;
    const alert = root.querySelector('[role="alert"]');
    const readingRows = [...root.querySelectorAll('.readings tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)),
    );
    const records = [...root.querySelectorAll('.records tbody tr')];
    return {
      alert: alert.hidden ? null : alert.textContent,
      reading: readingRows[0],
      swapped: readingRows[1],
      weights: records.map((tr) => Number(tr.cells[1].querySelector('.num').dataset.value)),
      values: records.map((tr) => JSON.parse(tr.cells[2].dataset.values)),
      valuesSwapped: records.map((tr) => JSON.parse(tr.cells[3].dataset.values)),
      labels: records.map((tr) => tr.cells[0].textContent),
      labelHasMarkup: records.some((tr) => tr.cells[0].children.length > 0),
      readingText: root.querySelector('.readings tbody').textContent,
    };
  }, selector);
}

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

for (const colorScheme of ['light', 'dark']) {
  test(`value swap: draft numbers, columns chosen by mouse (${colorScheme})`, async () => {
    const page = await session.newPage({ colorScheme });
    await page.goto(`${session.url}${ARTICLE}`);
    await rendered(page, 'headlab-value-swap');
    await recordChanges(page);
    let r = await read(page);
    close(assert, r.weights, WEIGHTS, 0, 'weights (the author’s numbers, passed through)');
    close(assert, r.reading, [0.5, 0.8, 1.3], TOL, 'original reading');
    close(assert, r.swapped, [0.8, 0.5, 1.3], TOL, 'reading after swapping columns 1 and 2');
    close(assert, r.swapped, expectedReading(WEIGHTS, VALUES, 0, 1), TOL, 'swapped reading vs independent sum');
    assert.deepEqual(r.valuesSwapped, [
      [0, 1, 0],
      [2, 0, 0],
      [0, 0, 3],
      [1, 1, 1],
    ]);
    assert.match(r.readingText, /0\.50\.81\.3/);

    const widget = page.locator('headlab-value-swap');
    await widget.getByLabel('with column').selectOption('3');
    await frames(page);
    r = await read(page);
    close(assert, r.swapped, expectedReading(WEIGHTS, VALUES, 0, 2), TOL, 'reading after swapping columns 1 and 3');
    close(assert, r.swapped, [1.3, 0.8, 0.5], TOL, 'reading after swapping columns 1 and 3');
    close(assert, r.reading, [0.5, 0.8, 1.3], TOL, 'original reading unchanged');
    close(assert, r.weights, WEIGHTS, 0, 'attention row unchanged');
    assert.match(await widget.locator('.same-row').textContent(), /identical/);
    const detail = (await changes(page)).at(-1);
    assert.equal(detail.column_b, 3);
    close(assert, detail.swapped_reading, [1.3, 0.8, 0.5], TOL, 'change event swapped reading');
    await screenshot(widget, `value-swap-${colorScheme}`);
    assert.deepEqual(page.problems, []);
  });
}

test('value swap: keyboard only', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}${ARTICLE}`);
  await rendered(page, 'headlab-value-swap');
  const widget = page.locator('headlab-value-swap');
  await widget.getByLabel('Swap output column').focus();
  await page.keyboard.press('ArrowDown'); // column a: 1 → 2 (then a = b = 2: nothing swapped)
  await frames(page);
  let r = await read(page);
  close(assert, r.swapped, [0.5, 0.8, 1.3], TOL, 'a = b: reading unchanged');
  await page.keyboard.press('ArrowDown'); // column a: 3, b: 2
  await frames(page);
  r = await read(page);
  close(assert, r.swapped, expectedReading(WEIGHTS, VALUES, 2, 1), TOL, 'reading after swapping columns 3 and 2');
  assert.equal(await widget.getAttribute('column-a'), '3');
  assert.deepEqual(page.problems, []);
});

test('value swap: author data as attributes and as JSON content; labels stay text', async () => {
  const dir = bundleDir({
    'data.html': {
      body: `
<headlab-value-swap id="attrs" weights="0.25, 0.75" values="[[1, 2], [3, -4]]" records='["<b>first</b>", "second"]' column-a="1" column-b="2"></headlab-value-swap>
<headlab-value-swap id="json"><script type="application/json">{"records": ["a", "b", "c"], "weights": [0.5, 0.25, 0.25], "values": [[1, 0, 2], [0, 4, 0], [8, 0, 0]]}</script></headlab-value-swap>`,
    },
  });
  const s = await startSession({ dir, csp: true });
  try {
    const page = await s.newPage();
    await page.goto(`${s.url}data.html`);
    await rendered(page, '#attrs');
    await rendered(page, '#json');
    let r = await read(page, '#attrs');
    readingsClose(
      r,
      [0.25, 0.75],
      [
        [1, 2],
        [3, -4],
      ],
      'attribute data',
    );
    assert.deepEqual(r.labels, ['<b>first</b>', 'second']);
    assert.equal(r.labelHasMarkup, false);
    r = await read(page, '#json');
    readingsClose(
      r,
      [0.5, 0.25, 0.25],
      [
        [1, 0, 2],
        [0, 4, 0],
        [8, 0, 0],
      ],
      'JSON data',
    );
    assert.deepEqual(r.labels, ['a', 'b', 'c']);

    // One parse of the data per change of it and two core calls (plus the swap) per change of
    // anything, however often render(), state, the summary and the SVG export read them.
    const counts = await page.evaluate(() => {
      const w = document.querySelector('#json');
      const core = w.core;
      const parse = JSON.parse;
      let calls = 0,
        parses = 0;
      const counted =
        (name) =>
        (...args) => {
          calls++;
          return core[name](...args);
        };
      w.core = Object.assign(Object.create(core), {
        attention: counted('attention'),
        swapProjectionCoordinates: counted('swapProjectionCoordinates'),
      });
      JSON.parse = (...args) => {
        parses++;
        return parse(...args);
      };
      try {
        w.columnB = 3;
        w.renderNow();
        for (let i = 0; i < 3; i++) {
          void w.state;
          w.exportSvg();
        }
        const column = { calls, parses };
        w.querySelector('script').textContent = '{"weights": [0.5, 0.25, 0.25], "values": [[1, 0, 2], [0, 4, 0], [8, 0, 1]]}';
        w.columnA = 2;
        w.renderNow();
        for (let i = 0; i < 3; i++) {
          void w.state;
          w.exportSvg();
        }
        return { column, data: { calls: calls - column.calls, parses: parses - column.parses }, reading: w.state.swapped_reading };
      } finally {
        JSON.parse = parse;
        w.core = core;
      }
    });
    assert.deepEqual(counts.column, { calls: 3, parses: 0 }, 'a column change: two attention calls and one swap, no parse');
    assert.deepEqual(counts.data, { calls: 3, parses: 1 }, 'new JSON content: one parse');
    close(
      assert,
      counts.reading,
      expectedReading(
        [0.5, 0.25, 0.25],
        [
          [1, 0, 2],
          [0, 4, 0],
          [8, 0, 1],
        ],
        1,
        2,
      ),
      TOL,
      'reading of the new content',
    );
    await screenshot(page.locator('#attrs'), 'value-swap-author-data');
    assert.deepEqual(page.problems, []);
  } finally {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('value swap: bad author data shows a message naming the problem, and recovers', async () => {
  const cases = [
    ['weights="0.2 0.2 0.2 0.2"', /sum to 0\.8.*within 1e-9/],
    ['weights="0.5 NaN 0.5"', /"NaN" is not a finite number/],
    ['weights="1.5 -0.5"', /weights must be ≥ 0/],
    ['weights="0.5 0.5" values="[[1, 2], [3]]"', /values row 2 must be an array of 2 numbers/],
    ['weights="0.5 0.5" values="[[1, 2]]"', /values must have 2 rows/],
    ['values="[[1,2],"', /attribute values is not valid JSON/],
    ['column-b="7"', /column-b="7" must be between 1 and 3/],
    ['records=\'["only one"]\'', /records must be a list of 4 text labels/],
    // Limits (docs/limits.md): 16 records, |entry| ≤ 1e6; one beyond each is a message, never a freeze or Infinity.
    [
      `weights="${Array(17)
        .fill(1 / 17)
        .join(' ')}"`,
      /attribute weights has 17 entries \(records\); the limit is 16/,
    ],
    ['weights="0.5 0.5" values="[[1e200, 2], [3, 4]]"', /values row 1, column 1 is 1e\+200, beyond the magnitude limit ±1e\+6/],
    [`values="${JSON.stringify(Array(4).fill(Array(17).fill(1)))}"`, /values has 17 columns; the limit is 16/],
  ];
  const body =
    cases.map(([attrs], i) => `<headlab-value-swap id="bad${i}" ${attrs}></headlab-value-swap>`).join('\n') +
    '\n<headlab-value-swap id="badjson"><script type="application/json">{"weights": [1], </script></headlab-value-swap>';
  const dir = bundleDir({ 'bad.html': { body } });
  const s = await startSession({ dir, csp: true });
  try {
    const page = await s.newPage();
    await page.goto(`${s.url}bad.html`);
    const alertOf = (id) => page.locator(`#${id} [role="alert"]`);
    for (const [i, [, pattern]] of cases.entries()) {
      await alertOf(`bad${i}`).waitFor({ state: 'visible' });
      assert.match(await alertOf(`bad${i}`).textContent(), pattern, `case ${cases[i][0]}`);
    }
    await alertOf('badjson').waitFor({ state: 'visible' });
    // At the limits: 16 records of 16 values of magnitude 1e6 render finite numbers and no message.
    await page.evaluate(() => {
      const limit = document.createElement('headlab-value-swap');
      limit.id = 'limit';
      limit.setAttribute(
        'weights',
        Array(16)
          .fill(1 / 16)
          .join(' '),
      );
      limit.setAttribute(
        'values',
        JSON.stringify(Array.from({ length: 16 }, (_, i) => Array.from({ length: 16 }, (_, j) => ((i + j) % 2 ? -1e6 : 1e6)))),
      );
      limit.setAttribute('column-b', '16');
      document.body.append(limit);
    });
    await page.locator('#limit .readings tbody tr').first().waitFor();
    const atLimit = await read(page, '#limit');
    assert.equal(atLimit.alert, null);
    assert.equal(atLimit.reading.length, 16);
    assert.ok([...atLimit.reading, ...atLimit.swapped].every(Number.isFinite), 'finite readings at the limits');
    assert.match(await alertOf('badjson').textContent(), /JSON content is not valid JSON/);
    // The text limit, checked before anything is parsed (MAX_ATTRIBUTE_LENGTH, docs/limits.md): the
    // weights, the values and the JSON content padded with spaces to 200,000 characters are read;
    // one character more is refused by its length.
    await page.evaluate((limit) => {
      const pad = (text, n) => text + ' '.repeat(n - text.length);
      for (const extra of [0, 1]) {
        const weights = document.createElement('headlab-value-swap');
        weights.id = `weights-${extra}`;
        weights.setAttribute('weights', pad('0.25 0.25 0.25 0.25', limit + extra));
        const values = document.createElement('headlab-value-swap');
        values.id = `values-${extra}`;
        values.setAttribute('values', pad('[[1,2],[3,4],[5,6],[7,8]]', limit + extra));
        const content = document.createElement('headlab-value-swap');
        content.id = `content-${extra}`;
        const script = document.createElement('script');
        script.type = 'application/json';
        script.textContent = pad('{"weights": [0.5, 0.5], "records": ["a", "b"], "values": [[1, 2], [3, 4]]}', limit + extra);
        content.append(script);
        document.body.append(weights, values, content);
      }
    }, 200000);
    await frames(page);
    const lengthErrors = await page.evaluate(() =>
      Object.fromEntries(
        ['weights', 'values', 'content'].flatMap((k) =>
          [0, 1].map((extra) => [`${k}-${extra}`, document.getElementById(`${k}-${extra}`).error]),
        ),
      ),
    );
    assert.deepEqual(lengthErrors, {
      'weights-0': null,
      'weights-1': 'attribute weights is 200,001 characters long; the limit is 200,000',
      'values-0': null,
      'values-1': 'attribute values is 200,001 characters long; the limit is 200,000',
      'content-0': null,
      'content-1': 'the JSON content is 200,001 characters long; the limit is 200,000',
    });
    await screenshot(page.locator('#bad0'), 'value-swap-bad-attribute');
    // Fixing the attribute clears the message and shows the numbers.
    await page.evaluate(() => document.querySelector('#bad0').setAttribute('weights', '0.4 0.3 0.2 0.1'));
    await alertOf('bad0').waitFor({ state: 'hidden' });
    const r = await read(page, '#bad0');
    close(assert, r.reading, expectedReading([0.4, 0.3, 0.2, 0.1], VALUES, 0, 0), TOL, 'reading after the fix');
    assert.deepEqual(page.problems, []);
  } finally {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
