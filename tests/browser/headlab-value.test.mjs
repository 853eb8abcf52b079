// <headlab-value>: a number in the prose read from the model on the page (its source's
// boundValue), formatted by widgets/chart/format.ts, re-read on the source's `change` event
// and after each of a widget's renders, with the author's fallback text until then.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSession } from './helpers.mjs';

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

const ARTICLE = 'articles/projections-matching-and-content.html';

test("a value before its source shows the fallback, then the source's number; retraining (change) updates it", async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}index.html`);
  await page.waitForFunction(() => customElements.get('headlab-value'));
  const texts = await page.evaluate(async () => {
    const out = {};
    // The source is in the document but not yet upgraded (its class is defined later).
    const src = document.createElement('test-model-source');
    src.id = 'model';
    document.body.append(src);
    const p = document.createElement('p');
    p.innerHTML =
      'Accuracy <headlab-value id="v1" source="model" name="accuracy">about 99%</headlab-value>, ' +
      'or <headlab-value id="v2" source="model" name="accuracy" format="count">most</headlab-value>; ' +
      'unknown <headlab-value id="v3" source="model" name="nope">n/a</headlab-value>; ' +
      'missing <headlab-value id="v4" source="no-such-element" name="accuracy">n/a</headlab-value>.';
    document.body.append(p);
    const read = () =>
      ['v1', 'v2', 'v3', 'v4'].map((id) => `${document.getElementById(id).textContent}|${document.getElementById(id).dataset.state}`);
    out.before = read();
    let wrong = 5;
    customElements.define(
      'test-model-source',
      class extends HTMLElement {
        boundValue(name) {
          return name === 'accuracy' ? { value: (111110 - wrong) / 111110, kind: 'fraction', of: 111110 } : undefined;
        }
      },
    );
    // The values asked customElements.whenDefined before this wait did, so theirs have run by now.
    await customElements.whenDefined('test-model-source');
    out.defined = read();
    // A source added after the values (e.g. by a script) is found on its first change event.
    const late = document.createElement('p');
    late.innerHTML = '<headlab-value id="v5" source="late" name="accuracy">later</headlab-value>';
    document.body.append(late);
    out.lateBefore = document.getElementById('v5').dataset.state;
    const lateSrc = document.createElement('test-model-source');
    lateSrc.id = 'late';
    document.body.append(lateSrc);
    lateSrc.dispatchEvent(new Event('change', { bubbles: true }));
    out.lateAfter = document.getElementById('v5').textContent;
    wrong = 0; // "retrained": every item right now
    src.dispatchEvent(new Event('change', { bubbles: true }));
    out.retrained = read();
    wrong = 40000;
    src.dispatchEvent(new Event('change', { bubbles: true }));
    out.worse = read();
    document.getElementById('v2').setAttribute('format', 'percent');
    out.reformatted = document.getElementById('v2').textContent;
    return out;
  });
  assert.deepEqual(texts.before, ['about 99%|pending', 'most|pending', 'n/a|pending', 'n/a|missing']);
  assert.equal(texts.lateBefore, 'missing');
  assert.equal(texts.lateAfter, '99.995%');
  assert.deepEqual(texts.defined, ['99.995%|bound', 'all but 5 of 111,110|bound', 'n/a|pending', 'n/a|missing']);
  assert.deepEqual(texts.retrained, ['100%|bound', 'all 111,110|bound', 'n/a|pending', 'n/a|missing']);
  assert.deepEqual(texts.worse, ['64%|bound', '71,110 of 111,110|bound', 'n/a|pending', 'n/a|missing']);
  assert.equal(texts.reformatted, '64%');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a widget as the source: the value follows each render of the widget (headlab-render), and is plain text in the sentence', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}${ARTICLE}`);
  await page.waitForFunction(() => document.querySelector('#qk-basis')?.renderCount > 0);
  const r = await page.evaluate(async () => {
    // The page loads only its own elements' entry points; an element added later brings its own.
    await import(new URL('../headlab/value.js', location.href).href);
    const canvas = document.querySelector('#qk-basis');
    // Stands in for a widget's own boundValue: the angle it shows.
    canvas.boundValue = (name) => (name === 'angle' ? { value: canvas.angle, kind: 'number' } : undefined);
    const p = document.createElement('p');
    p.innerHTML = 'The basis is turned by <headlab-value source="qk-basis" name="angle">some</headlab-value> degrees.';
    canvas.before(p);
    const v = p.querySelector('headlab-value');
    const first = v.textContent;
    // The widget's next render (its headlab-render event reaches the value through the document after this listener).
    const rendered = new Promise((res) => canvas.addEventListener('headlab-render', res, { once: true }));
    canvas.angle = -75.5;
    await rendered;
    return { first, after: v.textContent, sentence: p.textContent, shadow: v.shadowRoot === null };
  });
  assert.equal(r.after, '\u221275.5');
  assert.match(r.sentence, /^The basis is turned by −75\.5 degrees\.$/);
  assert.equal(r.shadow, true);
  assert.deepEqual(page.problems, []);
  await page.close();
});
