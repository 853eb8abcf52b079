// The one formatting module (widgets/chart/format.ts): numbers in the words a reader expects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importTs } from './load-ts.mjs';

const f = await importTs('widgets/chart/format.ts');

test('an accuracy is 100% only when every item is right, and 0% only when none is', () => {
  assert.equal(f.formatPercent(0.999955), '99.996%'); // 5 wrong of 111,110: never "100.0%"
  assert.equal(f.formatPercent(1 - 5 / 111110), '99.995%'); // 99.99550…: rounds down, as it should
  assert.equal(f.formatPercent(1), '100%');
  assert.equal(f.formatPercent(0), '0%');
  assert.equal(f.formatPercent(0.75), '75%');
  assert.equal(f.formatPercent(0.427), '42.7%');
  assert.equal(f.formatPercent(0.4789), '47.9%');
  assert.equal(f.formatPercent(0.99951), '99.95%');
  assert.equal(f.formatPercent(0.00001), '0.001%');
  assert.equal(f.formatPercent(1 - 1e-15), 'just under 100%');
  // Rounding never reaches the ends, for every count of wrong items out of 111,110 up to 60.
  for (let wrong = 1; wrong <= 60; wrong++) {
    const text = f.formatPercent((111110 - wrong) / 111110);
    assert.ok(Number(text.replace('%', '')) < 100, `${wrong} wrong: ${text}`);
    assert.ok(Number(text.replace('%', '')) >= 99.9, `${wrong} wrong: ${text}`);
  }
});

test('an accuracy over a known number of items: snapped to its count; in words "all but 5 of 111,110"', () => {
  assert.equal(f.formatAccuracy(111105 / 111110, 111110), '99.995%');
  assert.equal(f.formatAccuracy(111105 / 111110, 111110, { words: true }), 'all but 5 of 111,110');
  assert.equal(f.formatAccuracy(1, 111110, { words: true }), 'all 111,110');
  assert.equal(f.formatAccuracy(0.1 + 0.2 - 0.3 + 1 - 1e-17, 10), '100%'); // 10/10 computed with rounding error
  assert.equal(f.formatCountOf(94012, 111110), '94,012 of 111,110');
  assert.equal(f.formatCountOf(0, 40), 'none of 40');
  assert.equal(f.formatCountOf(5, 6), 'all but 1 of 6');
  assert.equal(f.formatCount(1234567), '1,234,567');
  assert.equal(f.formatCount(-42), '\u221242');
});

test('exact agreement in plain words, no tolerance jargon', () => {
  assert.equal(f.formatDifference(0), 'unchanged to the last bit');
  assert.equal(f.formatDifference(1.1e-16), 'unchanged up to rounding (differences below 10\u207b\u00b9\u00b2)');
  assert.equal(f.formatDifference(0.42), 'changed by up to 0.42');
  assert.doesNotMatch(f.formatDifference(1.1e-16), /[≤<]|1e|tolerance/);
  assert.equal(f.formatNearOne(1), '1');
  assert.equal(f.formatNearOne(1 - 3e-13), 'above 1 \u2212 10\u207b\u00b9\u00b2');
  assert.equal(f.formatNearOne(0.99996), '0.99996');
  assert.equal(f.formatNearOne(0.95), '0.95');
});

test('magnitudes in scientific notation; huge values never print as "Infinity"', () => {
  assert.equal(f.formatScientific(2.2e-16), '2.2 \u00d7 10\u207b\u00b9\u2076');
  assert.equal(f.formatScientific(1e-12, 1), '10\u207b\u00b9\u00b2');
  assert.equal(f.formatScientific(1.3e-31), '1.3 \u00d7 10\u207b\u00b3\u00b9');
  assert.equal(f.formatScientific(0.332, 3), '0.332');
  assert.equal(f.formatScientific(123456), '1.2 \u00d7 10\u2075');
  assert.equal(f.formatScientific(0), '0');
  // 1e400 as text (a literal that large is Infinity already): what a parsed attribute gives.
  for (const huge of [Infinity, Number('1e400'), Number.MAX_VALUE * 2]) {
    assert.equal(f.formatScientific(huge), 'more than 10\u00b3\u2070\u2078');
    assert.doesNotMatch(f.formatMagnitude(huge), /Infinity/);
  }
  assert.equal(f.formatScientific(-Infinity), '\u2212(more than 10\u00b3\u2070\u2078)');
  assert.equal(f.formatMagnitude(1.3e-31), '1.3e\u221231'); // compact table form kept
});

test('bound values: the kind picks the default wording, the format attribute overrides it', () => {
  assert.equal(f.formatBound({ value: 111105 / 111110, kind: 'fraction', of: 111110 }), '99.995%');
  assert.equal(f.formatBound({ value: 111105 / 111110, kind: 'fraction', of: 111110 }, 'count'), 'all but 5 of 111,110');
  assert.equal(f.formatBound({ value: 1, kind: 'fraction', of: 6 }), '100%');
  assert.equal(f.formatBound({ value: 5, kind: 'count' }), '5');
  assert.equal(f.formatBound({ value: 1.3e-31, kind: 'loss' }), '1.3 \u00d7 10\u207b\u00b3\u00b9');
  assert.equal(f.formatBound({ value: 0.70710678, kind: 'number' }), '0.7071');
  assert.equal(f.formatBound({ value: 0.427, kind: 'number' }, 'percent'), '42.7%');
  assert.equal(f.formatBound({ value: 3e-5, kind: 'number' }, 'sci'), '3 \u00d7 10\u207b\u2075');
});

test('the older helpers keep their output', () => {
  assert.equal(f.formatNumber(0.70710678), '0.7071');
  assert.equal(f.formatNumber(-3), '\u22123');
  assert.equal(f.formatNumber(-0.00001), '0');
  assert.deepEqual(f.parseNumbers(f.formatVector([0.5, -1.25])), [0.5, -1.25]);
});
